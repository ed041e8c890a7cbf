/**
 * SECTION:element-cudaframeupload
 *
 * Copies video frames from system memory into pitched CUDA device memory
 * (`video/x-raw(memory:CUDAPitched)`) with an asynchronous 2D copy per plane
 * on the element's CUDA stream; the next element's stream waits on the
 * frame's ready event, so the host never waits for the GPU here.
 *
 * Upstream is offered a pool of pinned (page-locked) frames: a source that
 * takes it (videotestsrc, appsrc users allocating from it, decoders) is
 * copied straight from its buffer, which is held until the GPU has read it.
 * Other frames are first copied by the CPU into a pinned staging buffer.
 * Device frames in are passed through untouched.
 *
 * When downstream says what it reads (allocation query), only that crosses
 * PCIe: cudacrop's region, or the rows a cudaresize downscale samples. Such
 * frames carry a GstCudaPrepRegionMeta naming what was written.
 *
 *   gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! cudaframeupload ! cudaframedownload !
 * autovideosink
 */
#include "gstcudaframeupload.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <gst/video/gstvideopool.h>

#include "cudaprep/copy.h"
#include "gstcudaprepformat.h"
#include "gstcudaprepmemory.h"
#include "gstcudaprepmeta.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_frame_upload_debug);
#define GST_CAT_DEFAULT gst_cuda_frame_upload_debug

// Frames in flight between the CPU copy and the GPU copy: the CPU waits for a
// slot's previous copy only when it laps the ring, i.e. when the GPU is this
// many frames behind.
constexpr int kStagingSlots = 4;

// One frame in flight: the pinned memory the GPU copies from (the staging
// buffer, or the input buffer itself when it is pinned) stays untouched
// until `copied` completes.
struct StagingSlot {
  guint8 *host = nullptr;  // pinned staging, planes packed row after row; allocated on first use
  GstBuffer *held_input = nullptr;  // a pinned input the copy reads from directly
  cudaEvent_t copied = nullptr;
  bool pending = false;
};

struct _GstCudaFrameUpload {
  GstCudaPrepBaseTransform parent;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  StagingSlot slots[kStagingSlots];
  int next_slot;
  cudaprep::Image staging_layout;  // plane offsets (as pointers from 0) and pitches
  size_t staging_bytes;
  // The rectangle downstream reads (cudacrop's region), or width 0: the frame.
  gint region_x, region_y, region_width, region_height;
  // The rows downstream reads (cudaresize's downscale), copied as below;
  // period 0: all rows.
  cudaprep::RowPattern row_pattern;
  cudaprep::RowCopy row_copies[cudaprep::kMaxRowCopies];
  int n_row_copies;
};

G_DEFINE_TYPE(GstCudaFrameUpload, gst_cuda_frame_upload, GST_TYPE_CUDA_PREP_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(cudaframeupload, "cudaframeupload", GST_RANK_NONE,
                            GST_TYPE_CUDA_FRAME_UPLOAD)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(GST_CUDA_PREP_FRAME_FORMATS) ";" GST_CUDA_PREP_VIDEO_CAPS(
        GST_CUDA_PREP_FRAME_FORMATS)));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS)));

static void free_staging(GstCudaFrameUpload *self) {
  for (StagingSlot &slot : self->slots) {
    if (slot.copied != nullptr) {
      // The GPU may still read the pinned memory.
      cudaEventSynchronize(slot.copied);
      cudaEventDestroy(slot.copied);
    }
    if (slot.host != nullptr) cudaFreeHost(slot.host);
    if (slot.held_input != nullptr) gst_buffer_unref(slot.held_input);
    slot = StagingSlot();
  }
}

// Sizes the staging layout for the negotiated frames; the pinned buffers
// themselves are allocated only if a frame needs staging.
static gboolean prepare_staging(GstCudaFrameUpload *self) {
  cudaprep::Image &layout = self->staging_layout;
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&self->in_info), &layout.format))
    return FALSE;
  layout.width = GST_VIDEO_INFO_WIDTH(&self->in_info);
  layout.height = GST_VIDEO_INFO_HEIGHT(&self->in_info);
  size_t total_bytes = 0;
  const int num_planes = cudaprep::format_info(layout.format).num_planes;
  for (int plane = 0; plane < num_planes; ++plane) {
    layout.planes[plane].data = reinterpret_cast<guint8 *>(total_bytes);
    layout.planes[plane].pitch_bytes =
        cudaprep::plane_row_bytes(layout.format, plane, layout.width);
    total_bytes += layout.planes[plane].pitch_bytes *
                   cudaprep::plane_height(layout.format, plane, layout.height);
  }
  self->staging_bytes = total_bytes;
  for (StagingSlot &slot : self->slots) {
    if (!CUDAPREP_CHECK(self, cudaEventCreateWithFlags(&slot.copied, cudaEventDisableTiming)))
      return FALSE;
  }
  self->next_slot = 0;
  return TRUE;
}

static GstCaps *gst_cuda_frame_upload_transform_caps(GstBaseTransform *trans,
                                                     GstPadDirection direction, GstCaps *caps,
                                                     GstCaps *filter) {
  (void)trans;
  GstCaps *result = gst_cuda_prep_caps_with_feature(caps, GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED);
  if (direction == GST_PAD_SRC)
    result = gst_caps_merge(result, gst_cuda_prep_caps_with_feature(caps, nullptr));
  if (filter != nullptr) {
    GstCaps *filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(result);
    result = filtered;
  }
  return result;
}

static gboolean gst_cuda_frame_upload_set_caps(GstBaseTransform *trans, GstCaps *incaps,
                                               GstCaps *outcaps) {
  auto *self = GST_CUDA_FRAME_UPLOAD(trans);
  if (!gst_cuda_prep_frame_info_from_caps(GST_ELEMENT(self), incaps, &self->in_info) ||
      !gst_cuda_prep_frame_info_from_caps(GST_ELEMENT(self), outcaps, &self->out_info))
    return FALSE;
  free_staging(self);
  const gboolean passthrough = gst_cuda_prep_caps_are_device(incaps);
  gst_base_transform_set_passthrough(trans, passthrough);
  return passthrough || prepare_staging(self);
}

static gboolean is_pinned(const void *host) {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    cudaGetLastError();  // plain pageable memory may report an error on old drivers
    return FALSE;
  }
  return attributes.type == cudaMemoryTypeHost;
}

// Copies the mapped frame into the slot's pinned staging buffer, row by row
// where GStreamer's stride pads the rows.
static gboolean stage_frame(GstCudaFrameUpload *self, StagingSlot &slot,
                            const GstVideoFrame &host_frame, cudaprep::Image *staging) {
  if (slot.host == nullptr &&
      !CUDAPREP_CHECK(self, cudaHostAlloc(reinterpret_cast<void **>(&slot.host),
                                          self->staging_bytes, cudaHostAllocPortable)))
    return FALSE;
  *staging = self->staging_layout;
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES(&host_frame); ++plane) {
    staging->planes[plane].data = slot.host + reinterpret_cast<size_t>(staging->planes[plane].data);
    const size_t row_bytes = staging->planes[plane].pitch_bytes;
    const int rows = cudaprep::plane_height(staging->format, plane, staging->height);
    const auto *src = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&host_frame, plane));
    const size_t src_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&host_frame, plane);
    if (src_stride == row_bytes) {
      memcpy(staging->planes[plane].data, src, row_bytes * rows);
    } else {
      for (int row = 0; row < rows; ++row)
        memcpy(staging->planes[plane].data + row * row_bytes, src + row * src_stride, row_bytes);
    }
  }
  return TRUE;
}

static GstFlowReturn gst_cuda_frame_upload_process(GstCudaPrepBaseTransform *base, GstBuffer *inbuf,
                                                   GstBuffer *outbuf) {
  auto *self = GST_CUDA_FRAME_UPLOAD(base);
  cudaprep::Image device_frame;
  const gchar *error = nullptr;
  if (!gst_cuda_prep_buffer_device_image(outbuf, &self->out_info, &device_frame, &error)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Output buffer is not a device frame: %s", error),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  StagingSlot &slot = self->slots[self->next_slot];
  self->next_slot = (self->next_slot + 1) % kStagingSlots;
  if (slot.pending && !CUDAPREP_CHECK(self, cudaEventSynchronize(slot.copied)))
    return GST_FLOW_ERROR;
  slot.pending = false;
  gst_clear_buffer(&slot.held_input);

  GstVideoFrame host_frame;
  if (!gst_video_frame_map(&host_frame, &self->in_info, inbuf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the input frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  cudaprep::Image source = device_frame;
  gboolean ok = TRUE;
  if (is_pinned(GST_VIDEO_FRAME_PLANE_DATA(&host_frame, 0))) {
    for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES(&host_frame); ++plane) {
      source.planes[plane].data =
          static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&host_frame, plane));
      source.planes[plane].pitch_bytes = GST_VIDEO_FRAME_PLANE_STRIDE(&host_frame, plane);
    }
    // The buffer's memory stays valid (and unreused by its pool) while held.
    slot.held_input = gst_buffer_ref(inbuf);
  } else {
    ok = stage_frame(self, slot, host_frame, &source);
  }
  gst_video_frame_unmap(&host_frame);
  if (!ok) return GST_FLOW_ERROR;

  cudaStream_t stream = gst_cuda_prep_base_transform_get_stream(base);
  if (self->n_row_copies > 0) {
    if (!CUDAPREP_CHECK(self, cudaprep::copy_rows(source, device_frame, self->row_copies,
                                                  self->n_row_copies, stream)))
      return GST_FLOW_ERROR;
  } else {
    if (self->region_width > 0) {
      source = cudaprep::sub_image(source, self->region_x, self->region_y, self->region_width,
                                   self->region_height);
      device_frame = cudaprep::sub_image(device_frame, self->region_x, self->region_y,
                                         self->region_width, self->region_height);
    }
    if (!CUDAPREP_CHECK(self, cudaprep::copy_image(source, device_frame, stream)))
      return GST_FLOW_ERROR;
  }
  if (!CUDAPREP_CHECK(self, cudaEventRecord(slot.copied, stream))) return GST_FLOW_ERROR;
  slot.pending = true;
  if (self->region_width > 0 &&
      gst_buffer_add_cuda_prep_region_meta(
          outbuf, self->region_x, self->region_y, self->region_width, self->region_height,
          self->row_pattern.period, self->row_pattern.mask) == nullptr) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not mark the frame's uploaded region"),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

// Takes the rows of a "region" announcement with row-period/row-mask
// (cudaresize): whole rows only, a valid pattern every plane can copy by.
static gboolean take_rows(GstCudaFrameUpload *self, const GstStructure *region, gint x, gint y,
                          gint width, gint height, cudaprep::PixelFormat format) {
  gint period = 0;
  guint mask = 0;
  if (!gst_structure_get_int(region, "row-period", &period) ||
      !gst_structure_get_uint(region, "row-mask", &mask) || x != 0 ||
      width != GST_VIDEO_INFO_WIDTH(&self->out_info) || period < 2 ||
      period > cudaprep::kMaxRowPeriod || mask == 0 || (period < 32 && mask >= (1u << period)))
    return FALSE;
  cudaprep::RowPattern pattern;
  pattern.first = y;
  pattern.last = y + height - 1;
  pattern.period = period;
  pattern.mask = mask;
  const std::vector<cudaprep::RowCopy> copies =
      cudaprep::plan_row_copies(format, GST_VIDEO_INFO_HEIGHT(&self->out_info), pattern);
  if (copies.empty() || copies.size() > G_N_ELEMENTS(self->row_copies)) return FALSE;
  std::copy(copies.begin(), copies.end(), self->row_copies);
  self->n_row_copies = static_cast<int>(copies.size());
  self->row_pattern = pattern;
  GST_INFO_OBJECT(self,
                  "copying only the rows downstream reads: rows %d to %d whose bit (row - %d) "
                  "%% %d of 0x%x is set, %d 2D copies per frame",
                  pattern.first, pattern.last, pattern.first, period, mask, self->n_row_copies);
  return TRUE;
}

// Copies only what downstream reads, when it says what: a region
// (cudacrop), or rows (cudaresize's downscales).
static gboolean gst_cuda_frame_upload_decide_allocation(GstBaseTransform *trans, GstQuery *query) {
  auto *self = GST_CUDA_FRAME_UPLOAD(trans);
  self->region_width = 0;
  self->n_row_copies = 0;
  self->row_pattern = cudaprep::RowPattern();
  guint index = 0;
  const GstStructure *region = nullptr;
  gint x = 0, y = 0, width = 0, height = 0;
  cudaprep::PixelFormat format;
  if (gst_query_find_allocation_meta(query, GST_CUDA_PREP_REGION_META_API_TYPE, &index)) {
    gst_query_parse_nth_allocation_meta(query, index, &region);
    if (region != nullptr && gst_structure_get_int(region, "x", &x) &&
        gst_structure_get_int(region, "y", &y) && gst_structure_get_int(region, "width", &width) &&
        gst_structure_get_int(region, "height", &height) && x >= 0 && y >= 0 && width > 0 &&
        height > 0 && static_cast<gint64>(x) + width <= GST_VIDEO_INFO_WIDTH(&self->out_info) &&
        static_cast<gint64>(y) + height <= GST_VIDEO_INFO_HEIGHT(&self->out_info) &&
        gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&self->out_info), &format)) {
      const gboolean has_rows = gst_structure_has_field(region, "row-period");
      if (has_rows ? take_rows(self, region, x, y, width, height, format)
                   : !cudaprep::is_chroma_subsampled(format) || (x % 2 == 0 && y % 2 == 0)) {
        self->region_x = x;
        self->region_y = y;
        self->region_width = width;
        self->region_height = height;
        if (!has_rows)
          GST_INFO_OBJECT(self, "copying only the %dx%d region at (%d,%d) downstream reads", width,
                          height, x, y);
      }
    }
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_frame_upload_parent_class)
      ->decide_allocation(trans, query);
}

// Offers upstream pinned frames, so the GPU copies straight from them.
static gboolean gst_cuda_frame_upload_propose_allocation(GstBaseTransform *trans,
                                                         GstQuery *decide_query, GstQuery *query) {
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  if (gst_base_transform_is_passthrough(trans) || caps == nullptr ||
      gst_cuda_prep_caps_are_device(caps) || !gst_video_info_from_caps(&info, caps))
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_frame_upload_parent_class)
        ->propose_allocation(trans, decide_query, query);

  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  if (gst_query_get_n_allocation_pools(query) > 0) return TRUE;
  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstAllocator *allocator = gst_cuda_prep_host_allocator_get();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), 0, 0);
  gst_buffer_pool_config_set_allocator(config, allocator, nullptr);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  const gboolean configured = gst_buffer_pool_set_config(pool, config);
  if (configured) {
    gst_query_add_allocation_pool(query, pool, GST_VIDEO_INFO_SIZE(&info), 0, 0);
    gst_query_add_allocation_param(query, allocator, nullptr);
  } else {
    GST_WARNING_OBJECT(trans, "could not configure a pinned pool for %" GST_PTR_FORMAT, caps);
  }
  gst_object_unref(allocator);
  gst_object_unref(pool);
  return TRUE;
}

static gboolean gst_cuda_frame_upload_stop(GstBaseTransform *trans) {
  free_staging(GST_CUDA_FRAME_UPLOAD(trans));
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_frame_upload_parent_class)->stop(trans);
}

static void gst_cuda_frame_upload_class_init(GstCudaFrameUploadClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA frame upload", "Filter/Video/Hardware",
      "Copies video frames from system memory into pitched CUDA device memory through pinned "
      "staging buffers and asynchronous 2D copies",
      "cudaprep developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_cuda_frame_upload_transform_caps;
  trans_class->set_caps = gst_cuda_frame_upload_set_caps;
  trans_class->stop = gst_cuda_frame_upload_stop;
  trans_class->propose_allocation = gst_cuda_frame_upload_propose_allocation;
  trans_class->decide_allocation = gst_cuda_frame_upload_decide_allocation;
  GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass)->process = gst_cuda_frame_upload_process;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_frame_upload_debug, "cudaframeupload", 0, "CUDA frame upload");
}

static void gst_cuda_frame_upload_init(GstCudaFrameUpload *self) {
  gst_video_info_init(&self->in_info);
  gst_video_info_init(&self->out_info);
}
