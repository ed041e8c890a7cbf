// Issue 13's benchmark (b): N live 1080p30 NV12 sources in one process into
// one cudabatch, each source `appsrc is-live ! cudaframeupload ! cudaresize
// ! cudanormalize ! cudabatch.sink_N` (W1's letterbox to 640x640), the batch
// into cudatensorsink, a consumer waiting on each tensor's ready event as an
// inference app would. Every source pushes from its own thread at 30 frames/s
// from a ring of pinned frames, the sources' phases spread over the frame
// period (cameras are not in step). For each batch size, after a warm-up:
// sustained frames/s, latency from a frame's push to its batch's tensor
// being ready (p50, p99), host CPU per frame (the whole process, and by kind
// of thread: pushers, streaming threads, the batch, the consumer), GPU busy
// share (NVML's utilisation: time with a kernel running, sampled every
// 100 ms; "n/a" where NVML is missing), device memory per source (in use
// while playing minus before the pipeline, divided by N) and the mean items
// per batch (cudabatch's latency-budget, 40 ms by default, lets a partial
// batch leave). With --slow=K, K of the sources (spread among the others)
// send 15 frames/s instead of 30, and the frames/s and latency of each rate
// are reported too. With --floor, the same cameras, pushers and consumer
// through GStreamer alone: `appsrc ! identity ! identity ! identity !
// floorbatch` (floor_batch.h) into an appsink, the hops of the chain with
// no CUDA call, so the host CPU per frame that the threads and hops cost
// by themselves is measured beside ours.
//   bench_batch [--slow=K] [--budget-ms=MS] [--floor] [sources=32] [seconds=10]
//               [batch sizes...=8 32]
// (the plugin from GST_PLUGIN_PATH or CUDAPREP_PLUGIN_DIR)
#include <dlfcn.h>
#include <pthread.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "cpu_time.h"
#include "floor_batch.h"
#include "memory_use.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWidth = 1920, kHeight = 1080;
constexpr int kFramesPerSecond = 30, kSlowFramesPerSecond = 15;
constexpr int kRingFrames = 8;

// NVML's GPU utilisation through dlopen, so that the bench links nothing
// the driver does not bring.
class GpuUtilisation {
 public:
  GpuUtilisation() {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (library_ == nullptr) return;
    using Init = int (*)();
    using Handle = int (*)(unsigned, void **);
    const auto init = reinterpret_cast<Init>(dlsym(library_, "nvmlInit_v2"));
    const auto handle = reinterpret_cast<Handle>(dlsym(library_, "nvmlDeviceGetHandleByIndex_v2"));
    get_ = reinterpret_cast<Get>(dlsym(library_, "nvmlDeviceGetUtilizationRates"));
    if (init == nullptr || handle == nullptr || get_ == nullptr || init() != 0 ||
        handle(0, &device_) != 0)
      get_ = nullptr;
  }
  ~GpuUtilisation() {
    if (library_ != nullptr) dlclose(library_);
  }
  // Percent of the last sample period with a kernel running, or -1.
  int percent() const {
    struct {
      unsigned gpu, memory;
    } rates{};
    if (get_ == nullptr || get_(device_, &rates) != 0) return -1;
    return static_cast<int>(rates.gpu);
  }

 private:
  using Get = int (*)(void *, void *);
  void *library_ = nullptr;
  void *device_ = nullptr;
  Get get_ = nullptr;
};

// One camera's chain into the batch `b`: ours, or with --floor as many
// hops through GStreamer alone.
std::string source_chain(int index, const std::string &caps, bool floor) {
  const std::string chain =
      floor ? "identity silent=true ! identity silent=true ! identity silent=true"
            : "cudaframeupload ! cudaresize method=bilinear add-borders=true "
              "pad-value=\"<114,114,114>\" ! "
              "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB ! cudanormalize";
  return "appsrc name=src" + std::to_string(index) +
         " format=time is-live=true min-latency=0 max-buffers=2 block=true caps=\"" + caps +
         "\" ! " + chain + " ! b.sink_" + std::to_string(index);
}

struct Options {
  int sources = 32;
  int slow_sources = 0;  // at kSlowFramesPerSecond
  double seconds = 10.0;
  double budget_ms = -1;  // < 0: cudabatch's default
  bool floor = false;     // GStreamer alone (--floor)
  std::vector<int> batch_sizes;
};

// Whether source `s` of `options.sources` is one of the slow ones: K spread
// evenly among N (every other one for K = N/2).
bool is_slow(int s, const Options &options) {
  return (s + 1) * options.slow_sources / options.sources !=
         s * options.slow_sources / options.sources;
}

int rate_of(int s, const Options &options) {
  return is_slow(s, options) ? kSlowFramesPerSecond : kFramesPerSecond;
}

// The latency distribution of some frames: p50 and p99 of push -> ready.
struct Latency {
  std::vector<double> us;
  long long frames() const { return static_cast<long long>(us.size()); }
  double percentile(int p) {
    std::sort(us.begin(), us.end());
    return us.empty() ? 0 : us[us.size() * p / 100];
  }
};

struct Run {
  double frames_per_second, p50_us, p99_us, cpu_us_per_frame, gpu_busy_percent,
      device_mb_per_source, mean_filled;
  long long frames;
  std::map<int, Latency> by_rate;  // frames/s -> those sources' frames
  std::map<std::string, double> cpu_seconds_by_thread_kind;
};

// One measurement: the live sources batched by `batch_size` for warm-up +
// the options' seconds.
bool run(const Options &options, int batch_size, const std::vector<GstBuffer *> &ring,
         const GpuUtilisation &gpu, Run *result) {
  const int sources = options.sources;
  const double seconds = options.seconds;
  std::string description = (options.floor ? "floorbatch" : "cudabatch") +
                            std::string(" name=b batch-size=") + std::to_string(batch_size);
  if (options.budget_ms >= 0 && !options.floor)
    description +=
        " latency-budget=" + std::to_string(static_cast<guint64>(options.budget_ms * GST_MSECOND));
  description += options.floor ? " ! appsink name=sink max-buffers=8 sync=false"
                               : " ! cudatensorsink name=sink max-buffers=8 sync=false";
  for (int i = 0; i < sources; ++i) {
    const std::string caps = "video/x-raw,format=NV12,width=" + std::to_string(kWidth) +
                             ",height=" + std::to_string(kHeight) +
                             ",framerate=" + std::to_string(rate_of(i, options)) + "/1";
    description += " " + source_chain(i, caps, options.floor);
  }
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  if (pipeline == nullptr || error != nullptr) {
    std::fprintf(stderr, "pipeline: %s\n", error != nullptr ? error->message : "?");
    return false;
  }
  const MemoryUse memory_before = memory_use();
  // The clock and base time are the pipeline's once it is PLAYING.
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE ||
      gst_element_get_state(pipeline, nullptr, nullptr, 10 * GST_SECOND) ==
          GST_STATE_CHANGE_FAILURE) {
    std::fprintf(stderr, "could not start the pipeline\n");
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return false;
  }
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  GstClock *clock = gst_pipeline_get_clock(GST_PIPELINE(pipeline));
  const GstClockTime base_time = gst_element_get_base_time(pipeline);

  std::mutex lock;  // guards pushed
  std::map<std::pair<int, GstClockTime>, Clock::time_point> pushed;
  std::atomic<bool> stop{false};
  const Clock::time_point start = Clock::now() + std::chrono::milliseconds(200);
  std::vector<std::thread> pushers;
  pthread_setname_np(pthread_self(), "consumer");
  for (int s = 0; s < sources; ++s) {
    pushers.emplace_back([&, s] {
      pthread_setname_np(pthread_self(), "pusher");
      GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), ("src" + std::to_string(s)).c_str());
      const int rate = rate_of(s, options);
      const auto period = std::chrono::nanoseconds(1000000000 / rate);
      const auto phase = period * s / sources;
      for (long long f = 0; !stop; ++f) {
        std::this_thread::sleep_until(start + phase + period * f);
        GstBuffer *buffer = gst_buffer_copy(ring[(s + f) % ring.size()]);  // shares the memory
        const GstClockTime now = gst_clock_get_time(clock) - base_time;
        GST_BUFFER_PTS(buffer) = now;
        GST_BUFFER_DURATION(buffer) = GST_SECOND / rate;
        {
          std::lock_guard<std::mutex> guard(lock);
          pushed[{s, now}] = Clock::now();
        }
        if (gst_app_src_push_buffer(GST_APP_SRC(src), buffer) != GST_FLOW_OK) break;
      }
      gst_object_unref(src);
    });
  }
  // Warm-up of a second, then the measurement window.
  const Clock::time_point window_start = start + std::chrono::seconds(1);
  const Clock::time_point window_end = window_start + std::chrono::duration_cast<Clock::duration>(
                                                          std::chrono::duration<double>(seconds));
  Latency latency;
  std::map<int, Latency> by_rate;
  long long frames = 0, batches = 0;
  double cpu_start = -1, device_mb = 0;
  std::map<std::string, std::pair<std::string, double>> threads_at_start;
  std::vector<int> busy;
  Clock::time_point next_sample = window_start;
  bool failed = false;
  while (Clock::now() < window_end) {
    // A pipeline that stalls (an error, a source that never starts) ends
    // the run instead of hanging it.
    GstSample *sample = options.floor
                            ? gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 5 * GST_SECOND)
                            : gst_cuda_prep_tensor_sink_try_pull_tensor(
                                  GST_CUDA_PREP_TENSOR_SINK(sink), 5 * GST_SECOND);
    if (sample == nullptr) {
      failed = true;
      break;
    }
    if (options.floor) {  // no tensor, no latency: the batch's item count
      if (Clock::now() >= window_start) {
        if (cpu_start < 0) {
          cpu_start = process_cpu_seconds();
          threads_at_start = thread_cpu_seconds();
        }
        ++batches;
        frames += static_cast<long long>(GST_BUFFER_OFFSET(gst_sample_get_buffer(sample)));
      }
      gst_sample_unref(sample);
      continue;
    }
    const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
    cudaEventSynchronize(static_cast<cudaEvent_t>(tensor->ready_event));
    const Clock::time_point ready = Clock::now();
    if (ready >= window_start) {
      if (cpu_start < 0) {
        cpu_start = process_cpu_seconds();
        threads_at_start = thread_cpu_seconds();
      }
      std::lock_guard<std::mutex> guard(lock);
      ++batches;
      for (gsize i = 0; i < tensor->batch_filled; ++i) {
        const auto at = pushed.find({tensor->items[i].source_index, tensor->items[i].pts});
        if (at == pushed.end()) continue;
        const double us = std::chrono::duration<double, std::micro>(ready - at->second).count();
        latency.us.push_back(us);
        by_rate[rate_of(tensor->items[i].source_index, options)].us.push_back(us);
        pushed.erase(at);
        ++frames;
      }
    }
    gst_sample_unref(sample);
    if (ready >= next_sample) {
      const int percent = gpu.percent();
      if (percent >= 0) busy.push_back(percent);
      next_sample = ready + std::chrono::milliseconds(100);
      if (device_mb == 0) device_mb = memory_use().device_mb;
    }
  }
  const double cpu_used = process_cpu_seconds() - cpu_start;
  const auto cpu_by_kind = cpu_seconds_by_thread_kind(threads_at_start, thread_cpu_seconds());
  stop = true;
  gst_element_set_state(pipeline, GST_STATE_NULL);  // unblocks the pushers
  for (std::thread &pusher : pushers) pusher.join();
  gst_object_unref(clock);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  if (failed || frames == 0) {
    std::fprintf(stderr, "batch %d: no tensor for 5 s before the window ended (%lld frames)\n",
                 batch_size, frames);
    return false;
  }
  double busy_mean = -1;
  if (!busy.empty()) {
    busy_mean = 0;
    for (int percent : busy) busy_mean += percent;
    busy_mean /= busy.size();
  }
  *result = {frames / seconds,
             latency.percentile(50),
             latency.percentile(99),
             1e6 * cpu_used / frames,
             busy_mean,
             (device_mb - memory_before.device_mb) / sources,
             static_cast<double>(frames) / batches,
             frames,
             by_rate,
             cpu_by_kind};
  return true;
}

const char kUsage[] =
    "usage: bench_batch [--slow=K] [--budget-ms=MS] [--floor] [sources=32] [seconds=10] "
    "[batch sizes...=8 32]\n"
    "  --slow=K        K of the sources (0..sources, spread among the others) at 15 frames/s,\n"
    "                  the others at 30; e.g. --slow=16 with 32 sources (default 0)\n"
    "  --budget-ms=MS  cudabatch's latency-budget in ms (default: the element's, 40)\n"
    "  --floor         GStreamer alone: appsrc ! 3 identity ! floorbatch ! appsink, no CUDA\n"
    "                  (full batches only, no latency)\n"
    "  --help          this text\n";

bool parse_number(const char *text, double *value) {
  char *end = nullptr;
  *value = std::strtod(text, &end);
  return end != text && *end == '\0';
}

bool parse_int(const char *text, int *value) {
  char *end = nullptr;
  const long parsed = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed < INT_MIN || parsed > INT_MAX) return false;
  *value = static_cast<int>(parsed);
  return true;
}

enum class Parsed { kRun, kHelp, kBad };

// The command line into `options`; kBad with `error` naming the argument.
Parsed parse_options(int argc, char **argv, Options *options, std::string *error) {
  std::vector<const char *> positional;
  bool slow_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return Parsed::kHelp;
    if (arg.rfind("--slow=", 0) == 0) {
      if (!parse_int(argv[i] + 7, &options->slow_sources) || options->slow_sources < 0) {
        *error = "--slow takes a count of sources (0 or more), not \"" + arg.substr(7) + "\"";
        return Parsed::kBad;
      }
      slow_given = true;
    } else if (arg.rfind("--budget-ms=", 0) == 0) {
      if (!parse_number(argv[i] + 12, &options->budget_ms) || options->budget_ms < 0) {
        *error = "--budget-ms takes milliseconds (0 or more), not \"" + arg.substr(12) + "\"";
        return Parsed::kBad;
      }
    } else if (arg == "--floor") {
      options->floor = true;
    } else if (arg.rfind("--", 0) == 0) {
      *error = "unknown option " + arg;
      return Parsed::kBad;
    } else {
      positional.push_back(argv[i]);
    }
  }
  if (positional.size() > 0 &&
      (!parse_int(positional[0], &options->sources) || options->sources < 1)) {
    *error = std::string("sources must be 1 or more, not \"") + positional[0] + "\"";
    return Parsed::kBad;
  }
  if (positional.size() > 1 &&
      (!parse_number(positional[1], &options->seconds) || options->seconds <= 0)) {
    *error = std::string("seconds must be more than 0, not \"") + positional[1] + "\"";
    return Parsed::kBad;
  }
  for (size_t i = 2; i < positional.size(); ++i) {
    int batch_size = 0;
    if (!parse_int(positional[i], &batch_size) || batch_size < 1 || batch_size > 1024) {
      *error = std::string("a batch size is 1..1024, not \"") + positional[i] + "\"";
      return Parsed::kBad;
    }
    options->batch_sizes.push_back(batch_size);
  }
  if (options->batch_sizes.empty()) options->batch_sizes = {8, 32};
  if (slow_given && options->slow_sources > options->sources) {
    *error = "--slow=" + std::to_string(options->slow_sources) + " is more than the " +
             std::to_string(options->sources) + " sources";
    return Parsed::kBad;
  }
  return Parsed::kRun;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  if (!floor_batch_register()) {
    std::fprintf(stderr, "bench_batch: could not register floorbatch\n");
    return 1;
  }
  Options options;
  std::string error;
  switch (parse_options(argc, argv, &options, &error)) {
    case Parsed::kHelp:
      std::printf("%s", kUsage);
      return 0;
    case Parsed::kBad:
      std::fprintf(stderr, "bench_batch: %s\n%s", error.c_str(), kUsage);
      return 2;
    case Parsed::kRun:
      break;
  }
  // The plugin from a folder outside GStreamer's path (a staged build), as
  // the test suites take it; GST_PLUGIN_PATH works too.
  if (const gchar *plugin_dir = g_getenv("CUDAPREP_PLUGIN_DIR"))
    gst_registry_scan_path(gst_registry_get(), plugin_dir);
  if (GstElementFactory *factory = gst_element_factory_find("cudabatch")) {
    gst_object_unref(factory);
  } else if (!options.floor) {
    std::fprintf(stderr,
                 "no cudabatch element: set CUDAPREP_PLUGIN_DIR or GST_PLUGIN_PATH to the folder "
                 "of libgstcudaprep.so\n");
    return 1;
  }
  // The CUDA context first, so that "device memory before" counts it.
  if (!options.floor && cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, kWidth, kHeight);
  // The floor copies nothing, so its frames need not be pinned (nor a GPU).
  GstAllocator *pinned = options.floor ? nullptr : gst_cuda_prep_host_allocator_get();
  std::vector<GstBuffer *> ring;
  std::mt19937 rng(1);
  for (int i = 0; i < kRingFrames; ++i) {
    GstBuffer *buffer = gst_buffer_new_allocate(pinned, info.size, nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    for (gsize byte = 0; byte < map.size; ++byte) map.data[byte] = static_cast<guint8>(rng());
    gst_buffer_unmap(buffer, &map);
    ring.push_back(buffer);
  }
  const GpuUtilisation gpu;
  int status = 0;
  const int sources = options.sources;
  const int offered = (sources - options.slow_sources) * kFramesPerSecond +
                      options.slow_sources * kSlowFramesPerSecond;
  for (const int batch_size : options.batch_sizes) {
    Run r;
    if (!run(options, batch_size, ring, gpu, &r)) {
      status = 1;
      continue;
    }
    const std::string rates = options.slow_sources == 0
                                  ? "1080p" + std::to_string(kFramesPerSecond)
                                  : std::to_string(sources - options.slow_sources) + "x1080p" +
                                        std::to_string(kFramesPerSecond) + " + " +
                                        std::to_string(options.slow_sources) + "x1080p" +
                                        std::to_string(kSlowFramesPerSecond);
    if (options.floor)
      std::printf(
          "floor (GStreamer alone, no CUDA): %d live %s NV12 sources, batch %2d: %.0f frames/s "
          "(offered %d), host CPU %.1f us/frame (%lld frames in %.0f s)\n",
          sources, rates.c_str(), batch_size, r.frames_per_second, offered, r.cpu_us_per_frame,
          r.frames, options.seconds);
    else
      std::printf(
          "%d live %s NV12 sources, batch %2d: %.0f frames/s (offered %d), latency p50 %.0f "
          "us p99 %.0f us, host CPU %.1f us/frame, GPU busy %s, device memory %.1f MB per "
          "source, %.1f items per batch (%lld frames in %.0f s)\n",
          sources, rates.c_str(), batch_size, r.frames_per_second, offered, r.p50_us, r.p99_us,
          r.cpu_us_per_frame,
          r.gpu_busy_percent < 0 ? "n/a" : (std::to_string(r.gpu_busy_percent) + "%").c_str(),
          r.device_mb_per_source, r.mean_filled, r.frames, options.seconds);
    // Where the host CPU goes: each kind of thread's share, per frame.
    std::printf("  host CPU by thread, us/frame:");
    for (const auto &[kind, cpu_seconds] : r.cpu_seconds_by_thread_kind)
      if (cpu_seconds > 0) std::printf(" %s %.1f", kind.c_str(), 1e6 * cpu_seconds / r.frames);
    std::printf("\n");
    if (options.slow_sources > 0) {
      for (auto &[rate, latency] : r.by_rate) {
        const int count =
            rate == kSlowFramesPerSecond ? options.slow_sources : sources - options.slow_sources;
        std::printf(
            "  %d sources at %d frames/s: %.0f frames/s (offered %d), latency p50 %.0f us "
            "p99 %.0f us\n",
            count, rate, latency.frames() / options.seconds, count * rate, latency.percentile(50),
            latency.percentile(99));
      }
    }
    std::fflush(stdout);
  }
  for (GstBuffer *buffer : ring) gst_buffer_unref(buffer);
  if (pinned != nullptr) gst_object_unref(pinned);
  return status;
}
