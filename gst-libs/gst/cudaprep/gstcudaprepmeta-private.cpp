#include "gstcudaprepmeta-private.h"

#include <algorithm>

#include "cudaprep/array.h"

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

// What set_from_desc and set_from_clip_desc share: `array`'s dims and byte
// strides in memory order, N = dims[0] items (no PTS, identity geometry),
// and for clips (clip_length > 0) per item no frame written, each frame's
// PTS NONE. The arrays of a tensor set before are freed first.
gboolean set_from_array(GstCudaPrepTensor *tensor, GQuark id, const cudaprep::ArrayDesc &array,
                        GstCudaPrepTensorImageLayout image_layout, gsize clip_length, gpointer data,
                        gint device_id, cudaEvent_t ready_event) {
  GstCudaPrepTensorDataType data_type;
  if (!to_gst_data_type(array.dtype, &data_type)) return FALSE;
  for (int axis = 0; axis < array.rank; ++axis) {
    if (array.dims[axis] <= 0 || array.strides_bytes[axis] < 0) return FALSE;
  }
  tensor->id = id;
  tensor->layout = cudaprep::array_is_contiguous(array) ? GST_CUDA_PREP_TENSOR_LAYOUT_CONTIGUOUS
                                                        : GST_CUDA_PREP_TENSOR_LAYOUT_STRIDED;
  tensor->data_type = data_type;
  tensor->data = data;
  tensor->dims_order = GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR;
  tensor->num_dims = static_cast<gsize>(array.rank);
  for (int axis = 0; axis < array.rank; ++axis) {
    tensor->dims[axis] = static_cast<gsize>(array.dims[axis]);
    tensor->strides[axis] = static_cast<gsize>(array.strides_bytes[axis]);
  }
  tensor->image_layout = image_layout;
  tensor->device_id = device_id;
  tensor->ready_event = ready_event;
  const gsize batch_size = static_cast<gsize>(array.dims[0]);
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
  g_clear_pointer(&tensor->clip_filled, g_free);
  g_clear_pointer(&tensor->frame_pts, g_free);
  tensor->clip_length = clip_length;
  if (clip_length > 0) {
    tensor->clip_filled = g_new0(gsize, batch_size);
    tensor->frame_pts = g_new(GstClockTime, batch_size * clip_length);
    for (gsize i = 0; i < batch_size * clip_length; ++i) tensor->frame_pts[i] = GST_CLOCK_TIME_NONE;
  }
  return TRUE;
}

// `array` as a TensorDesc or ClipDesc in `layout`; false if its rank is not
// the description's.
template <typename Desc, typename Layout>
bool desc_from_array(const cudaprep::ArrayDesc &array, Layout layout, Desc *desc) {
  constexpr int rank = sizeof(Desc::dims) / sizeof(Desc::dims[0]);
  if (array.rank != rank) return false;
  desc->dtype = array.dtype;
  desc->layout = layout;
  std::copy_n(array.dims, rank, desc->dims);
  std::copy_n(array.strides_bytes, rank, desc->strides_bytes);
  return true;
}

}  // namespace

gboolean gst_cuda_prep_tensor_set_from_desc(GstCudaPrepTensor *tensor, GQuark id,
                                            const cudaprep::TensorDesc &desc, gpointer data,
                                            gint device_id, cudaEvent_t ready_event) {
  g_return_val_if_fail(tensor != nullptr, FALSE);
  const GstCudaPrepTensorImageLayout image_layout = desc.layout == cudaprep::TensorLayout::kNCHW
                                                        ? GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW
                                                        : GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NHWC;
  return set_from_array(tensor, id, cudaprep::array_desc(desc), image_layout, 0, data, device_id,
                        ready_event);
}

gboolean gst_cuda_prep_tensor_set_from_clip_desc(GstCudaPrepTensor *tensor, GQuark id,
                                                 const cudaprep::ClipDesc &desc, gpointer data,
                                                 gint device_id, cudaEvent_t ready_event) {
  g_return_val_if_fail(tensor != nullptr, FALSE);
  const GstCudaPrepTensorImageLayout image_layout = desc.layout == cudaprep::ClipLayout::kNCTHW
                                                        ? GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCTHW
                                                        : GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NTCHW;
  // T is one of the dims set_from_array refuses when not positive.
  return set_from_array(tensor, id, cudaprep::array_desc(desc), image_layout,
                        static_cast<gsize>(cudaprep::clip_shape(desc).frames), data, device_id,
                        ready_event);
}

gboolean gst_cuda_prep_tensor_to_array(const GstCudaPrepTensor *tensor,
                                       cudaprep::ArrayDesc *array) {
  g_return_val_if_fail(tensor != nullptr && array != nullptr, FALSE);
  if (tensor->num_dims < 1 || tensor->num_dims > cudaprep::kMaxArrayRank ||
      tensor->dims_order != GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR) {
    return FALSE;
  }
  cudaprep::ArrayDesc result;
  if (!from_gst_data_type(tensor->data_type, &result.dtype)) return FALSE;
  result.rank = static_cast<int>(tensor->num_dims);
  for (int axis = 0; axis < result.rank; ++axis) {
    if (tensor->dims[axis] > G_MAXINT64 || tensor->strides[axis] > G_MAXINT64) return FALSE;
    result.dims[axis] = static_cast<int64_t>(tensor->dims[axis]);
    result.strides_bytes[axis] = static_cast<int64_t>(tensor->strides[axis]);
  }
  *array = result;
  return TRUE;
}

gboolean gst_cuda_prep_tensor_to_desc(const GstCudaPrepTensor *tensor, cudaprep::TensorDesc *desc) {
  g_return_val_if_fail(tensor != nullptr && desc != nullptr, FALSE);
  cudaprep::ArrayDesc array;
  if (!gst_cuda_prep_tensor_to_array(tensor, &array)) return FALSE;
  switch (tensor->image_layout) {
    case GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW:
      return desc_from_array(array, cudaprep::TensorLayout::kNCHW, desc);
    case GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NHWC:
      return desc_from_array(array, cudaprep::TensorLayout::kNHWC, desc);
    case GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCTHW:
    case GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NTCHW: {
      cudaprep::ClipDesc clip;
      const cudaprep::ClipLayout layout =
          tensor->image_layout == GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCTHW
              ? cudaprep::ClipLayout::kNCTHW
              : cudaprep::ClipLayout::kNTCHW;
      if (!desc_from_array(array, layout, &clip)) return FALSE;
      // The first frames of the N clips: frame 0 of clip 0, with N items a
      // clip's stride apart.
      size_t offset_bytes = 0;
      *desc = cudaprep::clip_frame_desc(clip, 0, 0, &offset_bytes);
      desc->dims[0] = clip.dims[0];
      return TRUE;
    }
  }
  return FALSE;
}
