// Device frames as the kernels see them: a buffer's single device memory
// read through its GstVideoMeta offsets and strides. A crop is a view (the
// same memory with other offsets), so every reader goes through here and
// none assumes width * bytes per pixel == pitch.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cudaprep/geometry.h"
#include "cudaprep/image.h"
#include "cudaprep/resize.h"

// The device frame `buffer` holds as `info` (format and size from the caps)
// describes it. False, with `error` set to a reason, when the buffer is not
// such a frame.
gboolean gst_cuda_prep_buffer_device_image(GstBuffer *buffer, const GstVideoInfo *info,
                                           cudaprep::Image *image, const gchar **error);

// The device frame a buffer's own GstVideoMeta describes (format and size
// from the meta, not from caps): a frame carrying pending operations.
gboolean gst_cuda_prep_buffer_source_image(GstBuffer *buffer, cudaprep::Image *image,
                                           const gchar **error);

// Posts the element error for a buffer that is not the device frame it
// should be (`role`: "Input", "Output", "Pending"); returns FALSE.
gboolean gst_cuda_prep_post_frame_error(GstElement *element, const gchar *role,
                                        const gchar *reason);

// As gst_cuda_prep_buffer_device_image(), posting the error itself.
gboolean gst_cuda_prep_element_device_image(GstElement *element, GstBuffer *buffer,
                                            const GstVideoInfo *info, const gchar *role,
                                            cudaprep::Image *image);

// Makes the buffer's GstVideoMeta describe `view`, a part of the frame it
// holds (a zero-copy crop). The pool restores the layout when the frame
// returns to it.
void gst_cuda_prep_buffer_set_view(GstBuffer *buffer, const cudaprep::Image &view);

// The output buffer of an element that leaves the pixels where they are
// (a view, deferred work): the input itself when writable, so it goes back
// whole to its pool, otherwise a shallow copy (e.g. behind a tee).
GstBuffer *gst_cuda_prep_buffer_in_place_output(GstBuffer *input);

// What `buffer`'s pixels are in the original frame's terms: its geometry
// meta (the library's public GstCudaPrepGeometryMeta) as the kernels'
// FrameGeometry, identity without one.
cudaprep::FrameGeometry gst_cuda_prep_buffer_get_geometry(GstBuffer *buffer);
// Sets `buffer`'s geometry meta (added if it has none) to `geometry`.
void gst_cuda_prep_buffer_set_geometry(GstBuffer *buffer, const cudaprep::FrameGeometry &geometry);

// How an element's output frame holds its input's pixels.
enum class GstCudaPrepPixelMove {
  kNewFrame,  // new memory, written whole (a compact crop, a resize)
  kView,      // part of the input's memory (a zero-copy crop)
  kPending,   // the input's memory, the move left to a later element (fusion)
};

// The coordinate rule, in one place: everything a frame carries that names
// pixels is in that frame's own pixels, so an element whose output pixels
// are `step` of its input's (out = step(in), cudaprep::FrameGeometry) moves
// them all here, `outbuf` being `out_width` x `out_height`:
//  - the geometry meta: the input's followed by `step`;
//  - each GstVideoRegionOfInterestMeta (with its params): its rectangle's
//    image through `step`, clipped to the output; one left with no pixels
//    is removed, never kept in the wrong coordinates;
//  - GStreamer's analytics results (>= 1.24; gstcudaprepanalytics.h): each
//    object detection's box likewise, the results it cannot move removed;
//  - the upload's region meta (which pixels were written): on a view,
//    moved by the crop and clipped (a view must be a pure crop); a new
//    frame is written whole and carries none.
// kPending moves only the geometry: the buffer still holds the input
// frame, and its other metas stay in that frame's pixels, where the element
// that runs the pending work reads them.
// `inbuf` may be `outbuf`.
void gst_cuda_prep_buffer_move_pixel_metas(GstBuffer *inbuf, GstBuffer *outbuf,
                                           const cudaprep::FrameGeometry &step, gint out_width,
                                           gint out_height, GstCudaPrepPixelMove move);

// The rectangle (x, y, width, height) of the input through `step`: the whole
// output pixels its image touches (exact for crops and turns), clipped to
// out_width x out_height; FALSE when nothing of it is left.
gboolean gst_cuda_prep_map_rect(const cudaprep::FrameGeometry &step, double x, double y,
                                double width, double height, gint out_width, gint out_height,
                                cudaprep::PixelRect *mapped);
