// The tensor pixels of the fused preprocess (namespace cudaprep::device):
// resize's value, rounded to the bytes resize stores (unless the float
// intermediate is asked for, or the source is deeper than 8 bits),
// normalised and stored as tensorize stores it, one pixel per thread
// (preprocess_block) or a run of pixels along a row (preprocess_run).
// preprocess() and preprocess_batch() both call these, so a batch item is
// bit for bit the single-item result.
#pragma once

#include <cstdint>

#include "color_ops.cuh"
#include "resample_ops.cuh"
#include "resize_tile.cuh"
#include "source_ops.cuh"
#include "store_ops.cuh"
#include "tensor_ops.cuh"

namespace cudaprep::device {

// The bytes resize stores for `value` in an RGB (`bgr`: BGR) destination,
// in output channel order; constant indices once unrolled keep them in
// registers.
__device__ __forceinline__ void rgb_bytes(const Rgba &value, bool bgr, bool ties_up,
                                          uint32_t (&bytes)[kMaxChannels]) {
  const uint32_t red = to_byte(value.x, ties_up);
  const uint32_t green = to_byte(value.y, ties_up);
  const uint32_t blue = to_byte(value.z, ties_up);
  bytes[0] = bgr ? blue : red;
  bytes[1] = green;
  bytes[2] = bgr ? red : blue;
}

// The tensor elements of destination pixel value `value`, resize's value:
// rounded to the bytes resize would store in its RGB (or GRAY8)
// destination, each byte normalised as normalize does for its output
// channel; elements[c] is output channel c (GRAY: elements[0] only).
// `order` is uniform over a launch (or a block), so its branch costs
// nothing. kHighBitDepth: the value comes from a source deeper than 8 bits
// (is_high_bit_depth_source), which keeps its extra bits (no 8-bit step).
template <typename Out, bool kHighBitDepth>
__device__ __forceinline__ void preprocessed_elements(const Rgba &value,
                                                      const ResizeMapping &mapping,
                                                      ChannelOrder order,
                                                      const ChannelNormalization &norm,
                                                      Out (&elements)[kMaxChannels]) {
  if (mapping.float_intermediate) {
    unrounded_elements<Out>(value, order, norm, elements);
    return;
  }
  if constexpr (kHighBitDepth) {
    // No 8-bit step: the clamped value keeps the source's extra bits.
    const Rgba clamped =
        make_float4(clamp_channel(value.x), clamp_channel(value.y), clamp_channel(value.z), 255.0f);
    unrounded_elements<Out>(clamped, order, norm, elements);
    return;
  }
  if (order == ChannelOrder::kGray) {
    elements[0] = normalized_element<Out>(gray_byte(value, mapping.round_half_up), norm, 0);
    return;
  }
  uint32_t bytes[kMaxChannels];
  rgb_bytes(value, order == ChannelOrder::kBGR, mapping.round_half_up, bytes);
#pragma unroll
  for (int c = 0; c < kMaxChannels; ++c) elements[c] = normalized_element<Out>(bytes[c], norm, c);
}

// Tensor pixel (x, y) of item `batch_index` from `value`, resize's value of
// destination pixel (x, y): preprocessed_elements() stored element by
// element at any strides (kHighBitDepth as there).
template <typename Out, bool kHighBitDepth>
__device__ __forceinline__ void store_preprocessed_as(const Rgba &value,
                                                      const ResizeMapping &mapping,
                                                      ChannelOrder order,
                                                      const ChannelNormalization &norm,
                                                      void *tensor, const TensorStrides &strides,
                                                      int batch_index, int x, int y) {
  Out elements[kMaxChannels] = {};
  preprocessed_elements<Out, kHighBitDepth>(value, mapping, order, norm, elements);
  const int64_t pixel = tensor_offset(strides, batch_index, 0, y, x);
  const int channels = order == ChannelOrder::kGray ? 1 : kMaxChannels;
#pragma unroll
  for (int c = 0; c < kMaxChannels; ++c) {
    if (c < channels) store_element(tensor, pixel + c * strides.channel, elements[c]);
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

// preprocessed_elements() of each of `values`, 8-bit values into RGB or
// BGR, with the rounding (kTiesUp: mapping.round_half_up) and the division
// (kByReciprocal: norm.by_reciprocal) known at compile time.
template <typename Out, bool kTiesUp, bool kByReciprocal, int N>
__device__ __forceinline__ void rgb_run_elements(const Rgba (&values)[N], bool bgr,
                                                 const ChannelNormalization &norm,
                                                 Out (&elements)[kMaxChannels][N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    uint32_t bytes[kMaxChannels];
    rgb_bytes(values[k], bgr, kTiesUp, bytes);
#pragma unroll
    for (int c = 0; c < kMaxChannels; ++c) {
      elements[c][k] = normalized_byte_element<Out, kByReciprocal>(bytes[c], norm, c);
    }
  }
}

// preprocessed_elements() of each of `values`: elements[c][k] is output
// channel c of values[k]. The per-item choices of the common case (8-bit
// RGB or BGR) are taken once for the run, at compile time, so that its
// pixels run straight through.
template <typename Out, class Source, int N>
__device__ __forceinline__ void preprocessed_run_elements(const Rgba (&values)[N],
                                                          const ResizeMapping &mapping,
                                                          ChannelOrder order,
                                                          const ChannelNormalization &norm,
                                                          Out (&elements)[kMaxChannels][N]) {
  if (!is_high_bit_depth_source<Source>::value && !mapping.float_intermediate &&
      order != ChannelOrder::kGray) {
    const bool bgr = order == ChannelOrder::kBGR;
    if (mapping.round_half_up) {
      norm.by_reciprocal ? rgb_run_elements<Out, true, true>(values, bgr, norm, elements)
                         : rgb_run_elements<Out, true, false>(values, bgr, norm, elements);
    } else {
      norm.by_reciprocal ? rgb_run_elements<Out, false, true>(values, bgr, norm, elements)
                         : rgb_run_elements<Out, false, false>(values, bgr, norm, elements);
    }
    return;
  }
#pragma unroll
  for (int k = 0; k < N; ++k) {
    Out pixel[kMaxChannels] = {};
    preprocessed_elements<Out, is_high_bit_depth_source<Source>::value>(values[k], mapping, order,
                                                                        norm, pixel);
#pragma unroll
    for (int c = 0; c < kMaxChannels; ++c) elements[c][k] = pixel[c];
  }
}

// Tensor pixels (x .. x + kRunLength - 1, y) of a `width`-wide item, one
// thread's run along a row (the batched kernel's run path), bilinear or
// bicubic and not antialiased: each pixel's value and elements are those
// preprocess_block() and store_preprocessed() give it, so the same bits;
// what the run shares is the item's constants, the rows' maths and
// addresses and, for a whole run, one kRunLength-element store per channel.
// The tensor's rows must be contiguous (width stride one element) and every
// run's first element aligned for store_run(). Pixels past the row's end
// (rows padded beyond a width that is no multiple of kRunLength) are
// computed again from its last pixel, the same work in every lane, and
// never stored.
template <Interpolation kMethod, typename Out, class Source>
__device__ __forceinline__ void preprocess_run(const Source &src, const ResizeMapping &mapping,
                                               ChannelOrder order, const ChannelNormalization &norm,
                                               void *tensor, const TensorStrides &strides,
                                               int batch_index, int x, int y, int width) {
  Rgba values[kRunLength];
  run_values<kMethod>(src, x, y, width, mapping, values);
  Out elements[kMaxChannels][kRunLength];
  preprocessed_run_elements<Out, Source>(values, mapping, order, norm, elements);
  const int64_t first = tensor_offset(strides, batch_index, 0, y, x);
  const int channels = order == ChannelOrder::kGray ? 1 : kMaxChannels;
  if (x + kRunLength <= width) {
#pragma unroll
    for (int c = 0; c < kMaxChannels; ++c) {
      if (c < channels)
        store_run(byte_offset<Out>(tensor, first + c * strides.channel), elements[c]);
    }
    return;
  }
#pragma unroll
  for (int c = 0; c < kMaxChannels; ++c) {
#pragma unroll
    for (int k = 0; k < kRunLength; ++k) {
      if (c < channels && x + k < width) {
        store_element(tensor, first + c * strides.channel + k * strides.width, elements[c][k]);
      }
    }
  }
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
