/**
 * SECTION:element-cudaframeupload
 *
 * Copies video frames from system memory into pitched CUDA device memory
 * (`video/x-raw(memory:CUDAPitched)`) with an asynchronous 2D copy per plane
 * (one for planes that lie back to back at one pitch, as NV12's) on the
 * element's CUDA stream; the next element's stream waits on the frame's
 * ready event, so the host never waits for the GPU here.
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

#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include "cudaprep/copy.h"
#include "base/gstcudaprepnvcodec.h"
#include "base/gstcudapreppixelmetas.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_frame_upload_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_frame_upload_debug

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

struct GstCudaPrepFrameUploadPrivate {
  StagingSlot slots[kStagingSlots];
  int next_slot = 0;
  cudaprep::Image staging_layout;  // plane offsets (as pointers from 0) and pitches
  size_t staging_bytes = 0;
  // What downstream reads (cudacrop's region, cudaresize's rows), when it
  // said so: `partial`; the rows are copied as `row_copies` say.
  gboolean partial = FALSE;
  GstCudaPrepRegion region;
  std::vector<cudaprep::RowCopy> row_copies;
};

struct _GstCudaPrepFrameUpload {
  GstCudaPrepBaseTransform parent;
  GstCudaPrepFrameUploadPrivate *priv;
};

G_DEFINE_TYPE(GstCudaPrepFrameUpload, gst_cuda_prep_frame_upload, GST_TYPE_CUDA_PREP_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(cudaframeupload, "cudaframeupload", GST_RANK_NONE,
                            GST_TYPE_CUDA_PREP_FRAME_UPLOAD)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(GST_CUDA_PREP_FRAME_FORMATS) ";" GST_CUDA_PREP_VIDEO_CAPS(
        GST_CUDA_PREP_FRAME_FORMATS) ";" GST_CUDA_PREP_NVCODEC_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS)));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS)));

static void free_staging(GstCudaPrepFrameUpload *self) {
  for (StagingSlot &slot : self->priv->slots) {
    if (slot.copied != nullptr) {
      // The GPU may still read the pinned memory.
      if (!CUDAPREP_CHECK(self, cudaEventSynchronize(slot.copied)))
        GST_WARNING_OBJECT(self, "freeing a staging slot whose copy failed");
      CUDAPREP_CHECK(self, cudaEventDestroy(slot.copied));
    }
    if (slot.host != nullptr) CUDAPREP_CHECK(self, cudaFreeHost(slot.host));
    if (slot.held_input != nullptr) gst_buffer_unref(slot.held_input);
    slot = StagingSlot();
  }
}

// Sizes the staging layout for the negotiated frames; the pinned buffers
// themselves are allocated only if a frame needs staging.
static gboolean prepare_staging(GstCudaPrepFrameUpload *self, const GstVideoInfo *in_info) {
  GstCudaPrepFrameUploadPrivate *priv = self->priv;
  cudaprep::Image &layout = priv->staging_layout;
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(in_info), &layout.format)) return FALSE;
  layout.width = GST_VIDEO_INFO_WIDTH(in_info);
  layout.height = GST_VIDEO_INFO_HEIGHT(in_info);
  size_t total_bytes = 0;
  const int num_planes = cudaprep::format_info(layout.format).num_planes;
  for (int plane = 0; plane < num_planes; ++plane) {
    layout.planes[plane].data = reinterpret_cast<guint8 *>(total_bytes);
    layout.planes[plane].pitch_bytes =
        cudaprep::plane_row_bytes(layout.format, plane, layout.width);
    total_bytes += layout.planes[plane].pitch_bytes *
                   cudaprep::plane_height(layout.format, plane, layout.height);
  }
  priv->staging_bytes = total_bytes;
  for (StagingSlot &slot : priv->slots) {
    if (!CUDAPREP_CHECK(self, cudaEventCreateWithFlags(&slot.copied, cudaEventDisableTiming)))
      return FALSE;
  }
  priv->next_slot = 0;
  return TRUE;
}

static GstCaps *gst_cuda_prep_frame_upload_transform_caps(GstBaseTransform *trans,
                                                          GstPadDirection direction, GstCaps *caps,
                                                          GstCaps *filter) {
  GstCaps *result = gst_cuda_prep_caps_with_feature(caps, GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED);
  if (direction == GST_PAD_SRC)
    result = gst_caps_merge(result, gst_cuda_prep_caps_with_feature(caps, nullptr));
  return gst_cuda_prep_caps_filter_result(GST_ELEMENT(trans), direction, caps, result, filter);
}

// Device frames in pass through; nvcodec's frames go on in place (the base
// class reads them as device frames); system memory is staged.
static gboolean gst_cuda_prep_frame_upload_set_info(GstCudaPrepBaseTransform *base, GstCaps *incaps,
                                                    const GstVideoInfo *in_info, GstCaps *,
                                                    const GstVideoInfo *) {
  auto *self = GST_CUDA_PREP_FRAME_UPLOAD(base);
  free_staging(self);
  const gboolean passthrough = gst_cuda_prep_caps_are_device(incaps);
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(base), passthrough);
  return passthrough || gst_cuda_prep_caps_are_nvcodec(incaps) || prepare_staging(self, in_info);
}

static GstCudaPrepOutputPlan gst_cuda_prep_frame_upload_plan_output(GstCudaPrepBaseTransform *base,
                                                                    GstBuffer *) {
  return gst_cuda_prep_base_transform_input_is_nvcodec(base) ? GST_CUDA_PREP_OUTPUT_IN_PLACE
                                                             : GST_CUDA_PREP_OUTPUT_RUN;
}

// Whether the frame's pixels lie in pinned memory: marked by the pinned pool
// this element offers upstream, else as the driver tells.
static gboolean is_pinned(GstBuffer *buffer, const void *host) {
  const guint n_memory = gst_buffer_n_memory(buffer);
  gboolean marked = n_memory > 0;
  for (guint i = 0; i < n_memory && marked; ++i)
    marked = gst_cuda_prep_memory_is_marked_pinned(gst_buffer_peek_memory(buffer, i));
  if (marked) return TRUE;
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    cudaGetLastError();  // plain pageable memory may report an error on old drivers
    return FALSE;
  }
  return attributes.type == cudaMemoryTypeHost;
}

// Copies the mapped frame into the slot's pinned staging buffer, row by row
// where GStreamer's stride pads the rows.
static gboolean stage_frame(GstCudaPrepFrameUpload *self, StagingSlot &slot,
                            const GstVideoFrame &host_frame, cudaprep::Image *staging) {
  GstCudaPrepFrameUploadPrivate *priv = self->priv;
  if (slot.host == nullptr &&
      !CUDAPREP_CHECK(self, cudaHostAlloc(reinterpret_cast<void **>(&slot.host),
                                          priv->staging_bytes, cudaHostAllocPortable)))
    return FALSE;
  *staging = priv->staging_layout;
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

static void release_slot(StagingSlot &slot) {
  slot.pending = false;
  gst_clear_buffer(&slot.held_input);
}

// Frees the next slot, whose copy was recorded kStagingSlots frames ago.
// The copies run in order on one stream, so when the latest has completed
// every slot is free: one query frees them all (a live source's slots are
// long done; a driver call per frame would cost more than the frame's own
// calls). Else this waits for the next slot's copy alone.
static gboolean reclaim_slots(GstCudaPrepFrameUpload *self) {
  GstCudaPrepFrameUploadPrivate *priv = self->priv;
  // (Only a pending slot's event was recorded for its copy.)
  const StagingSlot &latest = priv->slots[(priv->next_slot + kStagingSlots - 1) % kStagingSlots];
  const cudaError_t latest_done = latest.pending
                                      ? gst_cuda_prep_consume_error(cudaEventQuery(latest.copied))
                                      : cudaErrorNotReady;
  if (latest_done == cudaSuccess) {
    for (StagingSlot &slot : priv->slots) release_slot(slot);
    return TRUE;
  }
  if (latest_done != cudaErrorNotReady && !CUDAPREP_CHECK(self, latest_done)) return FALSE;
  StagingSlot &slot = priv->slots[priv->next_slot];
  if (!CUDAPREP_CHECK(self, cudaEventSynchronize(slot.copied))) return FALSE;
  release_slot(slot);
  return TRUE;
}

static GstFlowReturn gst_cuda_prep_frame_upload_process(GstCudaPrepBaseTransform *base,
                                                        GstBuffer *inbuf, GstBuffer *outbuf) {
  auto *self = GST_CUDA_PREP_FRAME_UPLOAD(base);
  GstCudaPrepFrameUploadPrivate *priv = self->priv;
  cudaprep::Image device_frame;
  if (!gst_cuda_prep_base_transform_output_image(base, outbuf, &device_frame))
    return GST_FLOW_ERROR;
  StagingSlot &slot = priv->slots[priv->next_slot];
  if (slot.pending && !reclaim_slots(self)) return GST_FLOW_ERROR;
  priv->next_slot = (priv->next_slot + 1) % kStagingSlots;

  GstVideoFrame host_frame;
  if (!gst_video_frame_map(&host_frame, gst_cuda_prep_base_transform_get_in_info(base), inbuf,
                           GST_MAP_READ)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the input frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  cudaprep::Image source = device_frame;
  gboolean ok = TRUE;
  if (is_pinned(inbuf, GST_VIDEO_FRAME_PLANE_DATA(&host_frame, 0))) {
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
  const cudaprep::PixelRect &rect = priv->region.rect;
  if (!priv->row_copies.empty()) {
    if (!CUDAPREP_CHECK(self,
                        cudaprep::copy_rows(source, device_frame, priv->row_copies.data(),
                                            static_cast<int>(priv->row_copies.size()), stream)))
      return GST_FLOW_ERROR;
  } else {
    if (priv->partial) {
      source = cudaprep::sub_image(source, rect.x, rect.y, rect.width, rect.height);
      device_frame = cudaprep::sub_image(device_frame, rect.x, rect.y, rect.width, rect.height);
    }
    if (!CUDAPREP_CHECK(self, cudaprep::copy_image(source, device_frame, stream)))
      return GST_FLOW_ERROR;
  }
  if (!CUDAPREP_CHECK(self, cudaEventRecord(slot.copied, stream))) return GST_FLOW_ERROR;
  slot.pending = true;
  if (priv->partial && gst_buffer_add_cuda_prep_region_meta(outbuf, &priv->region) == nullptr) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not mark the frame's uploaded region"),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

// Takes a region announced downstream when it can be copied as announced:
// rows by a pattern every plane can copy by, or a rectangle on chroma-aligned
// offsets.
static gboolean take_region(GstCudaPrepFrameUpload *self, const GstCudaPrepRegion &region,
                            const GstVideoInfo *info) {
  GstCudaPrepFrameUploadPrivate *priv = self->priv;
  cudaprep::PixelFormat format;
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(info), &format)) return FALSE;
  if (region.rows.period == 0) {
    if (cudaprep::is_chroma_subsampled(format) &&
        (region.rect.x % 2 != 0 || region.rect.y % 2 != 0))
      return FALSE;
    GST_INFO_OBJECT(self, "copying only the %dx%d region at (%d,%d) downstream reads",
                    region.rect.width, region.rect.height, region.rect.x, region.rect.y);
    return TRUE;
  }
  if (region.rect.x != 0 || region.rect.width != GST_VIDEO_INFO_WIDTH(info)) return FALSE;
  priv->row_copies = cudaprep::plan_row_copies(format, GST_VIDEO_INFO_HEIGHT(info), region.rows);
  if (priv->row_copies.empty() || priv->row_copies.size() > cudaprep::kMaxRowCopies) {
    priv->row_copies.clear();
    return FALSE;
  }
  GST_INFO_OBJECT(self,
                  "copying only the rows downstream reads: rows %d to %d whose bit (row - %d) "
                  "%% %d of 0x%x is set, %zu 2D copies per frame",
                  region.rows.first, region.rows.last, region.rows.first, region.rows.period,
                  region.rows.mask, priv->row_copies.size());
  return TRUE;
}

// Copies only what downstream reads, when it says what: a region
// (cudacrop), or rows (cudaresize's downscales).
static gboolean gst_cuda_prep_frame_upload_decide_allocation(GstBaseTransform *trans,
                                                             GstQuery *query) {
  auto *self = GST_CUDA_PREP_FRAME_UPLOAD(trans);
  GstCudaPrepFrameUploadPrivate *priv = self->priv;
  const GstVideoInfo *out_info =
      gst_cuda_prep_base_transform_get_out_info(GST_CUDA_PREP_BASE_TRANSFORM(self));
  GstCudaPrepRegion region;
  priv->row_copies.clear();
  priv->partial = out_info != nullptr &&
                  gst_cuda_prep_query_find_region(query, GST_VIDEO_INFO_WIDTH(out_info),
                                                  GST_VIDEO_INFO_HEIGHT(out_info), &region) &&
                  take_region(self, region, out_info);
  priv->region = priv->partial ? region : GstCudaPrepRegion{};
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_frame_upload_parent_class)
      ->decide_allocation(trans, query);
}

// Offers upstream pinned frames, so the GPU copies straight from them.
static gboolean gst_cuda_prep_frame_upload_propose_allocation(GstBaseTransform *trans,
                                                              GstQuery *decide_query,
                                                              GstQuery *query) {
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  if (gst_base_transform_is_passthrough(trans) || caps == nullptr ||
      gst_cuda_prep_caps_are_device(caps) || gst_cuda_prep_caps_are_nvcodec(caps) ||
      !gst_video_info_from_caps(&info, caps))
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_frame_upload_parent_class)
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

// The upload copies pixels 1:1, so regions of interest and analytics
// results (an application's or a detector's, for cudabatch region-source=
// roi-meta or detections) stay where they are.
static gboolean gst_cuda_prep_frame_upload_transform_meta(GstBaseTransform *trans,
                                                          GstBuffer *outbuf, GstMeta *meta,
                                                          GstBuffer *inbuf) {
  if (gst_cuda_prep_meta_marks_objects(meta)) return TRUE;
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_frame_upload_parent_class)
      ->transform_meta(trans, outbuf, meta, inbuf);
}

static gboolean gst_cuda_prep_frame_upload_stop(GstBaseTransform *trans) {
  const gint device_id =
      gst_cuda_prep_base_transform_get_device_id(GST_CUDA_PREP_BASE_TRANSFORM(trans));
  if (device_id >= 0) {
    GstCudaPrepScopedDevice device(device_id);
    free_staging(GST_CUDA_PREP_FRAME_UPLOAD(trans));
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_frame_upload_parent_class)->stop(trans);
}

static void gst_cuda_prep_frame_upload_finalize(GObject *object) {
  delete GST_CUDA_PREP_FRAME_UPLOAD(object)->priv;
  G_OBJECT_CLASS(gst_cuda_prep_frame_upload_parent_class)->finalize(object);
}

static void gst_cuda_prep_frame_upload_class_init(GstCudaPrepFrameUploadClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstCudaPrepBaseTransformClass *base_class = GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass);

  G_OBJECT_CLASS(klass)->finalize = gst_cuda_prep_frame_upload_finalize;
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA frame upload", "Filter/Video/Hardware",
      "Copies video frames from system memory into pitched CUDA device memory through pinned "
      "staging buffers and asynchronous 2D copies",
      "cudaprep developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_cuda_prep_frame_upload_transform_caps;
  gst_cuda_prep_base_transform_class_read_nvcodec_frames(base_class);
  trans_class->stop = gst_cuda_prep_frame_upload_stop;
  trans_class->propose_allocation = gst_cuda_prep_frame_upload_propose_allocation;
  trans_class->decide_allocation = gst_cuda_prep_frame_upload_decide_allocation;
  trans_class->transform_meta = gst_cuda_prep_frame_upload_transform_meta;
  base_class->set_info = gst_cuda_prep_frame_upload_set_info;
  base_class->process = gst_cuda_prep_frame_upload_process;
  base_class->plan_output = gst_cuda_prep_frame_upload_plan_output;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_frame_upload_debug, "cudaframeupload", 0,
                          "CUDA frame upload");
}

static void gst_cuda_prep_frame_upload_init(GstCudaPrepFrameUpload *self) {
  self->priv = new GstCudaPrepFrameUploadPrivate();
}
