// cudaprepsrc's decoder: a uridecodebin per connection, the camera's
// settings and credentials given to its source element, and the probes that
// watch the frames (gstcudaprepsrc-private.h).
#include <cstring>
#include <string>

#include <gst/rtsp/gstrtsp-enumtypes.h>

#include "sources/gstcudaprepcredentials.h"
#include "sources/gstcudaprepsrc-private.h"

#define GST_CAT_DEFAULT gst_cuda_prep_src_debug

namespace cudaprep::source {

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
void on_deep_element_added(GstBin *, GstBin *, GstElement *element, GstCudaPrepSrc *self) {
  GstElementFactory *factory = gst_element_get_factory(element);
  if (!factory) return;
  const gchar *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
  if (!klass || !strstr(klass, "Decoder") || !strstr(klass, "Video")) return;
  std::lock_guard<std::mutex> guard(self->priv->lock);
  self->priv->decoder_name = GST_OBJECT_NAME(factory);
}

void on_queue_overrun(GstElement *queue, GstCudaPrepSrc *self) {
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
GstStateChangeReturn connect_decoder(GstCudaPrepSrc *self) {
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
void teardown_decoder(GstCudaPrepSrc *self) {
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

GstPadProbeReturn on_queue_sink_data(GstPad *, GstPadProbeInfo *info, GstCudaPrepSrc *self) {
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
    // The EOS of a decoder already failed and being torn down (a file that
    // reached its end while the chain's fault was handled) is not the
    // source's: taken for it, it ended the source instead of the reconnect.
    if (priv->state != GST_CUDA_PREP_SRC_STATE_CONNECTING &&
        priv->state != GST_CUDA_PREP_SRC_STATE_STREAMING)
      return GST_PAD_PROBE_DROP;
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

GstPadProbeReturn on_src_data(GstPad *, GstPadProbeInfo *info, GstCudaPrepSrc *self) {
  GstCudaPrepSrcPrivate *priv = self->priv;
  std::lock_guard<std::mutex> guard(priv->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    ++priv->frames_out;
    priv->chain_faults = 0;
    return GST_PAD_PROBE_OK;
  }
  // Downstream, a chain fault is only frames missing: its EOS (the queue's
  // answer to a flow error) would end this source there, and the flush would
  // make a sink lose its state, which a pipeline busy changing its own did
  // not always give back (the sink waited in preroll for ever).
  switch (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info))) {
    case GST_EVENT_FLUSH_START:
    case GST_EVENT_FLUSH_STOP:
      return priv->fault_flush ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
    case GST_EVENT_EOS: {
      const bool source_ends = priv->state == GST_CUDA_PREP_SRC_STATE_ENDED ||
                               priv->state == GST_CUDA_PREP_SRC_STATE_FAILED || priv->eos_requested;
      return source_ends ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP;
    }
    default:
      return GST_PAD_PROBE_OK;
  }
}

// Sets the decoder (if any) to `state`.
void set_decoder_state(GstCudaPrepSrc *self, GstState state) {
  std::lock_guard<std::mutex> decoder_guard(self->priv->decoder_lock);
  if (self->priv->decoder &&
      gst_element_set_state(self->priv->decoder, state) == GST_STATE_CHANGE_FAILURE) {
    std::lock_guard<std::mutex> guard(self->priv->lock);
    note_fault_locked(
        self, std::string("the decoder could not go to ") + gst_element_state_get_name(state),
        false);
  }
}

}  // namespace cudaprep::source
