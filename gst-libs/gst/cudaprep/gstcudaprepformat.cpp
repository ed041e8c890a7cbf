#include "gstcudaprepformat-private.h"

gboolean gst_cuda_prep_pixel_format(GstVideoFormat video_format, cudaprep::PixelFormat *format) {
  using cudaprep::PixelFormat;
  switch (video_format) {
    case GST_VIDEO_FORMAT_RGBA:
      *format = PixelFormat::kRGBA;
      return TRUE;
    case GST_VIDEO_FORMAT_BGRA:
      *format = PixelFormat::kBGRA;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBx:
      *format = PixelFormat::kRGBx;
      return TRUE;
    case GST_VIDEO_FORMAT_BGRx:
      *format = PixelFormat::kBGRx;
      return TRUE;
    case GST_VIDEO_FORMAT_RGB:
      *format = PixelFormat::kRGB;
      return TRUE;
    case GST_VIDEO_FORMAT_BGR:
      *format = PixelFormat::kBGR;
      return TRUE;
    case GST_VIDEO_FORMAT_GRAY8:
      *format = PixelFormat::kGRAY8;
      return TRUE;
    case GST_VIDEO_FORMAT_NV12:
      *format = PixelFormat::kNV12;
      return TRUE;
    case GST_VIDEO_FORMAT_I420:
      *format = PixelFormat::kI420;
      return TRUE;
    case GST_VIDEO_FORMAT_YUY2:
      *format = PixelFormat::kYUY2;
      return TRUE;
    case GST_VIDEO_FORMAT_P010_10LE:
      *format = PixelFormat::kP010;
      return TRUE;
    case GST_VIDEO_FORMAT_P012_LE:
      *format = PixelFormat::kP012;
      return TRUE;
    case GST_VIDEO_FORMAT_P016_LE:
      *format = PixelFormat::kP016;
      return TRUE;
    default:
      return FALSE;
  }
}

gboolean gst_cuda_prep_frame_info_from_caps(GstElement *element, const GstCaps *caps,
                                            GstVideoInfo *info) {
  const GstStructure *structure =
      caps != nullptr && gst_caps_is_fixed(caps) ? gst_caps_get_structure(caps, 0) : nullptr;
  const gchar *format =
      structure != nullptr ? gst_structure_get_string(structure, "format") : nullptr;
  gint width = 0, height = 0;
  if (format == nullptr || !gst_structure_get_int(structure, "width", &width) ||
      !gst_structure_get_int(structure, "height", &height)) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("Invalid video caps: they need a fixed format, width and height"),
                      ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  cudaprep::PixelFormat pixel_format;
  if (!gst_cuda_prep_pixel_format(gst_video_format_from_string(format), &pixel_format)) {
    GST_ELEMENT_ERROR(
        element, CORE, NEGOTIATION,
        ("Unsupported video format %s: cudaprep handles " GST_CUDA_PREP_FRAME_FORMATS, format),
        ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  if (width < 1 || height < 1) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("Frames of %dx%d %s have no pixels: width and height must be at least 1",
                       width, height, format),
                      ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  GstVideoInfo device_info;
  if (!gst_video_info_from_caps(info, caps) ||
      !gst_cuda_prep_device_video_info(info, &device_info)) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("Frames of %dx%d %s are too large: each plane of a frame must fit in 2 GiB "
                       "with its rows padded to %d bytes",
                       width, height, format, GST_CUDA_PREP_PITCH_ALIGNMENT),
                      ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  return TRUE;
}

gboolean gst_cuda_prep_caps_are_device(const GstCaps *caps) {
  if (caps == nullptr || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return FALSE;
  GstCapsFeatures *features = gst_caps_get_features(caps, 0);
  return features != nullptr &&
         gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED);
}

GstCaps *gst_cuda_prep_caps_with_feature(const GstCaps *caps, const gchar *feature) {
  GstCaps *result = gst_caps_copy(caps);
  const guint size = gst_caps_get_size(result);
  for (guint i = 0; i < size; ++i) {
    GstCapsFeatures *features = feature != nullptr ? gst_caps_features_new(feature, nullptr)
                                                   : gst_caps_features_new_empty();
    gst_caps_set_features(result, i, features);
  }
  return result;
}

void gst_cuda_prep_structure_copy_fields(GstStructure *to, const GstStructure *from,
                                         std::initializer_list<const char *> fields) {
  for (const char *field : fields) {
    const GValue *value = gst_structure_get_value(from, field);
    if (value != nullptr) gst_structure_set_value(to, field, value);
  }
}

void gst_cuda_prep_caps_append_device(GstCaps *caps, GstStructure *structure) {
  gst_caps_append_structure_full(
      caps, structure, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED, nullptr));
}

GstCaps *gst_cuda_prep_caps_filter_result(GstElement *element, GstPadDirection direction,
                                          GstCaps *caps, GstCaps *result, GstCaps *filter) {
  if (filter != nullptr) {
    GstCaps *filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(result);
    result = filtered;
  }
  GST_DEBUG_OBJECT(element, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
                   direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

gboolean gst_cuda_prep_device_video_info(const GstVideoInfo *info, GstVideoInfo *device_info) {
  cudaprep::PixelFormat format;
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(info), &format)) return FALSE;
  if (GST_VIDEO_INFO_WIDTH(info) <= 0 || GST_VIDEO_INFO_HEIGHT(info) <= 0) return FALSE;
  *device_info = *info;
  guint64 total_bytes = 0;
  const int num_planes = cudaprep::format_info(format).num_planes;
  for (int plane = 0; plane < num_planes; ++plane) {
    const guint64 row_bytes = cudaprep::plane_row_bytes(format, plane, GST_VIDEO_INFO_WIDTH(info));
    const guint64 pitch_bytes = (row_bytes + GST_CUDA_PREP_PITCH_ALIGNMENT - 1) /
                                GST_CUDA_PREP_PITCH_ALIGNMENT * GST_CUDA_PREP_PITCH_ALIGNMENT;
    const guint64 rows = cudaprep::plane_height(format, plane, GST_VIDEO_INFO_HEIGHT(info));
    if (pitch_bytes > G_MAXINT || rows > G_MAXINT / pitch_bytes) return FALSE;
    GST_VIDEO_INFO_PLANE_STRIDE(device_info, plane) = static_cast<gint>(pitch_bytes);
    GST_VIDEO_INFO_PLANE_OFFSET(device_info, plane) = total_bytes;
    total_bytes += pitch_bytes * rows;
  }
  if (total_bytes > G_MAXSSIZE) return FALSE;
  GST_VIDEO_INFO_SIZE(device_info) = total_bytes;
  return TRUE;
}
