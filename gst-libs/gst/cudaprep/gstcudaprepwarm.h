/**
 * SECTION:cudaprep-warm
 *
 * Kernels compiled ahead of time: cudaprep's elements compile their CUDA
 * kernels (NVRTC) when they negotiate and keep them in the disk cache
 * (docs/kernels.md), so bringing a pipeline up once, at install or start-up
 * time, spares the real pipeline's first frames the compile.
 *
 * Public GStreamer API only: the elements are found in GStreamer's
 * registry (the plugin must be on the plugin path); no GPU is touched here,
 * only by the elements.
 */
#pragma once

#include <gst/gst.h>

#include "cudaprep-prelude.h"

G_BEGIN_DECLS

/**
 * gst_cuda_prep_warm_kernels:
 * @launch_line: the pipeline in gst-launch syntax, with the caps the real
 *   one will have (any source that gives them: videotestsrc stands in for a
 *   camera), e.g. "videotestsrc num-buffers=1 !
 *   video/x-raw,format=NV12,width=1920,height=1080 ! cudaframeupload !
 *   cudaresize ! ... ! fakesink"
 * @timeout_seconds: how long the pipeline may take to come up, 0 for the
 *   default (120 s: a cold cache compiles for seconds per chain)
 * @error: (out) (optional): where to put why the kernels may not be ready
 *
 * Builds the pipeline, brings it up until a first buffer has reached every
 * sink element (by then every element upstream of it has negotiated and
 * decided its allocation, which is when cudaprep's elements compile), then
 * sets it to %GST_STATE_NULL and frees it. A pipeline that prerolls is
 * paused; a live one (its sources say %GST_STATE_CHANGE_NO_PREROLL, e.g.
 * rtspsrc or videotestsrc is-live=true) must play, so it runs until its
 * last sink has had a buffer.
 *
 * Fails (%FALSE and @error) when the line does not parse (the parser's
 * #GST_PARSE_ERROR), when the pipeline has no sink element, when an element
 * posts an error (that error's domain and code, its message with the
 * element's name and the last line of its debug text), when a sink sees
 * end-of-stream before any buffer (#GST_STREAM_ERROR_FAILED: nothing was
 * negotiated behind it), and when no sink answers within @timeout_seconds
 * (#GST_CORE_ERROR_STATE_CHANGE). A pipeline of no cudaprep element
 * succeeds and compiles nothing. Call it from the application's thread
 * (it waits on the pipeline's bus), after gst_init().
 *
 * Returns: %TRUE when every sink had a buffer
 */
GST_CUDA_PREP_API
gboolean gst_cuda_prep_warm_kernels(const gchar *launch_line, guint timeout_seconds,
                                    GError **error);

G_END_DECLS
