// cudaprepsrc's worker thread: faults, back-off, reconnects, timeouts and
// the messages they post (gstcudaprepsrc-private.h).
#include <algorithm>
#include <string>

#include "sources/gstcudaprepcredentials.h"
#include "sources/gstcudaprepsrc-private.h"

#define GST_CAT_DEFAULT gst_cuda_prep_src_debug

namespace cudaprep::source {

const gchar *state_nick(GstCudaPrepSrcState state) {
  GEnumClass *klass = G_ENUM_CLASS(g_type_class_ref(gst_cuda_prep_src_state_get_type()));
  const gchar *nick = g_enum_get_value(klass, state)->value_nick;  // static strings
  g_type_class_unref(klass);
  return nick;
}

// ---------------------------------------------------------------- messages

std::string masked_uri(GstCudaPrepSrcPrivate *priv) {
  return gst_cuda_prep_mask_credentials(priv->settings.uri.c_str());
}

// The statistics (priv->lock held).
GstStructure *stats_locked(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  return gst_structure_new(
      "cudaprepsrc-stats", "source", G_TYPE_STRING, GST_OBJECT_NAME(self), "uri", G_TYPE_STRING,
      masked_uri(priv).c_str(), "state", G_TYPE_STRING, state_nick(priv->state), "frames-in",
      G_TYPE_UINT64, priv->frames_in, "frames-out", G_TYPE_UINT64, priv->frames_out,
      "dropped-queue-full", G_TYPE_UINT64, priv->dropped_queue_full, "reconnects", G_TYPE_UINT64,
      priv->reconnects, "failures", G_TYPE_UINT, priv->failures, "caps-changes", G_TYPE_UINT64,
      priv->caps_changes, "live", G_TYPE_BOOLEAN, priv->live, "decoder", G_TYPE_STRING,
      priv->decoder_name.c_str(), "last-error", G_TYPE_STRING, priv->last_error.c_str(), nullptr);
}

void post_element_message(GstCudaPrepSrc *self, GstStructure *structure) {
  if (!gst_element_post_message(GST_ELEMENT(self),
                                gst_message_new_element(GST_OBJECT(self), structure)))
    GST_DEBUG_OBJECT(self, "no bus took the element message (not in a pipeline)");
}

GstStructure *event_structure(GstCudaPrepSrc *self, const gchar *name) {
  std::lock_guard<std::mutex> guard(self->priv->lock);
  return gst_structure_new(name, "source", G_TYPE_STRING, GST_OBJECT_NAME(self), "uri",
                           G_TYPE_STRING, masked_uri(self->priv).c_str(), nullptr);
}

// ----------------------------------------------------------------- faults

// Records a fault for the worker (priv->lock held); one per decoder.
void note_fault_locked(GstCudaPrepSrc *self, const std::string &reason, bool chain_fault) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  if (priv->quit || priv->eos_requested) return;
  if (priv->state != GST_CUDA_PREP_SRC_STATE_CONNECTING &&
      priv->state != GST_CUDA_PREP_SRC_STATE_STREAMING) {
    GST_DEBUG_OBJECT(self, "fault while %s, already handled: %s", state_nick(priv->state),
                     reason.c_str());
    return;
  }
  if (priv->pending.fault) return;
  priv->pending.fault = true;
  priv->pending.fault_reason = reason;
  priv->pending.chain_fault = chain_fault;
  priv->wake.notify_all();
}

// The back-off before attempt `failures`: interval doubling from the first,
// at most reconnect-interval-max.
static Milliseconds backoff(const Settings &settings, guint failures) {
  guint64 delay = settings.reconnect_interval;
  for (guint i = 1; i < failures && delay < settings.reconnect_interval_max; ++i) delay *= 2;
  return Milliseconds(std::min<guint64>(
      delay, std::max(settings.reconnect_interval, settings.reconnect_interval_max)));
}

// Worker thread: a fault tears the decoder down, then reconnects after the
// back-off or gives up (EOS on the src pad).
static void handle_fault(GstCudaPrepSrc *self, const std::string &reason, bool chain_fault) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  bool give_up, chain_broken = false;
  guint failures, chain_faults = 0;
  gint attempts;
  Milliseconds delay{0};
  std::string uri;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    failures = ++priv->failures;
    if (chain_fault) chain_faults = ++priv->chain_faults;
    attempts = priv->settings.reconnect_attempts;
    // A chain that fails again and again fails whatever the camera sends
    // (a bad caps filter, a GPU error): reconnecting would hide it for ever.
    chain_broken = chain_faults > kMaxChainFaults;
    give_up = chain_broken || (attempts >= 0 && failures > static_cast<guint>(attempts));
    priv->last_error = reason;
    uri = masked_uri(priv);
    if (give_up) {
      priv->state = GST_CUDA_PREP_SRC_STATE_FAILED;
    } else {
      delay = backoff(priv->settings, failures);
      priv->state = GST_CUDA_PREP_SRC_STATE_RECONNECTING;
    }
  }
  GST_WARNING_OBJECT(self, "source %s failed: %s", uri.c_str(), reason.c_str());
  teardown_decoder(self);
  if (chain_fault) {
    // The queue or chain stopped on a flow error (and sent EOS): a flush
    // restarts them and clears that EOS, without resetting the running
    // time; neither leaves the bin (on_src_data()).
    {
      std::lock_guard<std::mutex> guard(priv->lock);
      priv->fault_flush = true;
    }
    GstPad *sink = gst_element_get_static_pad(priv->queue, "sink");
    gst_pad_send_event(sink, gst_event_new_flush_start());
    gst_pad_send_event(sink, gst_event_new_flush_stop(FALSE));
    gst_object_unref(sink);
    std::lock_guard<std::mutex> guard(priv->lock);
    priv->fault_flush = false;
  }
  GstStructure *fault = event_structure(self, "cudaprepsrc-fault");
  gst_structure_set(fault, "reason", G_TYPE_STRING, reason.c_str(), "attempt", G_TYPE_UINT,
                    failures, "retry-in-ms", G_TYPE_INT64,
                    give_up ? static_cast<gint64>(-1) : static_cast<gint64>(delay.count()),
                    nullptr);
  post_element_message(self, fault);
  if (chain_broken) {
    GST_ELEMENT_ERROR(
        self, STREAM, FAILED,
        ("The chain of source %s failed %u times in a row, each time after a "
         "reconnect: %s",
         uri.c_str(), chain_faults, reason.c_str()),
        ("chain faults are errors after %u restarts; camera faults reconnect", kMaxChainFaults));
    return;
  }
  if (give_up) {
    GST_ELEMENT_WARNING(self, RESOURCE, FAILED,
                        ("Source %s failed %u times in a row: giving up (reconnect-attempts=%d); "
                         "its stream ends",
                         uri.c_str(), failures, attempts),
                        ("last fault: %s", reason.c_str()));
    post_element_message(self, event_structure(self, "cudaprepsrc-failed"));
    GstPad *sink = gst_element_get_static_pad(priv->queue, "sink");
    gst_pad_send_event(sink, gst_event_new_eos());
    gst_object_unref(sink);
    return;
  }
  GST_ELEMENT_WARNING(
      self, RESOURCE, READ,
      ("Source %s failed: %s; reconnecting in %lld ms (attempt %u%s)", uri.c_str(), reason.c_str(),
       static_cast<long long>(delay.count()), failures, attempts < 0 ? ", no limit" : ""),
      (nullptr));
  std::lock_guard<std::mutex> guard(priv->lock);
  priv->reconnect_at = Clock::now() + delay;
}

static void worker_loop(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  std::unique_lock<std::mutex> lock(priv->lock);
  while (!priv->quit) {
    const Clock::time_point now = Clock::now();
    const Settings &settings = priv->settings;
    if (priv->pending.fault) {
      const Pending pending = priv->pending;
      priv->pending.fault = false;
      // Taken under the lock that took the fault: another error of the same
      // failed attempt (a bin may post several) is this fault, not a second.
      priv->state = GST_CUDA_PREP_SRC_STATE_RECONNECTING;
      lock.unlock();
      handle_fault(self, pending.fault_reason, pending.chain_fault);
      lock.lock();
      continue;
    }
    if (priv->pending.connected || priv->pending.ended) {
      const bool connected = priv->pending.connected, ended = priv->pending.ended;
      priv->pending.connected = priv->pending.ended = false;
      lock.unlock();
      if (connected) post_element_message(self, event_structure(self, "cudaprepsrc-connected"));
      if (ended) post_element_message(self, event_structure(self, "cudaprepsrc-ended"));
      lock.lock();
      continue;
    }
    // Before a connection's first frame: connect-timeout (the server, the
    // transport's fallback, the jitter buffer, the decoder's start); after
    // it: stall-timeout.
    const bool connecting = priv->state == GST_CUDA_PREP_SRC_STATE_CONNECTING;
    const guint timeout = connecting ? settings.connect_timeout : settings.stall_timeout;
    const bool watching = priv->playing && timeout > 0 &&
                          (connecting || priv->state == GST_CUDA_PREP_SRC_STATE_STREAMING);
    const Clock::time_point stall_at = priv->last_activity + Milliseconds(timeout);
    if (watching && now >= stall_at) {
      // A full queue means downstream is slow, not that the source stalled.
      lock.unlock();
      guint level = 0;
      g_object_get(priv->queue, "current-level-buffers", &level, nullptr);
      lock.lock();
      if (level >= priv->settings.queue_size) {
        priv->last_activity = Clock::now();
        continue;
      }
      gchar *reason =
          connecting ? g_strdup_printf("no frame %u ms after connecting (connect-timeout)", timeout)
                     : g_strdup_printf("no frame for %u ms (stall-timeout)", timeout);
      note_fault_locked(self, reason, false);
      g_free(reason);
      continue;
    }
    if (priv->state == GST_CUDA_PREP_SRC_STATE_RECONNECTING && now >= priv->reconnect_at) {
      ++priv->reconnects;
      lock.unlock();
      const GstStateChangeReturn started = connect_decoder(self);
      lock.lock();
      if (started == GST_STATE_CHANGE_FAILURE)
        note_fault_locked(self, "the decoder could not start", false);
      continue;
    }
    if (settings.stats_interval > 0 && now >= priv->next_stats) {
      priv->next_stats = now + Milliseconds(settings.stats_interval);
      GstStructure *stats = stats_locked(self);
      lock.unlock();
      post_element_message(self, stats);
      lock.lock();
      continue;
    }
    Clock::time_point wake_at = Clock::time_point::max();
    if (watching) wake_at = std::min(wake_at, stall_at);
    if (priv->state == GST_CUDA_PREP_SRC_STATE_RECONNECTING)
      wake_at = std::min(wake_at, priv->reconnect_at);
    if (settings.stats_interval > 0) wake_at = std::min(wake_at, priv->next_stats);
    if (wake_at == Clock::time_point::max())
      priv->wake.wait(lock);
    else
      priv->wake.wait_until(lock, wake_at);
  }
}

// ---------------------------------------------------------------- states

void start_worker(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    priv->quit = false;
    priv->pending = Pending{};
    priv->failures = priv->chain_faults = 0;
    priv->eos_requested = false;
    priv->reconnects = 0;
    priv->frames_in = priv->frames_out = priv->dropped_queue_full = priv->caps_changes = 0;
    priv->last_error.clear();
    priv->decoder_name.clear();
    priv->next_stats = Clock::now() + Milliseconds(priv->settings.stats_interval);
  }
  priv->worker = std::thread(worker_loop, self);
}

void stop_worker(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    priv->quit = true;
    priv->wake.notify_all();
  }
  if (priv->worker.joinable()) priv->worker.join();
}

}  // namespace cudaprep::source
