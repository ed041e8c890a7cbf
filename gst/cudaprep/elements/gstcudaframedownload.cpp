/**
 * SECTION:element-cudaframedownload
 *
 * Copies pitched CUDA device frames (including crop views) back to system
 * memory with one 2D copy per plane that honours each plane's offset and
 * pitch, then waits for the copy: the only element besides the tensor sink
 * that blocks the host.
 *
 *   gst-launch-1.0 videotestsrc ! cudaframeupload ! cudaframedownload ! autovideosink
 */
#include "gstcudaframedownload.h"

#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepformat-private.h>
#include "cudaprep/copy.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_frame_download_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_frame_download_debug

struct _GstCudaPrepFrameDownload {
  GstCudaPrepBaseTransform parent;
};

G_DEFINE_TYPE(GstCudaPrepFrameDownload, gst_cuda_prep_frame_download,
              GST_TYPE_CUDA_PREP_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(cudaframedownload, "cudaframedownload", GST_RANK_NONE,
                            GST_TYPE_CUDA_PREP_FRAME_DOWNLOAD)

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(GST_CUDA_PREP_FRAME_FORMATS) ";" GST_CUDA_PREP_VIDEO_CAPS(
        GST_CUDA_PREP_FRAME_FORMATS)));

static GstCaps *gst_cuda_prep_frame_download_transform_caps(GstBaseTransform *trans,
                                                            GstPadDirection direction,
                                                            GstCaps *caps, GstCaps *filter) {
  GstCaps *result = gst_cuda_prep_caps_with_feature(caps, GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED);
  if (direction == GST_PAD_SINK)
    result = gst_caps_merge(gst_cuda_prep_caps_with_feature(caps, nullptr), result);
  return gst_cuda_prep_caps_filter_result(GST_ELEMENT(trans), direction, caps, result, filter);
}

// Device frames out pass through.
static gboolean gst_cuda_prep_frame_download_set_info(GstCudaPrepBaseTransform *base, GstCaps *,
                                                      const GstVideoInfo *, GstCaps *outcaps,
                                                      const GstVideoInfo *) {
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(base),
                                     gst_cuda_prep_caps_are_device(outcaps));
  return TRUE;
}

static GstFlowReturn gst_cuda_prep_frame_download_process(GstCudaPrepBaseTransform *base,
                                                          GstBuffer *inbuf, GstBuffer *outbuf) {
  auto *self = GST_CUDA_PREP_FRAME_DOWNLOAD(base);
  cudaprep::Image device_frame;
  if (!gst_cuda_prep_base_transform_input_image(base, inbuf, &device_frame)) return GST_FLOW_ERROR;
  GstVideoFrame host_frame;
  if (!gst_video_frame_map(&host_frame, gst_cuda_prep_base_transform_get_out_info(base), outbuf,
                           GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the output frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  cudaprep::Image host_image = device_frame;
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES(&host_frame); ++plane) {
    host_image.planes[plane].data =
        static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&host_frame, plane));
    host_image.planes[plane].pitch_bytes = GST_VIDEO_FRAME_PLANE_STRIDE(&host_frame, plane);
  }
  cudaStream_t stream = gst_cuda_prep_base_transform_get_stream(base);
  const gboolean ok =
      CUDAPREP_CHECK(self, cudaprep::copy_image(device_frame, host_image, stream)) &&
      CUDAPREP_CHECK(self, cudaStreamSynchronize(stream));
  gst_video_frame_unmap(&host_frame);
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static void gst_cuda_prep_frame_download_class_init(GstCudaPrepFrameDownloadClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstCudaPrepBaseTransformClass *base_class = GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass);

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA frame download", "Filter/Video/Hardware",
      "Copies pitched CUDA device frames, crop views included, to system memory with one 2D copy "
      "per plane",
      "cudaprep developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_cuda_prep_frame_download_transform_caps;
  base_class->set_info = gst_cuda_prep_frame_download_set_info;
  base_class->process = gst_cuda_prep_frame_download_process;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_frame_download_debug, "cudaframedownload", 0,
                          "CUDA frame download");
}

static void gst_cuda_prep_frame_download_init(GstCudaPrepFrameDownload *) {}
