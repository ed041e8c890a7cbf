// The CPU reference of a whole generated composition (issue 23), composed
// only from the per-element references of tests/reference/: a crop is a
// sub-rectangle copy of the frame, cudaresize is ref::resize_reference()
// (decode, orient, resample into the letterbox rectangle, pad, encode),
// cudanormalize is reference::normalize() (rounded to binary16 by
// reference::round_to_half() when it emits float16), cudatensorize is
// reference::tensorize() into a zeroed batch (unfilled items stay zero),
// and cudabatch's region item is the same composition with one more crop, of
// the region, before the resize (item_pipeline()).
// The expected geometry composes each step's FrameGeometry (a crop's
// offset; resize_frame_geometry() for the resize) with FrameGeometry::then.
//
// Tolerance, reused from the element suites for the same chain:
//  - no cudaresize in the chain: bit-exact, as test_tensor_elements'
//    TensorOutput (crop views add no arithmetic);
//  - with a cudaresize: values the resize resampled within one 8-bit step
//    after normalisation, scale / std[c], times kStepSlack
//    (test_resize_pixels: +-1 on the 8-bit scale; test_full_chain:
//    1.0 + 1e-4 steps), letterbox borders exact (test_resize_pixels), and
//    at most kMaxOffFraction of them off at all (test_full_chain's 2%),
//    counted over the whole run; a float16 tensor adds one binary16
//    spacing at the value (two roundings to nearest of values one step
//    apart);
//  - with antialias-intermediate=uint8: where a horizontal value lies
//    within ref::kTieWindow of x.5 (a float kernel may round it either way),
//    the steps its other rounding moves the output are allowed on top.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "composition/generator.h"
#include "reference/color_ref.h"
#include "reference/normalize_ref.h"

namespace cudaprep::composition {

constexpr double kStepSlack = 1.0 + 1e-4;     // test_full_chain: 1.0 + 1e-4 steps
constexpr double kMaxOffFraction = 1.0 / 50;  // test_full_chain: expected.size() / 50

// The `rect` of `frame` as a frame of its own (plane by plane, whole units;
// rect.x and rect.y even where the chroma is subsampled, rect.x even for
// YUY2, as cudacrop rounds them).
ref::HostFrame crop_frame(const ref::HostFrame &frame, const PixelRect &rect);

// What one frame becomes in the tensor.
struct ItemReference {
  int channels = 0, height = 0, width = 0;
  // The values the tensor holds, CHW (float16 tensors: already binary16).
  std::vector<float> chw;
  // Per pixel (row-major, height x width): the 8-bit steps its value may
  // be off: 0 where it must be exact (no resize, or a letterbox border), 1
  // where a cudaresize resampled it, more where that resize's 8-bit
  // intermediate held values a float kernel may round either way
  // (ref::resample()'s tie_steps).
  std::vector<uint8_t> resampled;
  FrameGeometry geometry;
};

// The 8-bit frame cudanormalize receives for `input` (a frame of the
// pipeline's input format and size), and which of its pixels were
// resampled (`resampled`, may be null).
ref::HostFrame chain_frame(const Pipeline &pipeline, const ref::HostFrame &input,
                           std::vector<uint8_t> *resampled);

ItemReference item_reference(const Pipeline &pipeline, const ref::HostFrame &input);

// The pipeline whose whole-frame item is `item` of `pipeline` (cudabatch's
// region items): the crops before the cudaresize, one more crop of the
// region, then the cudaresize resizing the region (its letterbox computed
// for the region's size) or, where no resize is pending, a bilinear stretch
// of the region to the tensor's frame. `pipeline` itself for a whole-frame
// item.
Pipeline item_pipeline(const Pipeline &pipeline, const ItemSpec &item);

// What `item` of the frame `input` becomes in the tensor.
ItemReference item_reference(const Pipeline &pipeline, const ref::HostFrame &input,
                             const ItemSpec &item);

// Source frame -> tensor pixels, from the stages alone.
FrameGeometry expected_geometry(const Pipeline &pipeline);

// The tensor cudatensorize or cudabatch makes: contiguous, batch-size items.
TensorDesc tensor_desc(const Pipeline &pipeline);

// The bytes of a tensor holding `items` (the first ones; the rest zero).
std::vector<uint8_t> expected_tensor(const Pipeline &pipeline,
                                     const std::vector<const ItemReference *> &items);

// Element (n, c, y, x) of a tensor's bytes as a float.
float tensor_value(const TensorDesc &desc, const std::vector<uint8_t> &bytes, int n, int c, int y,
                   int x);

struct ItemComparison {
  int64_t elements = 0;      // compared
  int64_t resampled = 0;     // of them within a step allowed
  int64_t differing = 0;     // not bit-equal
  int64_t beyond = 0;        // outside the tolerance
  double worst_steps = 0;    // largest difference, in 8-bit steps
  std::string first_beyond;  // where, and the values
};

// Item `n` of `actual` (a whole tensor's bytes) against `expected`.
ItemComparison compare_item(const Pipeline &pipeline, const std::vector<uint8_t> &actual, int n,
                            const ItemReference &expected);

}  // namespace cudaprep::composition
