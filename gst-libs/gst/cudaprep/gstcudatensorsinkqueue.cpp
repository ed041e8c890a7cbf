// cudatensorsink's queue between its streaming thread and the application:
// tensors queued (dropping or waiting as max-buffers, drop and consumer
// say), pulled (the C API and the action signals), the wait at EOS, and
// the application's callbacks. Part of cudatensorsink
// (gstcudatensorsink-private.h).
#include "gstcudatensorsink-private.h"

#define GST_CAT_DEFAULT gst_cuda_prep_tensor_sink_debug

using namespace cudaprep::tensorsink;

// Whether an application takes the tensors (lock held).
static gboolean has_consumer(GstCudaPrepTensorSink *self) {
  return self->consumer == GST_CUDA_PREP_TENSOR_SINK_CONSUMER_APPLICATION || self->pulled ||
         (self->callbacks != nullptr && self->callbacks->callbacks.new_tensor != nullptr) ||
         (self->emit_signals &&
          g_signal_has_handler_pending(self, signals[SIGNAL_NEW_TENSOR], 0, FALSE));
}

static void callbacks_clear(gpointer data) {
  auto *callbacks = static_cast<Callbacks *>(data);
  if (callbacks->notify != nullptr) callbacks->notify(callbacks->user_data);
}

void cudaprep::tensorsink::callbacks_unref(Callbacks *callbacks) {
  if (callbacks != nullptr) g_atomic_rc_box_release_full(callbacks, callbacks_clear);
}

GstSample *gst_cuda_prep_tensor_sink_try_pull_tensor(GstCudaPrepTensorSink *sink,
                                                     GstClockTime timeout) {
  g_return_val_if_fail(GST_IS_CUDA_PREP_TENSOR_SINK(sink), nullptr);
  gint64 deadline = G_MAXINT64;
  if (GST_CLOCK_TIME_IS_VALID(timeout))
    deadline = g_get_monotonic_time() + static_cast<gint64>(timeout / GST_USECOND);
  GstSample *sample = nullptr;
  g_mutex_lock(&sink->lock);
  sink->pulled = TRUE;
  const guint flush_seq = sink->flush_seq;
  bool expired = false;
  for (;;) {
    if (!sink->started || sink->flushing || sink->flush_seq != flush_seq) break;
    if (!g_queue_is_empty(&sink->samples)) {
      sample = static_cast<GstSample *>(g_queue_pop_head(&sink->samples));
      g_cond_broadcast(&sink->room_cond);
      break;
    }
    if (sink->eos || expired) break;
    if (deadline == G_MAXINT64)
      g_cond_wait(&sink->pull_cond, &sink->lock);
    else if (!g_cond_wait_until(&sink->pull_cond, &sink->lock, deadline))
      expired = true;  // one more look: a tensor may have come with the timeout
  }
  g_mutex_unlock(&sink->lock);
  return sample;
}

GstSample *gst_cuda_prep_tensor_sink_pull_tensor(GstCudaPrepTensorSink *sink) {
  return gst_cuda_prep_tensor_sink_try_pull_tensor(sink, GST_CLOCK_TIME_NONE);
}

gboolean gst_cuda_prep_tensor_sink_is_eos(GstCudaPrepTensorSink *sink) {
  g_return_val_if_fail(GST_IS_CUDA_PREP_TENSOR_SINK(sink), FALSE);
  g_mutex_lock(&sink->lock);
  const gboolean eos = sink->eos && g_queue_is_empty(&sink->samples);
  g_mutex_unlock(&sink->lock);
  return eos;
}

void gst_cuda_prep_tensor_sink_set_callbacks(GstCudaPrepTensorSink *sink,
                                             const GstCudaPrepTensorSinkCallbacks *callbacks,
                                             gpointer user_data, GDestroyNotify notify) {
  g_return_if_fail(GST_IS_CUDA_PREP_TENSOR_SINK(sink));
  Callbacks *installed = nullptr;
  if (callbacks != nullptr) {
    installed = g_atomic_rc_box_new0(Callbacks);
    *installed = Callbacks{*callbacks, user_data, notify};
  } else if (notify != nullptr) {
    notify(user_data);  // nothing will use it
  }
  g_mutex_lock(&sink->lock);
  Callbacks *old = sink->callbacks;
  sink->callbacks = installed;
  g_mutex_unlock(&sink->lock);
  callbacks_unref(old);
}

GstFlowReturn cudaprep::tensorsink::queue_sample(GstCudaPrepTensorSink *self, GstSample *sample) {
  GstBaseSink *bsink = GST_BASE_SINK(self);
  g_mutex_lock(&self->lock);
  for (;;) {
    if (self->flushing || !self->started) {
      g_mutex_unlock(&self->lock);
      gst_sample_unref(sample);
      return GST_FLOW_FLUSHING;
    }
    if (self->max_buffers == 0 || g_queue_get_length(&self->samples) < self->max_buffers) break;
    const gboolean consumer = has_consumer(self);
    if (self->drop || !consumer) {
      if (!consumer && !self->told_no_consumer) {
        GST_INFO_OBJECT(self,
                        "nobody takes the tensors (no pull, callbacks or new-tensor handler "
                        "yet): dropping the oldest; consumer=application keeps them");
        self->told_no_consumer = TRUE;
      }
      gst_sample_unref(static_cast<GstSample *>(g_queue_pop_head(&self->samples)));
      GST_DEBUG_OBJECT(self, "dropped the oldest tensor: the application is behind");
      continue;
    }
    if (self->unlocked) {
      // Paused while waiting for room: wait for PLAYING (or a flush/stop).
      g_mutex_unlock(&self->lock);
      const GstFlowReturn ret = gst_base_sink_wait_preroll(bsink);
      if (ret != GST_FLOW_OK) {
        gst_sample_unref(sample);
        return ret;
      }
      g_mutex_lock(&self->lock);
      continue;
    }
    g_cond_wait(&self->room_cond, &self->lock);
  }
  g_queue_push_tail(&self->samples, sample);
  g_cond_broadcast(&self->pull_cond);
  g_mutex_unlock(&self->lock);
  return GST_FLOW_OK;
}

void cudaprep::tensorsink::clear_samples(GstCudaPrepTensorSink *self) {
  while (!g_queue_is_empty(&self->samples))
    gst_sample_unref(static_cast<GstSample *>(g_queue_pop_head(&self->samples)));
}

gboolean cudaprep::tensorsink::handle_eos(GstCudaPrepTensorSink *self) {
  g_mutex_lock(&self->lock);
  self->eos = TRUE;
  g_cond_broadcast(&self->pull_cond);
  while (!g_queue_is_empty(&self->samples) && self->wait_on_eos && !self->flushing &&
         self->started && has_consumer(self)) {
    if (self->unlocked) {
      g_mutex_unlock(&self->lock);
      if (gst_base_sink_wait_preroll(GST_BASE_SINK(self)) != GST_FLOW_OK) return FALSE;
      g_mutex_lock(&self->lock);
      continue;
    }
    g_cond_wait(&self->room_cond, &self->lock);
  }
  const gboolean emit = !self->flushing;
  Callbacks *callbacks =
      emit && self->callbacks != nullptr ? g_atomic_rc_box_acquire(self->callbacks) : nullptr;
  g_mutex_unlock(&self->lock);
  if (emit) {
    if (callbacks != nullptr && callbacks->callbacks.eos != nullptr)
      callbacks->callbacks.eos(self, callbacks->user_data);
    else
      g_signal_emit(self, signals[SIGNAL_EOS], 0);
  }
  callbacks_unref(callbacks);
  return emit;
}
