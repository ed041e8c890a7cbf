/**
 * SECTION:cudaprep-sources
 *
 * Sources that come and go on a running batch: add a source element
 * (cudaprepsrc, or any element with an always "src" pad) to a cudabatch
 * (or any element with "sink_%u" request pads) while the pipeline plays,
 * and remove it again without stopping the others.
 *
 * Public GStreamer API only (gst_bin_add, gst_element_request_pad_simple,
 * gst_element_sync_state_with_parent, a blocking probe, EOS, release): no
 * part of the plugin is needed to call these; the source element itself is
 * found in GStreamer's registry.
 */
#pragma once

#include <gst/gst.h>

#include "cudaprep-prelude.h"

G_BEGIN_DECLS

/**
 * gst_cuda_prep_source_new:
 * @uri: what to play (rtsp://user:password@host/..., file:///...)
 * @chain: (nullable): elements between the decoder and the source's src pad,
 *   in gst-launch syntax ("cudaresize ! cudanormalize"), or %NULL
 * @error: (out) (optional): where to put why the source cannot be made
 *
 * Makes a cudaprepsrc (the plugin must be registered) with @uri and @chain.
 *
 * Returns: (transfer floating) (nullable): the source, or %NULL
 */
GST_CUDA_PREP_API
GstElement *gst_cuda_prep_source_new(const gchar *uri, const gchar *chain, GError **error);

/**
 * gst_cuda_prep_batch_add_source:
 * @batch: the batching element (cudabatch), in a bin
 * @source: (transfer floating): the source: an element with an always "src" pad
 * @error: (out) (optional): where to put why it could not be added
 *
 * Adds @source to @batch's bin, links its src pad to a new "sink_%u" pad of
 * @batch and brings it to the bin's state, so that a playing pipeline takes
 * it at once. On failure nothing is left behind (@source is stopped, removed
 * again, and left with its state locked).
 *
 * Returns: (transfer full) (nullable): the pad of @batch it feeds (its
 *   name tells the source index), or %NULL
 */
GST_CUDA_PREP_API
GstPad *gst_cuda_prep_batch_add_source(GstElement *batch, GstElement *source, GError **error);

/**
 * gst_cuda_prep_batch_remove_source:
 * @batch: the batching element @source feeds
 * @source: a source added with gst_cuda_prep_batch_add_source()
 * @error: (out) (optional): where to put why it could not be removed
 *
 * Blocks @source's src pad between two frames, sends EOS to its pad of
 * @batch (which batches what it already holds of it), releases that pad,
 * stops @source and removes it from its bin. The other sources go on.
 * @source is left with its state locked (gst_element_set_locked_state()),
 * so that a state change of the pipeline already under way cannot start it
 * again; gst_cuda_prep_batch_add_source() unlocks it once it is linked.
 * Call it from the application's thread, never from a streaming thread.
 *
 * Returns: %TRUE when @source is gone
 */
GST_CUDA_PREP_API
gboolean gst_cuda_prep_batch_remove_source(GstElement *batch, GstElement *source, GError **error);

G_END_DECLS
