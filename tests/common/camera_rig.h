// The live-camera matrix's rig (pipelines/test_rtsp_matrix.cpp, issue 32):
// RTSP servers with N mounts (common/rtsp_server.h), the README's chain as a
// launch line, a pipeline with a light bus tally (counts, not every message:
// a 100-cycle leak check must not grow with its own log), a record of the
// batches leaving cudabatch (time and source index of every item),
// cudabatch's per-source statistics and a measuring window over them, an
// application thread pulling from cudatensorsink, a folder for its .npy
// files, and a TCP port that accepts and never answers.
#pragma once

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <cstring>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "common/bus_log.h"
#include "common/rtsp_server.h"
#include "common/silent_server.h"

namespace cudaprep::test {

// README.md, "Many live cameras": the chain a cudabatch pad needs.
inline const char *kReadmeChain =
    "cudaframeupload ! cudaresize add-borders=true ! capsfilter "
    "caps=\"video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB\" ! cudanormalize";

inline gint64 now_us() {
  return g_get_monotonic_time();
}

// `chain` as a property of a launch line: chain="..." (inner quotes escaped).
inline std::string chain_property(const std::string &chain) {
  std::string escaped;
  for (char c : chain) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "chain=\"" + escaped + "\"";
}

// `cameras` live cameras on `servers` servers: camera i is mount
// /cam<i % per> of server i / per (per = cameras / servers).
class CameraServers {
 public:
  CameraServers(int cameras, int servers, RtspServer::Mount mount) : per_(cameras / servers) {
    for (int s = 0; s < servers; ++s) {
      servers_.push_back(std::make_unique<RtspServer>());
      for (int m = 0; m < per_; ++m) servers_.back()->set_mount("/cam" + std::to_string(m), mount);
    }
  }
  bool start() {
    for (auto &server : servers_)
      if (!server->start()) return false;
    return true;
  }
  RtspServer &server(int index) { return *servers_[index]; }
  int server_of(int camera) const { return camera / per_; }
  // rtsp:// (rtspsrc tries UDP first) or rtspt:// (TCP only).
  std::string uri(int camera, bool tcp, const std::string &user_info = "") const {
    return std::string(tcp ? "rtspt" : "rtsp") + "://" +
           (user_info.empty() ? "" : user_info + "@") +
           "127.0.0.1:" + std::to_string(servers_[server_of(camera)]->port()) + "/cam" +
           std::to_string(camera % per_);
  }

 private:
  int per_;
  std::vector<std::unique_ptr<RtspServer>> servers_;
};

// Counts of a pipeline's bus messages by type, source and element-message
// name, the text of the first ERROR/WARNING messages; nothing else kept.
class BusTally {
 public:
  explicit BusTally(GstElement *pipeline) : bus_(gst_element_get_bus(pipeline)) {
    gst_bus_set_sync_handler(bus_, &BusTally::on_message, this, nullptr);
  }
  ~BusTally() {
    gst_bus_set_sync_handler(bus_, nullptr, nullptr, nullptr);
    gst_object_unref(bus_);
  }
  BusTally(const BusTally &) = delete;
  BusTally &operator=(const BusTally &) = delete;

  // Messages of `type` (from `source` if given; element messages named `name` if given).
  size_t count(GstMessageType type, const std::string &source = "", const std::string &name = "") {
    std::lock_guard<std::mutex> guard(lock_);
    size_t n = 0;
    for (const auto &[key, value] : counts_)
      if (key.type == type && (source.empty() || key.source == source) &&
          (name.empty() || key.name == name))
        n += value;
    return n;
  }
  bool wait_for(GstMessageType type, size_t n, int timeout_ms) {
    return BusLog::wait_until([&] { return count(type) >= n; }, timeout_ms);
  }
  // "source: text" of the first ERROR and WARNING messages.
  std::string texts() {
    std::lock_guard<std::mutex> guard(lock_);
    std::string out;
    for (const std::string &text : texts_) out += "\n  " + text;
    return out;
  }

 private:
  struct Key {
    GstMessageType type;
    std::string source, name;
    bool operator<(const Key &o) const {
      return std::tie(type, source, name) < std::tie(o.type, o.source, o.name);
    }
  };
  static GstBusSyncReply on_message(GstBus *, GstMessage *message, gpointer data) {
    auto *self = static_cast<BusTally *>(data);
    Key key{GST_MESSAGE_TYPE(message),
            GST_MESSAGE_SRC(message) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(message)) : "", ""};
    const GstStructure *structure = gst_message_get_structure(message);
    if (key.type == GST_MESSAGE_ELEMENT && structure) key.name = gst_structure_get_name(structure);
    std::string text;
    if (key.type == GST_MESSAGE_ERROR || key.type == GST_MESSAGE_WARNING) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      if (key.type == GST_MESSAGE_ERROR)
        gst_message_parse_error(message, &error, &debug);
      else
        gst_message_parse_warning(message, &error, &debug);
      text = std::string(key.type == GST_MESSAGE_ERROR ? "ERROR " : "WARNING ") + key.source +
             ": " + error->message + (debug ? std::string(" | ") + debug : "");
      g_error_free(error);
      g_free(debug);
    }
    gst_message_unref(message);
    std::lock_guard<std::mutex> guard(self->lock_);
    ++self->counts_[key];
    if (!text.empty() && self->texts_.size() < 20) self->texts_.push_back(text);
    return GST_BUS_DROP;
  }

  GstBus *bus_;
  std::mutex lock_;
  std::map<Key, size_t> counts_;
  std::vector<std::string> texts_;
};

// The batches leaving an element's src pad (cudabatch): when each left and
// the source index of each item (a buffer probe, at the push).
class BatchLog {
 public:
  static constexpr int kMaxSources = 256;
  struct Batch {
    gint64 time_us;
    std::vector<gint16> sources;
  };

  explicit BatchLog(GstElement *batch) : pad_(gst_element_get_static_pad(batch, "src")) {
    probe_ =
        gst_pad_add_probe(pad_, GST_PAD_PROBE_TYPE_BUFFER, &BatchLog::on_buffer, this, nullptr);
  }
  ~BatchLog() {
    gst_pad_remove_probe(pad_, probe_);
    gst_object_unref(pad_);
  }
  BatchLog(const BatchLog &) = delete;
  BatchLog &operator=(const BatchLog &) = delete;

  // Items of `source` batched so far.
  int total(int source) const {
    return source >= 0 && source < kMaxSources ? totals_[source].load() : 0;
  }
  int batches() const { return batch_count_.load(); }
  bool wait_all(int sources, int items, int timeout_ms) const {
    return BusLog::wait_until(
        [&] {
          for (int i = 0; i < sources; ++i)
            if (total(i) < items) return false;
          return true;
        },
        timeout_ms);
  }
  // Items of sources [first, last) in batches that left in [from, to).
  int items(int first, int last, gint64 from, gint64 to) {
    std::lock_guard<std::mutex> guard(lock_);
    int n = 0;
    for (const Batch &batch : batches_)
      if (batch.time_us >= from && batch.time_us < to)
        for (gint16 s : batch.sources) n += s >= first && s < last;
    return n;
  }
  int batches(gint64 from, gint64 to) {
    std::lock_guard<std::mutex> guard(lock_);
    int n = 0;
    for (const Batch &batch : batches_) n += batch.time_us >= from && batch.time_us < to;
    return n;
  }
  // When `source` was first batched at or after `from`; -1: not yet.
  gint64 first_after(int source, gint64 from) {
    std::lock_guard<std::mutex> guard(lock_);
    for (const Batch &batch : batches_)
      if (batch.time_us >= from &&
          std::find(batch.sources.begin(), batch.sources.end(), source) != batch.sources.end())
        return batch.time_us;
    return -1;
  }
  // The longest time (us) without a batch leaving, around [from, to]: the
  // gaps between consecutive batches that overlap it, whole, and the time
  // from the last batch to `to`.
  gint64 max_gap(gint64 from, gint64 to) {
    std::lock_guard<std::mutex> guard(lock_);
    gint64 gap = 0, previous = -1;
    for (const Batch &batch : batches_) {
      if (previous >= 0 && batch.time_us >= from && previous <= to)
        gap = std::max(gap, batch.time_us - previous);
      previous = batch.time_us;
    }
    if (previous >= 0 && previous < to) gap = std::max(gap, to - previous);
    return gap;
  }

 private:
  static GstPadProbeReturn on_buffer(GstPad *, GstPadProbeInfo *info, gpointer data) {
    auto *self = static_cast<BatchLog *>(data);
    const GstCudaPrepTensorMeta *meta =
        gst_buffer_get_cuda_prep_tensor_meta(GST_PAD_PROBE_INFO_BUFFER(info));
    Batch batch{now_us(), {}};
    if (meta)
      for (gsize i = 0; i < meta->tensors[0]->batch_filled; ++i) {
        const gint source = meta->tensors[0]->items[i].source_index;
        batch.sources.push_back(static_cast<gint16>(source));
        if (source >= 0 && source < kMaxSources) ++self->totals_[source];
      }
    std::lock_guard<std::mutex> guard(self->lock_);
    self->batches_.push_back(std::move(batch));
    ++self->batch_count_;
    return GST_PAD_PROBE_OK;
  }

  GstPad *pad_;
  gulong probe_ = 0;
  std::array<std::atomic<int>, kMaxSources> totals_{};
  std::atomic<int> batch_count_{0};
  std::mutex lock_;
  std::vector<Batch> batches_;
};

// One cudabatch-source-stats of cudabatch's `stats`.
struct BatchSourceStats {
  int index = -1;
  guint64 frames_in = 0, items_batched = 0, p50_ns = 0, p99_ns = 0, max_ns = 0;
  guint samples = 0;
};

inline std::vector<BatchSourceStats> batch_source_stats(GstElement *batch) {
  std::vector<BatchSourceStats> out;
  GstStructure *stats = nullptr;
  g_object_get(batch, "stats", &stats, nullptr);
  if (!stats) return out;
  const GValue *sources = gst_structure_get_value(stats, "sources");
  for (guint i = 0; sources && i < gst_value_array_get_size(sources); ++i) {
    const GstStructure *s = gst_value_get_structure(gst_value_array_get_value(sources, i));
    BatchSourceStats entry;
    gst_structure_get_int(s, "source-index", &entry.index);
    gst_structure_get_uint64(s, "frames-in", &entry.frames_in);
    gst_structure_get_uint64(s, "items-batched", &entry.items_batched);
    gst_structure_get_uint(s, "latency-samples", &entry.samples);
    gst_structure_get_uint64(s, "latency-p50-ns", &entry.p50_ns);
    gst_structure_get_uint64(s, "latency-p99-ns", &entry.p99_ns);
    gst_structure_get_uint64(s, "latency-max-ns", &entry.max_ns);
    out.push_back(entry);
  }
  gst_structure_free(stats);
  return out;
}

// A pipeline (from a launch line, or empty for the C API) with its bus
// tally; stopped and freed at the end, the batch log after the stop.
class Rig {
 public:
  explicit Rig(const std::string &description) {
    GError *error = nullptr;
    pipeline_ = gst_parse_launch(description.c_str(), &error);
    if (error != nullptr) {
      ADD_FAILURE() << "gst_parse_launch(" << description << "): " << error->message;
      g_clear_error(&error);
    }
    if (pipeline_ != nullptr) bus_ = std::make_unique<BusTally>(pipeline_);
  }
  Rig() : pipeline_(gst_pipeline_new(nullptr)), bus_(std::make_unique<BusTally>(pipeline_)) {}
  ~Rig() {
    if (pipeline_ == nullptr) return;
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    batches_.reset();
    counters_.clear();
    bus_.reset();
    gst_object_unref(pipeline_);
  }
  Rig(const Rig &) = delete;
  Rig &operator=(const Rig &) = delete;

  bool ok() const { return pipeline_ != nullptr; }
  GstElement *pipeline() const { return pipeline_; }
  BusTally &bus() { return *bus_; }
  // The element named `name` (the pipeline keeps the reference).
  GstElement *element(const std::string &name) {
    GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline_), name.c_str());
    EXPECT_NE(element, nullptr) << "no element " << name;
    if (element != nullptr) gst_object_unref(element);
    return element;
  }
  // The batches leaving the element named `name` (made on the first call).
  BatchLog &batches(const char *name = "b") {
    if (!batches_) batches_ = std::make_unique<BatchLog>(element(name));
    return *batches_;
  }
  // Buffers reaching the sink pad of the element named `name`.
  PadCounter &count(const std::string &name) {
    GstPad *pad = gst_element_get_static_pad(element(name), "sink");
    counters_.push_back(std::make_unique<PadCounter>(pad));
    gst_object_unref(pad);
    return *counters_.back();
  }
  bool play() {
    return gst_element_set_state(pipeline_, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
  }
  // Milliseconds gst_element_set_state(NULL) took.
  double stop_ms() {
    const gint64 start = now_us();
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    return (now_us() - start) / 1000.0;
  }

 private:
  GstElement *pipeline_ = nullptr;
  std::unique_ptr<BusTally> bus_;
  std::unique_ptr<BatchLog> batches_;
  std::vector<std::unique_ptr<PadCounter>> counters_;
};

// Nearest rank (the smallest value with at least `percent` % at or below it).
inline double percentile(std::vector<double> values, double percent) {
  if (values.empty()) return -1;
  std::sort(values.begin(), values.end());
  const size_t rank = static_cast<size_t>(std::ceil(percent / 100.0 * values.size()));
  return values[std::max<size_t>(rank, 1) - 1];
}

// What a measuring window saw of sources [first, last).
struct Figures {
  double seconds = 0, items_per_s = 0;
  int items = 0, min_camera_items = 0, batches = 0;
  double p50_ms = -1, p99_ms = -1;  // median of the sources' p50, p99 of their p99
  double budget_ms = 0;
  guint64 dropped = 0, reconnects = 0;
  int gpu_decoded = 0;  // cameras decoded by nvh264dec
  std::string decoders;
};

// Batches leave for `ms`; cudabatch's latency windows start afresh at its
// beginning (latency-window set to what one camera makes in it).
inline Figures measure(Rig &rig, int fps, int first, int last, int ms) {
  GstElement *batch = rig.element("b");
  BatchLog &log = rig.batches();
  g_object_set(batch, "latency-window", static_cast<guint>(ms * fps / 1000), nullptr);
  const gint64 from = now_us();
  g_usleep(ms * 1000);
  const gint64 to = now_us();
  Figures f;
  f.seconds = (to - from) / 1e6;
  f.items = log.items(first, last, from, to);
  f.items_per_s = f.items / f.seconds;
  f.batches = log.batches(from, to);
  f.min_camera_items = f.items;
  for (int i = first; i < last; ++i)
    f.min_camera_items = std::min(f.min_camera_items, log.items(i, i + 1, from, to));
  std::vector<double> p50, p99;
  for (const auto &s : batch_source_stats(batch))
    if (s.index >= first && s.index < last && s.samples > 0) {
      p50.push_back(s.p50_ns / 1e6);
      p99.push_back(s.p99_ns / 1e6);
    }
  f.p50_ms = percentile(p50, 50);
  f.p99_ms = percentile(p99, 99);
  guint64 budget = 0;
  g_object_get(batch, "latency-budget", &budget, nullptr);
  f.budget_ms = budget / 1e6;
  for (int i = first; i < last; ++i) {
    GstElement *camera = rig.element("cam" + std::to_string(i));
    f.dropped += stats_uint64(camera, "dropped-queue-full");
    f.reconnects += stats_uint64(camera, "reconnects");
    const std::string decoder = stats_string(camera, "decoder");
    f.gpu_decoded += decoder == "nvh264dec";
    if (f.decoders.find(decoder) == std::string::npos) f.decoders += decoder + " ";
  }
  return f;
}

inline std::string describe(const Figures &f) {
  char text[512];
  std::snprintf(text, sizeof text,
                "window_s=%.2f items=%d items_per_s=%.1f min_camera_items=%d batches=%d "
                "mean_fill=%.2f lat_p50_ms=%.1f lat_p99_ms=%.1f budget_ms=%.0f "
                "dropped_queue_full=%llu reconnects=%llu",
                f.seconds, f.items, f.items_per_s, f.min_camera_items, f.batches,
                f.batches ? double(f.items) / f.batches : 0.0, f.p50_ms, f.p99_ms, f.budget_ms,
                static_cast<unsigned long long>(f.dropped),
                static_cast<unsigned long long>(f.reconnects));
  return text;
}

// Why a warm-up failed: items batched per camera, and what the bus said.
inline std::string warmup_report(Rig &rig, int cameras) {
  std::string text = "items batched per camera:";
  for (int i = 0; i < cameras; ++i)
    text += " " + std::to_string(rig.batches().total(i)) + "(" +
            stats_string(rig.element("cam" + std::to_string(i)), "state") + ")";
  return text + rig.bus().texts();
}

// A temporary folder for .npy files, removed with what it holds.
class NpyDir {
 public:
  NpyDir() {
    gchar *path = g_dir_make_tmp("cudaprep-matrix-XXXXXX", nullptr);
    path_ = path ? path : "";
    g_free(path);
  }
  ~NpyDir() { take(); }
  const std::string &path() const { return path_; }
  // Counts and removes the .npy files; whether t_00000.npy is a NumPy file.
  int take(bool *first_is_npy = nullptr) {
    int files = 0;
    GDir *dir = path_.empty() ? nullptr : g_dir_open(path_.c_str(), 0, nullptr);
    while (const gchar *name = dir ? g_dir_read_name(dir) : nullptr) {
      const std::string file = path_ + "/" + name;
      gchar *bytes = nullptr;
      gsize size = 0;
      if (first_is_npy && std::string(name) == "t_00000.npy" &&
          g_file_get_contents(file.c_str(), &bytes, &size, nullptr))
        *first_is_npy = size > 6 && memcmp(bytes, "\x93NUMPY", 6) == 0;
      g_free(bytes);
      files += g_str_has_suffix(name, ".npy");
      g_remove(file.c_str());
    }
    if (dir) g_dir_close(dir);
    if (!path_.empty()) g_rmdir(path_.c_str());
    return files;
  }

 private:
  std::string path_;
};

// An application's thread pulling tensors from a cudatensorsink.
class Puller {
 public:
  explicit Puller(GstElement *sink)
      : sink_(GST_CUDA_PREP_TENSOR_SINK(sink)), thread_([this] { run(); }) {}
  ~Puller() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int tensors() const { return tensors_.load(); }
  int items() const { return items_.load(); }

 private:
  void run() {
    while (!stop_) {
      GstSample *sample = gst_cuda_prep_tensor_sink_try_pull_tensor(sink_, 100 * GST_MSECOND);
      if (!sample) {
        g_usleep(1000);  // (NULL at once while the sink is not started)
        continue;
      }
      const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
      ++tensors_;
      if (tensor) items_ += static_cast<int>(tensor->batch_filled);
      gst_sample_unref(sample);
    }
  }
  GstCudaPrepTensorSink *sink_;
  std::atomic<bool> stop_{false};
  std::atomic<int> tensors_{0}, items_{0};
  std::thread thread_;
};

}  // namespace cudaprep::test
