// What the resize() suites (kernels/test_resize_gpu.cpp and
// test_resize_exact_gpu.cpp) share: source views of oddly pitched frames,
// poisoned destination views and the check of one against a frame.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/image.h"
#include "cudaprep/resize.h"
#include "reference/color_ref.h"

namespace cudaprep::test::resize_gpu_rig {

const Interpolation kMethods[] = {Interpolation::kNearest, Interpolation::kBilinear,
                                  Interpolation::kBicubic, Interpolation::kArea};

// Where a view starts inside a larger frame, in pixels.
struct ViewOffset {
  int left = 0;
  int top = 0;
};

// The width x height window of `frame` at `offset`, as a compact frame.
ref::HostFrame window(const ref::HostFrame &frame, const ViewOffset &offset, int width, int height);

// A device copy of `parent` (same pitches) and the view of it at `offset`.
void upload_view(const ref::HostFrame &parent, const ViewOffset &offset, int width, int height,
                 DeviceAllocations *allocations, Image *view);

// Random bytes in every plane of `frame`.
void fill_random(ref::HostFrame *frame, unsigned seed);

// A source view: a crop at an offset (even for subsampled chroma) of a
// larger frame whose pitch is row bytes + 13, so rows start unaligned
// (+ 14 for 16-bit samples, which must stay 2-byte aligned).
struct SourceView {
  ref::HostFrame visible;  // what the view shows, for the reference
  Image device;
};

void make_source_view(PixelFormat format, int width, int height, unsigned seed,
                      DeviceAllocations *allocations, SourceView *source);

// A destination view inside a poisoned frame with a border of
// kGuardPixels on every side and 7 spare bytes per row.
constexpr int kGuardPixels = 2;

struct DestinationView {
  ref::HostFrame parent;  // downloaded after the run
  uint8_t *device_base = nullptr;
  Image device;
};

void make_destination_view(PixelFormat format, int width, int height,
                           DeviceAllocations *allocations, DestinationView *destination);

// resize(src, params) into `destination` on `stream`, waited for, and the
// destination's parent frame copied back: the first CUDA error on the way.
cudaError_t resize_and_download(const Image &src, const ResizeParams &params, cudaStream_t stream,
                                DestinationView *destination);

struct Comparison {
  long long values = 0;
  long long off_by_one = 0;
};

// The view must match `expected` within `tolerance`; every byte of the
// parent outside the view must still be poison.
::testing::AssertionResult check_destination(const DestinationView &destination,
                                             const ref::HostFrame &expected, int tolerance,
                                             const std::string &what, Comparison *stats);

struct Case {
  PixelFormat src_format;
  int src_width, src_height;
  PixelFormat dst_format;
  int dst_width, dst_height;
  ResizeParams params;
};

std::string describe(const Case &c);

class ResizeGpu : public test::GpuStreamTest {};

struct SizePair {
  int src_width, src_height, dst_width, dst_height;
};

}  // namespace cudaprep::test::resize_gpu_rig
