#include "gstcudapreppendingmeta.h"

#include <gst/video/video.h>

#include <new>

namespace {

gboolean pending_meta_init(GstMeta *meta, gpointer, GstBuffer *) {
  auto *pending = reinterpret_cast<GstCudaPrepPendingMeta *>(meta);
  pending->has_resize = FALSE;
  new (&pending->resize) cudaprep::ResizeParams();
  pending->has_normalize = FALSE;
  new (&pending->normalize) cudaprep::NormalizeParams();
  pending->letterbox = FALSE;
  new (&pending->letterbox_options) cudaprep::LetterboxOptions();
  new (&pending->source_geometry) cudaprep::FrameGeometry();
  pending->cropped = FALSE;
  return TRUE;
}

// Copies go with the memory (a shallow copy keeps the source frame).
gboolean pending_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *, GQuark type,
                                gpointer data) {
  if (!GST_META_TRANSFORM_IS_COPY(type) || static_cast<GstMetaTransformCopy *>(data)->region)
    return FALSE;
  const auto *source = reinterpret_cast<GstCudaPrepPendingMeta *>(meta);
  GstCudaPrepPendingMeta *copy = gst_buffer_ensure_cuda_prep_pending_meta(dest);
  copy->has_resize = source->has_resize;
  copy->resize = source->resize;
  copy->has_normalize = source->has_normalize;
  copy->normalize = source->normalize;
  copy->letterbox = source->letterbox;
  copy->letterbox_options = source->letterbox_options;
  copy->source_geometry = source->source_geometry;
  copy->cropped = source->cropped;
  return TRUE;
}

}  // namespace

GType gst_cuda_prep_pending_meta_api_get_type(void) {
  static GType type = 0;
  static const gchar *tags[] = {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR, nullptr};
  if (g_once_init_enter(&type)) {
    const GType registered = gst_meta_api_type_register("GstCudaPrepPendingMetaAPI", tags);
    g_once_init_leave(&type, registered);
  }
  return type;
}

const GstMetaInfo *gst_cuda_prep_pending_meta_get_info(void) {
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter(&info)) {
    const GstMetaInfo *registered = gst_meta_register(
        GST_CUDA_PREP_PENDING_META_API_TYPE, "GstCudaPrepPendingMeta",
        sizeof(GstCudaPrepPendingMeta), pending_meta_init, nullptr, pending_meta_transform);
    g_once_init_leave(&info, registered);
  }
  return info;
}

GstCudaPrepPendingMeta *gst_buffer_get_cuda_prep_pending_meta(GstBuffer *buffer) {
  return reinterpret_cast<GstCudaPrepPendingMeta *>(
      gst_buffer_get_meta(buffer, GST_CUDA_PREP_PENDING_META_API_TYPE));
}

GstCudaPrepPendingMeta *gst_buffer_ensure_cuda_prep_pending_meta(GstBuffer *buffer) {
  GstCudaPrepPendingMeta *meta = gst_buffer_get_cuda_prep_pending_meta(buffer);
  if (meta != nullptr) return meta;
  return reinterpret_cast<GstCudaPrepPendingMeta *>(
      gst_buffer_add_meta(buffer, gst_cuda_prep_pending_meta_get_info(), nullptr));
}

void gst_cuda_prep_query_add_pending_meta(GstQuery *query, const GstCudaPrepPendingReader *reader) {
  GstStructure *params = nullptr;
  if (reader != nullptr) {
    params = gst_structure_new(
        "cudaprep-pending-reader", "dtype", G_TYPE_INT, static_cast<gint>(reader->dtype), "batched",
        G_TYPE_BOOLEAN, reader->batched, "max-items", G_TYPE_INT, reader->max_items, nullptr);
  }
  gst_query_add_allocation_meta(query, GST_CUDA_PREP_PENDING_META_API_TYPE, params);
  if (params != nullptr) gst_structure_free(params);
}

gboolean gst_cuda_prep_query_find_pending_reader(GstQuery *query,
                                                 GstCudaPrepPendingReader *reader) {
  guint index = 0;
  if (!gst_query_find_allocation_meta(query, GST_CUDA_PREP_PENDING_META_API_TYPE, &index))
    return FALSE;
  const GstStructure *params = nullptr;
  gst_query_parse_nth_allocation_meta(query, index, &params);
  gint dtype = 0;
  if (params == nullptr || !gst_structure_get_int(params, "dtype", &dtype) ||
      !gst_structure_get_boolean(params, "batched", &reader->batched) ||
      !gst_structure_get_int(params, "max-items", &reader->max_items))
    return FALSE;
  reader->dtype = static_cast<cudaprep::DataType>(dtype);
  return TRUE;
}
