#include "gstcudapreptensorformat.h"

#include <initializer_list>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>

GType gst_cuda_prep_float_dtype_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(cudaprep::DataType::kFloat32), "32-bit IEEE float", "float32"},
        {static_cast<gint>(cudaprep::DataType::kFloat16), "16-bit IEEE float (half)", "float16"},
        {0, nullptr, nullptr}};
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepFloatDType", values));
  }
  return type;
}

GType gst_cuda_prep_tensor_dtype_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {GST_CUDA_PREP_TENSOR_DTYPE_AUTO,
         "The input's: cudanormalize's float32 or float16, uint8 from 8-bit video", "auto"},
        {static_cast<gint>(cudaprep::DataType::kFloat32), "32-bit IEEE float", "float32"},
        {static_cast<gint>(cudaprep::DataType::kFloat16), "16-bit IEEE float (half)", "float16"},
        {static_cast<gint>(cudaprep::DataType::kUInt8),
         "8-bit unsigned integer, the pixels unchanged (8-bit video input only)", "uint8"},
        {0, nullptr, nullptr}};
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepTensorDType", values));
  }
  return type;
}

GType gst_cuda_prep_channel_order_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(cudaprep::ChannelOrder::kRGB), "Red, green, blue", "rgb"},
        {static_cast<gint>(cudaprep::ChannelOrder::kBGR), "Blue, green, red", "bgr"},
        {static_cast<gint>(cudaprep::ChannelOrder::kGray), "One grey channel (GRAY8 input only)",
         "gray"},
        {0, nullptr, nullptr}};
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepChannelOrder", values));
  }
  return type;
}

GType gst_cuda_prep_tensor_layout_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(cudaprep::TensorLayout::kNCHW),
         "Batch, channel, height, width (planar; PyTorch, most TensorRT engines)", "nchw"},
        {static_cast<gint>(cudaprep::TensorLayout::kNHWC),
         "Batch, height, width, channel (interleaved; TensorFlow)", "nhwc"},
        {0, nullptr, nullptr}};
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepTensorLayout", values));
  }
  return type;
}

GType gst_cuda_prep_clip_or_tensor_layout_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(cudaprep::TensorLayout::kNCHW),
         "Batch, channel, height, width (planar; PyTorch, most TensorRT engines)", "nchw"},
        {static_cast<gint>(cudaprep::TensorLayout::kNHWC),
         "Batch, height, width, channel (interleaved; TensorFlow)", "nhwc"},
        {GST_CUDA_PREP_LAYOUT_NCTHW,
         "Clips: batch, channel, frame, height, width (PyTorchVideo's X3D, SlowFast)", "ncthw"},
        {GST_CUDA_PREP_LAYOUT_NTCHW,
         "Clips: batch, frame, channel, height, width (VideoMAE, TimeSformer)", "ntchw"},
        {0, nullptr, nullptr}};
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepClipOrTensorLayout", values));
  }
  return type;
}

gboolean gst_cuda_prep_data_type_from_string(const gchar *name, cudaprep::DataType *dtype) {
  for (cudaprep::DataType candidate :
       {cudaprep::DataType::kUInt8, cudaprep::DataType::kFloat16, cudaprep::DataType::kFloat32}) {
    if (g_strcmp0(name, cudaprep::data_type_name(candidate)) == 0) {
      *dtype = candidate;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean gst_cuda_prep_channel_order_from_string(const gchar *name,
                                                 cudaprep::ChannelOrder *channel_order) {
  for (cudaprep::ChannelOrder candidate :
       {cudaprep::ChannelOrder::kRGB, cudaprep::ChannelOrder::kBGR,
        cudaprep::ChannelOrder::kGray}) {
    if (g_strcmp0(name, cudaprep::channel_order_name(candidate)) == 0) {
      *channel_order = candidate;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean gst_cuda_prep_tensor_layout_from_string(const gchar *name,
                                                 cudaprep::TensorLayout *layout) {
  for (cudaprep::TensorLayout candidate :
       {cudaprep::TensorLayout::kNCHW, cudaprep::TensorLayout::kNHWC}) {
    if (g_strcmp0(name, cudaprep::tensor_layout_name(candidate)) == 0) {
      *layout = candidate;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean gst_cuda_prep_planar_info_set(GstCudaPrepPlanarInfo *info, gint width, gint height,
                                       cudaprep::ChannelOrder channel_order,
                                       cudaprep::DataType dtype) {
  if (width <= 0 || height <= 0) return FALSE;
  if (dtype != cudaprep::DataType::kFloat32 && dtype != cudaprep::DataType::kFloat16) return FALSE;
  const guint64 row_bytes = static_cast<guint64>(width) * cudaprep::data_type_size(dtype);
  const guint64 pitch_bytes = (row_bytes + GST_CUDA_PREP_PITCH_ALIGNMENT - 1) /
                              GST_CUDA_PREP_PITCH_ALIGNMENT * GST_CUDA_PREP_PITCH_ALIGNMENT;
  const gint channels = cudaprep::channel_count(channel_order);
  if (pitch_bytes > static_cast<guint64>(G_MAXUINT) / height / channels) return FALSE;
  info->width = width;
  info->height = height;
  info->channel_order = channel_order;
  info->channels = channels;
  info->dtype = dtype;
  info->pitch_bytes = pitch_bytes;
  info->plane_bytes = pitch_bytes * height;
  info->size = info->plane_bytes * channels;
  return TRUE;
}

gboolean gst_cuda_prep_planar_info_from_caps(GstCudaPrepPlanarInfo *info, const GstCaps *caps) {
  if (caps == nullptr || !gst_caps_is_fixed(caps)) return FALSE;
  const GstStructure *structure = gst_caps_get_structure(caps, 0);
  if (!gst_structure_has_name(structure, GST_CUDA_PREP_PLANAR_MEDIA_TYPE)) return FALSE;
  gint width = 0, height = 0, channels = 0;
  cudaprep::DataType dtype;
  cudaprep::ChannelOrder channel_order;
  if (!gst_structure_get_int(structure, "width", &width) ||
      !gst_structure_get_int(structure, "height", &height) ||
      !gst_structure_get_int(structure, "channels", &channels) ||
      !gst_cuda_prep_data_type_from_string(gst_structure_get_string(structure, "dtype"), &dtype) ||
      !gst_cuda_prep_channel_order_from_string(gst_structure_get_string(structure, "channel-order"),
                                               &channel_order) ||
      channels != cudaprep::channel_count(channel_order))
    return FALSE;
  GstCudaPrepPlanarInfo result;
  if (!gst_cuda_prep_planar_info_set(&result, width, height, channel_order, dtype)) return FALSE;
  if (!gst_structure_get_fraction(structure, "framerate", &result.fps_n, &result.fps_d)) {
    result.fps_n = 0;
    result.fps_d = 1;
  }
  *info = result;
  return TRUE;
}

gboolean gst_cuda_prep_buffer_planar_image(GstBuffer *buffer, const GstCudaPrepPlanarInfo *info,
                                           cudaprep::PlanarImage *image, const gchar **error) {
  if (gst_buffer_n_memory(buffer) != 1) {
    *error = "a planar frame must be one memory";
    return FALSE;
  }
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  if (!gst_is_cuda_prep_memory(memory)) {
    *error = "buffer memory is not CUDA pitched memory";
    return FALSE;
  }
  if (memory->size < info->size) {
    *error = "the memory is smaller than the planar frame the caps describe";
    return FALSE;
  }
  guint8 *base = gst_cuda_prep_memory_get_device_pointer(memory);
  cudaprep::PlanarImage result;
  for (gint c = 0; c < info->channels; ++c) result.planes[c] = base + c * info->plane_bytes;
  result.pitch_bytes = info->pitch_bytes;
  result.width = info->width;
  result.height = info->height;
  result.channels = info->channels;
  result.dtype = info->dtype;
  *image = result;
  return TRUE;
}

gboolean gst_cuda_prep_video_channel_order(GstVideoFormat format, cudaprep::ChannelOrder *order) {
  switch (format) {
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
      *order = cudaprep::ChannelOrder::kRGB;
      return TRUE;
    case GST_VIDEO_FORMAT_BGR:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_BGRx:
      *order = cudaprep::ChannelOrder::kBGR;
      return TRUE;
    case GST_VIDEO_FORMAT_GRAY8:
      *order = cudaprep::ChannelOrder::kGray;
      return TRUE;
    default:
      return FALSE;
  }
}

const char *gst_cuda_prep_video_formats_of(cudaprep::ChannelOrder order) {
  switch (order) {
    case cudaprep::ChannelOrder::kRGB:
      return "{ RGB, RGBA, RGBx }";
    case cudaprep::ChannelOrder::kBGR:
      return "{ BGR, BGRA, BGRx }";
    case cudaprep::ChannelOrder::kGray:
      break;
  }
  return "GRAY8";
}
