#include "gstcudaprepformat.h"

#include "gstcudaprepmemory.h"

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

gboolean gst_cuda_prep_buffer_device_image(GstBuffer *buffer, const GstVideoInfo *info,
                                           cudaprep::Image *image, const gchar **error) {
  if (gst_buffer_n_memory(buffer) != 1) {
    *error = "a device frame must be one memory";
    return FALSE;
  }
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  if (!gst_is_cuda_prep_memory(memory)) {
    *error = "buffer memory is not CUDA pitched memory";
    return FALSE;
  }
  GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  if (meta == nullptr) {
    *error = "device frame without GstVideoMeta (its pitch is unknown)";
    return FALSE;
  }
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(info), &image->format)) {
    *error = "unsupported video format";
    return FALSE;
  }
  if (meta->format != GST_VIDEO_INFO_FORMAT(info) ||
      meta->width < static_cast<guint>(GST_VIDEO_INFO_WIDTH(info)) ||
      meta->height < static_cast<guint>(GST_VIDEO_INFO_HEIGHT(info))) {
    *error = "GstVideoMeta does not match the negotiated caps";
    return FALSE;
  }
  image->width = GST_VIDEO_INFO_WIDTH(info);
  image->height = GST_VIDEO_INFO_HEIGHT(info);
  guint8 *base = gst_cuda_prep_memory_get_device_pointer(memory);
  const int num_planes = cudaprep::format_info(image->format).num_planes;
  for (int plane = 0; plane < num_planes; ++plane) {
    const gsize row_bytes = cudaprep::plane_row_bytes(image->format, plane, image->width);
    const gsize rows = cudaprep::plane_height(image->format, plane, image->height);
    if (meta->stride[plane] <= 0 || static_cast<gsize>(meta->stride[plane]) < row_bytes ||
        meta->offset[plane] + (rows - 1) * meta->stride[plane] + row_bytes > memory->size) {
      *error = "GstVideoMeta plane lies outside the memory";
      return FALSE;
    }
    image->planes[plane].data = base + meta->offset[plane];
    image->planes[plane].pitch_bytes = static_cast<size_t>(meta->stride[plane]);
  }
  return TRUE;
}

gboolean gst_cuda_prep_buffer_source_image(GstBuffer *buffer, cudaprep::Image *image,
                                           const gchar **error) {
  GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  GstVideoInfo info;
  if (meta == nullptr ||
      !gst_video_info_set_format(&info, meta->format, meta->width, meta->height)) {
    *error = "frame without a valid GstVideoMeta";
    return FALSE;
  }
  return gst_cuda_prep_buffer_device_image(buffer, &info, image, error);
}

gboolean gst_cuda_prep_check(GstElement *element, cudaError_t result, const gchar *call,
                             const gchar *file, const gchar *function, gint line) {
  if (result == cudaSuccess) return TRUE;
  // Clear the sticky-free last error so a later, unrelated check is not blamed.
  cudaGetLastError();
  gchar *debug = g_strdup_printf("%s failed: %s (%s)", call, cudaGetErrorName(result),
                                 cudaGetErrorString(result));
  if (result == cudaErrorMemoryAllocation) {
    gst_element_message_full(element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
                             GST_RESOURCE_ERROR_NO_SPACE_LEFT,
                             g_strdup("Out of GPU memory; use smaller frames or fewer buffers"),
                             debug, file, function, line);
  } else {
    gst_element_message_full(
        element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        g_strdup_printf("CUDA error: %s", cudaGetErrorString(result)), debug, file, function, line);
  }
  return FALSE;
}
