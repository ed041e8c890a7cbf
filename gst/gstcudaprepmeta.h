// The metas cudaprep buffers carry between elements and to applications
// (the region meta of partial uploads is in gstcudaprepregion.h).
//
// GstCudaPrepGeometryMeta: how this buffer's pixels map back to the original
// source frame (crop, scale, letterbox pad; cudaprep::FrameGeometry). Each
// element that moves pixels composes its own mapping onto it.
//
// GstCudaPrepPendingMeta: work an element left for a later one to run fused.
//
// GstCudaPrepTensorMeta: the tensors a buffer carries, for inference. Named
// after GStreamer 1.26's analytics GstTensorMeta / GstTensor (id, layout,
// data_type, data, dims_order, num_dims, dims; num_tensors, tensors) so that
// moving to it is mechanical; we build on 1.22, which lacks it. Differences:
// `data` is the device pointer (1.26: a GstBuffer), and a tensor also
// carries byte strides, its image layout (NCHW/NHWC), device id, ready event
// and, per batch item, the source PTS and geometry.
//
// Ownership: neither meta owns device memory or CUDA events. The tensor's
// `data` points into the buffer's GstMemory, which owns it, and is valid
// while the buffer (or a shallow copy sharing that memory) lives; the ready
// event belongs to that memory as well. A copy of the buffer that does not
// share the memory (a deep copy) does not get the tensor meta, because its
// `data` would point at the original's memory.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include "cudaprep/geometry.h"
#include "cudaprep/resize.h"
#include "cudaprep/tensor.h"

G_BEGIN_DECLS

// --- Geometry meta --------------------------------------------------------

typedef struct {
  GstMeta meta;
  cudaprep::FrameGeometry geometry;  // source-frame -> this buffer's pixels
} GstCudaPrepGeometryMeta;

#define GST_CUDA_PREP_GEOMETRY_META_API_TYPE (gst_cuda_prep_geometry_meta_api_get_type())
#define GST_CUDA_PREP_GEOMETRY_META_INFO (gst_cuda_prep_geometry_meta_get_info())

// Tags "video", "size", "orientation": the mapping is void once pixels move.
// Copies keep it; a GstVideo scale transform (videoscale) composes the scale.
GType gst_cuda_prep_geometry_meta_api_get_type(void);
const GstMetaInfo *gst_cuda_prep_geometry_meta_get_info(void);

// Adds a geometry meta holding `geometry` (identity if NULL).
GstCudaPrepGeometryMeta *gst_buffer_add_cuda_prep_geometry_meta(
    GstBuffer *buffer, const cudaprep::FrameGeometry *geometry);
GstCudaPrepGeometryMeta *gst_buffer_get_cuda_prep_geometry_meta(GstBuffer *buffer);

// --- Pending meta (fusion) -------------------------------------------------

// Operations an element left for a later one to run in a single kernel
// (DESIGN.md "Later"): the buffer's memory and GstVideoMeta still hold the
// source frame, the caps describe the result. cudaresize and cudanormalize
// leave their work here when downstream announces the meta's API in the
// allocation query; cudatensorize runs it with cudaprep::preprocess().
typedef struct {
  GstMeta meta;
  gboolean has_resize;
  cudaprep::ResizeParams resize;  // into the caps' size; identity when !has_resize
  gboolean has_normalize;
  cudaprep::NormalizeParams normalize;
} GstCudaPrepPendingMeta;

#define GST_CUDA_PREP_PENDING_META_API_TYPE (gst_cuda_prep_pending_meta_api_get_type())
GType gst_cuda_prep_pending_meta_api_get_type(void);
const GstMetaInfo *gst_cuda_prep_pending_meta_get_info(void);
// The buffer's pending meta, added (nothing pending) if it has none.
GstCudaPrepPendingMeta *gst_buffer_ensure_cuda_prep_pending_meta(GstBuffer *buffer);
GstCudaPrepPendingMeta *gst_buffer_get_cuda_prep_pending_meta(GstBuffer *buffer);

// --- Tensor meta ----------------------------------------------------------

// Same members and order as 1.26's GstTensorDataType, so values match.
typedef enum {
  GST_CUDA_PREP_TENSOR_DATA_TYPE_INT4,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_INT8,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_INT16,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_INT32,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_INT64,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT4,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT8,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT16,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT32,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT64,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT32,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT64,
  GST_CUDA_PREP_TENSOR_DATA_TYPE_BFLOAT16,
} GstCudaPrepTensorDataType;

// As 1.26's GstTensorDimOrder: how dims[] map to memory.
typedef enum {
  GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR,
  GST_CUDA_PREP_TENSOR_DIM_ORDER_COL_MAJOR,
} GstCudaPrepTensorDimOrder;

// As 1.26's GstTensorLayout: storage of the elements.
typedef enum {
  GST_CUDA_PREP_TENSOR_LAYOUT_CONTIGUOUS,
  // Any byte strides (strides[] says where each element is).
  GST_CUDA_PREP_TENSOR_LAYOUT_STRIDED,
} GstCudaPrepTensorLayout;

// What the axes of an image tensor mean (1.26 leaves this to the tensor id).
typedef enum {
  GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW,
  GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NHWC,
} GstCudaPrepTensorImageLayout;

#define GST_CUDA_PREP_TENSOR_MAX_DIMS 8

// No region: the item is the whole frame (GstCudaPrepTensorItem.region_id).
#define GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME (-1)

// One item of a batch: the source frame it came from.
typedef struct {
  GstClockTime pts;                  // the source frame's PTS
  cudaprep::FrameGeometry geometry;  // source frame -> this item's tensor pixels
  gint source_index;                 // the source (cudabatch sink pad sink_N: N); 0 for one stream
  gint region_id;  // the region's id (GstVideoRegionOfInterestMeta id), or ..._WHOLE_FRAME
} GstCudaPrepTensorItem;

typedef struct {
  GQuark id;                       // what the tensor holds (e.g. "input")
  GstCudaPrepTensorLayout layout;  // CONTIGUOUS for cudatensorize's tensors
  GstCudaPrepTensorDataType data_type;
  gpointer data;  // device pointer to element 0; not owned
  GstCudaPrepTensorDimOrder dims_order;
  gsize num_dims;
  gsize dims[GST_CUDA_PREP_TENSOR_MAX_DIMS];     // sizes, in memory order (N first)
  gsize strides[GST_CUDA_PREP_TENSOR_MAX_DIMS];  // bytes between neighbours along each dim
  GstCudaPrepTensorImageLayout image_layout;
  gint device_id;
  // Recorded after the tensor was written; wait on it (cudaStreamWaitEvent)
  // before reading. Owned by the memory; NULL if nothing to wait for.
  cudaEvent_t ready_event;
  gsize batch_size;              // dims[0]: the number of entries of `items`
  gsize batch_filled;            // items holding frames (the first ones); the rest are padding
  GstCudaPrepTensorItem *items;  // batch_size entries, owned by the meta
} GstCudaPrepTensor;

typedef struct {
  GstMeta meta;
  gsize num_tensors;
  GstCudaPrepTensor **tensors;  // num_tensors tensors, owned by the meta
} GstCudaPrepTensorMeta;

#define GST_CUDA_PREP_TENSOR_META_API_TYPE (gst_cuda_prep_tensor_meta_api_get_type())
#define GST_CUDA_PREP_TENSOR_META_INFO (gst_cuda_prep_tensor_meta_get_info())

// Tag "memory": the meta describes the buffer's memory.
GType gst_cuda_prep_tensor_meta_api_get_type(void);
const GstMetaInfo *gst_cuda_prep_tensor_meta_get_info(void);

// Adds a meta with `num_tensors` zeroed tensors (no dims, no items): fill
// each, e.g. with gst_cuda_prep_tensor_set_from_desc().
GstCudaPrepTensorMeta *gst_buffer_add_cuda_prep_tensor_meta(GstBuffer *buffer, gsize num_tensors);
GstCudaPrepTensorMeta *gst_buffer_get_cuda_prep_tensor_meta(GstBuffer *buffer);

// The first tensor with `id`, or NULL.
const GstCudaPrepTensor *gst_cuda_prep_tensor_meta_get_by_id(GstCudaPrepTensorMeta *meta,
                                                             GQuark id);

G_END_DECLS

// Describes `tensor` as the rank-4 image tensor `desc` at device pointer
// `data` on `device_id`; (re)allocates batch_size = N items, each with no PTS
// and identity geometry, and sets batch_filled to 0. `tensor` is one of a
// meta's (zeroed when added) or one set before. False if desc has a
// non-positive dim or a negative stride.
gboolean gst_cuda_prep_tensor_set_from_desc(GstCudaPrepTensor *tensor, GQuark id,
                                            const cudaprep::TensorDesc &desc, gpointer data,
                                            gint device_id, cudaEvent_t ready_event);

// The kernel library's description of `tensor`; false if it is not a rank-4
// image tensor of a type the kernels know (uint8, float16, float32).
gboolean gst_cuda_prep_tensor_to_desc(const GstCudaPrepTensor *tensor, cudaprep::TensorDesc *desc);
