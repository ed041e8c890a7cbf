#include "gstcudaprepgsttensor.h"

#include <gst/cudaprep/gstcudaprepmemory.h>

#ifdef CUDAPREP_HAVE_GST_TENSOR_META
#include <gst/analytics/analytics.h>
#endif

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_gst_tensor_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_gst_tensor_debug

static void init_debug(void) {
  static gsize initialized = 0;
  if (g_once_init_enter(&initialized)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_gst_tensor_debug, "cudaprepgsttensor", 0,
                            "GStreamer's GstTensorMeta on cudaprep tensors");
    g_once_init_leave(&initialized, 1);
  }
}

#ifdef CUDAPREP_HAVE_GST_TENSOR_META

// Our data types are GStreamer's, member for member (gstcudaprepmeta.h).
static_assert(static_cast<int>(GST_CUDA_PREP_TENSOR_DATA_TYPE_INT4) ==
                  static_cast<int>(GST_TENSOR_DATA_TYPE_INT4),
              "data types differ from GStreamer's");
static_assert(static_cast<int>(GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16) ==
                  static_cast<int>(GST_TENSOR_DATA_TYPE_FLOAT16),
              "data types differ from GStreamer's");
static_assert(static_cast<int>(GST_CUDA_PREP_TENSOR_DATA_TYPE_BFLOAT16) ==
                  static_cast<int>(GST_TENSOR_DATA_TYPE_BFLOAT16),
              "data types differ from GStreamer's");

// A GstTensor of `tensor`, its data the bytes of `memory` it occupies; NULL
// with the reason logged.
static GstTensor *to_gst_tensor(const GstCudaPrepTensor *tensor, GstMemory *memory) {
  const guint8 *base = gst_cuda_prep_memory_get_device_pointer(memory);
  const auto *data = static_cast<const guint8 *>(tensor->data);
  // Contiguous: the batch axis's stride spans the rest.
  const gsize bytes = tensor->dims[0] * tensor->strides[0];
  const gsize size = gst_memory_get_sizes(memory, nullptr, nullptr);
  if (data < base || static_cast<gsize>(data - base) + bytes > size) {
    GST_WARNING("tensor %s is not inside its buffer's memory: no GstTensor",
                g_quark_to_string(tensor->id));
    return nullptr;
  }
  GstBuffer *data_buffer = gst_buffer_new();
  gst_buffer_append_memory(data_buffer, gst_memory_share(memory, static_cast<gssize>(data - base),
                                                         static_cast<gssize>(bytes)));
  gsize dims[GST_CUDA_PREP_TENSOR_MAX_DIMS];
  for (gsize axis = 0; axis < tensor->num_dims; ++axis) dims[axis] = tensor->dims[axis];
  // Takes data_buffer; refuses (g_critical, NULL) a size that is not dims'.
  GstTensor *gst_tensor = gst_tensor_new_simple(
      tensor->id, static_cast<GstTensorDataType>(tensor->data_type), data_buffer,
      tensor->dims_order == GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR
          ? GST_TENSOR_DIM_ORDER_ROW_MAJOR
          : GST_TENSOR_DIM_ORDER_COL_MAJOR,
      tensor->num_dims, dims);
  if (gst_tensor == nullptr) {
    gst_buffer_unref(data_buffer);
    GST_WARNING("gst_tensor_new_simple refused tensor %s (%" G_GSIZE_FORMAT " bytes)",
                g_quark_to_string(tensor->id), bytes);
  }
  return gst_tensor;
}

gboolean gst_cuda_prep_has_gst_tensor_meta(void) {
  return TRUE;
}

gboolean gst_cuda_prep_add_gst_tensor_meta(GstBuffer *buffer, const GstCudaPrepTensorMeta *meta) {
  init_debug();
  g_return_val_if_fail(buffer != nullptr && meta != nullptr, FALSE);
  if (gst_buffer_n_memory(buffer) != 1 ||
      !gst_is_cuda_prep_memory(gst_buffer_peek_memory(buffer, 0))) {
    GST_WARNING("a tensor buffer of %u memories or not of CUDA device memory: no GstTensorMeta",
                gst_buffer_n_memory(buffer));
    return FALSE;
  }
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  GstTensor **tensors = g_new0(GstTensor *, meta->num_tensors);
  guint count = 0;
  for (gsize i = 0; i < meta->num_tensors; ++i) {
    const GstCudaPrepTensor *tensor = meta->tensors[i];
    if (tensor->layout != GST_CUDA_PREP_TENSOR_LAYOUT_CONTIGUOUS) {
      GST_DEBUG("tensor %s is strided, which a GstTensor cannot describe: left out",
                g_quark_to_string(tensor->id));
      continue;
    }
    GstTensor *gst_tensor = to_gst_tensor(tensor, memory);
    if (gst_tensor == nullptr) {
      for (guint made = 0; made < count; ++made) gst_tensor_free(tensors[made]);
      g_free(tensors);
      return FALSE;
    }
    tensors[count++] = gst_tensor;
  }
  if (count == 0) {
    g_free(tensors);
    return TRUE;
  }
  GstTensorMeta *gst_meta = gst_buffer_add_tensor_meta(buffer);
  if (gst_meta == nullptr) {
    for (guint made = 0; made < count; ++made) gst_tensor_free(tensors[made]);
    g_free(tensors);
    GST_WARNING("gst_buffer_add_tensor_meta failed");
    return FALSE;
  }
  gst_tensor_meta_set(gst_meta, count, tensors);
  return TRUE;
}

#else

gboolean gst_cuda_prep_has_gst_tensor_meta(void) {
  return FALSE;
}

gboolean gst_cuda_prep_add_gst_tensor_meta(GstBuffer *buffer, const GstCudaPrepTensorMeta *meta) {
  init_debug();
  (void)buffer;
  (void)meta;
  GST_LOG("GStreamer before 1.26 has no GstTensorMeta: ours only");
  return TRUE;
}

#endif
