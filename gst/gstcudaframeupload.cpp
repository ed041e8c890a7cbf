/**
 * SECTION:element-cudaframeupload
 *
 * Copies video frames from system memory into pitched CUDA device memory
 * (`video/x-raw(memory:CUDAPitched)`). Each frame is first copied into a
 * pinned staging buffer, from which an asynchronous 2D copy per plane runs on
 * the element's CUDA stream; the next element's stream waits on the frame's
 * ready event, so the host never waits for the GPU here. Device frames in are
 * passed through untouched.
 *
 *   gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! cudaframeupload ! cudaframedownload !
 * autovideosink
 */
#include "gstcudaframeupload.h"

#include <cstring>

#include "cudaprep/copy.h"
#include "gstcudaprepformat.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_frame_upload_debug);
#define GST_CAT_DEFAULT gst_cuda_frame_upload_debug

// Frames in flight between the CPU copy and the GPU copy: the CPU waits for a
// slot's previous copy only when it laps the ring, i.e. when the GPU is this
// many frames behind.
constexpr int kStagingSlots = 4;

struct StagingSlot {
  guint8 *host = nullptr;  // pinned, planes packed row after row
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
    slot = StagingSlot();
  }
}

static gboolean allocate_staging(GstCudaFrameUpload *self) {
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
  for (StagingSlot &slot : self->slots) {
    if (!CUDAPREP_CHECK(self, cudaHostAlloc(reinterpret_cast<void **>(&slot.host), total_bytes,
                                            cudaHostAllocDefault)) ||
        !CUDAPREP_CHECK(self, cudaEventCreateWithFlags(&slot.copied, cudaEventDisableTiming)))
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
  if (!gst_video_info_from_caps(&self->in_info, incaps) ||
      !gst_video_info_from_caps(&self->out_info, outcaps)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Invalid caps"),
                      ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  free_staging(self);
  const gboolean passthrough = gst_cuda_prep_caps_are_device(incaps);
  gst_base_transform_set_passthrough(trans, passthrough);
  return passthrough || allocate_staging(self);
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
  GstVideoFrame host_frame;
  if (!gst_video_frame_map(&host_frame, &self->in_info, inbuf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the input frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  StagingSlot &slot = self->slots[self->next_slot];
  self->next_slot = (self->next_slot + 1) % kStagingSlots;
  if (slot.pending && !CUDAPREP_CHECK(self, cudaEventSynchronize(slot.copied))) {
    gst_video_frame_unmap(&host_frame);
    return GST_FLOW_ERROR;
  }

  cudaprep::Image staging = self->staging_layout;
  const int num_planes = GST_VIDEO_FRAME_N_PLANES(&host_frame);
  for (int plane = 0; plane < num_planes; ++plane) {
    staging.planes[plane].data = slot.host + reinterpret_cast<size_t>(staging.planes[plane].data);
    const size_t row_bytes = staging.planes[plane].pitch_bytes;
    const int rows = cudaprep::plane_height(staging.format, plane, staging.height);
    const auto *src = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&host_frame, plane));
    const size_t src_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&host_frame, plane);
    if (src_stride == row_bytes) {
      memcpy(staging.planes[plane].data, src, row_bytes * rows);
    } else {
      for (int row = 0; row < rows; ++row)
        memcpy(staging.planes[plane].data + row * row_bytes, src + row * src_stride, row_bytes);
    }
  }
  gst_video_frame_unmap(&host_frame);

  cudaStream_t stream = gst_cuda_prep_base_transform_get_stream(base);
  if (!CUDAPREP_CHECK(self, cudaprep::copy_image(staging, device_frame, stream)) ||
      !CUDAPREP_CHECK(self, cudaEventRecord(slot.copied, stream)))
    return GST_FLOW_ERROR;
  slot.pending = true;
  return GST_FLOW_OK;
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
  GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass)->process = gst_cuda_frame_upload_process;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_frame_upload_debug, "cudaframeupload", 0, "CUDA frame upload");
}

static void gst_cuda_frame_upload_init(GstCudaFrameUpload *self) {
  gst_video_info_init(&self->in_info);
  gst_video_info_init(&self->out_info);
}
