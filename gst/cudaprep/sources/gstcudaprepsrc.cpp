#include "sources/gstcudaprepsrc.h"

#include <cstring>
#include <mutex>
#include <string>

#include "sources/gstcudaprepcredentials.h"
#include "sources/gstcudaprepsrc-private.h"

GST_DEBUG_CATEGORY(gst_cuda_prep_src_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_src_debug

using namespace cudaprep::source;

G_DEFINE_TYPE(GstCudaPrepSrc, gst_cuda_prep_src, GST_TYPE_BIN)
GST_ELEMENT_REGISTER_DEFINE(cudaprepsrc, "cudaprepsrc", GST_RANK_NONE, GST_TYPE_CUDA_PREP_SRC)

static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

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
    case GST_MESSAGE_NEED_CONTEXT:
      // The decoder's part only: an element of the user's chain that asks
      // may draw with GL, and gets what the pipeline gives it.
      if (!own && !in_stable_part(self, from) &&
          priv->gl_display.answer(GST_ELEMENT(self), message)) {
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
  priv->out_probe = gst_pad_add_probe(
      target,
      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
                                   GST_PAD_PROBE_TYPE_EVENT_FLUSH),
      (GstPadProbeCallback)on_src_data, self, nullptr);
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

  install_properties(gobject_class);

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
