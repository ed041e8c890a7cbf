#include "gstcudaprepmetainternal.h"

#include <gst/video/video.h>

#include <new>

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

// --- Pending meta ---------------------------------------------------------

gboolean pending_meta_init(GstMeta *meta, gpointer, GstBuffer *) {
  auto *pending = reinterpret_cast<GstCudaPrepPendingMeta *>(meta);
  pending->has_resize = FALSE;
  new (&pending->resize) cudaprep::ResizeParams();
  pending->has_normalize = FALSE;
  new (&pending->normalize) cudaprep::NormalizeParams();
  pending->letterbox = FALSE;
  new (&pending->letterbox_options) cudaprep::LetterboxOptions();
  gst_cuda_prep_geometry_init_identity(&pending->source_geometry);
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
  return TRUE;
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
  }
  return TRUE;
}

bool to_gst_data_type(cudaprep::DataType dtype, GstCudaPrepTensorDataType *data_type) {
  switch (dtype) {
    case cudaprep::DataType::kUInt8:
      *data_type = GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT8;
      return true;
    case cudaprep::DataType::kFloat16:
      *data_type = GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16;
      return true;
    case cudaprep::DataType::kFloat32:
      *data_type = GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT32;
      return true;
  }
  return false;
}

bool from_gst_data_type(GstCudaPrepTensorDataType data_type, cudaprep::DataType *dtype) {
  switch (data_type) {
    case GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT8:
      *dtype = cudaprep::DataType::kUInt8;
      return true;
    case GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16:
      *dtype = cudaprep::DataType::kFloat16;
      return true;
    case GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT32:
      *dtype = cudaprep::DataType::kFloat32;
      return true;
    default:
      return false;
  }
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

gboolean gst_cuda_prep_tensor_set_from_desc(GstCudaPrepTensor *tensor, GQuark id,
                                            const cudaprep::TensorDesc &desc, gpointer data,
                                            gint device_id, cudaEvent_t ready_event) {
  g_return_val_if_fail(tensor != nullptr, FALSE);
  GstCudaPrepTensorDataType data_type;
  if (!to_gst_data_type(desc.dtype, &data_type)) return FALSE;
  for (int axis = 0; axis < cudaprep::kTensorRank; ++axis) {
    if (desc.dims[axis] <= 0 || desc.strides_bytes[axis] < 0) return FALSE;
  }
  tensor->id = id;
  tensor->layout = cudaprep::tensor_is_contiguous(desc) ? GST_CUDA_PREP_TENSOR_LAYOUT_CONTIGUOUS
                                                        : GST_CUDA_PREP_TENSOR_LAYOUT_STRIDED;
  tensor->data_type = data_type;
  tensor->data = data;
  tensor->dims_order = GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR;
  tensor->num_dims = cudaprep::kTensorRank;
  for (int axis = 0; axis < cudaprep::kTensorRank; ++axis) {
    tensor->dims[axis] = static_cast<gsize>(desc.dims[axis]);
    tensor->strides[axis] = static_cast<gsize>(desc.strides_bytes[axis]);
  }
  tensor->image_layout = desc.layout == cudaprep::TensorLayout::kNCHW
                             ? GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW
                             : GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NHWC;
  tensor->device_id = device_id;
  tensor->ready_event = ready_event;
  const gsize batch_size = static_cast<gsize>(cudaprep::tensor_shape(desc).batch);
  g_free(tensor->items);
  tensor->items = g_new0(GstCudaPrepTensorItem, batch_size);
  for (gsize i = 0; i < batch_size; ++i) {
    tensor->items[i].pts = GST_CLOCK_TIME_NONE;
    gst_cuda_prep_geometry_init_identity(&tensor->items[i].geometry);
    tensor->items[i].source_index = 0;
    tensor->items[i].region_id = GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME;
  }
  tensor->batch_size = batch_size;
  tensor->batch_filled = 0;
  return TRUE;
}

gboolean gst_cuda_prep_tensor_to_desc(const GstCudaPrepTensor *tensor, cudaprep::TensorDesc *desc) {
  g_return_val_if_fail(tensor != nullptr && desc != nullptr, FALSE);
  if (tensor->num_dims != cudaprep::kTensorRank ||
      tensor->dims_order != GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR) {
    return FALSE;
  }
  cudaprep::TensorDesc result;
  if (!from_gst_data_type(tensor->data_type, &result.dtype)) return FALSE;
  result.layout = tensor->image_layout == GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW
                      ? cudaprep::TensorLayout::kNCHW
                      : cudaprep::TensorLayout::kNHWC;
  for (int axis = 0; axis < cudaprep::kTensorRank; ++axis) {
    if (tensor->dims[axis] > G_MAXINT64 || tensor->strides[axis] > G_MAXINT64) return FALSE;
    result.dims[axis] = static_cast<int64_t>(tensor->dims[axis]);
    result.strides_bytes[axis] = static_cast<int64_t>(tensor->strides[axis]);
  }
  *desc = result;
  return TRUE;
}

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
