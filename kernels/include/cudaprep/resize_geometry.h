// Host-side size maths for cudaresize: where a keep-aspect resize lands
// (letterbox), the output size some models derive from the input ("short
// side S, multiple of M"), and the FrameGeometry a resize implies.
// Functions return false and say why in `*error` (when not null) for inputs
// that have no answer; they never produce a rectangle outside the output.
#pragma once

#include <string>
#include <vector>

#include "cudaprep/geometry.h"
#include "cudaprep/resize.h"

namespace cudaprep {

enum class LetterboxAlign { kCenter, kTopLeft };

struct LetterboxOptions {
  LetterboxAlign align = LetterboxAlign::kCenter;
  // false: never enlarge, a small source sits unscaled in the padding
  // (Ultralytics' scaleup=False).
  bool scale_up = true;
};

// The rectangle of a dst_width x dst_height output that a src_width x
// src_height image fills when scaled with its aspect ratio kept, rounded as
// Ultralytics' LetterBox (and the OpenCV code modelled on it) does:
//   r      = min(dst_width / src_width, dst_height / src_height)  (double;
//            min(r, 1) without scale_up)
//   width  = round(src_width * r), height = round(src_height * r), rounding
//            half to even like Python's round(), at least 1, at most the
//            output size
//   x, y   = kCenter: floor((dst_width - width) / 2),
//            floor((dst_height - height) / 2) -- the odd pixel of padding
//            goes right/bottom; kTopLeft: 0, 0.
bool letterbox_rect(int src_width, int src_height, int dst_width, int dst_height,
                    const LetterboxOptions &options, PixelRect *rect, std::string *error);

// The output size Depth-Anything's Resize(width=S, height=S,
// keep_aspect_ratio=True, ensure_multiple_of=M, resize_method="lower_bound")
// picks, i.e. scale so the short side reaches S, then snap both sides to
// multiples of M without going below S:
//   scale  = max(S / src_width, S / src_height)  (double)
//   side   = round_half_even(src_side * scale / M) * M, and if that is < S,
//            ceil(src_side * scale / M) * M instead.
// Example: 1920x1080, S 518, M 14 -> 924x518. M = 1 gives a plain "short
// side S" resize.
bool short_side_multiple_size(int src_width, int src_height, int short_side, int multiple_of,
                              int *out_width, int *out_height, std::string *error);

// The mapping a resize of a src_width x src_height image, oriented by
// `orientation`, into `dst_rect` applies: scale = dst_rect size / oriented
// size per axis, pad = dst_rect's origin, crop = the source corner that
// lands at the rectangle's top-left (0, 0 without orientation). Compose an
// upstream crop with crop_geometry.then(this).
FrameGeometry resize_frame_geometry(int src_width, int src_height, const PixelRect &dst_rect,
                                    Orientation orientation = Orientation::kIdentity);

// The rows of a src_height-tall source that a resize into rect_height rows
// reads with a nonzero weight, computed with the kernels' own arithmetic
// (sampler_ops.cuh): nearest takes one row per output row; bilinear one, or
// two where the sample falls between rows. A 3x bilinear downscale (1080 ->
// 360) reads rows 1, 4, 7, ...: the upload need not copy the others (their
// weight is exactly zero, so what they hold never reaches the output).
// Empty when not analysed (bicubic, area): every row may be read.
std::vector<bool> resize_rows_read(Interpolation interpolation, int src_height, int rect_height);

}  // namespace cudaprep
