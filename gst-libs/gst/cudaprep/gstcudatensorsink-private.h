// cudatensorsink's insides, shared by its two files (not installed): the
// element (gstcudatensorsink.cpp: properties, states, events, render, the
// .npy files) and its queue (gstcudatensorsinkqueue.cpp: tensors queued for
// the application and pulled by it, the wait at EOS, the callbacks).
#pragma once

#include <gst/gst.h>

#include "gstcudaprepnpywriter-private.h"
#include "gstcudatensorsink.h"

// The sink's debug category (its class_init registers it).
GST_DEBUG_CATEGORY_EXTERN(gst_cuda_prep_tensor_sink_debug);

namespace cudaprep::tensorsink {

enum { SIGNAL_NEW_TENSOR, SIGNAL_EOS, SIGNAL_PULL_TENSOR, SIGNAL_TRY_PULL_TENSOR, LAST_SIGNAL };
// The sink's signals (its class_init registers them).
extern guint signals[LAST_SIGNAL];

// The application's callbacks, shared with the streaming thread while it
// calls them (an atomic rc box: notify runs when the last user is done).
struct Callbacks {
  GstCudaPrepTensorSinkCallbacks callbacks;
  gpointer user_data;
  GDestroyNotify notify;
};

// Drops a reference to `callbacks` (NULL: nothing); the last one calls its
// notify.
void callbacks_unref(Callbacks *callbacks);

// Queues `sample` for the application (taking it), dropping or waiting as
// the settings say. Called with the preroll lock held, from render.
GstFlowReturn queue_sample(GstCudaPrepTensorSink *self, GstSample *sample);
// Drops every queued sample (lock held).
void clear_samples(GstCudaPrepTensorSink *self);
// At EOS: waits (wait-on-eos, and only for an application that takes the
// tensors) until the queue is empty, then emits eos. FALSE when a flush or
// stop came meanwhile. Called with the preroll lock held.
gboolean handle_eos(GstCudaPrepTensorSink *self);

}  // namespace cudaprep::tensorsink

struct _GstCudaPrepTensorSink {
  GstBaseSink parent;

  // Everything below is guarded by `lock`, except the .npy state.
  GMutex lock;
  // Pullers wait on it: a tensor was queued, or EOS, a flush or stop came.
  GCond pull_cond;
  // The streaming thread waits on it (room in the queue, or an empty queue
  // at EOS): a tensor was taken, a flush/unlock/stop came, settings changed.
  GCond room_cond;

  // Properties.
  gboolean emit_signals;
  guint max_buffers;
  gboolean drop;
  gchar *location;
  GstCudaPrepNpyLocation *pattern;  // `location` parsed; NULL when invalid or unset
  GstCudaPrepTensorSinkConsumer consumer;
  gboolean wait_on_eos;

  cudaprep::tensorsink::Callbacks *callbacks;
  GQueue samples;
  gboolean opened;    // between start() and stop() (NULL <-> READY): location checked
  gboolean started;   // READY -> PAUSED to PAUSED -> READY: pulls wait
  gboolean flushing;  // FLUSH_START to FLUSH_STOP: pulls return NULL
  gboolean unlocked;  // unlock() to unlock_stop(): the streaming thread steps out
  guint flush_seq;    // counts flushes and stops: a waiting pull that sees it move returns NULL
  gboolean eos;
  gboolean pulled;  // an application pulled (auto: it takes the tensors)
  gboolean told_no_consumer;

  // The index of the next .npy file (streaming thread; 0 at start).
  guint64 npy_index;
};
