/**
 * SECTION:element-cudatensorsink
 *
 * The end of a cudaprep pipeline: hands the application each tensor of
 * cudatensorize as a GstSample, like appsink: pull it (pull-tensor,
 * try-pull-tensor, or gst_cuda_prep_tensor_sink_pull_tensor()), or be told
 * (gst_cuda_prep_tensor_sink_set_callbacks(), or emit-signals=true and the
 * new-tensor signal); the eos signal or callback tells when the stream ended.
 * The tensor stays in device memory; its GstCudaPrepTensorMeta gives the
 * device pointer, shape, strides and the ready event an application's stream
 * waits on. See gstcudatensorsink.h for the C API and gstcudatensorsample.h
 * for reading a pulled sample, including the zero-copy DLPack export.
 *
 * Who takes the tensors (consumer): with consumer=auto (default) the sink
 * holds tensors for an application once one shows itself (a pull, callbacks
 * with new_tensor, or a new-tensor handler with emit-signals=true); until
 * then a full queue drops its oldest tensor and EOS does not wait, so a
 * gst-launch-1.0 pipeline, where nobody pulls, runs to its end.
 * consumer=application holds them for the application from the first tensor
 * on. When the sink holds tensors for an application, at most max-buffers wait
 * (default 1); when the queue is full the pipeline waits for the application
 * (drop=false, default: no tensor is lost) or the oldest tensor is dropped
 * (drop=true). With wait-on-eos (default) EOS waits until the application
 * took every queued tensor, so the EOS message comes after the last tensor.
 *
 * location="tensor-%05d.npy" also writes each tensor as a NumPy .npy file
 * (shape in layout order with N = the frames of the batch): a device-to-host
 * copy on the streaming thread's per-thread default stream after the ready
 * event, as gst_cuda_prep_tensor_sink_sample_download() copies, so the host waits
 * for it. For debugging, not for speed. The pattern holds at most one
 * conversion, %d, %i or %u with an optional width (%5d) or zero-padded width
 * (%05d) up to 20, for the tensor's index from 0 (%% is a percent sign);
 * anything else is refused when the sink starts. Without a conversion every
 * tensor is written to the same file, which then holds the last one. Every
 * tensor is written, including those dropped from the queue; a tensor's
 * file is complete before the tensor is queued, so an application that
 * pulls tensor N can read file N. A file that cannot be written (no such
 * directory, disk full) is an element error naming the file, and that
 * tensor is not queued. A file whose write failed half-way stays on disk,
 * truncated.
 *
 * The sink asks upstream for max-buffers + 3 tensors in its pool from the
 * start (the queue, one waiting for room, one being written and the one the
 * application holds), so device memory is allocated once and then stays
 * flat; an application that keeps more tensors makes the pool grow.
 *
 *   gst-launch-1.0 videotestsrc num-buffers=3 ! cudaframeupload ! cudanormalize ! cudatensorize !
 * cudatensorsink location=tensor-%05d.npy
 */
#include "gstcudatensorsink.h"

#include <string>

#include "gstcudaprepformat-private.h"
#include "gstcudaprepmemory.h"
#include "gstcudaprepnpywriter-private.h"
#include "gstcudatensorsample-private.h"
#include "gstcudatensorsink-private.h"
#include "gstcudaprepelementname-private.h"

// Shared with the sample API, the .npy writer (gstcudatensorsample-private.h)
// and the queue (gstcudatensorsink-private.h).
GST_DEBUG_CATEGORY(gst_cuda_prep_tensor_sink_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_tensor_sink_debug

enum {
  PROP_0,
  PROP_EMIT_SIGNALS,
  PROP_MAX_BUFFERS,
  PROP_DROP,
  PROP_LOCATION,
  PROP_CONSUMER,
  PROP_WAIT_ON_EOS,
};

#define DEFAULT_EMIT_SIGNALS FALSE
#define DEFAULT_MAX_BUFFERS 1
#define DEFAULT_DROP FALSE
#define DEFAULT_CONSUMER GST_CUDA_PREP_TENSOR_SINK_CONSUMER_AUTO
#define DEFAULT_WAIT_ON_EOS TRUE

guint cudaprep::tensorsink::signals[LAST_SIGNAL];

using namespace cudaprep::tensorsink;

G_DEFINE_TYPE(GstCudaPrepTensorSink, gst_cuda_prep_tensor_sink, GST_TYPE_BASE_SINK)

GType gst_cuda_prep_tensor_sink_consumer_get_type(void) {
  static gsize type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_TENSOR_SINK_CONSUMER_AUTO,
       "Hold tensors for an application once one pulls, sets callbacks or connects "
       "new-tensor (with emit-signals); until then drop the oldest when full",
       "auto"},
      {GST_CUDA_PREP_TENSOR_SINK_CONSUMER_APPLICATION,
       "An application takes the tensors from the first one on (max-buffers and drop decide)",
       "application"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type)) {
    const GType registered = g_enum_register_static("GstCudaPrepTensorSinkConsumer", values);
    g_once_init_leave(&type, registered);
  }
  return type;
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_CUDA_PREP_TENSOR_CAPS));

static GstFlowReturn gst_cuda_prep_tensor_sink_render(GstBaseSink *bsink, GstBuffer *buffer) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(bsink);
  const GstCudaPrepTensor *tensor = nullptr;
  cudaprep::ArrayDesc array;
  if (gst_buffer_n_memory(buffer) != 1 ||
      !gst_is_cuda_prep_memory(gst_buffer_peek_memory(buffer, 0)) ||
      !gst_cuda_prep_filled_tensor_array(buffer, &tensor, &array)) {
    GST_ELEMENT_ERROR(self, STREAM, WRONG_TYPE,
                      ("cudatensorsink received a buffer without a cudaprep tensor: put "
                       "cudatensorize before it"),
                      (nullptr));
    return GST_FLOW_ERROR;
  }

  g_mutex_lock(&self->lock);
  std::string path;
  std::string location;
  const gboolean write = self->pattern != nullptr;
  if (write) {
    path = self->pattern->path(self->npy_index++);
    location = self->location;
  }
  g_mutex_unlock(&self->lock);
  // Before queueing: an application that pulls tensor N finds file N complete.
  if (write && !gst_cuda_prep_npy_write_tensor(GST_ELEMENT(self), buffer, path, location.c_str()))
    return GST_FLOW_ERROR;

  GstCaps *caps = gst_pad_get_current_caps(GST_BASE_SINK_PAD(bsink));
  GstSample *sample = gst_sample_new(buffer, caps, &bsink->segment, nullptr);
  if (caps != nullptr) gst_caps_unref(caps);
  GstFlowReturn ret = queue_sample(self, sample);
  if (ret != GST_FLOW_OK) return ret;

  g_mutex_lock(&self->lock);
  Callbacks *callbacks =
      self->callbacks != nullptr ? g_atomic_rc_box_acquire(self->callbacks) : nullptr;
  const gboolean emit_signals = self->emit_signals;
  g_mutex_unlock(&self->lock);

  if (callbacks != nullptr && callbacks->callbacks.new_tensor != nullptr)
    ret = callbacks->callbacks.new_tensor(self, callbacks->user_data);
  else if (emit_signals)
    g_signal_emit(self, signals[SIGNAL_NEW_TENSOR], 0, &ret);
  callbacks_unref(callbacks);
  return ret;
}

// Tensors the sink may hold at once beyond its queue: one waiting for room in
// render, one upstream is writing, one the application holds.
#define HELD_BEYOND_QUEUE 3

// Asks the upstream pool to allocate what the sink can hold up front, so
// device memory does not grow to that high-water mark during the run.
static gboolean gst_cuda_prep_tensor_sink_propose_allocation(GstBaseSink *bsink, GstQuery *query) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  const guint max_buffers = self->max_buffers;
  g_mutex_unlock(&self->lock);
  // 0: an unlimited queue has no high-water mark to allocate for.
  if (max_buffers > 0 && max_buffers <= G_MAXUINT - HELD_BEYOND_QUEUE)
    gst_query_add_allocation_pool(query, nullptr, 0, max_buffers + HELD_BEYOND_QUEUE, 0);
  return TRUE;
}

static gboolean gst_cuda_prep_tensor_sink_event(GstBaseSink *bsink, GstEvent *event) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(bsink);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_EOS:
      if (!handle_eos(self)) {
        gst_event_unref(event);
        return FALSE;
      }
      break;
    case GST_EVENT_FLUSH_START:
      g_mutex_lock(&self->lock);
      self->flushing = TRUE;
      self->flush_seq++;
      clear_samples(self);
      g_cond_broadcast(&self->pull_cond);
      g_cond_broadcast(&self->room_cond);
      g_mutex_unlock(&self->lock);
      break;
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock(&self->lock);
      clear_samples(self);
      self->flushing = FALSE;
      self->eos = FALSE;
      g_mutex_unlock(&self->lock);
      break;
    default:
      break;
  }
  return GST_BASE_SINK_CLASS(gst_cuda_prep_tensor_sink_parent_class)->event(bsink, event);
}

static gboolean gst_cuda_prep_tensor_sink_start(GstBaseSink *bsink) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  gchar *location = g_strdup(self->location);
  g_mutex_unlock(&self->lock);
  const gboolean ok = gst_cuda_prep_npy_check_location(GST_ELEMENT(self), location);
  g_free(location);
  if (!ok) return FALSE;
  self->npy_index = 0;
  g_mutex_lock(&self->lock);
  self->opened = TRUE;
  g_mutex_unlock(&self->lock);
  return TRUE;
}

static gboolean gst_cuda_prep_tensor_sink_stop(GstBaseSink *bsink) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  self->opened = FALSE;
  g_mutex_unlock(&self->lock);
  return TRUE;
}

// Pulls wait for tensors from READY -> PAUSED to PAUSED -> READY (basesink
// calls start/stop at NULL <-> READY); leaving PAUSED releases them.
static GstStateChangeReturn gst_cuda_prep_tensor_sink_change_state(GstElement *element,
                                                                   GstStateChange transition) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(element);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_mutex_lock(&self->lock);
    self->started = TRUE;
    self->flushing = FALSE;
    self->eos = FALSE;
    g_mutex_unlock(&self->lock);
  } else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    g_mutex_lock(&self->lock);
    self->started = FALSE;
    self->flush_seq++;
    g_cond_broadcast(&self->pull_cond);
    g_cond_broadcast(&self->room_cond);
    g_mutex_unlock(&self->lock);
  }
  const GstStateChangeReturn ret =
      GST_ELEMENT_CLASS(gst_cuda_prep_tensor_sink_parent_class)->change_state(element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    // The streaming thread has stopped: nothing is queued any more.
    g_mutex_lock(&self->lock);
    clear_samples(self);
    g_mutex_unlock(&self->lock);
  }
  return ret;
}

// Gets the streaming thread out of a wait for room (or for an empty queue
// at EOS): it then waits in gst_base_sink_wait_preroll() (pause) or returns
// (flush, stop). Pulls keep waiting through a pause.
static gboolean gst_cuda_prep_tensor_sink_unlock(GstBaseSink *bsink) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  self->unlocked = TRUE;
  g_cond_broadcast(&self->room_cond);
  g_mutex_unlock(&self->lock);
  return TRUE;
}

static gboolean gst_cuda_prep_tensor_sink_unlock_stop(GstBaseSink *bsink) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  self->unlocked = FALSE;
  g_mutex_unlock(&self->lock);
  return TRUE;
}

// Sets `location`. An invalid pattern is kept, to be refused with an
// element error when the sink starts; while started it is refused at once
// and the old one stays. Takes the lock.
static void set_location(GstCudaPrepTensorSink *self, const gchar *location) {
  if (location != nullptr && location[0] == '\0') location = nullptr;  // empty: no files
  GstCudaPrepNpyLocation *pattern = nullptr;
  std::string error;
  if (location != nullptr) {
    pattern = new GstCudaPrepNpyLocation();
    if (!pattern->parse(location, &error)) {
      delete pattern;
      pattern = nullptr;
    }
  }
  g_mutex_lock(&self->lock);
  const gboolean refused = pattern == nullptr && location != nullptr && self->opened;
  gchar *kept = refused ? g_strdup(self->location) : nullptr;
  if (!refused) {
    g_free(self->location);
    self->location = g_strdup(location);
    delete self->pattern;
    self->pattern = pattern;
  }
  g_mutex_unlock(&self->lock);
  // Messages outside the lock: a bus sync handler may read our properties.
  if (refused)
    GST_ELEMENT_WARNING(self, RESOURCE, SETTINGS,
                        ("Invalid location \"%s\" ignored, still writing \"%s\": %s", location,
                         GST_STR_NULL(kept), error.c_str()),
                        (nullptr));
  else if (pattern == nullptr && location != nullptr)
    GST_WARNING_OBJECT(self, "invalid location \"%s\" (the sink will not start): %s", location,
                       error.c_str());
  g_free(kept);
}

static void gst_cuda_prep_tensor_sink_set_property(GObject *object, guint prop_id,
                                                   const GValue *value, GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(object);
  if (prop_id == PROP_LOCATION) {
    set_location(self, g_value_get_string(value));
    return;
  }
  g_mutex_lock(&self->lock);
  switch (prop_id) {
    case PROP_EMIT_SIGNALS:
      self->emit_signals = g_value_get_boolean(value);
      break;
    case PROP_MAX_BUFFERS:
      self->max_buffers = g_value_get_uint(value);
      break;
    case PROP_DROP:
      self->drop = g_value_get_boolean(value);
      break;
    case PROP_CONSUMER:
      self->consumer = static_cast<GstCudaPrepTensorSinkConsumer>(g_value_get_enum(value));
      break;
    case PROP_WAIT_ON_EOS:
      self->wait_on_eos = g_value_get_boolean(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  // A streaming thread waiting for room or at EOS re-checks.
  g_cond_broadcast(&self->room_cond);
  g_mutex_unlock(&self->lock);
}

static void gst_cuda_prep_tensor_sink_get_property(GObject *object, guint prop_id, GValue *value,
                                                   GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(object);
  g_mutex_lock(&self->lock);
  switch (prop_id) {
    case PROP_EMIT_SIGNALS:
      g_value_set_boolean(value, self->emit_signals);
      break;
    case PROP_MAX_BUFFERS:
      g_value_set_uint(value, self->max_buffers);
      break;
    case PROP_DROP:
      g_value_set_boolean(value, self->drop);
      break;
    case PROP_LOCATION:
      g_value_set_string(value, self->location);
      break;
    case PROP_CONSUMER:
      g_value_set_enum(value, self->consumer);
      break;
    case PROP_WAIT_ON_EOS:
      g_value_set_boolean(value, self->wait_on_eos);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  g_mutex_unlock(&self->lock);
}

static void gst_cuda_prep_tensor_sink_finalize(GObject *object) {
  auto *self = GST_CUDA_PREP_TENSOR_SINK(object);
  clear_samples(self);
  callbacks_unref(self->callbacks);
  g_free(self->location);
  delete self->pattern;
  g_mutex_clear(&self->lock);
  g_cond_clear(&self->pull_cond);
  g_cond_clear(&self->room_cond);
  G_OBJECT_CLASS(gst_cuda_prep_tensor_sink_parent_class)->finalize(object);
}

static void gst_cuda_prep_tensor_sink_class_init(GstCudaPrepTensorSinkClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS(klass);

  gobject_class->set_property = gst_cuda_prep_tensor_sink_set_property;
  gobject_class->get_property = gst_cuda_prep_tensor_sink_get_property;
  cudaprep::name_elements_after_factory(gobject_class);
  gobject_class->finalize = gst_cuda_prep_tensor_sink_finalize;

  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property(
      gobject_class, PROP_EMIT_SIGNALS,
      g_param_spec_boolean("emit-signals", "Emit signals",
                           "Emit new-tensor when a tensor is queued (off by default: a signal "
                           "per tensor costs a little; pull, or set callbacks, instead). A "
                           "connected new-tensor handler with this on counts as the consumer",
                           DEFAULT_EMIT_SIGNALS, flags));
  g_object_class_install_property(
      gobject_class, PROP_MAX_BUFFERS,
      g_param_spec_uint("max-buffers", "Max buffers",
                        "Tensors waiting for the application at most (0: unlimited, which holds "
                        "device memory without bound if nobody pulls); when full, see drop and "
                        "consumer",
                        0, G_MAXUINT, DEFAULT_MAX_BUFFERS, flags));
  g_object_class_install_property(
      gobject_class, PROP_DROP,
      g_param_spec_boolean("drop", "Drop",
                           "When max-buffers tensors wait for an application that takes them "
                           "(see consumer): false makes the pipeline wait for it (no tensor "
                           "lost); true drops the oldest (live sources)",
                           DEFAULT_DROP, flags));
  g_object_class_install_property(
      gobject_class, PROP_CONSUMER,
      g_param_spec_enum(
          "consumer", "Consumer",
          "Who takes the tensors. auto: an application once it pulls (once is enough), sets "
          "callbacks or connects new-tensor with emit-signals; until then nobody, so a full "
          "queue drops its oldest tensor and EOS does not wait (gst-launch-1.0 runs to the "
          "end). application: an application, from the first tensor on (an application "
          "that starts pulling after PLAYING sets this to lose nothing)",
          GST_TYPE_CUDA_PREP_TENSOR_SINK_CONSUMER, DEFAULT_CONSUMER, flags));
  g_object_class_install_property(
      gobject_class, PROP_WAIT_ON_EOS,
      g_param_spec_boolean("wait-on-eos", "Wait on EOS",
                           "At EOS, wait until the application took every queued tensor before "
                           "emitting eos and posting the EOS message (only when an application "
                           "takes the tensors, see consumer)",
                           DEFAULT_WAIT_ON_EOS, flags));
  g_object_class_install_property(
      gobject_class, PROP_LOCATION,
      g_param_spec_string(
          "location", "Location",
          "Also write each tensor (dropped ones included) to a NumPy .npy file named by this "
          "pattern: at most one %d, %i or %u (optionally %5d or %05d, width up to 20) for the "
          "tensor's index from 0, %% for a percent sign; anything else is refused when the sink "
          "starts. Without a conversion one file is rewritten with each tensor. NULL or empty: "
          "no files. The host waits for each copy, so only for debugging",
          nullptr, flags));

  // GstFlowReturn handler(GstCudaPrepTensorSink *sink, gpointer user_data): pull
  // the tensor from it (streaming thread; do not block long). Not emitted
  // when callbacks with new_tensor are set.
  signals[SIGNAL_NEW_TENSOR] =
      g_signal_new("new-tensor", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, nullptr, nullptr,
                   nullptr, GST_TYPE_FLOW_RETURN, 0, G_TYPE_NONE);
  // void handler(GstCudaPrepTensorSink *sink, gpointer user_data): EOS reached
  // (after the queue was emptied, with wait-on-eos); streaming thread. Not
  // emitted when callbacks with eos are set.
  signals[SIGNAL_EOS] = g_signal_new("eos", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, nullptr,
                                     nullptr, nullptr, G_TYPE_NONE, 0, G_TYPE_NONE);
  signals[SIGNAL_PULL_TENSOR] =
      g_signal_new_class_handler("pull-tensor", G_TYPE_FROM_CLASS(klass),
                                 static_cast<GSignalFlags>(G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION),
                                 G_CALLBACK(gst_cuda_prep_tensor_sink_pull_tensor), nullptr,
                                 nullptr, nullptr, GST_TYPE_SAMPLE, 0, G_TYPE_NONE);
  signals[SIGNAL_TRY_PULL_TENSOR] =
      g_signal_new_class_handler("try-pull-tensor", G_TYPE_FROM_CLASS(klass),
                                 static_cast<GSignalFlags>(G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION),
                                 G_CALLBACK(gst_cuda_prep_tensor_sink_try_pull_tensor), nullptr,
                                 nullptr, nullptr, GST_TYPE_SAMPLE, 1, GST_TYPE_CLOCK_TIME);

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA tensor sink", "Sink/Hardware",
      "Hands the application each CUDA tensor (pull API, callbacks and signals, like appsink) "
      "with its ready event and a zero-copy DLPack export; optionally writes them as .npy files",
      "cudaprep developers");

  element_class->change_state = gst_cuda_prep_tensor_sink_change_state;
  sink_class->render = gst_cuda_prep_tensor_sink_render;
  sink_class->propose_allocation = gst_cuda_prep_tensor_sink_propose_allocation;
  sink_class->event = gst_cuda_prep_tensor_sink_event;
  sink_class->start = gst_cuda_prep_tensor_sink_start;
  sink_class->stop = gst_cuda_prep_tensor_sink_stop;
  sink_class->unlock = gst_cuda_prep_tensor_sink_unlock;
  sink_class->unlock_stop = gst_cuda_prep_tensor_sink_unlock_stop;

  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_TENSOR_SINK_CONSUMER,
                              static_cast<GstPluginAPIFlags>(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_tensor_sink_debug, "cudatensorsink", 0, "CUDA tensor sink");
}

static void gst_cuda_prep_tensor_sink_init(GstCudaPrepTensorSink *self) {
  // An inference sink takes a tensor when it is ready, as appsink is used
  // for inference: waiting on the clock held each live batch until its
  // running time plus the pipeline's whole latency (a jitter buffer's), and
  // the cameras' queues overflowed behind it (issue 32). sync=true paces.
  gst_base_sink_set_sync(GST_BASE_SINK(self), FALSE);
  self->emit_signals = DEFAULT_EMIT_SIGNALS;
  self->max_buffers = DEFAULT_MAX_BUFFERS;
  self->drop = DEFAULT_DROP;
  self->consumer = DEFAULT_CONSUMER;
  self->wait_on_eos = DEFAULT_WAIT_ON_EOS;
  g_mutex_init(&self->lock);
  g_cond_init(&self->pull_cond);
  g_cond_init(&self->room_cond);
  g_queue_init(&self->samples);
}
