// Stores of resampled pixels (namespace cudaprep::device): Rgba rounded
// into a byte destination format (resize()), or normalised unrounded into
// tensor elements (preprocess()'s float intermediate, and sources deeper
// than 8 bits).
#pragma once

#include <cstddef>
#include <cstdint>

#include "color_ops.cuh"
#include "cudaprep/image.h"
#include "cudaprep/tensor.h"
#include "element_ops.cuh"
#include "tensor_ops.cuh"

namespace cudaprep::device {

// RGB BGR RGBA BGRA RGBx BGRx GRAY8 as byte indices of each channel.
struct DestinationLayout {
  int bytes_per_pixel;
  int r_index, g_index, b_index;
  int alpha_index;    // -1: none
  bool alpha_filler;  // the x of RGBx/BGRx: always 255
  bool gray;          // one byte of BT.601 luma
};

CUDAPREP_HD DestinationLayout destination_layout(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRGB:
      return {3, 0, 1, 2, -1, false, false};
    case PixelFormat::kBGR:
      return {3, 2, 1, 0, -1, false, false};
    case PixelFormat::kRGBA:
      return {4, 0, 1, 2, 3, false, false};
    case PixelFormat::kBGRA:
      return {4, 2, 1, 0, 3, false, false};
    case PixelFormat::kRGBx:
      return {4, 0, 1, 2, 3, true, false};
    case PixelFormat::kBGRx:
      return {4, 2, 1, 0, 3, true, false};
    case PixelFormat::kGRAY8:
      return {1, 0, 0, 0, -1, false, true};
    default:
      return {0, 0, 0, 0, -1, false, false};
  }
}

// The byte a GRAY8 destination holds for `value` (ties as to_byte()).
__device__ __forceinline__ uint8_t gray_byte(const Rgba &value, bool ties_up) {
  return to_byte(luma_bt601(value), ties_up);
}

__device__ __forceinline__ void store_pixel(uint8_t *row, int x, const Rgba &value,
                                            const DestinationLayout &layout, bool ties_up) {
  uint8_t *pixel = row + static_cast<size_t>(x) * layout.bytes_per_pixel;
  if (layout.gray) {
    pixel[0] = gray_byte(value, ties_up);
    return;
  }
  pixel[layout.r_index] = to_byte(value.x, ties_up);
  pixel[layout.g_index] = to_byte(value.y, ties_up);
  pixel[layout.b_index] = to_byte(value.z, ties_up);
  if (layout.alpha_index >= 0) {
    pixel[layout.alpha_index] = layout.alpha_filler ? 255 : to_byte(value.w, ties_up);
  }
}

// The tensor elements of the resampled `value` normalised unrounded and
// unclamped: elements[c] is output channel c in `order` (GRAY: elements[0]
// only, the BT.601 luma of the unrounded RGB).
template <typename Out>
__device__ __forceinline__ void unrounded_elements(const Rgba &value, ChannelOrder order,
                                                   const ChannelNormalization &norm,
                                                   Out (&elements)[kMaxChannels]) {
  if (order == ChannelOrder::kGray) {
    elements[0] = normalized_value<Out>(luma_bt601(value), norm, 0);
    return;
  }
  const bool bgr = order == ChannelOrder::kBGR;
  const float channels[kMaxChannels] = {bgr ? value.z : value.x, value.y, bgr ? value.x : value.z};
#pragma unroll
  for (int c = 0; c < kMaxChannels; ++c) {
    elements[c] = normalized_value<Out>(channels[c], norm, c);
  }
}

}  // namespace cudaprep::device
