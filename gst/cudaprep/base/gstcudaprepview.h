// Device frames as the kernels see them: a buffer's single device memory
// read through its GstVideoMeta offsets and strides. A crop is a view (the
// same memory with other offsets), so every reader goes through here and
// none assumes width * bytes per pixel == pitch.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cudaprep/image.h"

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
