#include "gstcudaprepmeta-private.h"

namespace {

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
