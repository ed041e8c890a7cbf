#include "gstcudatensorize-private.h"

TensorizeSettings gst_cuda_prep_tensorize_get_settings(GstCudaPrepTensorize *self) {
  GST_OBJECT_LOCK(self);
  const TensorizeSettings settings = self->priv->settings;
  GST_OBJECT_UNLOCK(self);
  return settings;
}

bool gst_cuda_prep_tensorize_batch_size_in_range(const TensorizeSettings &settings) {
  return settings.batch_size >= 1 && settings.batch_size <= GST_CUDA_PREP_TENSOR_MAX_BATCH;
}

gchar *gst_cuda_prep_tensorize_settings_problem(const TensorizeSettings &settings) {
  if (!gst_cuda_prep_tensorize_batch_size_in_range(settings))
    return g_strdup_printf("batch-size=%u is outside 1..%d", settings.batch_size,
                           GST_CUDA_PREP_TENSOR_MAX_BATCH);
  const std::string clip_error = gst_cuda_prep_clip_settings_error(settings);
  if (!clip_error.empty()) return g_strdup(clip_error.c_str());
  return nullptr;
}

void gst_cuda_prep_tensorize_set_property(GObject *object, guint prop_id, const GValue *value,
                                          GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_TENSORIZE(object);
  GST_OBJECT_LOCK(self);
  TensorizeSettings &settings = self->priv->settings;
  switch (prop_id) {
    case PROP_LAYOUT:
      settings.layout = g_value_get_enum(value);
      break;
    case PROP_CLIP_LENGTH:
      settings.clip_length = g_value_get_uint(value);
      break;
    case PROP_CLIP_FRAME_STRIDE:
      settings.clip_frame_stride = g_value_get_uint(value);
      break;
    case PROP_CLIP_STRIDE:
      settings.clip_stride = g_value_get_uint(value);
      break;
    case PROP_BATCH_SIZE:
      settings.batch_size = g_value_get_uint(value);
      break;
    case PROP_DTYPE:
      settings.dtype = g_value_get_enum(value);
      break;
    case PROP_FUSE:
      settings.fuse = g_value_get_boolean(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void gst_cuda_prep_tensorize_get_property(GObject *object, guint prop_id, GValue *value,
                                          GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_TENSORIZE(object);
  const TensorizeSettings settings = gst_cuda_prep_tensorize_get_settings(self);
  switch (prop_id) {
    case PROP_LAYOUT:
      g_value_set_enum(value, settings.layout);
      break;
    case PROP_CLIP_LENGTH:
      g_value_set_uint(value, settings.clip_length);
      break;
    case PROP_CLIP_FRAME_STRIDE:
      g_value_set_uint(value, settings.clip_frame_stride);
      break;
    case PROP_CLIP_STRIDE:
      g_value_set_uint(value, settings.clip_stride);
      break;
    case PROP_BATCH_SIZE:
      g_value_set_uint(value, settings.batch_size);
      break;
    case PROP_DTYPE:
      g_value_set_enum(value, settings.dtype);
      break;
    case PROP_FUSE:
      g_value_set_boolean(value, settings.fuse);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
}

void gst_cuda_prep_tensorize_install_properties(GObjectClass *gobject_class) {
  // Read when caps are set: changes apply from the next negotiation.
  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_READY);
  g_object_class_install_property(
      gobject_class, PROP_LAYOUT,
      g_param_spec_enum("layout", "Layout",
                        "Order of the tensor's axes in memory; ncthw and ntchw are the clip "
                        "layouts (5-D, with clip-length)",
                        GST_TYPE_CUDA_PREP_CLIP_OR_TENSOR_LAYOUT, DEFAULT_LAYOUT, flags));
  g_object_class_install_property(
      gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint("batch-size", "Batch size",
                        "Frames (with clip-length: clips) per tensor (its N), 1 to 1024: a tensor "
                        "leaves every batch-size frames; at EOS a partial batch leaves with its "
                        "real count in the tensor meta (batch_filled). Other values are an error "
                        "at start",
                        0, G_MAXUINT, DEFAULT_BATCH_SIZE, flags));
  g_object_class_install_property(
      gobject_class, PROP_CLIP_LENGTH,
      g_param_spec_uint("clip-length", "Clip length",
                        "Frames per clip (T), 1 to 1024, with layout=ncthw or ntchw: each item "
                        "of the tensor is a clip of T frames of the stream; 0: each item is one "
                        "frame. Other values are an error at start",
                        0, G_MAXUINT, GST_CUDA_PREP_DEFAULT_CLIP_LENGTH, flags));
  g_object_class_install_property(
      gobject_class, PROP_CLIP_FRAME_STRIDE,
      g_param_spec_uint("clip-frame-stride", "Clip frame stride",
                        "A clip takes every clip-frame-stride-th frame of the stream (a model's "
                        "sampling rate), 1 to 1000. Other values are an error at start",
                        0, G_MAXUINT, GST_CUDA_PREP_DEFAULT_CLIP_FRAME_STRIDE, flags));
  g_object_class_install_property(
      gobject_class, PROP_CLIP_STRIDE,
      g_param_spec_uint("clip-stride", "Clip stride",
                        "Frames of the stream from the start of one clip to the start of the "
                        "next, 0 to 100000: 0 starts a clip where the last one ended "
                        "(clip-length x clip-frame-stride); less overlaps clips, more leaves "
                        "frames out. Other values are an error at start",
                        0, G_MAXUINT, GST_CUDA_PREP_DEFAULT_CLIP_STRIDE, flags));
  g_object_class_install_property(
      gobject_class, PROP_DTYPE,
      g_param_spec_enum("dtype", "Data type",
                        "Element type of the tensor: auto keeps the input's (cudanormalize's "
                        "float32 or float16, uint8 from 8-bit video); float32 or float16 convert "
                        "cudanormalize's frames (round to nearest even); uint8 needs 8-bit video "
                        "(pixels unchanged)",
                        GST_TYPE_CUDA_PREP_TENSOR_DTYPE, DEFAULT_DTYPE, flags));

  g_object_class_install_property(
      gobject_class, PROP_FUSE,
      g_param_spec_boolean("fuse", "Fuse",
                           "Let cudaresize and cudanormalize leave their work to this element, "
                           "which then runs resize, normalisation and layout in one kernel per "
                           "frame (same bytes as the separate kernels, one pass over memory); "
                           "false runs every element's own kernel",
                           TRUE, flags));
}
