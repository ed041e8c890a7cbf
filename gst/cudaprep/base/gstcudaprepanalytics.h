// GStreamer's analytics results (GstAnalyticsRelationMeta, GStreamer >=
// 1.24, gst-libs/gst/analytics): an upstream detector's object detections
// (GstAnalyticsODMtd) as cudabatch's regions, and all of the results kept
// in the frame's own pixels as elements move them (the coordinate rule of
// gstcudaprepview.h). Built without them on GStreamer 1.22: no results to
// read, nothing to move.
#pragma once

#include <gst/gst.h>

#include <vector>

#include "cudaprep/geometry.h"
#include "cudaprep/resize.h"

// Whether the GStreamer cudaprep was built against has the analytics results.
gboolean gst_cuda_prep_has_analytics(void);

// Whether `meta` holds analytics results (a GstAnalyticsRelationMeta):
// what an element that keeps the pixels where they are (an upload) copies,
// as it copies region of interest metas.
gboolean gst_cuda_prep_meta_is_analytics(const GstMeta *meta);

// One object detection of a frame.
struct GstCudaPrepDetection {
  cudaprep::PixelRect rect;  // its box, in the frame's pixels (not clipped)
  guint id;                  // the result's id in its relation meta
  GQuark type;               // its object type (class)
  float confidence;          // its location confidence
};

// The object detections on `buffer`, in the meta's order: of `type` (0:
// any) and confidence >= `min_confidence`. Rotated boxes (1.26's oriented
// detections with a non-zero angle) are left out: a region is upright.
std::vector<GstCudaPrepDetection> gst_cuda_prep_buffer_detections(GstBuffer *buffer, GQuark type,
                                                                  double min_confidence);

// Moves `inbuf`'s analytics results onto `outbuf` (`inbuf` may be `outbuf`)
// through `step`, the output out_width x out_height: a new relation meta
// with each detection's box mapped (gst_cuda_prep_map_rect), classification
// and tracking results as they were, and the relations among what is kept.
// Removed, never kept in the wrong pixels: a detection left with no pixels
// or rotated, and results of kinds with no known coordinates (segmentation
// masks, keypoints, an application's own kinds); each said at debug level.
void gst_cuda_prep_buffer_move_analytics(GstBuffer *inbuf, GstBuffer *outbuf,
                                         const cudaprep::FrameGeometry &step, gint out_width,
                                         gint out_height);
