// What a pipeline said and what its sinks received, for the source tests:
// every bus message (taken in a sync handler, so nothing is missed), with
// the time it came, a counting probe for a sink pad, and a tap on
// GStreamer's log lines that is safe while other threads log (LogTap).
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace cudaprep::test {

struct BusEntry {
  GstMessageType type;
  std::string source;                         // name of the message's source object
  std::string structure;                      // name of the message's structure ("" if none)
  std::string text;                           // everything the message carries, as text
  std::shared_ptr<GstStructure> fields_copy;  // an element message's structure, or empty
  GstStructure *fields = nullptr;             // fields_copy.get()
  gint64 time_us;                             // g_get_monotonic_time() at arrival
};

// Every message of `bus`, recorded from the thread that posts it.
class BusLog {
 public:
  explicit BusLog(GstElement *pipeline) : bus_(gst_element_get_bus(pipeline)) {
    gst_bus_set_sync_handler(bus_, &BusLog::on_message, this, nullptr);
  }
  ~BusLog() {
    gst_bus_set_sync_handler(bus_, nullptr, nullptr, nullptr);
    gst_object_unref(bus_);
  }
  BusLog(const BusLog &) = delete;
  BusLog &operator=(const BusLog &) = delete;

  std::vector<BusEntry> entries() {
    std::lock_guard<std::mutex> guard(lock_);
    return entries_;
  }

  // Messages of `type` (and, if given, of structure `name`).
  size_t count(GstMessageType type, const char *name = nullptr) {
    std::lock_guard<std::mutex> guard(lock_);
    size_t n = 0;
    for (const BusEntry &entry : entries_)
      if (entry.type == type && (!name || entry.structure == name)) ++n;
    return n;
  }

  // Waits until count(type, name) >= n or `timeout_ms` passes.
  bool wait_for(GstMessageType type, const char *name, size_t n, int timeout_ms) {
    return wait_until([&] { return count(type, name) >= n; }, timeout_ms);
  }

  static bool wait_until(const std::function<bool()> &done, int timeout_ms) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!done()) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

 private:
  static GstBusSyncReply on_message(GstBus *, GstMessage *message, gpointer data) {
    auto *self = static_cast<BusLog *>(data);
    BusEntry entry{};
    entry.type = GST_MESSAGE_TYPE(message);
    entry.time_us = g_get_monotonic_time();
    entry.source = GST_MESSAGE_SRC(message) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(message)) : "";
    const GstStructure *structure = gst_message_get_structure(message);
    if (structure) {
      entry.structure = gst_structure_get_name(structure);
      // (element messages only: others, such as stream-status, hold
      // references to elements, which tests count)
      if (entry.type == GST_MESSAGE_ELEMENT) {
        entry.fields_copy.reset(gst_structure_copy(structure), gst_structure_free);
        entry.fields = entry.fields_copy.get();
      }
      gchar *text = gst_structure_to_string(structure);
      entry.text = text;
      g_free(text);
    }
    if (entry.type == GST_MESSAGE_ERROR || entry.type == GST_MESSAGE_WARNING ||
        entry.type == GST_MESSAGE_INFO) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      if (entry.type == GST_MESSAGE_ERROR) gst_message_parse_error(message, &error, &debug);
      if (entry.type == GST_MESSAGE_WARNING) gst_message_parse_warning(message, &error, &debug);
      if (entry.type == GST_MESSAGE_INFO) gst_message_parse_info(message, &error, &debug);
      entry.text += std::string(" | ") + error->message + " | " + (debug ? debug : "");
      g_error_free(error);
      g_free(debug);
    }
    if (entry.type == GST_MESSAGE_PROPERTY_NOTIFY) {
      const gchar *name = nullptr;
      const GValue *value = nullptr;
      gst_message_parse_property_notify(message, nullptr, &name, &value);
      gchar *text = value ? gst_value_serialize(value) : nullptr;
      entry.text += std::string(" | ") + (name ? name : "") + "=" + (text ? text : "");
      g_free(text);
    }
    gst_message_unref(message);  // (a sync handler that drops owns the message)
    std::lock_guard<std::mutex> guard(self->lock_);
    self->entries_.push_back(entry);
    return GST_BUS_DROP;
  }

  GstBus *bus_;
  std::mutex lock_;
  std::vector<BusEntry> entries_;
};

// Buffers and caps reaching a pad (a sink's sink pad).
class PadCounter {
 public:
  explicit PadCounter(GstPad *pad) : pad_(GST_PAD(gst_object_ref(pad))) {
    probe_ = gst_pad_add_probe(pad_,
                               static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER |
                                                            GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
                               &PadCounter::on_data, this, nullptr);
  }
  ~PadCounter() {
    gst_pad_remove_probe(pad_, probe_);
    gst_object_unref(pad_);
  }
  PadCounter(const PadCounter &) = delete;
  PadCounter &operator=(const PadCounter &) = delete;

  int buffers() const { return buffers_.load(); }
  bool eos() const { return eos_.load(); }
  // Widths of the caps received, in order.
  std::vector<int> widths() {
    std::lock_guard<std::mutex> guard(lock_);
    return widths_;
  }

 private:
  static GstPadProbeReturn on_data(GstPad *, GstPadProbeInfo *info, gpointer data) {
    auto *self = static_cast<PadCounter *>(data);
    if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
      ++self->buffers_;
    } else {
      GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
      if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) self->eos_ = true;
      if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) self->eos_ = false;
      if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
        GstCaps *caps = nullptr;
        gst_event_parse_caps(event, &caps);
        int width = 0;
        gst_structure_get_int(gst_caps_get_structure(caps, 0), "width", &width);
        std::lock_guard<std::mutex> guard(self->lock_);
        self->widths_.push_back(width);
      }
    }
    return GST_PAD_PROBE_OK;
  }

  GstPad *pad_;
  gulong probe_ = 0;
  std::atomic<int> buffers_{0};
  std::atomic<bool> eos_{false};
  std::mutex lock_;
  std::vector<int> widths_;
};

// GStreamer's log lines, handed to `take` (from the thread that logs) while
// the LogTap lives.
//
// Why not gst_debug_add_log_function()/gst_debug_remove_log_function()
// around a test: GStreamer walks its list of log functions without a lock
// (gst_debug_log_full_valist), and gst_debug_remove_log_function() frees the
// removed function's entry at once, so a thread logging at that moment reads
// freed memory, or calls the function with user data that is going away: an
// RTSP server's threads (a client's TEARDOWN unpreparing a media) log on
// after the test's pipeline has stopped, and test_rtsp_source crashed so
// (SIGSEGV in strstr of a destroyed capture's needle, issue 32). So the list
// is changed once only, by LogTap::install(), before any other thread logs
// (a test environment's SetUp, or the first LogTap): GStreamer's default log
// function is replaced for good by one that hands each line to the LogTap in
// force, or, with none, on to gst_debug_log_default (on stderr, where the
// category's threshold still asks for it). A LogTap's destructor waits for
// the calls already in `take`: declared as its owner's last member, it goes
// first, before what `take` uses. One LogTap at a time.
class LogTap {
 public:
  using Take = std::function<void(GstDebugCategory *, GstDebugLevel, const gchar *file,
                                  const gchar *function, gint line, GObject *, GstDebugMessage *)>;

  explicit LogTap(Take take) : take_(std::move(take)) {
    install();
    LogTap *none = nullptr;
    if (!active().compare_exchange_strong(none, this)) {
      std::fprintf(stderr, "LogTap: only one at a time\n");
      std::abort();
    }
  }
  ~LogTap() {
    active().store(nullptr);
    // A call that read `this` before the store is counted in in_flight().
    while (in_flight().load() > 0) std::this_thread::yield();
  }
  LogTap(const LogTap &) = delete;
  LogTap &operator=(const LogTap &) = delete;

  // Replaces GStreamer's default log function by the tap's router, once per
  // process (later calls do nothing). Call before threads log.
  static void install() {
    static std::once_flag once;
    std::call_once(once, [] {
      gst_debug_remove_log_function(gst_debug_log_default);
      gst_debug_add_log_function(&LogTap::route, nullptr, nullptr);
    });
  }

 private:
  static std::atomic<LogTap *> &active() {
    static std::atomic<LogTap *> tap{nullptr};
    return tap;
  }
  static std::atomic<int> &in_flight() {
    static std::atomic<int> calls{0};
    return calls;
  }
  static void route(GstDebugCategory *category, GstDebugLevel level, const gchar *file,
                    const gchar *function, gint line, GObject *object, GstDebugMessage *message,
                    gpointer) {
    ++in_flight();
    LogTap *tap = active().load();
    if (tap) tap->take_(category, level, file, function, line, object, message);
    --in_flight();
    // (a line that passed its threshold as a tap raised it, now gone, is dropped)
    if (!tap && level <= gst_debug_category_get_threshold(category))
      gst_debug_log_default(category, level, file, function, line, object, message, nullptr);
  }

  Take take_;
};

// A field of an element's `stats` structure.
inline std::string stats_string(GstElement *element, const char *field) {
  GstStructure *stats = nullptr;
  g_object_get(element, "stats", &stats, nullptr);
  const gchar *value = stats ? gst_structure_get_string(stats, field) : nullptr;
  std::string out = value ? value : "";
  if (stats) gst_structure_free(stats);
  return out;
}

inline guint64 stats_uint64(GstElement *element, const char *field) {
  GstStructure *stats = nullptr;
  g_object_get(element, "stats", &stats, nullptr);
  guint64 value = G_MAXUINT64;
  if (stats) {
    if (!gst_structure_get_uint64(stats, field, &value)) value = G_MAXUINT64;
    gst_structure_free(stats);
  }
  return value;
}

inline bool stats_bool(GstElement *element, const char *field) {
  GstStructure *stats = nullptr;
  g_object_get(element, "stats", &stats, nullptr);
  gboolean value = FALSE;
  if (stats) {
    gst_structure_get_boolean(stats, field, &value);
    gst_structure_free(stats);
  }
  return value;
}

}  // namespace cudaprep::test
