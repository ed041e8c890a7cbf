#include "gstcudaprepwarm.h"

#include <cstring>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_warm_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_warm_debug

namespace {

constexpr guint kDefaultTimeoutSeconds = 120;
// The application message a probe posts to wake the waiting thread.
constexpr const char *kWakeName = "cudaprep-warm-sink";

void init_debug() {
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_warm_debug, "cudaprepwarm", 0,
                            "cudaprep: pipelines brought up once to compile their kernels");
    g_once_init_leave(&done, 1);
  }
}

// What the sinks' pads have seen. The probes run on streaming threads;
// the caller's thread reads it after each bus message.
struct Sinks {
  GMutex lock;
  GstBus *bus = nullptr;     // where a probe posts kWakeName
  guint waiting = 0;         // pads that have had neither a buffer nor EOS
  gchar *starved = nullptr;  // the first pad that had EOS first ("sink:pad")
};

struct SinkPad {
  Sinks *sinks;
  GstPad *pad;  // a reference
  gulong probe;
  gboolean done;  // had a buffer or EOS (under sinks->lock)
};

GstPadProbeReturn on_sink_data(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
  auto *entry = static_cast<SinkPad *>(data);
  Sinks *sinks = entry->sinks;
  const gboolean eos = (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) &&
                       GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_EOS;
  if ((GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) && !eos)
    return GST_PAD_PROBE_OK;
  gboolean first = FALSE;
  g_mutex_lock(&sinks->lock);
  if (!entry->done) {
    entry->done = first = TRUE;
    --sinks->waiting;
    if (eos && sinks->starved == nullptr)
      sinks->starved = g_strdup_printf("%s:%s", GST_DEBUG_PAD_NAME(pad));
  }
  g_mutex_unlock(&sinks->lock);
  if (first) {
    GST_DEBUG_OBJECT(pad, "first %s", eos ? "EOS, before any buffer" : "buffer");
    // Fails only while the bus flushes: the pipeline is going down anyway.
    if (!gst_bus_post(sinks->bus,
                      gst_message_new_application(nullptr, gst_structure_new_empty(kWakeName))))
      GST_DEBUG_OBJECT(pad, "the bus is flushing");
  }
  return GST_PAD_PROBE_OK;
}

// Every element of `bin`, at any depth (references).
std::vector<GstElement *> elements_of(GstBin *bin) {
  std::vector<GstElement *> elements;
  GstIterator *it = gst_bin_iterate_recurse(bin);
  GValue item = G_VALUE_INIT;
  for (bool more = true; more;) {
    switch (gst_iterator_next(it, &item)) {
      case GST_ITERATOR_OK:
        elements.push_back(GST_ELEMENT(g_value_dup_object(&item)));
        g_value_reset(&item);
        break;
      case GST_ITERATOR_RESYNC:
        for (GstElement *element : elements) gst_object_unref(element);
        elements.clear();
        gst_iterator_resync(it);
        break;
      case GST_ITERATOR_ERROR:
      case GST_ITERATOR_DONE:
        more = false;
        break;
    }
  }
  g_value_unset(&item);
  gst_iterator_free(it);
  return elements;
}

// A probe on each sink pad of every sink element (GST_ELEMENT_FLAG_SINK:
// a bin holding a sink has it too, and its ghost pads see the same data).
std::vector<SinkPad *> watch_sinks(GstElement *pipeline, Sinks *sinks) {
  std::vector<SinkPad *> pads;
  for (GstElement *element : elements_of(GST_BIN(pipeline))) {
    if (GST_OBJECT_FLAG_IS_SET(element, GST_ELEMENT_FLAG_SINK)) {
      std::vector<GstPad *> element_pads;
      if (!gst_element_foreach_sink_pad(
              element,
              [](GstElement *, GstPad *pad, gpointer data) -> gboolean {
                static_cast<std::vector<GstPad *> *>(data)->push_back(GST_PAD(gst_object_ref(pad)));
                return TRUE;
              },
              &element_pads))
        GST_WARNING_OBJECT(element, "its sink pads could not all be listed");
      for (GstPad *pad : element_pads) {
        auto *entry = new SinkPad{sinks, pad, 0, FALSE};
        entry->probe =
            gst_pad_add_probe(pad,
                              static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER |
                                                           GST_PAD_PROBE_TYPE_BUFFER_LIST |
                                                           GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
                              on_sink_data, entry, nullptr);
        if (entry->probe == 0) {  // a pad that cannot be probed is not waited for
          GST_WARNING_OBJECT(pad, "could not be probed");
          gst_object_unref(pad);
          delete entry;
          continue;
        }
        pads.push_back(entry);
      }
    }
    gst_object_unref(element);
  }
  g_mutex_lock(&sinks->lock);
  sinks->waiting = static_cast<guint>(pads.size());
  g_mutex_unlock(&sinks->lock);
  return pads;
}

void unwatch_sinks(std::vector<SinkPad *> &pads) {
  for (SinkPad *entry : pads) {
    gst_pad_remove_probe(entry->pad, entry->probe);
    gst_object_unref(entry->pad);
    delete entry;
  }
  pads.clear();
}

// An element's error as the caller's: its domain and code, its source's
// name, and the last line of its debug text (where GStreamer says what
// went wrong: "streaming stopped, reason not-negotiated", the file name).
void set_error_from_message(GstMessage *message, GError **error) {
  GError *bus_error = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error(message, &bus_error, &debug);
  const gchar *detail = nullptr;
  if (debug != nullptr) {
    g_strstrip(debug);
    const gchar *newline = std::strrchr(debug, '\n');
    detail = newline != nullptr ? newline + 1 : debug;
    if (*detail == '\0') detail = nullptr;
  }
  g_set_error(error, bus_error != nullptr ? bus_error->domain : GST_CORE_ERROR,
              bus_error != nullptr ? bus_error->code : GST_CORE_ERROR_FAILED, "%s: %s%s%s%s",
              GST_MESSAGE_SRC_NAME(message) ? GST_MESSAGE_SRC_NAME(message) : "the pipeline",
              bus_error != nullptr ? bus_error->message : "an error", detail != nullptr ? " (" : "",
              detail != nullptr ? detail : "", detail != nullptr ? ")" : "");
  g_clear_error(&bus_error);
  g_free(debug);
}

// The pipeline of `launch_line` (a reference, not floating), or nullptr.
GstElement *build(const gchar *launch_line, GError **error) {
  GError *parse_error = nullptr;
  GstElement *element =
      gst_parse_launch_full(launch_line, nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &parse_error);
  if (element == nullptr || parse_error != nullptr) {
    g_set_error(error, parse_error != nullptr ? parse_error->domain : GST_PARSE_ERROR,
                parse_error != nullptr ? parse_error->code : GST_PARSE_ERROR_SYNTAX,
                "cannot build the pipeline: %s",
                parse_error != nullptr ? parse_error->message : "the parser gave nothing");
    g_clear_error(&parse_error);
    if (element != nullptr) gst_object_unref(gst_object_ref_sink(element));
    return nullptr;
  }
  gst_object_ref_sink(element);
  if (GST_IS_PIPELINE(element)) return element;
  // One element (or a bin) alone: only a pipeline has a bus and a clock.
  GstElement *pipeline = GST_ELEMENT(gst_object_ref_sink(gst_pipeline_new("warm")));
  const gboolean added = gst_bin_add(GST_BIN(pipeline), element);
  gst_object_unref(element);
  if (!added) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                "cannot build the pipeline: %s could not be put in a pipeline", launch_line);
    gst_object_unref(pipeline);
    return nullptr;
  }
  return pipeline;
}

// Waits on `bus` until every watched pad has had a buffer, or an error,
// an EOS before a buffer or `seconds` pass.
gboolean wait_for_sinks(GstBus *bus, Sinks *sinks, guint seconds, GError **error) {
  const gint64 deadline = g_get_monotonic_time() + gint64{seconds} * G_USEC_PER_SEC;
  const auto types = static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS |
                                                 GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_APPLICATION);
  for (;;) {
    g_mutex_lock(&sinks->lock);
    const guint waiting = sinks->waiting;
    gchar *starved = g_strdup(sinks->starved);
    g_mutex_unlock(&sinks->lock);
    if (starved != nullptr) {
      // An element that failed posts its error before the EOS that starved
      // the sink (basesrc on a flow error, e.g. not-negotiated): its words
      // say more than the EOS.
      GstMessage *failure = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
      if (failure != nullptr) {
        set_error_from_message(failure, error);
        gst_message_unref(failure);
        g_free(starved);
        return FALSE;
      }
      g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                  "%s had end-of-stream before any buffer: nothing upstream of it negotiated "
                  "(give the source at least one frame)",
                  starved);
      g_free(starved);
      return FALSE;
    }
    if (waiting == 0) return TRUE;
    const gint64 left = deadline - g_get_monotonic_time();
    GstMessage *message =
        left > 0 ? gst_bus_timed_pop_filtered(bus, left * GST_USECOND, types) : nullptr;
    if (message == nullptr) {
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
                  "the pipeline did not come up: no answer in %u s (%u of its sink pads had "
                  "no buffer)",
                  seconds, waiting);
      return FALSE;
    }
    const GstMessageType type = GST_MESSAGE_TYPE(message);
    if (type == GST_MESSAGE_ERROR) {
      set_error_from_message(message, error);
      gst_message_unref(message);
      return FALSE;
    }
    GST_LOG("%s from %s", GST_MESSAGE_TYPE_NAME(message), GST_MESSAGE_SRC_NAME(message));
    gst_message_unref(message);
    // EOS comes from a playing pipeline whose every sink had EOS: the probes
    // have already said which of them had nothing before it; a pad they
    // never heard of would otherwise keep us waiting for nothing.
    if (type == GST_MESSAGE_EOS) {
      g_mutex_lock(&sinks->lock);
      const gboolean all = sinks->waiting == 0 || sinks->starved != nullptr;
      g_mutex_unlock(&sinks->lock);
      if (!all) {
        g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                    "the pipeline ended before every sink had a buffer");
        return FALSE;
      }
    }
  }
}

}  // namespace

gboolean gst_cuda_prep_warm_kernels(const gchar *launch_line, guint timeout_seconds,
                                    GError **error) {
  g_return_val_if_fail(launch_line != nullptr, FALSE);
  g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
  init_debug();
  const guint seconds = timeout_seconds != 0 ? timeout_seconds : kDefaultTimeoutSeconds;
  GstElement *pipeline = build(launch_line, error);
  if (pipeline == nullptr) return FALSE;

  Sinks sinks;
  g_mutex_init(&sinks.lock);
  sinks.bus = gst_element_get_bus(pipeline);
  std::vector<SinkPad *> pads = watch_sinks(pipeline, &sinks);
  gboolean ok = FALSE;
  const gint64 start = g_get_monotonic_time();
  if (pads.empty()) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                "the pipeline has no sink element: nothing would pull frames through it");
  } else {
    GstStateChangeReturn changed = gst_element_set_state(pipeline, GST_STATE_PAUSED);
    if (changed == GST_STATE_CHANGE_NO_PREROLL) {
      // Live: nothing flows until it plays.
      GST_DEBUG_OBJECT(pipeline, "live: playing until every sink had a buffer");
      changed = gst_element_set_state(pipeline, GST_STATE_PLAYING);
    }
    if (changed == GST_STATE_CHANGE_FAILURE) {
      GstMessage *message = gst_bus_pop_filtered(sinks.bus, GST_MESSAGE_ERROR);
      if (message != nullptr) {
        set_error_from_message(message, error);
        gst_message_unref(message);
      } else {
        g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
                    "the pipeline could not start (no element said why)");
      }
    } else {
      ok = wait_for_sinks(sinks.bus, &sinks, seconds, error);
    }
  }
  GST_INFO("%s in %.3f s: %s", ok ? "up" : "failed", (g_get_monotonic_time() - start) / 1e6,
           launch_line);
  if (gst_element_set_state(pipeline, GST_STATE_NULL) == GST_STATE_CHANGE_FAILURE)
    GST_WARNING_OBJECT(pipeline, "did not stop cleanly");
  // Stopped: no streaming thread runs the probes any more.
  unwatch_sinks(pads);
  gst_object_unref(sinks.bus);
  gst_object_unref(pipeline);
  g_free(sinks.starved);
  g_mutex_clear(&sinks.lock);
  return ok;
}
