/**
 * SECTION:cudaprep-meta
 *
 * The metas cudaprep buffers carry between elements and to applications
 * (the region meta of partial uploads is in gstcudaprepregion.h):
 * #GstCudaPrepGeometryMeta and #GstCudaPrepTensorMeta.
 *
 * Public and plain C (installed; GstCudaPrepGeometry itself is in
 * gstcudaprepgeometry.h). The C++ helpers stay inside: the conversions to
 * the kernels' types in gstcudaprepgeometry-private.h and
 * gstcudaprepmeta-private.h, the pending meta of fusion in the plugin
 * (gst/cudaprep/base/gstcudapreppendingmeta.h).
 *
 * Ownership: neither meta owns device memory or CUDA events. The tensor's
 * `data` points into the buffer's GstMemory, which owns it, and is valid
 * while the buffer (or a shallow copy sharing that memory) lives; the ready
 * event belongs to that memory as well. A copy of the buffer that does not
 * share the memory (a deep copy) does not get the tensor meta, because its
 * `data` would point at the original's memory.
 */
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include "cudaprep-prelude.h"
#include "gstcudaprepgeometry.h"

G_BEGIN_DECLS

// --- Geometry -------------------------------------------------------------

/**
 * gst_cuda_prep_geometry_init_identity:
 * @geometry: the mapping to set
 *
 * Sets @geometry to the identity: crop 0, scale 1, pad 0, orientation 0.
 */
GST_CUDA_PREP_API void gst_cuda_prep_geometry_init_identity(GstCudaPrepGeometry *geometry);

/**
 * gst_cuda_prep_geometry_to_source:
 * @geometry: the mapping
 * @out_x: output x
 * @out_y: output y
 * @src_x: (out): source x
 * @src_y: (out): source y
 *
 * Maps a point of the output (a tensor pixel coordinate) back to the source
 * frame.
 */
GST_CUDA_PREP_API void gst_cuda_prep_geometry_to_source(const GstCudaPrepGeometry *geometry,
                                                        gdouble out_x, gdouble out_y,
                                                        gdouble *src_x, gdouble *src_y);

/**
 * gst_cuda_prep_geometry_to_output:
 * @geometry: the mapping
 * @src_x: source x
 * @src_y: source y
 * @out_x: (out): output x
 * @out_y: (out): output y
 *
 * Maps a source-frame point to the output.
 */
GST_CUDA_PREP_API void gst_cuda_prep_geometry_to_output(const GstCudaPrepGeometry *geometry,
                                                        gdouble src_x, gdouble src_y,
                                                        gdouble *out_x, gdouble *out_y);

// --- Geometry meta --------------------------------------------------------

/**
 * GstCudaPrepGeometryMeta:
 * @meta: the parent
 * @geometry: source frame -> this buffer's pixels
 *
 * How this buffer's pixels map back to the original source frame (crop,
 * scale, letterbox pad: #GstCudaPrepGeometry). Each element that moves
 * pixels composes its own mapping onto it.
 */
typedef struct {
  GstMeta meta;
  GstCudaPrepGeometry geometry;
} GstCudaPrepGeometryMeta;

#define GST_CUDA_PREP_GEOMETRY_META_API_TYPE (gst_cuda_prep_geometry_meta_api_get_type())
#define GST_CUDA_PREP_GEOMETRY_META_INFO (gst_cuda_prep_geometry_meta_get_info())

/**
 * gst_cuda_prep_geometry_meta_api_get_type:
 *
 * The geometry meta's API, with the tags "video", "size" and "orientation":
 * the mapping is void once pixels move. Copies keep it; a GstVideo scale
 * transform (videoscale) composes the scale.
 *
 * Returns: the API type
 */
GST_CUDA_PREP_API GType gst_cuda_prep_geometry_meta_api_get_type(void);
/**
 * gst_cuda_prep_geometry_meta_get_info:
 *
 * Returns: (transfer none): the geometry meta's info
 */
GST_CUDA_PREP_API const GstMetaInfo *gst_cuda_prep_geometry_meta_get_info(void);

/**
 * gst_buffer_add_cuda_prep_geometry_meta: (skip)
 * @buffer: a buffer
 * @geometry: (nullable): the mapping, NULL for the identity
 *
 * Adds a geometry meta holding @geometry (identity if NULL).
 *
 * Returns: (transfer none): the meta
 */
GST_CUDA_PREP_API GstCudaPrepGeometryMeta *gst_buffer_add_cuda_prep_geometry_meta(
    GstBuffer *buffer, const GstCudaPrepGeometry *geometry);
/**
 * gst_buffer_get_cuda_prep_geometry_meta: (skip)
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): @buffer's geometry meta, or NULL
 */
GST_CUDA_PREP_API GstCudaPrepGeometryMeta *gst_buffer_get_cuda_prep_geometry_meta(
    GstBuffer *buffer);

// --- Tensor meta ----------------------------------------------------------

/**
 * GstCudaPrepTensorDataType:
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_INT4: signed 4-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_INT8: signed 8-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_INT16: signed 16-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_INT32: signed 32-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_INT64: signed 64-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT4: unsigned 4-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT8: unsigned 8-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT16: unsigned 16-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT32: unsigned 32-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT64: unsigned 64-bit integers
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16: IEEE half-precision floats
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT32: IEEE single-precision floats
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT64: IEEE double-precision floats
 * @GST_CUDA_PREP_TENSOR_DATA_TYPE_BFLOAT16: bfloat16 floats
 *
 * A tensor's element type. Same members and order as 1.26's
 * GstTensorDataType, so values match.
 */
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

/**
 * GstCudaPrepTensorDimOrder:
 * @GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR: the last dim varies fastest
 * @GST_CUDA_PREP_TENSOR_DIM_ORDER_COL_MAJOR: the first dim varies fastest
 *
 * As 1.26's GstTensorDimOrder: how dims[] map to memory.
 */
typedef enum {
  GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR,
  GST_CUDA_PREP_TENSOR_DIM_ORDER_COL_MAJOR,
} GstCudaPrepTensorDimOrder;

/**
 * GstCudaPrepTensorLayout:
 * @GST_CUDA_PREP_TENSOR_LAYOUT_CONTIGUOUS: dense, no gaps
 * @GST_CUDA_PREP_TENSOR_LAYOUT_STRIDED: any byte strides (strides[] says
 *   where each element is)
 *
 * As 1.26's GstTensorLayout: storage of the elements.
 */
typedef enum {
  GST_CUDA_PREP_TENSOR_LAYOUT_CONTIGUOUS,
  GST_CUDA_PREP_TENSOR_LAYOUT_STRIDED,
} GstCudaPrepTensorLayout;

/**
 * GstCudaPrepTensorImageLayout:
 * @GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW: batch, channels, rows, columns
 * @GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NHWC: batch, rows, columns, channels
 * @GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCTHW: clips: batch, channels, frames,
 *   rows, columns (a frame's channel planes lie T planes apart)
 * @GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NTCHW: clips: batch, frames, channels,
 *   rows, columns
 *
 * What the axes of an image tensor mean (1.26 leaves this to the tensor id).
 */
typedef enum {
  GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW,
  GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NHWC,
  GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCTHW,
  GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NTCHW,
} GstCudaPrepTensorImageLayout;

/**
 * GST_CUDA_PREP_TENSOR_MAX_DIMS:
 *
 * The most dims a #GstCudaPrepTensor has.
 */
#define GST_CUDA_PREP_TENSOR_MAX_DIMS 8

/**
 * GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME:
 *
 * No region: the item is the whole frame (#GstCudaPrepTensorItem's
 * region_id).
 */
#define GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME (-1)

/**
 * GstCudaPrepTensorItem:
 * @pts: the source frame's PTS
 * @geometry: source frame -> this item's tensor pixels
 * @source_index: the source (cudabatch sink pad sink_N: N); 0 for one
 *   stream
 * @region_id: the region's id (the index in cudabatch's regions, the
 *   GstVideoRegionOfInterestMeta's id, or a detection's GstAnalyticsMtd id
 *   in its frame's relation meta), or %GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME
 * @region_x: the left edge of a region item's rectangle
 * @region_y: its top edge
 * @region_width: its width
 * @region_height: its height
 *
 * One item of a batch: the source frame it came from. A region item's
 * rectangle is in source-frame pixels, the part of the frame the item shows
 * (the box helper clips to it); all 0 for a whole frame.
 */
typedef struct {
  GstClockTime pts;
  GstCudaPrepGeometry geometry;
  gint source_index;
  gint region_id;
  gint region_x, region_y, region_width, region_height;
} GstCudaPrepTensorItem;

/**
 * GstCudaPrepTensor:
 * @id: what the tensor holds (e.g. "input")
 * @layout: CONTIGUOUS for cudatensorize's tensors
 * @data_type: the element type
 * @data: device pointer to element 0; not owned
 * @dims_order: how @dims map to memory
 * @num_dims: the entries of @dims and @strides in use
 * @dims: sizes, in memory order (N first)
 * @strides: bytes between neighbours along each dim
 * @image_layout: what the axes mean
 * @device_id: the CUDA device @data is on
 * @ready_event: recorded after the tensor was written; wait on it
 *   (cudaStreamWaitEvent) before reading. Owned by the memory; NULL if
 *   nothing to wait for
 * @batch_size: dims[0]: the number of entries of @items
 * @batch_filled: items holding frames (the first ones); the rest are
 *   padding
 * @items: batch_size entries, owned by the meta
 * @clip_length: frames per item of a clip tensor (NCTHW or NTCHW: T); 0
 *   when each item is one frame
 * @clip_filled: (array length=batch_size) (nullable): per item, the frames
 *   written (the first ones of the clip; the rest are zeros); NULL when
 *   clip_length is 0
 * @frame_pts: (nullable): batch_size * clip_length PTS, item by item: each
 *   clip frame's source PTS, GST_CLOCK_TIME_NONE where none was written;
 *   NULL when clip_length is 0
 *
 * One tensor of a #GstCudaPrepTensorMeta. A clip item's @items entry
 * describes its first frame (PTS, geometry, source). A clip never spans a
 * change of the tensor element's input caps; a change upstream that leaves
 * them as they are (a new source size behind a resize to a fixed size, a
 * moving crop) does not end it, and its later frames' geometry may differ
 * from the first's.
 */
typedef struct {
  GQuark id;
  GstCudaPrepTensorLayout layout;
  GstCudaPrepTensorDataType data_type;
  gpointer data;
  GstCudaPrepTensorDimOrder dims_order;
  gsize num_dims;
  gsize dims[GST_CUDA_PREP_TENSOR_MAX_DIMS];
  gsize strides[GST_CUDA_PREP_TENSOR_MAX_DIMS];
  GstCudaPrepTensorImageLayout image_layout;
  gint device_id;
  cudaEvent_t ready_event;
  gsize batch_size;
  gsize batch_filled;
  GstCudaPrepTensorItem *items;
  gsize clip_length;
  gsize *clip_filled;
  GstClockTime *frame_pts;
} GstCudaPrepTensor;

/**
 * GstCudaPrepTensorMeta:
 * @meta: the parent
 * @num_tensors: the entries of @tensors
 * @tensors: num_tensors tensors, owned by the meta
 *
 * The tensors a buffer carries, for inference. Named after GStreamer 1.26's
 * analytics GstTensorMeta / GstTensor (id, layout, data_type, data,
 * dims_order, num_dims, dims; num_tensors, tensors) so that moving to it is
 * mechanical; we build on 1.22, which lacks it. Differences: `data` is the
 * device pointer (1.26: a GstBuffer), and a tensor also carries byte
 * strides, its image layout (NCHW/NHWC), device id, ready event and, per
 * batch item, the source PTS and geometry.
 */
typedef struct {
  GstMeta meta;
  gsize num_tensors;
  GstCudaPrepTensor **tensors;
} GstCudaPrepTensorMeta;

#define GST_CUDA_PREP_TENSOR_META_API_TYPE (gst_cuda_prep_tensor_meta_api_get_type())
#define GST_CUDA_PREP_TENSOR_META_INFO (gst_cuda_prep_tensor_meta_get_info())

/**
 * gst_cuda_prep_tensor_meta_api_get_type:
 *
 * The tensor meta's API, with the tag "memory": the meta describes the
 * buffer's memory.
 *
 * Returns: the API type
 */
GST_CUDA_PREP_API GType gst_cuda_prep_tensor_meta_api_get_type(void);
/**
 * gst_cuda_prep_tensor_meta_get_info:
 *
 * Returns: (transfer none): the tensor meta's info
 */
GST_CUDA_PREP_API const GstMetaInfo *gst_cuda_prep_tensor_meta_get_info(void);

/**
 * gst_buffer_add_cuda_prep_tensor_meta: (skip)
 * @buffer: a buffer
 * @num_tensors: the tensors it will carry
 *
 * Adds a meta with @num_tensors zeroed tensors (no dims, no items): fill
 * each, e.g. with gst_cuda_prep_tensor_set_from_desc().
 *
 * Returns: (transfer none): the meta
 */
GST_CUDA_PREP_API GstCudaPrepTensorMeta *gst_buffer_add_cuda_prep_tensor_meta(GstBuffer *buffer,
                                                                              gsize num_tensors);
/**
 * gst_buffer_get_cuda_prep_tensor_meta: (skip)
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): @buffer's tensor meta, or NULL
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

/**
 * gst_cuda_prep_tensor_get_clip_frame_pts:
 * @tensor: a clip tensor (clip_length > 0)
 * @index: the item, below batch_size
 * @num_frames: (out): the frames written into the clip
 *
 * The source PTS of each frame written into clip @index, in clip order;
 * its length is the clip's fill count (clip_length for a whole clip, less
 * for one cut short by EOS, a flush deadline or a caps change).
 *
 * Returns: (array length=num_frames) (nullable): the PTS,
 * or NULL (and 0) if @tensor holds no clips or @index is out of range
 */
GST_CUDA_PREP_API const GstClockTime *gst_cuda_prep_tensor_get_clip_frame_pts(
    const GstCudaPrepTensor *tensor, gsize index, gsize *num_frames);

/**
 * gst_cuda_prep_tensor_meta_get_by_id:
 * @meta: a tensor meta
 * @id: what the tensor holds
 *
 * Returns: (transfer none) (nullable): the first tensor with @id, or NULL
 */
GST_CUDA_PREP_API const GstCudaPrepTensor *gst_cuda_prep_tensor_meta_get_by_id(
    GstCudaPrepTensorMeta *meta, GQuark id);

G_END_DECLS
