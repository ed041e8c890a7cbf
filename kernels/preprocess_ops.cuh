// One tensor pixel of the fused preprocess (namespace cudaprep::device):
// resize's value, rounded to the bytes resize stores (unless the float
// intermediate is asked for, or the source is deeper than 8 bits),
// normalised and stored as tensorize stores it. preprocess() and
// preprocess_batch() both call it, so a batch item is bit for bit the
// single-item result.
#pragma once

#include <cstdint>

#include "color_ops.cuh"
#include "resample_ops.cuh"
#include "resize_tile.cuh"
#include "source_ops.cuh"
#include "store_ops.cuh"
#include "tensor_ops.cuh"

namespace cudaprep::device {

// Tensor pixel (x, y) of item `batch_index` from `value`, resize's value of
// destination pixel (x, y): rounded to the bytes resize would store in its
// RGB (or GRAY8) destination, each byte normalised as normalize does for its
// output channel, and stored element by element at any strides. `order` is
// uniform over a launch (or a block), so its branch costs nothing. Reads
// value's R, G and B only. kHighBitDepth: the source is deeper than 8 bits
// (is_high_bit_depth_source; store_preprocessed() below).
template <typename Out, bool kHighBitDepth>
__device__ __forceinline__ void store_preprocessed_as(const Rgba &value,
                                                      const ResizeMapping &mapping,
                                                      ChannelOrder order,
                                                      const ChannelNormalization &norm,
                                                      void *tensor, const TensorStrides &strides,
                                                      int batch_index, int x, int y) {
  const int64_t pixel = tensor_offset(strides, batch_index, 0, y, x);
  if (mapping.float_intermediate) {
    store_unrounded_pixel<Out>(tensor, pixel, strides.channel, value, order, norm);
    return;
  }
  if constexpr (kHighBitDepth) {
    // No 8-bit step: the clamped value keeps the source's extra bits.
    const Rgba clamped =
        make_float4(clamp_channel(value.x), clamp_channel(value.y), clamp_channel(value.z), 255.0f);
    store_unrounded_pixel<Out>(tensor, pixel, strides.channel, clamped, order, norm);
    return;
  }
  if (order == ChannelOrder::kGray) {
    store_element(tensor, pixel,
                  normalized_element<Out>(gray_byte(value, mapping.round_half_up), norm, 0));
    return;
  }
  const uint32_t red = to_byte(value.x, mapping.round_half_up);
  const uint32_t green = to_byte(value.y, mapping.round_half_up);
  const uint32_t blue = to_byte(value.z, mapping.round_half_up);
  const bool bgr = order == ChannelOrder::kBGR;
  // Output channel c's byte; constant indices once unrolled keep it in registers.
  const uint32_t bytes[kMaxChannels] = {bgr ? blue : red, green, bgr ? red : blue};
#pragma unroll
  for (int c = 0; c < kMaxChannels; ++c) {
    store_element(tensor, pixel + c * strides.channel, normalized_element<Out>(bytes[c], norm, c));
  }
}

// store_preprocessed_as() for a value sampled from `Source`.
template <typename Out, class Source>
__device__ __forceinline__ void store_preprocessed(const Rgba &value, const ResizeMapping &mapping,
                                                   ChannelOrder order,
                                                   const ChannelNormalization &norm, void *tensor,
                                                   const TensorStrides &strides, int batch_index,
                                                   int x, int y) {
  store_preprocessed_as<Out, is_high_bit_depth_source<Source>::value>(
      value, mapping, order, norm, tensor, strides, batch_index, x, y);
}

// This thread's tensor pixel (x, y) of a width x height item, the block
// sampling together (block_resized_value(), kAntialiased as there): every
// thread of the block calls it; `store(value, x, y)` stores resize's value
// of the pixel (store_preprocessed(), into one tensor or several).
template <Interpolation kMethod, bool kAntialiased, class Source, class Store>
__device__ __forceinline__ void preprocess_block(const Source &src, const ResizeMapping &mapping,
                                                 const TileCapacity &capacity, Rgba *shared,
                                                 int width, int height, const Store &store) {
  const BlockTile tile = this_block_tile();
  const int x = tile.x + tile.local_x;
  const int y = tile.y + tile.local_y;
  const bool outside = x >= width || y >= height;
  if (!kAntialiased && outside) return;  // only tiling needs the whole block
  const Rgba value =
      block_resized_value<kMethod, kAntialiased>(src, mapping, tile, capacity, shared);
  if (outside) return;
  store(value, x, y);
}

}  // namespace cudaprep::device
