#include "gstcudaprepview.h"

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>

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

gboolean gst_cuda_prep_post_frame_error(GstElement *element, const gchar *role,
                                        const gchar *reason) {
  GST_ELEMENT_ERROR(element, STREAM, FAILED, ("%s buffer is not a device frame: %s", role, reason),
                    (nullptr));
  return FALSE;
}

gboolean gst_cuda_prep_element_device_image(GstElement *element, GstBuffer *buffer,
                                            const GstVideoInfo *info, const gchar *role,
                                            cudaprep::Image *image) {
  const gchar *error = nullptr;
  if (gst_cuda_prep_buffer_device_image(buffer, info, image, &error)) return TRUE;
  return gst_cuda_prep_post_frame_error(element, role, error);
}

void gst_cuda_prep_buffer_set_view(GstBuffer *buffer, const cudaprep::Image &view) {
  GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  guint8 *base = gst_cuda_prep_memory_get_device_pointer(gst_buffer_peek_memory(buffer, 0));
  meta->width = view.width;
  meta->height = view.height;
  for (guint plane = 0; plane < meta->n_planes; ++plane)
    meta->offset[plane] = view.planes[plane].data - base;
}

GstBuffer *gst_cuda_prep_buffer_in_place_output(GstBuffer *input) {
  return gst_buffer_is_writable(input) ? input : gst_buffer_copy(input);
}
