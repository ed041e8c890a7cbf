// Regions as items (nvdspreprocess' ROIs): the regions of a frame that
// become items (the pad's static regions or tiles, its ROI metas or its
// detections) and each region's item, cropped, letterboxed or stretched as
// the pad's chain would do it. Part of cudabatch (gstcudabatch-private.h).
#include "elements/cudabatch/gstcudabatch-private.h"

#include <gst/video/video.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "cudaprep/resize_geometry.h"
#include "base/gstcudapreppendingmeta.h"
#include "base/gstcudapreppixelmetas.h"
#include "base/gstcudaprepregion.h"
#include "base/gstcudaprepview.h"

#define GST_CAT_DEFAULT gst_cuda_prep_batch_debug

namespace cudaprep::batch {

struct FrameRegion {
  cudaprep::PixelRect rect;
  gint id;
};

// The regions of a frame of width x height that become items, in order:
// the pad's rectangles or its tiles (each must fit: an element error
// otherwise), or the frame's region of interest metas (of roi-type) or
// object detections (of roi-type, at least min-confidence), clipped to the
// frame, empty ones left out; a detection's region id is its result's id in
// the relation meta.
static gboolean frame_regions(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad, GstBuffer *buffer,
                              const GstCudaPrepBatchPadSettings &settings, gint width, gint height,
                              std::vector<FrameRegion> *regions) {
  if (settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_PROPERTY ||
      settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_TILES) {
    std::string reason;
    const std::vector<cudaprep::PixelRect> *rects =
        gst_cuda_prep_batch_pad_static_regions(pad, settings, width, height, &reason);
    if (rects == nullptr) {
      GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", reason.c_str()), (nullptr));
      return FALSE;
    }
    for (size_t i = 0; i < rects->size(); ++i) {
      const cudaprep::PixelRect &rect = (*rects)[i];
      if (static_cast<gint64>(rect.x) + rect.width > width ||
          static_cast<gint64>(rect.y) + rect.height > height) {
        GST_ELEMENT_ERROR(
            self, RESOURCE, SETTINGS,
            ("%s: region %zu <%d,%d,%d,%d> does not fit the %dx%d source frame", GST_PAD_NAME(pad),
             i, rect.x, rect.y, rect.width, rect.height, width, height),
            (nullptr));
        return FALSE;
      }
      regions->push_back(FrameRegion{rect, static_cast<gint>(i)});
    }
    return TRUE;
  }
  // Results of a detector or ROI metas: clipped to the frame, empty ones left out.
  auto add_clipped = [&](gint64 x, gint64 y, gint64 w, gint64 h, gint id, const char *what) {
    const gint64 left = std::clamp<gint64>(x, 0, width), top = std::clamp<gint64>(y, 0, height);
    const gint64 right = std::clamp<gint64>(x + w, 0, width);
    const gint64 bottom = std::clamp<gint64>(y + h, 0, height);
    if (right <= left || bottom <= top) {
      GST_LOG_OBJECT(pad, "%s %d lies outside the %dx%d frame", what, id, width, height);
      return;
    }
    regions->push_back(FrameRegion{
        cudaprep::PixelRect{static_cast<gint>(left), static_cast<gint>(top),
                            static_cast<gint>(right - left), static_cast<gint>(bottom - top)},
        id});
  };
  if (settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_DETECTIONS) {
    for (const GstCudaPrepDetection &detection :
         gst_cuda_prep_buffer_detections(buffer, settings.roi_type, settings.min_confidence))
      add_clipped(detection.rect.x, detection.rect.y, detection.rect.width, detection.rect.height,
                  static_cast<gint>(detection.id), "detection");
    return TRUE;
  }
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta_filtered(
             buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    const auto *roi = reinterpret_cast<const GstVideoRegionOfInterestMeta *>(meta);
    if (settings.roi_type != 0 && roi->roi_type != settings.roi_type) continue;
    add_clipped(roi->x, roi->y, roi->w, roi->h, roi->id, "region of interest");
  }
  return TRUE;
}

// One item per region of the frame, each resized as the pad's cudaresize
// would resize that part (its letterbox or stretch, its method, pad value
// and colorimetry) and normalised as its cudanormalize would. A frame with
// more regions than the batch has room for goes on into the next batches.
GstFlowReturn add_frame_regions(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad, GstBuffer *buffer,
                                const GstCudaPrepBatchPadSettings &settings) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  const GstCudaPrepPendingMeta *pending = gst_buffer_get_cuda_prep_pending_meta(buffer);
  if (pending == nullptr || !pending->has_normalize) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED,
                      ("%s: region-source takes regions of the source frame, but this frame "
                       "arrived already resized and normalised; link cudaresize ! cudanormalize "
                       "straight into the pad so that they leave their work to cudabatch "
                       "(cudanormalize keeps its work only when it does not expand GRAY8 to "
                       "three channels: resize to RGB first, or use channel-order=gray)",
                       GST_PAD_NAME(pad)),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  if (pending->cropped) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED,
                      ("%s: region-source takes regions of the source frame, but a cudacrop after "
                       "the cudaresize keeps only part of the resized frame; give the crop as a "
                       "region instead, or take whole frames (region-source=frame)",
                       GST_PAD_NAME(pad)),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  cudaprep::Image source;
  const gchar *error = nullptr;
  if (!gst_cuda_prep_buffer_source_image(buffer, &source, &error)) {
    gst_cuda_prep_post_frame_error(GST_ELEMENT(self), "Pending", error);
    return GST_FLOW_ERROR;
  }
  std::vector<FrameRegion> regions;
  if (!frame_regions(self, pad, buffer, settings, source.width, source.height, &regions))
    return GST_FLOW_ERROR;
  if (regions.empty())
    GST_LOG_OBJECT(pad, "the frame at %" GST_TIME_FORMAT " has no regions: no items",
                   GST_TIME_ARGS(GST_BUFFER_PTS(buffer)));
  // Without a pending resize the chain had no cudaresize (or it passed the
  // frame through): regions are stretched, bilinear (ResizeParams' default).
  const cudaprep::FrameGeometry source_geometry =
      pending->has_resize ? pending->source_geometry : gst_cuda_prep_buffer_get_geometry(buffer);
  const gint width = priv->info.width, height = priv->info.height;
  // A region as the pad's video-direction turns it keeps its aspect.
  const cudaprep::Orientation orientation = pending->resize.orientation;
  const bool swapped = cudaprep::swaps_axes(orientation);
  GstFlowReturn ret = GST_FLOW_OK;
  for (size_t i = 0; i < regions.size() && ret == GST_FLOW_OK; ++i) {
    cudaprep::PixelRect rect = regions[i].rect;
    // Chroma samples stay aligned, as cudacrop aligns a crop.
    if (cudaprep::is_chroma_subsampled(source.format)) {
      rect.x &= ~1;
      if (source.format != cudaprep::PixelFormat::kYUY2) rect.y &= ~1;
    }
    if (!gst_cuda_prep_buffer_holds_rect(buffer, rect)) {
      GST_INFO_OBJECT(pad, "region %d: the frame was uploaded for other regions; left out",
                      regions[i].id);
      continue;
    }
    GstCudaPrepBatchItem item;
    item.is_region = TRUE;
    item.rect = rect;
    item.dst_rect = cudaprep::PixelRect{0, 0, width, height};
    std::string reason;
    if (pending->has_resize && pending->letterbox &&
        !cudaprep::letterbox_rect(swapped ? rect.height : rect.width,
                                  swapped ? rect.width : rect.height, width, height,
                                  pending->letterbox_options, &item.dst_rect, &reason)) {
      GST_ELEMENT_ERROR(self, STREAM, FAILED,
                        ("%s: region %d cannot be letterboxed: %s", GST_PAD_NAME(pad),
                         regions[i].id, reason.c_str()),
                        (nullptr));
      return GST_FLOW_ERROR;
    }
    cudaprep::FrameGeometry crop;
    crop.crop_x = rect.x;
    crop.crop_y = rect.y;
    item.geometry = source_geometry.then(crop).then(
        cudaprep::resize_frame_geometry(rect.width, rect.height, item.dst_rect, orientation));
    item.pts = GST_BUFFER_PTS(buffer);
    item.source_index = pad->source_index;
    item.region_id = regions[i].id;
    item.buffer = gst_buffer_ref(buffer);
    ret = append_item(self, pad, item);
  }
  return ret;
}

}  // namespace cudaprep::batch
