// Tensor vocabulary shared by normalize, tensorize and the file writers of
// io/ (.npy, DLPack): element types, NCHW/NHWC descriptors with byte
// strides, and the planar (one plane per channel) float frame that lies
// between cudanormalize and cudatensorize.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudaprep/image.h"

namespace cudaprep {

enum class DataType : int { kUInt8, kFloat16, kFloat32 };

CUDAPREP_HD size_t data_type_size(DataType dtype) {
  switch (dtype) {
    case DataType::kUInt8:
      return 1;
    case DataType::kFloat16:
      return 2;
    case DataType::kFloat32:
      return 4;
  }
  return 0;
}

// The spelling used in caps ("dtype" field) and in messages.
inline const char *data_type_name(DataType dtype) {
  switch (dtype) {
    case DataType::kUInt8:
      return "uint8";
    case DataType::kFloat16:
      return "float16";
    case DataType::kFloat32:
      return "float32";
  }
  return "unknown";
}

// Order of the output channels. kGray is the single channel of a GRAY8
// source; a GRAY8 source may also be expanded to kRGB/kBGR (three equal
// channels) for networks that want three.
enum class ChannelOrder : int { kRGB, kBGR, kGray };

CUDAPREP_HD int channel_count(ChannelOrder order) {
  return order == ChannelOrder::kGray ? 1 : 3;
}

// The spelling used in caps ("channel-order" field).
inline const char *channel_order_name(ChannelOrder order) {
  switch (order) {
    case ChannelOrder::kRGB:
      return "RGB";
    case ChannelOrder::kBGR:
      return "BGR";
    case ChannelOrder::kGray:
      return "GRAY";
  }
  return "unknown";
}

constexpr int kMaxChannels = 3;

// mean[c] and std[c] belong to OUTPUT channel c: with kBGR, mean[0] is the
// blue channel's mean. Only the first channel_count(channel_order) entries
// are used. The defaults map 0..255 to 0..1.
struct NormalizeParams {
  float scale = 1.0f / 255.0f;
  float mean[kMaxChannels] = {0.0f, 0.0f, 0.0f};
  float std[kMaxChannels] = {1.0f, 1.0f, 1.0f};
  ChannelOrder channel_order = ChannelOrder::kRGB;
};

// Where each output channel sits inside one pixel of an 8-bit interleaved
// source: output channel c is byte source_offset[c] of the pixel. Alpha and
// padding bytes are never read.
struct InterleavedChannelMap {
  int bytes_per_pixel = 0;
  int num_channels = 0;
  int source_offset[kMaxChannels] = {};
};

// False if `format` is not 8-bit interleaved or cannot give `order` (a colour
// source cannot give kGray: that would need a luma conversion).
CUDAPREP_HD bool interleaved_channel_map(PixelFormat format, ChannelOrder order,
                                         InterleavedChannelMap *map) {
  int red = 0, green = 0, blue = 0, bytes_per_pixel = 0;
  switch (format) {
    case PixelFormat::kRGBA:
    case PixelFormat::kRGBx:
      red = 0, green = 1, blue = 2, bytes_per_pixel = 4;
      break;
    case PixelFormat::kBGRA:
    case PixelFormat::kBGRx:
      red = 2, green = 1, blue = 0, bytes_per_pixel = 4;
      break;
    case PixelFormat::kRGB:
      red = 0, green = 1, blue = 2, bytes_per_pixel = 3;
      break;
    case PixelFormat::kBGR:
      red = 2, green = 1, blue = 0, bytes_per_pixel = 3;
      break;
    case PixelFormat::kGRAY8:
      red = 0, green = 0, blue = 0, bytes_per_pixel = 1;
      break;
    default:
      return false;
  }
  if (order == ChannelOrder::kGray && format != PixelFormat::kGRAY8) return false;
  map->bytes_per_pixel = bytes_per_pixel;
  map->num_channels = channel_count(order);
  const int rgb[kMaxChannels] = {red, green, blue};
  for (int c = 0; c < map->num_channels; ++c) {
    map->source_offset[c] = order == ChannelOrder::kBGR ? rgb[2 - c] : rgb[c];
  }
  return true;
}

// A planar frame: channel c is a pitched plane at planes[c], all planes
// sharing one pitch. Views are allowed (pitch_bytes need not equal
// width * element size).
struct PlanarImage {
  void *planes[kMaxChannels] = {};
  size_t pitch_bytes = 0;
  int width = 0;
  int height = 0;
  int channels = 0;
  DataType dtype = DataType::kFloat32;
};

// Why `image` is not a usable planar frame (1 to 3 float32 or float16
// planes with memory, aligned to the element size, sharing a pitch that
// holds a row), or an empty string.
std::string planar_image_error(const PlanarImage &image);

// Why `image` is not a usable 8-bit interleaved frame giving `order`, or an
// empty string; when empty, `map` says where each output channel is.
std::string interleaved_image_error(const Image &image, ChannelOrder order,
                                    InterleavedChannelMap *map);

enum class TensorLayout : int { kNCHW, kNHWC };

inline const char *tensor_layout_name(TensorLayout layout) {
  return layout == TensorLayout::kNCHW ? "NCHW" : "NHWC";
}

constexpr int kTensorRank = 4;

// A rank-4 image tensor. dims and strides_bytes are in the layout's own order:
// NCHW -> {N, C, H, W}, NHWC -> {N, H, W, C}.
struct TensorDesc {
  int64_t dims[kTensorRank] = {};
  int64_t strides_bytes[kTensorRank] = {};
  DataType dtype = DataType::kFloat32;
  TensorLayout layout = TensorLayout::kNCHW;
};

// Position of each logical axis in dims[] / strides_bytes[] for `layout`.
struct TensorAxes {
  int batch, channel, height, width;
};

CUDAPREP_HD TensorAxes tensor_axes(TensorLayout layout) {
  return layout == TensorLayout::kNCHW ? TensorAxes{0, 1, 2, 3} : TensorAxes{0, 3, 1, 2};
}

// The logical sizes of a tensor, whatever its layout.
struct TensorShape {
  int64_t batch, channels, height, width;
};

CUDAPREP_HD TensorShape tensor_shape(const TensorDesc &desc) {
  const TensorAxes axes = tensor_axes(desc.layout);
  return {desc.dims[axes.batch], desc.dims[axes.channel], desc.dims[axes.height],
          desc.dims[axes.width]};
}

// Byte strides of the logical axes, whatever the layout.
CUDAPREP_HD TensorShape tensor_strides_bytes(const TensorDesc &desc) {
  const TensorAxes axes = tensor_axes(desc.layout);
  return {desc.strides_bytes[axes.batch], desc.strides_bytes[axes.channel],
          desc.strides_bytes[axes.height], desc.strides_bytes[axes.width]};
}

// A dense row-major tensor of the given logical sizes in `layout`.
inline TensorDesc make_contiguous_tensor_desc(TensorLayout layout, int64_t batch, int64_t channels,
                                              int64_t height, int64_t width, DataType dtype) {
  TensorDesc desc;
  desc.dtype = dtype;
  desc.layout = layout;
  const TensorAxes axes = tensor_axes(layout);
  desc.dims[axes.batch] = batch;
  desc.dims[axes.channel] = channels;
  desc.dims[axes.height] = height;
  desc.dims[axes.width] = width;
  int64_t stride = static_cast<int64_t>(data_type_size(dtype));
  for (int axis = kTensorRank - 1; axis >= 0; --axis) {
    desc.strides_bytes[axis] = stride;
    stride *= desc.dims[axis];
  }
  return desc;
}

inline int64_t tensor_element_count(const TensorDesc &desc) {
  int64_t count = 1;
  for (int axis = 0; axis < kTensorRank; ++axis) count *= desc.dims[axis];
  return count;
}

// Bytes from the first element to one past the last (non-negative strides).
inline size_t tensor_span_bytes(const TensorDesc &desc) {
  if (tensor_element_count(desc) == 0) return 0;
  int64_t last = 0;
  for (int axis = 0; axis < kTensorRank; ++axis) {
    last += (desc.dims[axis] - 1) * desc.strides_bytes[axis];
  }
  return static_cast<size_t>(last) + data_type_size(desc.dtype);
}

inline bool tensor_is_contiguous(const TensorDesc &desc) {
  const TensorShape shape = tensor_shape(desc);
  const TensorDesc dense = make_contiguous_tensor_desc(desc.layout, shape.batch, shape.channels,
                                                       shape.height, shape.width, desc.dtype);
  for (int axis = 0; axis < kTensorRank; ++axis) {
    if (desc.dims[axis] > 1 && desc.strides_bytes[axis] != dense.strides_bytes[axis]) return false;
  }
  return true;
}

}  // namespace cudaprep
