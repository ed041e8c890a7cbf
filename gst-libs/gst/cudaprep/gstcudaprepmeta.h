// The metas cudaprep buffers carry between elements and to applications
// (the region meta of partial uploads is in gstcudaprepregion.h).
//
// Public and plain C (installed; GstCudaPrepGeometry itself is in
// gstcudaprepgeometry.h). The C++ helpers stay inside: the conversions to
// the kernels' types in gstcudaprepgeometry-private.h and
// gstcudaprepmeta-private.h, the pending meta of fusion in the plugin
// (gst/cudaprep/base/gstcudapreppendingmeta.h).
//
// GstCudaPrepGeometryMeta: how this buffer's pixels map back to the original
// source frame (crop, scale, letterbox pad: GstCudaPrepGeometry). Each
// element that moves pixels composes its own mapping onto it.
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

#include "cudaprep-prelude.h"
#include "gstcudaprepgeometry.h"

G_BEGIN_DECLS

// --- Geometry -------------------------------------------------------------

// GstCudaPrepGeometry itself is in gstcudaprepgeometry.h.
GST_CUDA_PREP_API void gst_cuda_prep_geometry_init_identity(GstCudaPrepGeometry *geometry);

// Maps a point of the output (a tensor pixel coordinate) back to the source
// frame.
/**
 * gst_cuda_prep_geometry_to_source:
 * @geometry: the mapping
 * @out_x: output x
 * @out_y: output y
 * @src_x: (out): source x
 * @src_y: (out): source y
 */
GST_CUDA_PREP_API void gst_cuda_prep_geometry_to_source(const GstCudaPrepGeometry *geometry,
                                                        gdouble out_x, gdouble out_y,
                                                        gdouble *src_x, gdouble *src_y);

// Maps a source-frame point to the output.
/**
 * gst_cuda_prep_geometry_to_output:
 * @geometry: the mapping
 * @src_x: source x
 * @src_y: source y
 * @out_x: (out): output x
 * @out_y: (out): output y
 */
GST_CUDA_PREP_API void gst_cuda_prep_geometry_to_output(const GstCudaPrepGeometry *geometry,
                                                        gdouble src_x, gdouble src_y,
                                                        gdouble *out_x, gdouble *out_y);

// --- Geometry meta --------------------------------------------------------

typedef struct {
  GstMeta meta;
  GstCudaPrepGeometry geometry;  // source-frame -> this buffer's pixels
} GstCudaPrepGeometryMeta;

#define GST_CUDA_PREP_GEOMETRY_META_API_TYPE (gst_cuda_prep_geometry_meta_api_get_type())
#define GST_CUDA_PREP_GEOMETRY_META_INFO (gst_cuda_prep_geometry_meta_get_info())

// Tags "video", "size", "orientation": the mapping is void once pixels move.
// Copies keep it; a GstVideo scale transform (videoscale) composes the scale.
GST_CUDA_PREP_API GType gst_cuda_prep_geometry_meta_api_get_type(void);
GST_CUDA_PREP_API const GstMetaInfo *gst_cuda_prep_geometry_meta_get_info(void);

// Adds a geometry meta holding `geometry` (identity if NULL).
/**
 * gst_buffer_add_cuda_prep_geometry_meta: (skip)
 */
GST_CUDA_PREP_API GstCudaPrepGeometryMeta *gst_buffer_add_cuda_prep_geometry_meta(
    GstBuffer *buffer, const GstCudaPrepGeometry *geometry);
/**
 * gst_buffer_get_cuda_prep_geometry_meta: (skip)
 */
GST_CUDA_PREP_API GstCudaPrepGeometryMeta *gst_buffer_get_cuda_prep_geometry_meta(
    GstBuffer *buffer);

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
  GstClockTime pts;              // the source frame's PTS
  GstCudaPrepGeometry geometry;  // source frame -> this item's tensor pixels
  gint source_index;             // the source (cudabatch sink pad sink_N: N); 0 for one stream
  // The region's id (the index in cudabatch's regions, the
  // GstVideoRegionOfInterestMeta's id, or a detection's GstAnalyticsMtd id
  // in its frame's relation meta), or ..._WHOLE_FRAME.
  gint region_id;
  // A region item's rectangle in source-frame pixels, the part of the frame
  // the item shows (the box helper clips to it); all 0 for a whole frame.
  gint region_x, region_y, region_width, region_height;
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
GST_CUDA_PREP_API GType gst_cuda_prep_tensor_meta_api_get_type(void);
GST_CUDA_PREP_API const GstMetaInfo *gst_cuda_prep_tensor_meta_get_info(void);

// Adds a meta with `num_tensors` zeroed tensors (no dims, no items): fill
// each, e.g. with gst_cuda_prep_tensor_set_from_desc().
/**
 * gst_buffer_add_cuda_prep_tensor_meta: (skip)
 */
GST_CUDA_PREP_API GstCudaPrepTensorMeta *gst_buffer_add_cuda_prep_tensor_meta(GstBuffer *buffer,
                                                                              gsize num_tensors);
/**
 * gst_buffer_get_cuda_prep_tensor_meta: (skip)
 */
GST_CUDA_PREP_API GstCudaPrepTensorMeta *gst_buffer_get_cuda_prep_tensor_meta(GstBuffer *buffer);

/**
 * gst_cuda_prep_tensor_get_dims:
 * @tensor: a tensor
 * @num_dims: (out): the number of dims
 *
 * Returns: (transfer none) (array length=num_dims): the sizes, in memory
 * order (N first)
 */
GST_CUDA_PREP_API const gsize *gst_cuda_prep_tensor_get_dims(const GstCudaPrepTensor *tensor,
                                                             gsize *num_dims);

/**
 * gst_cuda_prep_tensor_get_strides:
 * @tensor: a tensor
 * @num_dims: (out): the number of dims
 *
 * Returns: (transfer none) (array length=num_dims): the byte strides
 */
GST_CUDA_PREP_API const gsize *gst_cuda_prep_tensor_get_strides(const GstCudaPrepTensor *tensor,
                                                                gsize *num_dims);

/**
 * gst_cuda_prep_tensor_get_data_address:
 * @tensor: a tensor
 *
 * Returns: the device address of element 0, as an integer (for bindings)
 */
GST_CUDA_PREP_API guint64 gst_cuda_prep_tensor_get_data_address(const GstCudaPrepTensor *tensor);

/**
 * gst_cuda_prep_tensor_get_item:
 * @tensor: a tensor
 * @index: the item, below batch_size
 * @pts: (out) (optional): the source frame's PTS
 * @geometry: (out caller-allocates) (optional): source frame -> item pixels
 *
 * The source frame of item @index (< batch_size) of @tensor: its PTS
 * (GST_CLOCK_TIME_NONE for padding) and the geometry mapping the item's
 * tensor pixels back to it.
 *
 * Returns: FALSE if @index is out of range
 */
GST_CUDA_PREP_API gboolean gst_cuda_prep_tensor_get_item(const GstCudaPrepTensor *tensor,
                                                         gsize index, GstClockTime *pts,
                                                         GstCudaPrepGeometry *geometry);

// The first tensor with `id`, or NULL.
GST_CUDA_PREP_API const GstCudaPrepTensor *gst_cuda_prep_tensor_meta_get_by_id(
    GstCudaPrepTensorMeta *meta, GQuark id);

G_END_DECLS
