#include "gstcudaprepsources.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_sources_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_sources_debug

namespace {

void init_debug() {
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_sources_debug, "cudaprepsources", 0,
                            "cudaprep: sources added to and removed from a batch");
    g_once_init_leave(&done, 1);
  }
}

// How long a removal waits for the source's pad to come between two frames
// (a push blocked in a full batch): then the batch pad is released anyway,
// which wakes that push.
constexpr gint64 kBlockTimeoutSeconds = 5;

GstPadProbeReturn drop_data(GstPad *, GstPadProbeInfo *, gpointer) {
  return GST_PAD_PROBE_DROP;
}

// A removal in progress, shared (reference counted: GLib's, so that no C++
// runtime type leaks into the library's exports) with the idle probe, which
// may still run after the caller gave up waiting.
struct Removal {
  GMutex lock;
  GCond cond;
  GstPad *sink;        // the batch's pad (a reference)
  gboolean done;       // the probe detached the source
  gboolean abandoned;  // the caller detached it itself
};

Removal *removal_new(GstPad *sink) {
  Removal *removal = g_atomic_rc_box_new0(Removal);
  g_mutex_init(&removal->lock);
  g_cond_init(&removal->cond);
  removal->sink = sink;
  return removal;
}

void removal_release(gpointer data) {
  g_atomic_rc_box_release_full(data, [](gpointer box) {
    Removal *removal = static_cast<Removal *>(box);
    g_mutex_clear(&removal->lock);
    g_cond_clear(&removal->cond);
    gst_object_unref(removal->sink);
  });
}

// Detaches `src` from `sink`: everything it pushes from here on is dropped
// (a push to an unlinked pad would be a not-linked error the source reports).
void detach(GstPad *src, GstPad *sink) {
  gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, drop_data, nullptr, nullptr);
  gst_pad_unlink(src, sink);
}

// Between two frames (the pad is idle while this runs): EOS, so that the
// batch sends what it holds of this source, then detach.
GstPadProbeReturn on_idle(GstPad *src, GstPadProbeInfo *, gpointer data) {
  Removal *removal = static_cast<Removal *>(data);
  g_mutex_lock(&removal->lock);
  if (!removal->abandoned) {
    if (!gst_pad_send_event(removal->sink, gst_event_new_eos()))
      GST_DEBUG_OBJECT(removal->sink, "refused EOS (already flushing or ended)");
    detach(src, removal->sink);
    removal->done = TRUE;
    g_cond_broadcast(&removal->cond);
  }
  g_mutex_unlock(&removal->lock);
  return GST_PAD_PROBE_REMOVE;
}

}  // namespace

GstElement *gst_cuda_prep_source_new(const gchar *uri, const gchar *chain, GError **error) {
  g_return_val_if_fail(uri != nullptr, nullptr);
  GstElement *source = gst_element_factory_make("cudaprepsrc", nullptr);
  if (!source) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
                "cudaprepsrc is not registered: is the cudaprep plugin on the plugin path?");
    return nullptr;
  }
  g_object_set(source, "uri", uri, "chain", chain ? chain : "", nullptr);
  return source;
}

GstPad *gst_cuda_prep_batch_add_source(GstElement *batch, GstElement *source, GError **error) {
  g_return_val_if_fail(GST_IS_ELEMENT(batch), nullptr);
  g_return_val_if_fail(GST_IS_ELEMENT(source), nullptr);
  init_debug();
  gst_object_ref_sink(source);
  GstObject *parent = gst_object_get_parent(GST_OBJECT(batch));
  GstPad *src = nullptr, *sink = nullptr;
  if (!parent || !GST_IS_BIN(parent)) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                "%s is in no bin: add it to the pipeline before adding sources",
                GST_OBJECT_NAME(batch));
    goto fail;
  }
  src = gst_element_get_static_pad(source, "src");
  if (!src) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                "%s has no \"src\" pad to feed %s from", GST_OBJECT_NAME(source),
                GST_OBJECT_NAME(batch));
    goto fail;
  }
  // Locked until it is linked: a state change of the bin under way must not
  // start it before (or, if adding fails, after) we are done with it.
  gst_element_set_locked_state(source, TRUE);
  if (!gst_bin_add(GST_BIN(parent), source)) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                "%s could not be added to %s (a name taken, or already in a bin)",
                GST_OBJECT_NAME(source), GST_OBJECT_NAME(parent));
    goto fail;
  }
  sink = gst_element_request_pad_simple(batch, "sink_%u");
  if (!sink) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "%s gave no new sink_%%u pad",
                GST_OBJECT_NAME(batch));
    goto fail_added;
  }
  if (GstPadLinkReturn linked = gst_pad_link(src, sink); linked != GST_PAD_LINK_OK) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                "%s could not be linked to %s:%s: %s", GST_OBJECT_NAME(source),
                GST_OBJECT_NAME(batch), GST_PAD_NAME(sink), gst_pad_link_get_name(linked));
    goto fail_requested;
  }
  gst_element_set_locked_state(source, FALSE);
  if (!gst_element_sync_state_with_parent(source)) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
                "%s could not start (see its error on the bus)", GST_OBJECT_NAME(source));
    gst_pad_unlink(src, sink);
    goto fail_requested;
  }
  GST_INFO_OBJECT(batch, "%s feeds %s", GST_OBJECT_NAME(source), GST_PAD_NAME(sink));
  gst_object_unref(src);
  gst_object_unref(parent);
  gst_object_unref(source);
  return sink;

fail_requested:
  gst_element_release_request_pad(batch, sink);
  gst_object_unref(sink);
fail_added:
  gst_element_set_locked_state(source, TRUE);
  gst_element_set_state(source, GST_STATE_NULL);
  gst_bin_remove(GST_BIN(parent), source);
fail:
  if (src) gst_object_unref(src);
  if (parent) gst_object_unref(parent);
  gst_object_unref(source);
  return nullptr;
}

gboolean gst_cuda_prep_batch_remove_source(GstElement *batch, GstElement *source, GError **error) {
  g_return_val_if_fail(GST_IS_ELEMENT(batch), FALSE);
  g_return_val_if_fail(GST_IS_ELEMENT(source), FALSE);
  init_debug();
  GstPad *src = gst_element_get_static_pad(source, "src");
  GstPad *sink = src ? gst_pad_get_peer(src) : nullptr;
  if (!sink || GST_OBJECT_PARENT(sink) != GST_OBJECT(batch)) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "%s does not feed %s",
                GST_OBJECT_NAME(source), GST_OBJECT_NAME(batch));
    if (sink) gst_object_unref(sink);
    if (src) gst_object_unref(src);
    return FALSE;
  }
  GST_INFO_OBJECT(batch, "removing %s from %s", GST_OBJECT_NAME(source), GST_PAD_NAME(sink));
  gst_object_ref(source);
  Removal *removal = removal_new(sink);  // (takes our reference)
  const gulong probe = gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_IDLE, on_idle,
                                         g_atomic_rc_box_acquire(removal), removal_release);
  const gint64 give_up = g_get_monotonic_time() + kBlockTimeoutSeconds * G_TIME_SPAN_SECOND;
  g_mutex_lock(&removal->lock);
  while (!removal->done)
    if (!g_cond_wait_until(&removal->cond, &removal->lock, give_up)) break;
  const gboolean detached_by_probe = removal->done;
  if (!detached_by_probe) {
    // A push that does not return (a full batch that never leaves):
    // releasing the batch pad below wakes it.
    GST_WARNING_OBJECT(batch, "%s stayed busy for %lld s: releasing its pad while it pushes",
                       GST_OBJECT_NAME(source), static_cast<long long>(kBlockTimeoutSeconds));
    removal->abandoned = TRUE;
    detach(src, sink);
  }
  g_mutex_unlock(&removal->lock);
  if (!detached_by_probe) gst_pad_remove_probe(src, probe);  // (it removed itself otherwise)
  gst_object_ref(sink);  // (for the release below; the removal keeps its own)
  removal_release(removal);
  gst_element_release_request_pad(batch, sink);
  gst_object_unref(sink);
  gst_object_unref(src);
  // Locked, and left locked: a state change of the bin already under way
  // (an asynchronous continue after the source was added) holds the source
  // in its iterator and would bring it back to PLAYING, removed or not.
  gst_element_set_locked_state(source, TRUE);
  const GstStateChangeReturn stop = gst_element_set_state(source, GST_STATE_NULL);
  GST_INFO_OBJECT(batch, "%s stopped: %s", GST_OBJECT_NAME(source),
                  gst_element_state_change_return_get_name(stop));
  const gboolean stopped = stop != GST_STATE_CHANGE_FAILURE;
  GstObject *parent = gst_object_get_parent(GST_OBJECT(source));
  if (parent) {
    gst_bin_remove(GST_BIN(parent), source);
    gst_object_unref(parent);
  }
  if (!stopped)
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
                "%s did not stop cleanly; it was removed", GST_OBJECT_NAME(source));
  gst_object_unref(source);
  return stopped;
}
