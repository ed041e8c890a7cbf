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

// --- Clips: T frames of one source per item ---------------------------------
// A clip tensor holds N clips of T frames, each frame C x H x W:
//   NCTHW {N, C, T, H, W}: a frame's channel planes lie T planes apart
//     (PyTorchVideo's X3D, SlowFast);
//   NTCHW {N, T, C, H, W}: a frame's planes lie together (VideoMAE,
//     TimeSformer, transformers' pixel_values).
// Either way one frame is a C x H x W image with a channel stride, so the
// image kernels write it in place as a batch-1 NCHW tensor (clip_frame_desc).
enum class ClipLayout : int { kNCTHW, kNTCHW };

inline const char *clip_layout_name(ClipLayout layout) {
  return layout == ClipLayout::kNCTHW ? "NCTHW" : "NTCHW";
}

constexpr int kClipRank = 5;

// A rank-5 clip tensor; dims and strides_bytes in the layout's own order.
struct ClipDesc {
  int64_t dims[kClipRank] = {};
  int64_t strides_bytes[kClipRank] = {};
  DataType dtype = DataType::kFloat32;
  ClipLayout layout = ClipLayout::kNCTHW;
};

// The logical sizes of a clip tensor, whatever its layout.
struct ClipShape {
  int64_t clips, frames, channels, height, width;
};

inline ClipShape clip_shape(const ClipDesc &desc) {
  if (desc.layout == ClipLayout::kNCTHW)
    return {desc.dims[0], desc.dims[2], desc.dims[1], desc.dims[3], desc.dims[4]};
  return {desc.dims[0], desc.dims[1], desc.dims[2], desc.dims[3], desc.dims[4]};
}

// A dense row-major clip tensor of the given logical sizes in `layout`.
inline ClipDesc make_contiguous_clip_desc(ClipLayout layout, int64_t clips, int64_t frames,
                                          int64_t channels, int64_t height, int64_t width,
                                          DataType dtype) {
  ClipDesc desc;
  desc.dtype = dtype;
  desc.layout = layout;
  const bool channels_first = layout == ClipLayout::kNCTHW;
  const int64_t dims[kClipRank] = {clips, channels_first ? channels : frames,
                                   channels_first ? frames : channels, height, width};
  int64_t stride = static_cast<int64_t>(data_type_size(dtype));
  for (int axis = kClipRank - 1; axis >= 0; --axis) {
    desc.dims[axis] = dims[axis];
    desc.strides_bytes[axis] = stride;
    stride *= dims[axis];
  }
  return desc;
}

// Bytes from the first element to one past the last (non-negative strides).
inline size_t clip_span_bytes(const ClipDesc &desc) {
  int64_t last = 0;
  for (int axis = 0; axis < kClipRank; ++axis) {
    if (desc.dims[axis] <= 0) return 0;
    last += (desc.dims[axis] - 1) * desc.strides_bytes[axis];
  }
  return static_cast<size_t>(last) + data_type_size(desc.dtype);
}

// Frame `frame` of clip `clip` as the image kernels see it: a batch-1 NCHW
// tensor starting `*offset_bytes` after the clip tensor's first element.
inline TensorDesc clip_frame_desc(const ClipDesc &desc, int64_t clip, int64_t frame,
                                  size_t *offset_bytes) {
  const bool channels_first = desc.layout == ClipLayout::kNCTHW;
  const int frame_axis = channels_first ? 2 : 1;
  const int channel_axis = channels_first ? 1 : 2;
  *offset_bytes =
      static_cast<size_t>(clip * desc.strides_bytes[0] + frame * desc.strides_bytes[frame_axis]);
  TensorDesc frame_desc;
  frame_desc.dtype = desc.dtype;
  frame_desc.layout = TensorLayout::kNCHW;
  const int64_t dims[kTensorRank] = {1, desc.dims[channel_axis], desc.dims[3], desc.dims[4]};
  const int64_t strides[kTensorRank] = {desc.strides_bytes[0], desc.strides_bytes[channel_axis],
                                        desc.strides_bytes[3], desc.strides_bytes[4]};
  for (int axis = 0; axis < kTensorRank; ++axis) {
    frame_desc.dims[axis] = dims[axis];
    frame_desc.strides_bytes[axis] = strides[axis];
  }
  return frame_desc;
}

// --- Any rank, for what leaves the device (.npy, DLPack, host copies) ------
constexpr int kMaxArrayRank = 8;

struct ArrayDesc {
  int rank = 0;
  int64_t dims[kMaxArrayRank] = {};
  int64_t strides_bytes[kMaxArrayRank] = {};
  DataType dtype = DataType::kFloat32;
};

inline ArrayDesc array_desc(const TensorDesc &desc) {
  ArrayDesc array;
  array.rank = kTensorRank;
  array.dtype = desc.dtype;
  for (int axis = 0; axis < kTensorRank; ++axis) {
    array.dims[axis] = desc.dims[axis];
    array.strides_bytes[axis] = desc.strides_bytes[axis];
  }
  return array;
}

inline ArrayDesc array_desc(const ClipDesc &desc) {
  ArrayDesc array;
  array.rank = kClipRank;
  array.dtype = desc.dtype;
  for (int axis = 0; axis < kClipRank; ++axis) {
    array.dims[axis] = desc.dims[axis];
    array.strides_bytes[axis] = desc.strides_bytes[axis];
  }
  return array;
}

}  // namespace cudaprep
