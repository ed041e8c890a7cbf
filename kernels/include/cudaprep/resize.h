// Resize + colour conversion + letterbox in one pass on the GPU.
//
// resize() reads any source format of image.h through its pitched view
// (any offset, any pitch), converts every source pixel to RGBA in [0, 255]
// (YUV through `source_colorimetry`; 10/12/16-bit samples on the same scale
// with their extra bits as fractions, never rounded to 8 bits; chroma replicated over its 2x2 or
// 2x1 block as OpenCV's cvtColor does), resamples into `dst_rect` of the destination, fills the
// rest of the destination with `pad_value`, and stores in the destination format, rounding to
// nearest (ties to even, or up: ResizeParams::round_half_up) and saturating. Sampling follows
// OpenCV's cv::resize for 8-bit images:
//
//   kNearest   source index = min(floor(d * (1.0 / (dst_size / src_size))),
//              src_size - 1), evaluated in IEEE double exactly as OpenCV's
//              INTER_NEAREST does, so it picks the same source pixel.
//   kBilinear  half-pixel centres (align_corners = false, INTER_LINEAR):
//              s = (d + 0.5) * src_size / dst_size - 0.5, border replicate.
//              No antialiasing when shrinking, like OpenCV and PyTorch.
//   kBicubic   same centres, Keys kernel with A = -0.75 (INTER_CUBIC), 4x4
//              taps, border replicate; overshoot saturates to [0, 255].
//   kArea      each output pixel is the area-weighted mean of the source
//              pixels its footprint [d, d + 1) * src_size / dst_size covers.
//              Equals INTER_AREA when both axes shrink or both grow; when one
//              shrinks and the other grows OpenCV falls back to a bilinear
//              variant on both axes, we keep the true area mean.
//
// The GRAY8 destination holds luma as cv::cvtColor(COLOR_RGB2GRAY) computes
// it, 0.299 R + 0.587 G + 0.114 B (BT.601 weights whatever the source
// colorimetry), from the resampled RGB. A GRAY8 source reads as R = G = B.
// Alpha is resampled like any channel (not premultiplied); sources without
// alpha are opaque (255), and the x byte of RGBx/BGRx destinations is 255.
//
// With ResizeParams::antialias, bilinear and bicubic follow instead the
// antialiased definition of torchvision (torch.nn.functional.interpolate(...,
// antialias=True)) and PIL's Image.resize, on both axes whatever the scale:
//   scale   = src_size / dst_size, filter_scale = max(scale, 1)
//   support = base_support * filter_scale (base 1 for the triangle filter of
//             bilinear, 2 for the cubic of bicubic, which uses A = -0.5 as
//             PIL and torchvision do)
//   centre  = (d + 0.5) * scale
//   taps    i in [max(int(centre - support + 0.5), 0),
//                 min(int(centre + support + 0.5), src_size))
//   weight  filter((i - centre + 0.5) / filter_scale), normalised so that the
//           weights of each output pixel sum to 1 (no border replicate).
// Downscales then average every source pixel under the widened filter
// instead of aliasing; upscales equal the unwidened filter (bilinear then
// differs from OpenCV only at the borders, bicubic by its A). Evaluated in
// float32, one pass: each thread computes its own weights (no tables, no
// allocation). torchvision on float tensors (and on uint8 tensors on the
// GPU, which it resizes as floats and rounds once) equals it to float
// rounding.
//
// ResizeParams::antialias_intermediate = kUint8 keeps instead the 8-bit
// intermediate of PIL's Image.resize and of torch's CPU uint8 kernels
// (torchvision's Resize on uint8 CPU tensors): the horizontal pass runs
// first, over every source row the vertical pass reads, and its result,
// normalised by its own weights, is rounded half up (floor(v + 0.5)) and
// clamped to [0, 255]; the vertical pass then resamples those 8-bit values
// and is rounded and clamped the same way. An axis whose size does not
// change is the identity either way (its weights are 1 and 0), so it also
// covers PIL and torch skipping that pass. Their weights are fixed point
// (PIL: 22 fraction bits; torch: int16 with a per-axis precision), ours
// float32: a value near a half may round the other way, so the result is
// within 1 of theirs, mostly equal.
//
// With ResizeParams::orientation the source is flipped or rotated first
// (geometry.h's table, whole pixels): the result is the resize of the
// oriented source, bit for bit, with every method, antialias, letterbox and
// format (4:2:0 chroma moves with its luma). The samplers read the oriented
// image through its coordinates; nothing is copied.
//
// Sampling happens on RGB values that are clamped but not rounded, so the
// result is within 1 of "cvtColor to RGB, then cv::resize". One deliberate
// difference: OpenCV reads limited-range luma codes below 16 as 16; we apply
// the matrix to every code as written (only "blacker than black" differs).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "cudaprep/color.h"
#include "cudaprep/geometry.h"
#include "cudaprep/image.h"

namespace cudaprep {

enum class Interpolation { kNearest, kBilinear, kBicubic, kArea };

inline const char *interpolation_name(Interpolation method) {
  switch (method) {
    case Interpolation::kNearest:
      return "nearest";
    case Interpolation::kBilinear:
      return "bilinear";
    case Interpolation::kBicubic:
      return "bicubic";
    case Interpolation::kArea:
      return "area";
  }
  return "an unknown method";
}

// A rectangle of whole pixels: columns [x, x + width), rows [y, y + height).
struct PixelRect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};

// What the antialiased samplers keep between their horizontal and vertical
// passes (above).
enum class AntialiasIntermediate {
  kFloat,  // unrounded: torchvision on float tensors
  kUint8,  // rounded half up to 8 bits: PIL, torch's CPU uint8 kernels
};

inline const char *antialias_intermediate_name(AntialiasIntermediate intermediate) {
  switch (intermediate) {
    case AntialiasIntermediate::kFloat:
      return "float";
    case AntialiasIntermediate::kUint8:
      return "uint8";
  }
  return "an unknown intermediate";
}

struct ResizeParams {
  Interpolation interpolation = Interpolation::kBilinear;
  // How YUV sources (NV12, I420, YUY2, P01x) map to RGB; ignored for the others.
  Colorimetry source_colorimetry;
  // Where the whole source lands in the destination, stretched to exactly
  // this size; letterbox_rect() (resize_geometry.h) computes one that keeps
  // the aspect ratio. The default 0x0 rectangle means the whole destination.
  // It may reach beyond the destination: only the part inside is written,
  // every tap still reading the whole source, so a crop (x, y, w, h) of a
  // resize into rectangle R is the resize into R moved by (-x, -y) in a w x h
  // destination, bit for bit, with no 8-bit frame in between.
  PixelRect dst_rect;
  // Written to every destination pixel outside dst_rect, as R, G, B, A in
  // [0, 255] whatever the destination's byte order: BGR stores {B, G, R}, a
  // GRAY8 destination stores the luma of {R, G, B} (use {v, v, v} for v),
  // RGBx/BGRx store 255 in the x byte.
  uint8_t pad_value[4] = {0, 0, 0, 255};
  // Bilinear and bicubic only: the antialiased definition above instead of
  // OpenCV's. Off keeps every result OpenCV-exact as before.
  bool antialias = false;
  // With antialias: the pass intermediate (above). kUint8 needs antialias.
  AntialiasIntermediate antialias_intermediate = AntialiasIntermediate::kFloat;
  // preprocess() only: normalise the resampled value as it is, unrounded
  // and unclamped (bicubic overshoot kept), as a reference that resizes
  // floats does (Depth-Anything's cv2.resize(img / 255.0, INTER_CUBIC),
  // torchvision on float tensors). Bilinear and bicubic then place their
  // samples as cv::resize does for float images: (d + 0.5) * (1 / (dst /
  // src)) - 0.5 in double, rounded to float (the 8-bit path keeps its float
  // fma). resize() refuses it: its destination is 8-bit.
  bool float_intermediate = false;
  // The 8-bit store (resize()'s destination, preprocess()'s 8-bit step)
  // rounds a value exactly between two codes up instead of to even:
  // OpenCV's fixed-point cv::resize of 8-bit images does (its sums start at
  // half a unit), so a 6:1 INTER_LINEAR shrink, whose samples all fall
  // midway, matches it only this way. Other values round as before.
  bool round_half_up = false;
  // The flip or rotation applied to the source first (above): dst_rect
  // receives the oriented source, H x W for rotations by 90 and 270.
  Orientation orientation = Orientation::kIdentity;
};

// Formats resize() reads: all of PixelFormat.
bool is_resize_source_format(PixelFormat format);
// Formats resize() writes: RGB BGR RGBA BGRA RGBx BGRx GRAY8.
bool is_resize_destination_format(PixelFormat format);

// Why resize(src, dst, params) cannot run, in words a user can act on, or an
// empty string when it can: unsupported formats, empty images, null planes,
// pitches shorter than a row, a dst_rect that is empty or so far outside dst
// that a pixel's position in it overflows an int.
// Cheap and allocation-free when valid: call it at caps/configure time.
std::string resize_params_error(const Image &src, const Image &dst, const ResizeParams &params);

// Enqueues the resize on `stream` and returns without waiting. Returns
// cudaErrorInvalidValue (and launches nothing) when resize_params_error() is
// not empty, otherwise the launch's error. `src` and `dst` must not overlap.
// Antialiased shrinks run in two kernels where preprocess() does (same
// bytes), unless the destination keeps the alpha of an RGBA or BGRA source:
// their row sums take memory ordered on `stream` from the pool that
// preprocess() uses, which keeps what they free. Otherwise it allocates
// nothing.
cudaError_t resize(const Image &src, const Image &dst, const ResizeParams &params,
                   cudaStream_t stream);

// Compiles (or loads from the kernel cache, kernel_runtime.h) on the current
// device what resize() launches for `src_format` frames with `params`'s
// interpolation, antialias and orientation, whatever the views' alignment,
// so that the first frame does not wait for it; antialiased, also the two
// passes' kernels and memory pool. cudaErrorInvalidValue for a format
// resize() cannot read.
cudaError_t prepare_resize(PixelFormat src_format, const ResizeParams &params);

}  // namespace cudaprep
