#include "gstcudaprepmeta.h"

#include <gst/video/video.h>

#include "gstcudaprepgeometry-private.h"

namespace {

// --- Geometry meta --------------------------------------------------------

gboolean geometry_meta_init(GstMeta *meta, gpointer, GstBuffer *) {
  gst_cuda_prep_geometry_init_identity(
      &reinterpret_cast<GstCudaPrepGeometryMeta *>(meta)->geometry);
  return TRUE;
}

gboolean geometry_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *, GQuark type,
                                 gpointer data) {
  const auto *source = reinterpret_cast<GstCudaPrepGeometryMeta *>(meta);
  if (GST_META_TRANSFORM_IS_COPY(type)) {
    // A copy of part of the bytes no longer holds the same pixels: drop it.
    if (static_cast<GstMetaTransformCopy *>(data)->region) return TRUE;
    return gst_buffer_add_cuda_prep_geometry_meta(dest, &source->geometry) != nullptr;
  }
  if (GST_VIDEO_META_TRANSFORM_IS_SCALE(type)) {
    const auto *scale = static_cast<GstVideoMetaTransform *>(data);
    if (GST_VIDEO_INFO_WIDTH(scale->in_info) <= 0 || GST_VIDEO_INFO_HEIGHT(scale->in_info) <= 0) {
      return FALSE;
    }
    cudaprep::FrameGeometry scaling;
    scaling.scale_x = static_cast<double>(GST_VIDEO_INFO_WIDTH(scale->out_info)) /
                      GST_VIDEO_INFO_WIDTH(scale->in_info);
    scaling.scale_y = static_cast<double>(GST_VIDEO_INFO_HEIGHT(scale->out_info)) /
                      GST_VIDEO_INFO_HEIGHT(scale->in_info);
    const GstCudaPrepGeometry composed = gst_cuda_prep_geometry_from_frame(
        gst_cuda_prep_geometry_to_frame(source->geometry).then(scaling));
    return gst_buffer_add_cuda_prep_geometry_meta(dest, &composed) != nullptr;
  }
  return FALSE;  // any other transform would invalidate the mapping
}

// --- Tensor meta ----------------------------------------------------------

gboolean tensor_meta_init(GstMeta *meta, gpointer params, GstBuffer *) {
  auto *tensor_meta = reinterpret_cast<GstCudaPrepTensorMeta *>(meta);
  const gsize num_tensors = params != nullptr ? *static_cast<const gsize *>(params) : 0;
  tensor_meta->num_tensors = num_tensors;
  tensor_meta->tensors = g_new0(GstCudaPrepTensor *, num_tensors);
  for (gsize i = 0; i < num_tensors; ++i) tensor_meta->tensors[i] = g_new0(GstCudaPrepTensor, 1);
  return TRUE;
}

void tensor_meta_free(GstMeta *meta, GstBuffer *) {
  auto *tensor_meta = reinterpret_cast<GstCudaPrepTensorMeta *>(meta);
  for (gsize i = 0; i < tensor_meta->num_tensors; ++i) {
    g_free(tensor_meta->tensors[i]->items);
    g_free(tensor_meta->tensors[i]->clip_filled);
    g_free(tensor_meta->tensors[i]->frame_pts);
    g_free(tensor_meta->tensors[i]);
  }
  g_free(tensor_meta->tensors);
}

// True if `dest` holds the very GstMemory objects of `source` (a shallow
// copy), so that device pointers into them stay valid for `dest`.
bool buffers_share_memory(GstBuffer *dest, GstBuffer *source) {
  const guint count = gst_buffer_n_memory(source);
  if (count == 0 || gst_buffer_n_memory(dest) != count) return false;
  for (guint i = 0; i < count; ++i) {
    if (gst_buffer_peek_memory(dest, i) != gst_buffer_peek_memory(source, i)) return false;
  }
  return true;
}

gboolean tensor_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *source, GQuark type,
                               gpointer data) {
  const auto *source_meta = reinterpret_cast<GstCudaPrepTensorMeta *>(meta);
  if (!GST_META_TRANSFORM_IS_COPY(type)) return FALSE;
  if (static_cast<GstMetaTransformCopy *>(data)->region || !buffers_share_memory(dest, source)) {
    GST_DEBUG("not copying the tensor meta: the copy does not share the tensor's memory");
    return TRUE;
  }
  GstCudaPrepTensorMeta *copy =
      gst_buffer_add_cuda_prep_tensor_meta(dest, source_meta->num_tensors);
  if (copy == nullptr) return FALSE;
  for (gsize i = 0; i < source_meta->num_tensors; ++i) {
    const GstCudaPrepTensor *from = source_meta->tensors[i];
    GstCudaPrepTensor *to = copy->tensors[i];
    *to = *from;
    to->items = static_cast<GstCudaPrepTensorItem *>(
        g_memdup2(from->items, from->batch_size * sizeof(GstCudaPrepTensorItem)));
    to->clip_filled =
        static_cast<gsize *>(g_memdup2(from->clip_filled, from->batch_size * sizeof(gsize)));
    to->frame_pts = static_cast<GstClockTime *>(
        g_memdup2(from->frame_pts, from->batch_size * from->clip_length * sizeof(GstClockTime)));
  }
  return TRUE;
}

}  // namespace

void gst_cuda_prep_geometry_init_identity(GstCudaPrepGeometry *geometry) {
  g_return_if_fail(geometry != nullptr);
  *geometry = gst_cuda_prep_geometry_from_frame(cudaprep::FrameGeometry());
}

void gst_cuda_prep_geometry_to_source(const GstCudaPrepGeometry *geometry, gdouble out_x,
                                      gdouble out_y, gdouble *src_x, gdouble *src_y) {
  g_return_if_fail(geometry != nullptr && src_x != nullptr && src_y != nullptr);
  gst_cuda_prep_geometry_to_frame(*geometry).to_source(out_x, out_y, src_x, src_y);
}

void gst_cuda_prep_geometry_to_output(const GstCudaPrepGeometry *geometry, gdouble src_x,
                                      gdouble src_y, gdouble *out_x, gdouble *out_y) {
  g_return_if_fail(geometry != nullptr && out_x != nullptr && out_y != nullptr);
  gst_cuda_prep_geometry_to_frame(*geometry).to_output(src_x, src_y, out_x, out_y);
}

GType gst_cuda_prep_geometry_meta_api_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const gchar *tags[] = {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
                                  GST_META_TAG_VIDEO_ORIENTATION_STR, nullptr};
    g_once_init_leave(&type, gst_meta_api_type_register("GstCudaPrepGeometryMetaAPI", tags));
  }
  return type;
}

const GstMetaInfo *gst_cuda_prep_geometry_meta_get_info(void) {
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter(&info)) {
    g_once_init_leave(
        &info, gst_meta_register(GST_CUDA_PREP_GEOMETRY_META_API_TYPE, "GstCudaPrepGeometryMeta",
                                 sizeof(GstCudaPrepGeometryMeta), geometry_meta_init, nullptr,
                                 geometry_meta_transform));
  }
  return info;
}

GstCudaPrepGeometryMeta *gst_buffer_add_cuda_prep_geometry_meta(
    GstBuffer *buffer, const GstCudaPrepGeometry *geometry) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), nullptr);
  auto *meta = reinterpret_cast<GstCudaPrepGeometryMeta *>(
      gst_buffer_add_meta(buffer, GST_CUDA_PREP_GEOMETRY_META_INFO, nullptr));
  if (meta != nullptr && geometry != nullptr) meta->geometry = *geometry;
  return meta;
}

GstCudaPrepGeometryMeta *gst_buffer_get_cuda_prep_geometry_meta(GstBuffer *buffer) {
  return reinterpret_cast<GstCudaPrepGeometryMeta *>(
      gst_buffer_get_meta(buffer, GST_CUDA_PREP_GEOMETRY_META_API_TYPE));
}

GType gst_cuda_prep_tensor_meta_api_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const gchar *tags[] = {GST_META_TAG_MEMORY_STR, nullptr};
    g_once_init_leave(&type, gst_meta_api_type_register("GstCudaPrepTensorMetaAPI", tags));
  }
  return type;
}

const GstMetaInfo *gst_cuda_prep_tensor_meta_get_info(void) {
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter(&info)) {
    g_once_init_leave(
        &info, gst_meta_register(GST_CUDA_PREP_TENSOR_META_API_TYPE, "GstCudaPrepTensorMeta",
                                 sizeof(GstCudaPrepTensorMeta), tensor_meta_init, tensor_meta_free,
                                 tensor_meta_transform));
  }
  return info;
}

GstCudaPrepTensorMeta *gst_buffer_add_cuda_prep_tensor_meta(GstBuffer *buffer, gsize num_tensors) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), nullptr);
  return reinterpret_cast<GstCudaPrepTensorMeta *>(
      gst_buffer_add_meta(buffer, GST_CUDA_PREP_TENSOR_META_INFO, &num_tensors));
}

GstCudaPrepTensorMeta *gst_buffer_get_cuda_prep_tensor_meta(GstBuffer *buffer) {
  return reinterpret_cast<GstCudaPrepTensorMeta *>(
      gst_buffer_get_meta(buffer, GST_CUDA_PREP_TENSOR_META_API_TYPE));
}

const GstCudaPrepTensor *gst_cuda_prep_tensor_meta_get_by_id(GstCudaPrepTensorMeta *meta,
                                                             GQuark id) {
  g_return_val_if_fail(meta != nullptr, nullptr);
  for (gsize i = 0; i < meta->num_tensors; ++i) {
    if (meta->tensors[i]->id == id) return meta->tensors[i];
  }
  return nullptr;
}

const gsize *gst_cuda_prep_tensor_get_dims(const GstCudaPrepTensor *tensor, gsize *num_dims) {
  g_return_val_if_fail(tensor != nullptr && num_dims != nullptr, nullptr);
  *num_dims = tensor->num_dims;
  return tensor->dims;
}

const gsize *gst_cuda_prep_tensor_get_strides(const GstCudaPrepTensor *tensor, gsize *num_dims) {
  g_return_val_if_fail(tensor != nullptr && num_dims != nullptr, nullptr);
  *num_dims = tensor->num_dims;
  return tensor->strides;
}

guint64 gst_cuda_prep_tensor_get_data_address(const GstCudaPrepTensor *tensor) {
  g_return_val_if_fail(tensor != nullptr, 0);
  return reinterpret_cast<guintptr>(tensor->data);
}

gboolean gst_cuda_prep_tensor_get_item(const GstCudaPrepTensor *tensor, gsize index,
                                       GstClockTime *pts, GstCudaPrepGeometry *geometry) {
  g_return_val_if_fail(tensor != nullptr, FALSE);
  if (index >= tensor->batch_size || tensor->items == nullptr) return FALSE;
  if (pts != nullptr) *pts = tensor->items[index].pts;
  if (geometry != nullptr) *geometry = tensor->items[index].geometry;
  return TRUE;
}

const GstClockTime *gst_cuda_prep_tensor_get_clip_frame_pts(const GstCudaPrepTensor *tensor,
                                                            gsize index, gsize *num_frames) {
  g_return_val_if_fail(tensor != nullptr && num_frames != nullptr, nullptr);
  *num_frames = 0;
  if (tensor->clip_length == 0 || tensor->clip_filled == nullptr || tensor->frame_pts == nullptr ||
      index >= tensor->batch_size) {
    return nullptr;
  }
  *num_frames = MIN(tensor->clip_filled[index], tensor->clip_length);
  return tensor->frame_pts + index * tensor->clip_length;
}
