// The coordinate rule, in one room: everything a frame carries that names
// pixels is in that frame's own pixels. Those metas are
//  - the geometry meta (the library's public GstCudaPrepGeometryMeta): the
//    frame's pixels back to the source frame;
//  - GstVideoRegionOfInterestMeta (with its params);
//  - GStreamer's analytics results (GstAnalyticsRelationMeta, GStreamer >=
//    1.24, gst-libs/gst/analytics; built without them on 1.22: none to read,
//    none to move);
//  - the upload's region meta (gstcudaprepregion.h: which pixels were
//    written).
// An element that moves pixels (a crop view or copy, a resize, a turn) moves
// all of them with gst_cuda_prep_buffer_move_pixel_metas(); readers take
// them from here in the frame's pixels.
#pragma once

#include <gst/gst.h>

#include <vector>

#include "cudaprep/geometry.h"
#include "cudaprep/resize.h"

// How an element's output frame holds its input's pixels.
enum class GstCudaPrepPixelMove {
  kNewFrame,  // new memory, written whole (a compact crop, a resize)
  kView,      // part of the input's memory (a zero-copy crop)
  kPending,   // the input's memory, the move left to a later element (fusion)
};

// Moves every pixel meta of `inbuf` onto `outbuf` (`inbuf` may be `outbuf`)
// for an element whose output pixels are `step` of its input's (out =
// step(in), cudaprep::FrameGeometry), `outbuf` being out_width x out_height:
//  - the geometry meta: the input's followed by `step` (read, converted and
//    written once);
//  - each GstVideoRegionOfInterestMeta: its rectangle's image through
//    `step`, clipped to the output (gst_cuda_prep_map_rect), id, parent and
//    params kept; one left with no pixels is removed, never kept in the
//    wrong coordinates;
//  - the analytics results: a new relation meta with each detection's box
//    mapped likewise, classification and tracking results as they were, and
//    the relations among what is kept. Removed, each said at debug level: a
//    detection left with no pixels or rotated, and results of kinds with no
//    known coordinates (segmentation masks, keypoints, an application's own);
//  - the region meta: on a view, moved by the crop and clipped (a view must
//    be a pure crop); a new frame is written whole and carries none.
// kPending moves only the geometry: the buffer still holds the input frame,
// and its other metas stay in that frame's pixels, where the element that
// runs the pending work reads them.
// Returns the input's geometry (identity without one), the source mapping
// that pending work starts from.
cudaprep::FrameGeometry gst_cuda_prep_buffer_move_pixel_metas(GstBuffer *inbuf, GstBuffer *outbuf,
                                                              const cudaprep::FrameGeometry &step,
                                                              gint out_width, gint out_height,
                                                              GstCudaPrepPixelMove move);

// What `buffer`'s pixels are in the source frame's terms: its geometry meta
// as the kernels' FrameGeometry, identity without one.
cudaprep::FrameGeometry gst_cuda_prep_buffer_get_geometry(GstBuffer *buffer);

// The rectangle (x, y, width, height) of the input through `step`: the whole
// output pixels its image touches (exact for crops and turns), clipped to
// out_width x out_height; FALSE when nothing of it is left.
gboolean gst_cuda_prep_map_rect(const cudaprep::FrameGeometry &step, double x, double y,
                                double width, double height, gint out_width, gint out_height,
                                cudaprep::PixelRect *mapped);

// Whether `meta` marks objects in the frame's pixels (a region of interest
// meta, analytics results): what an element that keeps the pixels where
// they are (the upload) copies as it is.
gboolean gst_cuda_prep_meta_marks_objects(const GstMeta *meta);

// Whether the GStreamer cudaprep was built against has the analytics results.
gboolean gst_cuda_prep_has_analytics(void);

// One object detection of a frame.
struct GstCudaPrepDetection {
  cudaprep::PixelRect rect;  // its box, in the frame's pixels (not clipped)
  guint id;                  // the result's id in its relation meta
  GQuark type;               // its object type (class)
  float confidence;          // its location confidence
};

// The object detections on `buffer` (cudabatch's regions), in the meta's
// order: of `type` (0: any) and confidence >= `min_confidence`. Rotated
// boxes (1.26's oriented detections with a non-zero angle) are left out: a
// region is upright.
std::vector<GstCudaPrepDetection> gst_cuda_prep_buffer_detections(GstBuffer *buffer, GQuark type,
                                                                  double min_confidence);
