// The cudaprep tracer (tracers/gstcudapreptracer.h): host time per element
// and frame. An identity that sleeps sleep-time us per buffer must be
// reported at no less than that and, downstream of it, a fakesink at far
// less (its own time only, not identity's); an element upstream is charged
// its own time, not its downstream's. GPU time (base/gstcudapreptrace.h):
// off until a tracer exists; the GPU times handed to the tracer come out
// beside the host time (frames, mean and max against the times the test
// handed in), and an element without GPU work has no GPU line. The event
// timer: without a GPU it reports nothing (and says why); with one, a
// pair around work on a stream is reported when it completes, at the next
// frame or at finish().
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "base/gstcudapreptrace.h"
#include "common/cuda_test.h"
#include "tracers/gstcudapreptracer.h"

namespace {

// The tracer's records, from the GST_TRACER category at TRACE.
class TracerLog {
 public:
  TracerLog() {
    gst_debug_set_threshold_for_name("GST_TRACER", GST_LEVEL_TRACE);
    gst_debug_add_log_function(&TracerLog::on_log, this, nullptr);
  }
  ~TracerLog() {
    gst_debug_remove_log_function(&TracerLog::on_log);
    gst_debug_unset_threshold_for_name("GST_TRACER");
  }
  // element -> every record's (frames, host-ns-per-frame, host-ns-max)
  std::map<std::string, std::vector<std::array<guint64, 3>>> records() {
    std::lock_guard<std::mutex> guard(lock_);
    return records_;
  }
  // element -> every GPU record's (frames, gpu-ns-per-frame, gpu-ns-max)
  std::map<std::string, std::vector<std::array<guint64, 3>>> gpu_records() {
    std::lock_guard<std::mutex> guard(lock_);
    return gpu_records_;
  }

 private:
  static void on_log(GstDebugCategory *category, GstDebugLevel, const gchar *, const gchar *, gint,
                     GObject *, GstDebugMessage *message, gpointer data) {
    if (g_strcmp0(gst_debug_category_get_name(category), "GST_TRACER") != 0) return;
    const gchar *text = gst_debug_message_get(message);
    const bool host = text && g_str_has_prefix(text, "cudaprep-host-time,");
    const bool gpu = text && g_str_has_prefix(text, "cudaprep-gpu-time,");
    if (!host && !gpu) return;
    GstStructure *record = gst_structure_from_string(text, nullptr);
    if (!record) return;
    auto *self = static_cast<TracerLog *>(data);
    std::array<guint64, 3> values{};
    const gchar *element = gst_structure_get_string(record, "element");
    if (element && gst_structure_get_uint64(record, "frames", &values[0]) &&
        gst_structure_get_uint64(record, host ? "host-ns-per-frame" : "gpu-ns-per-frame",
                                 &values[1]) &&
        gst_structure_get_uint64(record, host ? "host-ns-max" : "gpu-ns-max", &values[2])) {
      std::lock_guard<std::mutex> guard(self->lock_);
      (host ? self->records_ : self->gpu_records_)[element].push_back(values);
    }
    gst_structure_free(record);
  }
  std::mutex lock_;
  std::map<std::string, std::vector<std::array<guint64, 3>>> records_, gpu_records_;
};

// GPU times as a tracer receives them.
struct GpuReports {
  std::mutex lock;
  std::vector<std::pair<guint64, guint>> times;  // (gpu_ns, frames)
  static void on_report(gpointer data, GstElement *, guint64 gpu_ns, guint frames) {
    auto *self = static_cast<GpuReports *>(data);
    std::lock_guard<std::mutex> guard(self->lock);
    self->times.emplace_back(gpu_ns, frames);
  }
};

// (First: tracers stay hooked for the life of the process, so no other
// test may have made one yet.)
TEST(Tracer, GpuTimeIsOffUntilATracerTakesIt) {
  ASSERT_EQ(g_getenv("GST_TRACERS"), nullptr) << "run without GST_TRACERS";
  EXPECT_FALSE(gst_cuda_prep_trace_gpu_enabled()) << "elements would record events for no one";
  GpuReports reports;
  gst_cuda_prep_trace_add_tracer(&reports, GpuReports::on_report);
  EXPECT_TRUE(gst_cuda_prep_trace_gpu_enabled());
  gst_cuda_prep_trace_remove_tracer(&reports);
  EXPECT_FALSE(gst_cuda_prep_trace_gpu_enabled());
}

// The timer around work on a stream: without a GPU no event can be made,
// the frame goes untimed (a warning says so) and nothing is reported; with
// one, each pair is reported once its work completed: at the next begin()
// or at finish().
TEST(Tracer, TheEventTimerReportsCompletedPairsOnly) {
  GstElement *element = gst_element_factory_make("identity", "timed_element");
  ASSERT_NE(element, nullptr);
  GpuReports reports;
  GstCudaPrepGpuTimer untraced;
  untraced.begin(element, nullptr);
  untraced.end(element, nullptr, 1);
  untraced.finish(element, 0);
  gst_cuda_prep_trace_add_tracer(&reports, GpuReports::on_report);
  const bool gpu = cudaprep::test::cuda_unavailable_reason().empty();
  GstCudaPrepGpuTimer timer;
  if (!gpu) {
    timer.begin(element, nullptr);
    timer.end(element, nullptr, 4);
    timer.finish(element, 0);
    EXPECT_TRUE(reports.times.empty()) << "no GPU, no GPU time";
  } else {
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    void *scratch = nullptr;
    ASSERT_EQ(cudaMalloc(&scratch, 64 << 20), cudaSuccess);
    timer.begin(element, stream);
    ASSERT_EQ(cudaMemsetAsync(scratch, 1, 64 << 20, stream), cudaSuccess);
    timer.end(element, stream, 4);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    timer.begin(element, stream);  // reports the first pair, completed
    timer.end(element, stream, 2);
    {
      std::lock_guard<std::mutex> guard(reports.lock);
      ASSERT_EQ(reports.times.size(), 1u);
      EXPECT_EQ(reports.times[0].second, 4u);
      EXPECT_GT(reports.times[0].first, 0u) << "a 64 MiB memset takes time";
      EXPECT_LT(reports.times[0].first, GST_SECOND);
    }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    timer.finish(element, 0);
    ASSERT_EQ(reports.times.size(), 2u);
    EXPECT_EQ(reports.times[1].second, 2u);
    EXPECT_EQ(cudaFree(scratch), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  }
  gst_cuda_prep_trace_remove_tracer(&reports);
  gst_object_unref(element);
}

// `gst-inspect-1.0 cudaprep` shows the feature of that name if there is
// one, else the plugin and its elements: no feature may take the plugin's
// name (the tracer did, and hid the elements).
TEST(Tracer, IsRegisteredUnderANameOfItsOwn) {
  GstPluginFeature *tracer = gst_registry_lookup_feature(gst_registry_get(), "cudapreptime");
  ASSERT_NE(tracer, nullptr);
  EXPECT_TRUE(GST_IS_TRACER_FACTORY(tracer));
  gst_object_unref(tracer);
  GstPluginFeature *named_like_the_plugin =
      gst_registry_lookup_feature(gst_registry_get(), "cudaprep");
  EXPECT_EQ(named_like_the_plugin, nullptr);
  if (named_like_the_plugin != nullptr) gst_object_unref(named_like_the_plugin);
}

void run(GstElement *pipeline) {
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  ASSERT_TRUE(message);
  EXPECT_EQ(GST_MESSAGE_TYPE(message), GST_MESSAGE_EOS);
  gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Frame i (from 1) of `slow` is handed i * 10 us of GPU time as it enters
// the element, as a cudaprep element's timer would after its kernels.
GstPadProbeReturn hand_gpu_time(GstPad *pad, GstPadProbeInfo *, gpointer data) {
  auto *frames = static_cast<guint64 *>(data);
  ++*frames;
  GstElement *element = gst_pad_get_parent_element(pad);
  gst_cuda_prep_trace_report_gpu_time(element, *frames * 10000, 1);
  gst_object_unref(element);
  return GST_PAD_PROBE_OK;
}

TEST(Tracer, HostTimePerFrameIsEachElementsOwnAndGpuTimeBesideIt) {
  TracerLog log;
  GstTracer *tracer =
      GST_TRACER(g_object_new(GST_TYPE_CUDA_PREP_TRACER, "params", "every=20", nullptr));
  EXPECT_TRUE(gst_cuda_prep_trace_gpu_enabled());
  GstElement *pipeline = gst_parse_launch(
      "videotestsrc num-buffers=60 ! capsfilter name=caps caps=video/x-raw,width=64,height=48 ! "
      "identity name=slow sleep-time=2000 ! identity name=fast ! fakesink name=sink sync=false",
      nullptr);
  ASSERT_TRUE(pipeline);
  GstElement *slow = gst_bin_get_by_name(GST_BIN(pipeline), "slow");
  GstPad *slow_sink = gst_element_get_static_pad(slow, "sink");
  guint64 gpu_frames = 0;
  gst_pad_add_probe(slow_sink, GST_PAD_PROBE_TYPE_BUFFER, hand_gpu_time, &gpu_frames, nullptr);
  gst_object_unref(slow_sink);
  gst_object_unref(slow);
  run(pipeline);
  const auto records = log.records();
  const auto gpu_records = log.gpu_records();
  gst_object_unref(tracer);
  // GPU time: 20 frames each, i * 10 us: the mean of (20k+1 .. 20k+20) * 10 us,
  // the largest (20k+20) * 10 us; only for the element that had some.
  ASSERT_EQ(gpu_records.size(), 1u) << "GPU lines for elements without GPU work";
  ASSERT_EQ(gpu_records.count("slow"), 1u);
  const auto &slow_gpu = gpu_records.at("slow");
  ASSERT_EQ(slow_gpu.size(), 3u);
  for (guint64 k = 0; k < 3; ++k) {
    guint64 sum = 0;
    for (guint64 i = 20 * k + 1; i <= 20 * k + 20; ++i) sum += i * 10000;
    EXPECT_EQ(slow_gpu[k][0], 20 * (k + 1));
    EXPECT_EQ(slow_gpu[k][1], sum / 20);
    EXPECT_EQ(slow_gpu[k][2], (20 * k + 20) * 10000);
  }
  ASSERT_EQ(records.count("slow"), 1u);
  ASSERT_EQ(records.count("fast"), 1u);
  ASSERT_EQ(records.count("sink"), 1u);
  ASSERT_EQ(records.count("caps"), 1u);
  // every=20 over 60 frames: 3 records each, frames 20, 40, 60.
  for (const char *name : {"caps", "slow", "fast", "sink"}) {
    const auto &element = records.at(name);
    ASSERT_EQ(element.size(), 3u) << name;
    for (size_t i = 0; i < element.size(); ++i) EXPECT_EQ(element[i][0], 20 * (i + 1)) << name;
  }
  for (const auto &record : records.at("slow")) {
    EXPECT_GE(record[1], 2000000u) << "identity sleeps 2 ms per frame";
    EXPECT_GE(record[2], record[1]);
  }
  // The slow element's sleep is charged to it alone, not to what follows
  // nor (through the nesting) to anything upstream: charged, it alone would
  // put another element's mean at 2 ms. (A bound of 1 ms failed on a loaded
  // 2-core machine, load average 8: a fakesink's own time was 1.2-1.6 ms.)
  for (const char *name : {"caps", "fast", "sink"})
    for (const auto &record : records.at(name))
      EXPECT_LT(record[1], 2000000u) << name << " was charged another element's time";
}

// (Tracers stay hooked for the life of the process: this one runs no
// pipeline, so that the other test sees one tracer's records only.)
TEST(Tracer, ABadEveryIsNamedAndTheDefaultKept) {
  struct Warnings {
    std::mutex lock;
    std::vector<std::string> lines;
  } warnings;
  GstLogFunction on_log = [](GstDebugCategory *category, GstDebugLevel level, const gchar *,
                             const gchar *, gint, GObject *, GstDebugMessage *message,
                             gpointer data) {
    if (level != GST_LEVEL_WARNING ||
        g_strcmp0(gst_debug_category_get_name(category), "cudapreptracer") != 0)
      return;
    auto *seen = static_cast<Warnings *>(data);
    std::lock_guard<std::mutex> guard(seen->lock);
    seen->lines.push_back(gst_debug_message_get(message));
  };
  gst_debug_add_log_function(on_log, &warnings, nullptr);
  gst_debug_set_threshold_for_name("cudapreptracer", GST_LEVEL_WARNING);
  GstTracer *tracer =
      GST_TRACER(g_object_new(GST_TYPE_CUDA_PREP_TRACER, "params", "every=0", nullptr));
  gst_debug_remove_log_function(on_log);
  gst_object_unref(tracer);
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("every must be a positive integer: every=0; using 100"),
            std::string::npos)
      << warnings.lines[0];
}

}  // namespace
