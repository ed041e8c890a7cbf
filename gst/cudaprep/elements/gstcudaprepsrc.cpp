#include "gstcudaprepsrc.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <gst/rtsp/gstrtsp-enumtypes.h>
#include <gst/rtsp/gstrtsptransport.h>

#include "base/gstcudaprepcredentials.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_src_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_src_debug

namespace {

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

constexpr guint kMaxMilliseconds = 3600 * 1000;
constexpr guint DEFAULT_RECONNECT_INTERVAL = 1000;
constexpr guint DEFAULT_RECONNECT_INTERVAL_MAX = 30000;
constexpr gint DEFAULT_RECONNECT_ATTEMPTS = -1;
constexpr guint DEFAULT_STALL_TIMEOUT = 5000;
// Past rtspsrc's UDP-to-TCP fallback (5 s), its jitter buffer and a GPU
// decoder's first CUDA context.
constexpr guint DEFAULT_CONNECT_TIMEOUT = 20000;
// Analytics, not playback: a short jitter buffer that drops what comes late.
constexpr guint DEFAULT_LATENCY = 200;
constexpr gboolean DEFAULT_DROP_ON_LATENCY = TRUE;
constexpr guint DEFAULT_PROTOCOLS =
    GST_RTSP_LOWER_TRANS_UDP | GST_RTSP_LOWER_TRANS_UDP_MCAST | GST_RTSP_LOWER_TRANS_TCP;
// Consecutive faults of the chain (not the camera) before they are an ERROR.
constexpr guint kMaxChainFaults = 3;
constexpr guint DEFAULT_STATS_INTERVAL = 0;
constexpr guint DEFAULT_QUEUE_SIZE = 4;
constexpr guint kMaxQueueSize = 1000;
constexpr gboolean DEFAULT_PREFER_GPU_DECODER = TRUE;
constexpr GstCudaPrepSrcOnEos DEFAULT_ON_EOS = GST_CUDA_PREP_SRC_ON_EOS_AUTO;

struct Settings {
  std::string uri;      // as set: may hold credentials, never printed
  std::string user_id;  // the properties; override the URI's
  std::string user_pw;
  std::string chain;
  bool prefer_gpu_decoder = DEFAULT_PREFER_GPU_DECODER;
  guint reconnect_interval = DEFAULT_RECONNECT_INTERVAL;
  guint reconnect_interval_max = DEFAULT_RECONNECT_INTERVAL_MAX;
  gint reconnect_attempts = DEFAULT_RECONNECT_ATTEMPTS;
  guint stall_timeout = DEFAULT_STALL_TIMEOUT;
  guint connect_timeout = DEFAULT_CONNECT_TIMEOUT;
  guint latency = DEFAULT_LATENCY;
  bool drop_on_latency = DEFAULT_DROP_ON_LATENCY;
  guint protocols = DEFAULT_PROTOCOLS;
  guint stats_interval = DEFAULT_STATS_INTERVAL;
  guint queue_size = DEFAULT_QUEUE_SIZE;
  GstCudaPrepSrcOnEos on_eos = DEFAULT_ON_EOS;
};

// What the worker thread has to post or do, set by streaming threads.
struct Pending {
  bool fault = false;
  std::string fault_reason;  // masked
  bool chain_fault = false;  // the chain's, not the camera's (handle_fault)
  bool connected = false;    // first frame of a decoder
  bool ended = false;        // EOS of the source
};

}  // namespace

enum {
  PROP_0,
  PROP_URI,
  PROP_USER_ID,
  PROP_USER_PW,
  PROP_CHAIN,
  PROP_PREFER_GPU_DECODER,
  PROP_RECONNECT_INTERVAL,
  PROP_RECONNECT_INTERVAL_MAX,
  PROP_RECONNECT_ATTEMPTS,
  PROP_STALL_TIMEOUT,
  PROP_CONNECT_TIMEOUT,
  PROP_LATENCY,
  PROP_DROP_ON_LATENCY,
  PROP_PROTOCOLS,
  PROP_STATS_INTERVAL,
  PROP_QUEUE_SIZE,
  PROP_ON_EOS,
  PROP_STATS,
};

struct GstCudaPrepSrcPrivate {
  std::mutex lock;  // everything below up to decoder_lock; `wake` waits on it
  std::condition_variable wake;
  Settings settings;
  GstCudaPrepSrcState state = GST_CUDA_PREP_SRC_STATE_STOPPED;
  Pending pending;
  bool live = false;     // the decoder answered NO_PREROLL
  bool playing = false;  // the bin's target is PLAYING
  bool quit = false;
  bool eos_requested = false;       // the application sent EOS: no reconnect, EOS flows out
  Clock::time_point last_activity;  // decoder built, PLAYING reached, or last frame
  Clock::time_point reconnect_at;
  Clock::time_point next_stats;
  guint failures = 0;      // consecutive faults without a frame between them
  guint chain_faults = 0;  // consecutive faults of the chain without a frame out
  guint64 reconnects = 0;
  guint64 frames_in = 0, frames_out = 0, dropped_queue_full = 0;
  guint64 caps_changes = 0;
  std::string last_error;  // masked
  std::string decoder_name;
  std::thread worker;

  std::mutex decoder_lock;  // the decoder's life: build, state, teardown
  GstElement *decoder = nullptr;

  // The stable part (built once, kept across reconnects).
  GstElement *queue = nullptr;
  GstElement *chain = nullptr;  // from `chain`, NULL→READY to READY→NULL
  GstPad *src = nullptr;        // the always ghost pad
  GstPad *out_pad = nullptr;    // its target, counting frames out
  gulong out_probe = 0;
};

struct _GstCudaPrepSrc {
  GstBin parent;
  GstCudaPrepSrcPrivate *priv;
};

G_DEFINE_TYPE(GstCudaPrepSrc, gst_cuda_prep_src, GST_TYPE_BIN)
GST_ELEMENT_REGISTER_DEFINE(cudaprepsrc, "cudaprepsrc", GST_RANK_NONE, GST_TYPE_CUDA_PREP_SRC)

static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

GType gst_cuda_prep_src_state_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_SRC_STATE_STOPPED, "Not started", "stopped"},
      {GST_CUDA_PREP_SRC_STATE_CONNECTING, "Decoder built, no frame yet", "connecting"},
      {GST_CUDA_PREP_SRC_STATE_STREAMING, "Frames flow", "streaming"},
      {GST_CUDA_PREP_SRC_STATE_RECONNECTING, "Waiting to reconnect after a fault", "reconnecting"},
      {GST_CUDA_PREP_SRC_STATE_ENDED, "The source sent EOS", "ended"},
      {GST_CUDA_PREP_SRC_STATE_FAILED, "Reconnect attempts spent", "failed"},
      {0, nullptr, nullptr}};
  if (g_once_init_enter(&type)) {
    GType registered = g_enum_register_static("GstCudaPrepSrcState", values);
    g_once_init_leave(&type, registered);
  }
  return type;
}

GType gst_cuda_prep_src_on_eos_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_SRC_ON_EOS_AUTO, "A live source reconnects, a file ends", "auto"},
      {GST_CUDA_PREP_SRC_ON_EOS_END, "The source ends: its src pad sends EOS", "end"},
      {GST_CUDA_PREP_SRC_ON_EOS_RECONNECT, "A fault: reconnect", "reconnect"},
      {0, nullptr, nullptr}};
  if (g_once_init_enter(&type)) {
    GType registered = g_enum_register_static("GstCudaPrepSrcOnEos", values);
    g_once_init_leave(&type, registered);
  }
  return type;
}

static const gchar *state_nick(GstCudaPrepSrcState state) {
  GEnumClass *klass = G_ENUM_CLASS(g_type_class_ref(gst_cuda_prep_src_state_get_type()));
  const gchar *nick = g_enum_get_value(klass, state)->value_nick;  // static strings
  g_type_class_unref(klass);
  return nick;
}

// ---------------------------------------------------------------- messages

static std::string masked_uri(GstCudaPrepSrcPrivate *priv) {
  return gst_cuda_prep_mask_credentials(priv->settings.uri.c_str());
}

// The statistics (priv->lock held).
static GstStructure *stats_locked(GstCudaPrepSrc *self) {
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

static void post_element_message(GstCudaPrepSrc *self, GstStructure *structure) {
  if (!gst_element_post_message(GST_ELEMENT(self),
                                gst_message_new_element(GST_OBJECT(self), structure)))
    GST_DEBUG_OBJECT(self, "no bus took the element message (not in a pipeline)");
}

static GstStructure *event_structure(GstCudaPrepSrc *self, const gchar *name) {
  std::lock_guard<std::mutex> guard(self->priv->lock);
  return gst_structure_new(name, "source", G_TYPE_STRING, GST_OBJECT_NAME(self), "uri",
                           G_TYPE_STRING, masked_uri(self->priv).c_str(), nullptr);
}

// ----------------------------------------------------------- the decoder

// prefer-gpu-decoder: nvcodec's decoders first (their frames stay on the
// GPU in memory:CUDAMemory, which cudaprep's elements read in place), or
// last (a CPU decoder wherever one is installed: nvh264dec outranks them);
// the rest in decodebin's order.
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
static GValueArray *on_autoplug_sort(GstElement *, GstPad *, GstCaps *, GValueArray *factories,
                                     GstCudaPrepSrc *self) {
  bool gpu_first;
  {
    std::lock_guard<std::mutex> guard(self->priv->lock);
    gpu_first = self->priv->settings.prefer_gpu_decoder;
  }
  auto is_nvcodec_decoder = [](const GValue *value) {
    GstElementFactory *factory = GST_ELEMENT_FACTORY(g_value_get_object(value));
    const gchar *plugin = gst_plugin_feature_get_plugin_name(GST_PLUGIN_FEATURE(factory));
    const gchar *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
    return plugin && g_str_equal(plugin, "nvcodec") && klass && strstr(klass, "Decoder");
  };
  GValueArray *sorted = g_value_array_new(factories->n_values);
  for (int pass = 0; pass < 2; ++pass)
    for (guint i = 0; i < factories->n_values; ++i) {
      const GValue *value = g_value_array_get_nth(factories, i);
      if (is_nvcodec_decoder(value) == (gpu_first == (pass == 0)))
        g_value_array_append(sorted, value);
    }
  return sorted;
}
G_GNUC_END_IGNORE_DEPRECATIONS

static void note_fault_locked(GstCudaPrepSrc *self, const std::string &reason, bool chain_fault);

// Sets `name` on `source` where it has such a property (rtspsrc's, on
// whatever reads the URI).
static void set_if_present(GstElement *source, const gchar *name, const GValue *value) {
  if (g_object_class_find_property(G_OBJECT_GET_CLASS(source), name))
    g_object_set_property(G_OBJECT(source), name, value);
}

// The camera's transport settings, and its credentials as the source
// element's properties, never in its URI.
static void on_source_setup(GstElement *, GstElement *source, GstCudaPrepSrc *self) {
  std::string user, password;
  Settings settings;
  {
    std::lock_guard<std::mutex> guard(self->priv->lock);
    settings = self->priv->settings;
  }
  GValue value = G_VALUE_INIT;
  g_value_init(&value, G_TYPE_UINT);
  g_value_set_uint(&value, settings.latency);
  set_if_present(source, "latency", &value);
  g_value_unset(&value);
  g_value_init(&value, G_TYPE_BOOLEAN);
  g_value_set_boolean(&value, settings.drop_on_latency);
  set_if_present(source, "drop-on-latency", &value);
  g_value_unset(&value);
  g_value_init(&value, GST_TYPE_RTSP_LOWER_TRANS);
  g_value_set_flags(&value, settings.protocols);
  set_if_present(source, "protocols", &value);
  g_value_unset(&value);

  const GstCudaPrepUriCredentials split = gst_cuda_prep_split_uri_credentials(settings.uri.c_str());
  user = settings.user_id.empty() ? split.user : settings.user_id;
  password = settings.user_pw.empty() ? split.password : settings.user_pw;
  if (user.empty() && password.empty()) return;
  GObjectClass *klass = G_OBJECT_GET_CLASS(source);
  if (!g_object_class_find_property(klass, "user-id") ||
      !g_object_class_find_property(klass, "user-pw")) {
    GST_ELEMENT_WARNING(self, RESOURCE, SETTINGS,
                        ("The source element %s takes no credentials (no user-id/user-pw "
                         "properties); they are not used",
                         G_OBJECT_TYPE_NAME(source)),
                        (nullptr));
    return;
  }
  g_object_set(source, "user-id", user.c_str(), "user-pw", password.c_str(), nullptr);
}

static GstPadProbeReturn drop_everything(GstPad *, GstPadProbeInfo *, gpointer) {
  return GST_PAD_PROBE_DROP;
}

// The decoder's first video pad feeds the stable part; any other stream
// (audio, a second video) is dropped at its pad. Video the chain cannot
// take is the chain's fault.
static void on_pad_added(GstElement *, GstPad *pad, GstCudaPrepSrc *self) {
  GstCaps *caps = gst_pad_get_current_caps(pad);
  if (!caps) caps = gst_pad_query_caps(pad, nullptr);
  const gboolean video =
      caps && !gst_caps_is_empty(caps) &&
      g_str_has_prefix(gst_structure_get_name(gst_caps_get_structure(caps, 0)), "video/");
  GstPad *sink = gst_element_get_static_pad(self->priv->queue, "sink");
  const bool first_video = video && !gst_pad_is_linked(sink);
  const GstPadLinkReturn link = first_video ? gst_pad_link(pad, sink) : GST_PAD_LINK_REFUSED;
  gst_object_unref(sink);
  if (first_video && link != GST_PAD_LINK_OK) {
    gchar *text = gst_caps_to_string(caps);
    const std::string reason = std::string("the chain takes none of the decoder's video (") + text +
                               "): " + gst_pad_link_get_name(link);
    g_free(text);
    std::lock_guard<std::mutex> guard(self->priv->lock);
    note_fault_locked(self, reason, true);
  }
  if (caps) gst_caps_unref(caps);
  if (link != GST_PAD_LINK_OK) {
    GST_DEBUG_OBJECT(self, "dropping the decoder's stream on %s", GST_PAD_NAME(pad));
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, drop_everything, nullptr, nullptr);
  }
}

// The decoder's bin name is also the factory name of what it decodes with:
// noted for the statistics.
static void on_deep_element_added(GstBin *, GstBin *, GstElement *element, GstCudaPrepSrc *self) {
  GstElementFactory *factory = gst_element_get_factory(element);
  if (!factory) return;
  const gchar *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
  if (!klass || !strstr(klass, "Decoder") || !strstr(klass, "Video")) return;
  std::lock_guard<std::mutex> guard(self->priv->lock);
  self->priv->decoder_name = GST_OBJECT_NAME(factory);
}

static void on_queue_overrun(GstElement *queue, GstCudaPrepSrc *self) {
  // Leaky (live): each overrun of a buffers-only limit drops exactly one
  // frame, the oldest. Not leaky: the source waits instead.
  gint leaky = 0;
  g_object_get(queue, "leaky", &leaky, nullptr);
  if (leaky == 0) return;
  std::lock_guard<std::mutex> guard(self->priv->lock);
  ++self->priv->dropped_queue_full;
}

// The bin's current target for a decoder built now.
static GstState decoder_target(GstCudaPrepSrcPrivate *priv) {
  std::lock_guard<std::mutex> guard(priv->lock);
  return priv->playing ? GST_STATE_PLAYING : GST_STATE_PAUSED;
}

// Builds and starts a decoder for the URI. Its state is locked: the bin
// sets it, so that its failures never fail the pipeline's state change.
// Returns the state change's result.
static GstStateChangeReturn connect_decoder(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  std::lock_guard<std::mutex> decoder_guard(priv->decoder_lock);
  std::string uri;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    if (priv->quit || priv->eos_requested) return GST_STATE_CHANGE_SUCCESS;  // stopping
    uri = gst_cuda_prep_split_uri_credentials(priv->settings.uri.c_str()).uri;
    priv->state = GST_CUDA_PREP_SRC_STATE_CONNECTING;
    priv->last_activity = Clock::now();
    priv->pending.connected = false;
  }
  GstElement *decoder = gst_element_factory_make("uridecodebin", nullptr);
  if (!decoder) {
    std::lock_guard<std::mutex> guard(priv->lock);
    priv->pending.fault = true;
    priv->pending.fault_reason = "uridecodebin is missing (gstreamer1.0-plugins-base)";
    priv->wake.notify_all();
    return GST_STATE_CHANGE_FAILURE;
  }
  g_object_set(decoder, "uri", uri.c_str(), nullptr);
  g_signal_connect(decoder, "pad-added", G_CALLBACK(on_pad_added), self);
  g_signal_connect(decoder, "source-setup", G_CALLBACK(on_source_setup), self);
  g_signal_connect(decoder, "autoplug-sort", G_CALLBACK(on_autoplug_sort), self);
  gst_element_set_locked_state(decoder, TRUE);
  if (!gst_bin_add(GST_BIN(self), decoder)) {
    gst_object_unref(decoder);
    return GST_STATE_CHANGE_FAILURE;
  }
  priv->decoder = decoder;
  // Through PAUSED first, as a pipeline would: rtspsrc sends PLAY only
  // when it reaches PLAYING after its PAUSED (a jump from NULL left it at
  // SETUP).
  GstStateChangeReturn result = gst_element_set_state(decoder, GST_STATE_PAUSED);
  if (result != GST_STATE_CHANGE_FAILURE && decoder_target(priv) == GST_STATE_PLAYING) {
    const GstStateChangeReturn playing = gst_element_set_state(decoder, GST_STATE_PLAYING);
    if (playing == GST_STATE_CHANGE_FAILURE) result = playing;
  }
  GST_INFO_OBJECT(self, "decoder %s started: %s", GST_OBJECT_NAME(decoder),
                  gst_element_state_change_return_get_name(result));
  const bool live = result == GST_STATE_CHANGE_NO_PREROLL;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    priv->live = live;
  }
  // A live source faster than downstream loses its oldest frame (counted);
  // a file waits.
  g_object_set(priv->queue, "leaky", live ? 2 : 0, nullptr);
  return result;
}

// Stops and removes the decoder, from a thread that is not its streaming
// thread.
static void teardown_decoder(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  std::lock_guard<std::mutex> decoder_guard(priv->decoder_lock);
  GstElement *decoder = priv->decoder;
  priv->decoder = nullptr;
  if (!decoder) return;
  // A streaming thread waiting for room in a full queue would hold its
  // pad's stream lock forever: opening the queue (0: no limit) wakes it.
  guint queue_size;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    queue_size = priv->settings.queue_size;
  }
  g_object_set(priv->queue, "max-size-buffers", 0u, nullptr);
  if (gst_element_set_state(decoder, GST_STATE_NULL) == GST_STATE_CHANGE_FAILURE)
    GST_WARNING_OBJECT(self, "the decoder did not stop cleanly");
  g_object_set(priv->queue, "max-size-buffers", queue_size, nullptr);
  gst_bin_remove(GST_BIN(self), decoder);
}

// ------------------------------------------------------------ data probes

static GstPadProbeReturn on_queue_sink_data(GstPad *, GstPadProbeInfo *info, GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  std::lock_guard<std::mutex> guard(priv->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    ++priv->frames_in;
    priv->last_activity = Clock::now();
    if (priv->state == GST_CUDA_PREP_SRC_STATE_CONNECTING) {
      priv->state = GST_CUDA_PREP_SRC_STATE_STREAMING;
      priv->failures = 0;
      priv->pending.connected = true;
      priv->wake.notify_all();
    }
    return GST_PAD_PROBE_OK;
  }
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    ++priv->caps_changes;
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_EOS &&
             priv->state != GST_CUDA_PREP_SRC_STATE_FAILED && !priv->eos_requested) {
    const GstCudaPrepSrcOnEos on_eos = priv->settings.on_eos;
    if (on_eos == GST_CUDA_PREP_SRC_ON_EOS_RECONNECT ||
        (on_eos == GST_CUDA_PREP_SRC_ON_EOS_AUTO && priv->live)) {
      note_fault_locked(self, "the stream ended (EOS)", false);
      return GST_PAD_PROBE_DROP;
    }
    // The source's own EOS: it ends this source (the queue passes it on).
    priv->state = GST_CUDA_PREP_SRC_STATE_ENDED;
    priv->pending.ended = true;
    priv->wake.notify_all();
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn on_src_buffer(GstPad *, GstPadProbeInfo *, GstCudaPrepSrc *self) {
  std::lock_guard<std::mutex> guard(self->priv->lock);
  ++self->priv->frames_out;
  self->priv->chain_faults = 0;
  return GST_PAD_PROBE_OK;
}

// ----------------------------------------------------------------- faults

// Records a fault for the worker (priv->lock held); one per decoder.
static void note_fault_locked(GstCudaPrepSrc *self, const std::string &reason, bool chain_fault) {
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
    // restarts them and clears that EOS downstream, without resetting the
    // pipeline's running time.
    GstPad *sink = gst_element_get_static_pad(priv->queue, "sink");
    gst_pad_send_event(sink, gst_event_new_flush_start());
    gst_pad_send_event(sink, gst_event_new_flush_stop(FALSE));
    gst_object_unref(sink);
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

// ------------------------------------------------------------- bin parts

static gboolean in_stable_part(GstCudaPrepSrc *self, GstObject *object) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  return object == GST_OBJECT(priv->queue) ||
         (priv->chain && (object == GST_OBJECT(priv->chain) ||
                          gst_object_has_as_ancestor(object, GST_OBJECT(priv->chain))));
}

// A child's message with every string it carries masked.
static GstMessage *masked_copy(GstMessage *message) {
  GError *error = nullptr;
  gchar *debug = nullptr;
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_WARNING)
    gst_message_parse_warning(message, &error, &debug);
  else
    gst_message_parse_info(message, &error, &debug);
  gchar *text = gst_cuda_prep_mask_credentials_dup(error->message);
  g_free(error->message);
  error->message = text;
  gchar *masked_debug = debug ? gst_cuda_prep_mask_credentials_dup(debug) : nullptr;
  GstMessage *copy = GST_MESSAGE_TYPE(message) == GST_MESSAGE_WARNING
                         ? gst_message_new_warning(GST_MESSAGE_SRC(message), error, masked_debug)
                         : gst_message_new_info(GST_MESSAGE_SRC(message), error, masked_debug);
  g_error_free(error);
  g_free(debug);
  g_free(masked_debug);
  return copy;
}

static void gst_cuda_prep_src_handle_message(GstBin *bin, GstMessage *message) {
  GstCudaPrepSrc *self = GST_CUDA_PREP_SRC(bin);
  GstCudaPrepSrcPrivate *priv = self->priv;
  GstObject *from = GST_MESSAGE_SRC(message);
  const bool own = from == GST_OBJECT(self);
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_ERROR: {
      if (own) break;
      GError *error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error(message, &error, &debug);
      gchar *text = g_strdup_printf("%s: %s%s%s", GST_OBJECT_NAME(from), error->message,
                                    debug ? " | " : "", debug ? debug : "");
      const std::string reason = gst_cuda_prep_mask_credentials(text);
      // The chain's fault, not the camera's: an error inside it, or a decoder
      // whose frames the chain does not take (its caps filter, say).
      const bool chain_fault =
          in_stable_part(self, from) || (debug != nullptr && strstr(debug, "not-negotiated"));
      g_free(text);
      g_error_free(error);
      g_free(debug);
      GST_INFO_OBJECT(self, "caught an error: %s", reason.c_str());
      {
        std::lock_guard<std::mutex> guard(priv->lock);
        note_fault_locked(self, reason, chain_fault);
      }
      gst_message_unref(message);
      return;
    }
    case GST_MESSAGE_WARNING:
    case GST_MESSAGE_INFO:
      if (own) break;
      {
        GstMessage *copy = masked_copy(message);
        gst_message_unref(message);
        message = copy;
      }
      break;
    case GST_MESSAGE_ASYNC_START:
    case GST_MESSAGE_ASYNC_DONE:
      // The decoder's state is the bin's own business (locked): its preroll
      // must not make the pipeline lose its state.
      if (!own && !in_stable_part(self, from)) {
        gst_message_unref(message);
        return;
      }
      break;
    case GST_MESSAGE_PROPERTY_NOTIFY: {
      // Watches (gst-launch -v) print property values: no password, no
      // URI in clear.
      const gchar *name = nullptr;
      const GValue *value = nullptr;
      gst_message_parse_property_notify(message, nullptr, &name, &value);
      if (name && (g_str_has_suffix(name, "-pw") || g_str_has_suffix(name, "password"))) {
        gst_message_unref(message);
        return;
      }
      if (value && G_VALUE_HOLDS_STRING(value) && g_value_get_string(value)) {
        GValue masked = G_VALUE_INIT;
        g_value_init(&masked, G_TYPE_STRING);
        g_value_take_string(&masked, gst_cuda_prep_mask_credentials_dup(g_value_get_string(value)));
        GstMessage *copy = gst_message_new_property_notify(from, name, &masked);
        gst_message_unref(message);
        message = copy;
      }
      break;
    }
    default:
      break;
  }
  GST_BIN_CLASS(gst_cuda_prep_src_parent_class)->handle_message(bin, message);
}

// NULL→READY: the chain and the src pad's target.
static gboolean build_stable_part(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  std::string uri, chain;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    uri = priv->settings.uri;
    chain = priv->settings.chain;
  }
  if (uri.empty()) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("cudaprepsrc needs a uri"), (nullptr));
    return FALSE;
  }
  gchar *protocol = gst_uri_get_protocol(uri.c_str());
  const gboolean supported = protocol && gst_uri_protocol_is_supported(GST_URI_SRC, protocol);
  if (!supported) {
    const std::string masked = gst_cuda_prep_mask_credentials(uri.c_str());
    GST_ELEMENT_ERROR(
        self, RESOURCE, NOT_FOUND,
        ("uri=%s: %s", masked.c_str(),
         protocol ? "no installed element reads this protocol" : "not a URI (scheme://...)"),
        (nullptr));
    g_free(protocol);
    return FALSE;
  }
  g_free(protocol);
  GstPad *target = nullptr;
  if (!chain.empty()) {
    GError *error = nullptr;
    GstElement *bin = gst_parse_bin_from_description(chain.c_str(), TRUE, &error);
    if (!bin) {
      GST_ELEMENT_ERROR(self, CORE, FAILED,
                        ("chain=\"%s\" cannot be built: %s", chain.c_str(), error->message),
                        (nullptr));
      g_clear_error(&error);
      return FALSE;
    }
    g_clear_error(&error);  // (a warning that did not stop the parse)
    gst_bin_add(GST_BIN(self), bin);
    if (!gst_element_link(priv->queue, bin)) {
      GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                        ("chain=\"%s\" has no sink pad that takes video", chain.c_str()),
                        (nullptr));
      gst_bin_remove(GST_BIN(self), bin);
      return FALSE;
    }
    priv->chain = bin;
    target = gst_element_get_static_pad(bin, "src");
    if (!target) {
      GST_ELEMENT_ERROR(self, CORE, FAILED, ("chain=\"%s\" has no unlinked src pad", chain.c_str()),
                        (nullptr));
      return FALSE;
    }
  } else {
    target = gst_element_get_static_pad(priv->queue, "src");
  }
  gst_ghost_pad_set_target(GST_GHOST_PAD(priv->src), target);
  priv->out_probe = gst_pad_add_probe(target, GST_PAD_PROBE_TYPE_BUFFER,
                                      (GstPadProbeCallback)on_src_buffer, self, nullptr);
  priv->out_pad = target;  // (the reference taken above)
  return TRUE;
}

static void remove_stable_part(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  gst_ghost_pad_set_target(GST_GHOST_PAD(priv->src), nullptr);
  if (priv->out_pad) {
    gst_pad_remove_probe(priv->out_pad, priv->out_probe);
    gst_clear_object(&priv->out_pad);
  }
  if (priv->chain) {
    gst_element_set_state(priv->chain, GST_STATE_NULL);
    gst_bin_remove(GST_BIN(self), priv->chain);
    priv->chain = nullptr;
  }
}

// ---------------------------------------------------------------- states

static void start_worker(GstCudaPrepSrc *self) {
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

static void stop_worker(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    priv->quit = true;
    priv->wake.notify_all();
  }
  if (priv->worker.joinable()) priv->worker.join();
}

// Sets the decoder (if any) to `state`.
static void set_decoder_state(GstCudaPrepSrc *self, GstState state) {
  std::lock_guard<std::mutex> decoder_guard(self->priv->decoder_lock);
  if (self->priv->decoder &&
      gst_element_set_state(self->priv->decoder, state) == GST_STATE_CHANGE_FAILURE) {
    std::lock_guard<std::mutex> guard(self->priv->lock);
    note_fault_locked(
        self, std::string("the decoder could not go to ") + gst_element_state_get_name(state),
        false);
  }
}

static GstStateChangeReturn gst_cuda_prep_src_change_state(GstElement *element,
                                                           GstStateChange transition) {
  GstCudaPrepSrc *self = GST_CUDA_PREP_SRC(element);
  GstCudaPrepSrcPrivate *priv = self->priv;
  switch (transition) {
    case GST_STATE_CHANGE_NULL_TO_READY:
      if (!build_stable_part(self)) {
        remove_stable_part(self);
        return GST_STATE_CHANGE_FAILURE;
      }
      break;
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING: {
      std::lock_guard<std::mutex> guard(priv->lock);
      priv->playing = true;
      priv->last_activity = Clock::now();  // a paused source sent nothing: no stall
      priv->wake.notify_all();
      break;
    }
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED: {
      std::lock_guard<std::mutex> guard(priv->lock);
      priv->playing = false;
      break;
    }
    case GST_STATE_CHANGE_PAUSED_TO_READY: {
      // Errors of a decoder shutting down (a parser's not-linked as
      // decodebin removes its pads) are no faults.
      {
        std::lock_guard<std::mutex> guard(priv->lock);
        priv->state = GST_CUDA_PREP_SRC_STATE_STOPPED;
        priv->quit = true;  // (no new decoder from here)
      }
      stop_worker(self);
      teardown_decoder(self);
      break;
    }
    default:
      break;
  }
  if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED) set_decoder_state(self, GST_STATE_PAUSED);

  GstStateChangeReturn result =
      GST_ELEMENT_CLASS(gst_cuda_prep_src_parent_class)->change_state(element, transition);
  if (result == GST_STATE_CHANGE_FAILURE) return result;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      start_worker(self);
      // A decoder that fails to start is a fault like any other: reported,
      // and retried by the worker; the pipeline starts regardless.
      if (connect_decoder(self) == GST_STATE_CHANGE_FAILURE) {
        std::lock_guard<std::mutex> guard(priv->lock);
        note_fault_locked(self, "the decoder could not start", false);
      }
      break;
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
      set_decoder_state(self, GST_STATE_PLAYING);
      break;
    case GST_STATE_CHANGE_READY_TO_NULL:
      remove_stable_part(self);
      break;
    default:
      break;
  }
  // A live source does not preroll: the pipeline must not wait for it. Only
  // the transitions to PAUSED say so: the bin's own answer repeats the
  // locked decoder's last one, and NO_PREROLL on PAUSED -> PLAYING would make
  // the pipeline complete PLAYING without its async sinks, which then
  // preroll and wait in PAUSED for ever.
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED ||
      transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED) {
    std::lock_guard<std::mutex> guard(priv->lock);
    if (priv->live) result = GST_STATE_CHANGE_NO_PREROLL;
  } else if (result == GST_STATE_CHANGE_NO_PREROLL) {
    result = GST_STATE_CHANGE_SUCCESS;
  }
  return result;
}

// The application's EOS (gst-launch-1.0 -e on SIGINT; a pipeline's EOS goes
// to its sources): the source ends instead of treating the decoder's EOS as
// a fault, and EOS flows through the chain, which drains.
static gboolean gst_cuda_prep_src_send_event(GstElement *element, GstEvent *event) {
  if (GST_EVENT_TYPE(event) != GST_EVENT_EOS)
    return GST_ELEMENT_CLASS(gst_cuda_prep_src_parent_class)->send_event(element, event);
  GstCudaPrepSrc *self = GST_CUDA_PREP_SRC(element);
  GstCudaPrepSrcPrivate *priv = self->priv;
  {
    std::lock_guard<std::mutex> guard(priv->lock);
    priv->eos_requested = true;
    if (priv->state != GST_CUDA_PREP_SRC_STATE_FAILED &&
        priv->state != GST_CUDA_PREP_SRC_STATE_ENDED) {
      priv->state = GST_CUDA_PREP_SRC_STATE_ENDED;
      priv->pending.ended = true;
      priv->pending.fault = false;
    }
    priv->wake.notify_all();
  }
  GST_INFO_OBJECT(self, "EOS asked for: the source ends");
  GstPad *sink = gst_element_get_static_pad(priv->queue, "sink");
  const gboolean sent = gst_pad_send_event(sink, event);
  gst_object_unref(sink);
  return sent;
}

// Latency while no decoder pad is linked (connecting to a camera, or one
// that never answers): upstream cannot say, and a failed query would make a
// downstream aggregator (cudabatch) take the whole pipeline for not live and
// wait for this source's frames. rtspsrc says it is live (NO_PREROLL) as
// it starts, before it reaches the server.
static gboolean on_src_query(GstPad *pad, GstObject *parent, GstQuery *query) {
  const gboolean answered = gst_pad_query_default(pad, parent, query);
  if (answered || GST_QUERY_TYPE(query) != GST_QUERY_LATENCY) return answered;
  GstCudaPrepSrc *self = GST_CUDA_PREP_SRC(parent);
  gboolean live;
  {
    std::lock_guard<std::mutex> guard(self->priv->lock);
    live = self->priv->live;
  }
  GST_DEBUG_OBJECT(self, "no decoder to ask for the latency: live %d, 0", live);
  gst_query_set_latency(query, live, 0, GST_CLOCK_TIME_NONE);
  return TRUE;
}

// ------------------------------------------------------------ properties

static void gst_cuda_prep_src_set_property(GObject *object, guint prop_id, const GValue *value,
                                           GParamSpec *pspec) {
  GstCudaPrepSrc *self = GST_CUDA_PREP_SRC(object);
  std::lock_guard<std::mutex> guard(self->priv->lock);
  Settings &settings = self->priv->settings;
  auto string = [&]() {
    const gchar *text = g_value_get_string(value);
    return std::string(text ? text : "");
  };
  switch (prop_id) {
    case PROP_URI:
      settings.uri = string();
      break;
    case PROP_USER_ID:
      settings.user_id = string();
      break;
    case PROP_USER_PW:
      settings.user_pw = string();
      break;
    case PROP_CHAIN:
      settings.chain = string();
      break;
    case PROP_PREFER_GPU_DECODER:
      settings.prefer_gpu_decoder = g_value_get_boolean(value);
      break;
    case PROP_RECONNECT_INTERVAL:
      settings.reconnect_interval = g_value_get_uint(value);
      break;
    case PROP_RECONNECT_INTERVAL_MAX:
      settings.reconnect_interval_max = g_value_get_uint(value);
      break;
    case PROP_RECONNECT_ATTEMPTS:
      settings.reconnect_attempts = g_value_get_int(value);
      break;
    case PROP_STALL_TIMEOUT:
      settings.stall_timeout = g_value_get_uint(value);
      break;
    case PROP_CONNECT_TIMEOUT:
      settings.connect_timeout = g_value_get_uint(value);
      break;
    case PROP_LATENCY:
      settings.latency = g_value_get_uint(value);
      break;
    case PROP_DROP_ON_LATENCY:
      settings.drop_on_latency = g_value_get_boolean(value);
      break;
    case PROP_PROTOCOLS:
      settings.protocols = g_value_get_flags(value);
      break;
    case PROP_STATS_INTERVAL:
      settings.stats_interval = g_value_get_uint(value);
      self->priv->next_stats = Clock::now() + Milliseconds(settings.stats_interval);
      break;
    case PROP_ON_EOS:
      settings.on_eos = static_cast<GstCudaPrepSrcOnEos>(g_value_get_enum(value));
      break;
    case PROP_QUEUE_SIZE:
      settings.queue_size = g_value_get_uint(value);
      g_object_set(self->priv->queue, "max-size-buffers", settings.queue_size, nullptr);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      return;
  }
  self->priv->wake.notify_all();  // intervals and timeouts apply at once
}

static void gst_cuda_prep_src_get_property(GObject *object, guint prop_id, GValue *value,
                                           GParamSpec *pspec) {
  GstCudaPrepSrc *self = GST_CUDA_PREP_SRC(object);
  std::lock_guard<std::mutex> guard(self->priv->lock);
  const Settings &settings = self->priv->settings;
  switch (prop_id) {
    case PROP_URI:
      g_value_set_string(value, gst_cuda_prep_mask_credentials(settings.uri.c_str()).c_str());
      break;
    case PROP_USER_ID:
      g_value_set_string(value, settings.user_id.c_str());
      break;
    case PROP_CHAIN:
      g_value_set_string(value, settings.chain.c_str());
      break;
    case PROP_PREFER_GPU_DECODER:
      g_value_set_boolean(value, settings.prefer_gpu_decoder);
      break;
    case PROP_RECONNECT_INTERVAL:
      g_value_set_uint(value, settings.reconnect_interval);
      break;
    case PROP_RECONNECT_INTERVAL_MAX:
      g_value_set_uint(value, settings.reconnect_interval_max);
      break;
    case PROP_RECONNECT_ATTEMPTS:
      g_value_set_int(value, settings.reconnect_attempts);
      break;
    case PROP_STALL_TIMEOUT:
      g_value_set_uint(value, settings.stall_timeout);
      break;
    case PROP_CONNECT_TIMEOUT:
      g_value_set_uint(value, settings.connect_timeout);
      break;
    case PROP_LATENCY:
      g_value_set_uint(value, settings.latency);
      break;
    case PROP_DROP_ON_LATENCY:
      g_value_set_boolean(value, settings.drop_on_latency);
      break;
    case PROP_PROTOCOLS:
      g_value_set_flags(value, settings.protocols);
      break;
    case PROP_STATS_INTERVAL:
      g_value_set_uint(value, settings.stats_interval);
      break;
    case PROP_QUEUE_SIZE:
      g_value_set_uint(value, settings.queue_size);
      break;
    case PROP_ON_EOS:
      g_value_set_enum(value, settings.on_eos);
      break;
    case PROP_STATS:
      g_value_take_boxed(value, stats_locked(self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
}

static void gst_cuda_prep_src_finalize(GObject *object) {
  GstCudaPrepSrc *self = GST_CUDA_PREP_SRC(object);
  delete self->priv;
  G_OBJECT_CLASS(gst_cuda_prep_src_parent_class)->finalize(object);
}

static void gst_cuda_prep_src_class_init(GstCudaPrepSrcClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBinClass *bin_class = GST_BIN_CLASS(klass);
  gobject_class->set_property = gst_cuda_prep_src_set_property;
  gobject_class->get_property = gst_cuda_prep_src_get_property;
  gobject_class->finalize = gst_cuda_prep_src_finalize;

  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  const auto ready_flags = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_READY);
  const auto playing_flags = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_PLAYING);
  g_object_class_install_property(
      gobject_class, PROP_URI,
      g_param_spec_string("uri", "URI",
                          "What to play (rtsp://user:password@host/path, file:///..., any URI "
                          "uridecodebin reads); read back with its credentials masked; used "
                          "from the next connection",
                          nullptr, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_USER_ID,
      g_param_spec_string("user-id", "User ID",
                          "User for the source's authentication; empty: the URI's user", nullptr,
                          playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_USER_PW,
      g_param_spec_string("user-pw", "User password",
                          "Password for the source's authentication; empty: the URI's password "
                          "(write-only: never read back, logged or posted)",
                          nullptr,
                          static_cast<GParamFlags>(G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS |
                                                   GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property(
      gobject_class, PROP_CHAIN,
      g_param_spec_string("chain", "Chain",
                          "gst-launch description of elements between the decoder and the src "
                          "pad, kept across reconnects (e.g. \"cudaresize ! cudanormalize\"); "
                          "empty: decoded frames",
                          nullptr, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_PREFER_GPU_DECODER,
      g_param_spec_boolean("prefer-gpu-decoder", "Prefer GPU decoder",
                           "Try nvcodec's decoders (nvh264dec, nvh265dec, ...) before the "
                           "others, so that frames stay on the GPU (memory:CUDAMemory)",
                           DEFAULT_PREFER_GPU_DECODER, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_RECONNECT_INTERVAL,
      g_param_spec_uint("reconnect-interval", "Reconnect interval",
                        "Milliseconds from a fault to the first reconnect; each further "
                        "consecutive fault doubles it, up to reconnect-interval-max",
                        1, kMaxMilliseconds, DEFAULT_RECONNECT_INTERVAL, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_RECONNECT_INTERVAL_MAX,
      g_param_spec_uint("reconnect-interval-max", "Longest reconnect interval",
                        "Milliseconds the back-off grows to at most", 1, kMaxMilliseconds,
                        DEFAULT_RECONNECT_INTERVAL_MAX, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_RECONNECT_ATTEMPTS,
      g_param_spec_int("reconnect-attempts", "Reconnect attempts",
                       "Reconnects after consecutive faults (a frame resets the count) before "
                       "the source gives up and its src pad sends EOS; -1: no limit, 0: none",
                       -1, G_MAXINT, DEFAULT_RECONNECT_ATTEMPTS, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_STALL_TIMEOUT,
      g_param_spec_uint("stall-timeout", "Stall timeout",
                        "Milliseconds without a frame while PLAYING, counted from a "
                        "connection's first decoded frame, after which the source counts as "
                        "failed and reconnects (before the first frame: connect-timeout); 0: "
                        "never",
                        0, kMaxMilliseconds, DEFAULT_STALL_TIMEOUT, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_CONNECT_TIMEOUT,
      g_param_spec_uint("connect-timeout", "Connect timeout",
                        "Milliseconds from building a decoder (connecting) to its first "
                        "decoded frame while PLAYING, after which the attempt counts as failed "
                        "and reconnects; covers rtspsrc's UDP-to-TCP fallback, the jitter "
                        "buffer and a GPU decoder's start; 0: never",
                        0, kMaxMilliseconds, DEFAULT_CONNECT_TIMEOUT, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_LATENCY,
      g_param_spec_uint("latency", "Latency",
                        "RTSP: milliseconds of the jitter buffer (rtspsrc's latency; its own "
                        "default, 2000, suits playback); used from the next connection",
                        0, kMaxMilliseconds, DEFAULT_LATENCY, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_DROP_ON_LATENCY,
      g_param_spec_boolean("drop-on-latency", "Drop on latency",
                           "RTSP: drop packets that would hold the jitter buffer past latency "
                           "instead of letting latency grow (rtspsrc's drop-on-latency); used "
                           "from the next connection",
                           DEFAULT_DROP_ON_LATENCY, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_PROTOCOLS,
      g_param_spec_flags("protocols", "Protocols",
                         "RTSP: lower transports allowed (rtspsrc's protocols): udp, udp-mcast, "
                         "tcp, http, tls; with UDP and TCP, rtspsrc tries UDP first and falls "
                         "back to TCP (rtspt:// URIs: TCP only); used from the next connection",
                         GST_TYPE_RTSP_LOWER_TRANS, DEFAULT_PROTOCOLS, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint("stats-interval", "Statistics interval",
                        "Milliseconds between cudaprepsrc-stats element messages (the fields "
                        "of `stats`); 0: none",
                        0, kMaxMilliseconds, DEFAULT_STATS_INTERVAL, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_QUEUE_SIZE,
      g_param_spec_uint("queue-size", "Queue size",
                        "Decoded frames held between the decoder and the src pad; a live "
                        "source then drops its oldest (counted as dropped-queue-full), a "
                        "file waits",
                        1, kMaxQueueSize, DEFAULT_QUEUE_SIZE, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_ON_EOS,
      g_param_spec_enum("on-eos", "On EOS",
                        "What the source's EOS means: auto (a live source such as rtspsrc, "
                        "which ends its stream when the server closes, reconnects; a file "
                        "ends), end (the src pad sends EOS), reconnect (a fault)",
                        gst_cuda_prep_src_on_eos_get_type(), DEFAULT_ON_EOS, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_STATS,
      g_param_spec_boxed("stats", "Statistics",
                         "cudaprepsrc-stats: source, uri (masked), state, frames-in (decoded), "
                         "frames-out (pushed from the src pad), dropped-queue-full, reconnects, "
                         "failures (in a row), caps-changes, live, decoder, last-error (masked)",
                         GST_TYPE_STRUCTURE,
                         static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "cudaprep source", "Source/Bin/Video",
      "A camera or file, decoded (on the GPU when nvcodec can), that reconnects after faults "
      "instead of stopping the pipeline",
      "cudaprep developers");
  element_class->change_state = gst_cuda_prep_src_change_state;
  element_class->send_event = gst_cuda_prep_src_send_event;
  bin_class->handle_message = gst_cuda_prep_src_handle_message;
  gst_type_mark_as_plugin_api(gst_cuda_prep_src_state_get_type(),
                              static_cast<GstPluginAPIFlags>(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_src_debug, "cudaprepsrc", 0, "cudaprep source bin");
}

static void gst_cuda_prep_src_init(GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = new GstCudaPrepSrcPrivate();
  self->priv = priv;
  priv->queue = gst_element_factory_make("queue", "queue");
  g_assert(priv->queue);  // coreelements, always there
  g_object_set(priv->queue, "max-size-buffers", DEFAULT_QUEUE_SIZE, "max-size-bytes", 0u,
               "max-size-time", static_cast<guint64>(0), nullptr);
  g_signal_connect(priv->queue, "overrun", G_CALLBACK(on_queue_overrun), self);
  gst_bin_add(GST_BIN(self), priv->queue);
  GstPad *sink = gst_element_get_static_pad(priv->queue, "sink");
  gst_pad_add_probe(
      sink,
      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
      (GstPadProbeCallback)on_queue_sink_data, self, nullptr);
  gst_object_unref(sink);
  priv->src = gst_ghost_pad_new_no_target_from_template(
      "src", gst_element_class_get_pad_template(GST_ELEMENT_GET_CLASS(self), "src"));
  gst_pad_set_query_function(priv->src, on_src_query);
  gst_element_add_pad(GST_ELEMENT(self), priv->src);
  g_signal_connect(self, "deep-element-added", G_CALLBACK(on_deep_element_added), self);
}
