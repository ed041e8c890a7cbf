// Soak: N pipelines in one process, each pushing F frames of its own size
// (in turn from HEIGHTS, default 1080,720,2160,480: 1080p, 720p, 4K, 480p
// NV12) through the W1 chain (letterbox to
// 640x640 RGB, normalise, float32 NCHW tensor) with a consumer waiting on
// every tensor, as N camera apps would, as fast as the GPU takes them
// (sync=false). Prints the frames/s of all
// pipelines together, host and device memory at each tenth of the run, and
// how much each grew between the first tenth and the end.
//   soak [pipelines] [frames-per-pipeline] [heights, e.g. 1080,720,480]
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "memory_use.h"

namespace {

struct Size {
  int width, height;
};
constexpr Size kKnownSizes[] = {{1920, 1080}, {1280, 720}, {3840, 2160}, {640, 480}};

// "1080,720" -> 1920x1080, 1280x720; empty if a height is not one of kKnownSizes.
std::vector<Size> parse_sizes(const std::string &heights) {
  std::vector<Size> sizes;
  gchar **parts = g_strsplit(heights.c_str(), ",", -1);
  for (gchar **part = parts; *part != nullptr; ++part) {
    const int height = std::atoi(*part);
    const auto known = std::find_if(std::begin(kKnownSizes), std::end(kKnownSizes),
                                    [height](const Size &size) { return size.height == height; });
    if (known == std::end(kKnownSizes)) {
      sizes.clear();
      break;
    }
    sizes.push_back(*known);
  }
  g_strfreev(parts);
  return sizes;
}

struct Pipeline {
  GstElement *pipeline = nullptr, *src = nullptr, *sink = nullptr;
  std::vector<GstBuffer *> ring;         // pinned frames of random bytes
  std::string error;                     // the monitor's
  std::atomic<bool> wait_failed{false};  // the consumer's
};

bool make_pipeline(const Size &size, int index, Pipeline *p) {
  const std::string description =
      "appsrc name=src format=time max-buffers=4 block=true ! cudaframeupload ! "
      "queue max-size-buffers=4 max-size-bytes=0 max-size-time=0 ! "
      "cudaresize add-borders=true pad-value=<114,114,114> ! "
      "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB ! cudanormalize ! "
      "cudatensorize ! cudatensorsink name=sink consumer=application max-buffers=4 "
      "sync=false";
  GError *error = nullptr;
  p->pipeline = gst_parse_launch(description.c_str(), &error);
  if (p->pipeline == nullptr || error != nullptr) {  // a missing element still gives a pipeline
    std::fprintf(stderr, "pipeline: %s\n", error->message);
    g_error_free(error);
    return false;
  }
  p->src = gst_bin_get_by_name(GST_BIN(p->pipeline), "src");
  p->sink = gst_bin_get_by_name(GST_BIN(p->pipeline), "sink");
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, size.width, size.height);
  GstCaps *caps = gst_video_info_to_caps(&info);
  gst_caps_set_simple(caps, "framerate", GST_TYPE_FRACTION, 0, 1, nullptr);
  g_object_set(p->src, "caps", caps, nullptr);
  gst_caps_unref(caps);
  GstAllocator *pinned = gst_cuda_prep_host_allocator_get();
  std::mt19937 rng(index);
  for (int i = 0; i < 8; ++i) {
    GstBuffer *buffer = gst_buffer_new_allocate(pinned, info.size, nullptr);
    GstMapInfo map;
    if (buffer == nullptr || !gst_buffer_map(buffer, &map, GST_MAP_WRITE)) return false;
    for (gsize byte = 0; byte < map.size; ++byte) map.data[byte] = static_cast<guint8>(rng());
    gst_buffer_unmap(buffer, &map);
    p->ring.push_back(buffer);
  }
  gst_object_unref(pinned);
  return gst_element_set_state(p->pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  const int n_pipelines = argc > 1 ? std::atoi(argv[1]) : 8;
  const long frames = argc > 2 ? std::atol(argv[2]) : 1000000;
  const std::vector<Size> sizes = parse_sizes(argc > 3 ? argv[3] : "1080,720,2160,480");
  if (n_pipelines < 1 || frames < 10 || sizes.empty()) {
    std::fprintf(stderr,
                 "usage: %s [pipelines >= 1] [frames-per-pipeline >= 10] "
                 "[heights among 2160,1080,720,480, comma-separated]\n",
                 argv[0]);
    return 2;
  }
  std::vector<Pipeline> pipelines(n_pipelines);
  for (int i = 0; i < n_pipelines; ++i)
    if (!make_pipeline(sizes[i % sizes.size()], i, &pipelines[i])) {
      std::fprintf(stderr, "could not start pipeline %d\n", i);
      return 1;
    }
  std::atomic<long> consumed{0};
  const long total = frames * n_pipelines;
  std::vector<std::thread> threads;
  for (Pipeline &p : pipelines) {
    threads.emplace_back([&p, frames] {
      for (long i = 0; i < frames; ++i) {
        GstBuffer *buffer = gst_buffer_copy(p.ring[i % p.ring.size()]);
        GST_BUFFER_PTS(buffer) = i * GST_MSECOND;
        if (gst_app_src_push_buffer(GST_APP_SRC(p.src), buffer) != GST_FLOW_OK) break;
      }
      gst_app_src_end_of_stream(GST_APP_SRC(p.src));
    });
    threads.emplace_back([&p, &consumed] {
      while (GstSample *sample =
                 gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(p.sink))) {
        const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
        if (cudaEventSynchronize(tensor->ready_event) != cudaSuccess) p.wait_failed = true;
        gst_sample_unref(sample);
        consumed.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  // Memory at each tenth of all frames consumed. A pipeline that fails is
  // stopped (its consumer's pull then returns NULL) and named.
  auto check_errors = [&pipelines] {
    bool any = false;
    for (size_t i = 0; i < pipelines.size(); ++i) {
      Pipeline &p = pipelines[i];
      GstBus *bus = gst_element_get_bus(p.pipeline);
      if (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
        GError *error = nullptr;
        gst_message_parse_error(message, &error, nullptr);
        p.error = error->message;
        g_error_free(error);
        gst_message_unref(message);
        gst_element_set_state(p.pipeline, GST_STATE_NULL);
      }
      gst_object_unref(bus);
      if (p.wait_failed) p.error = "waiting on a tensor's ready event failed";
      any = any || !p.error.empty();
    }
    return any;
  };
  std::vector<MemoryUse> series;
  const auto start = std::chrono::steady_clock::now();
  bool failed = false;
  for (int tenth = 1; tenth <= 10 && !failed; ++tenth) {
    while (consumed.load() < total * tenth / 10 && !(failed = check_errors()))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (failed) break;
    // Printed as it goes: a run cut short still shows what it measured.
    series.push_back(memory_use());
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("tenth %d: %ld tensors, %.0f frames/s so far, host %.1f MB, device %.1f MB\n",
                tenth, consumed.load(), consumed.load() / elapsed, series.back().host_mb,
                series.back().device_mb);
    std::fflush(stdout);
  }
  for (std::thread &thread : threads) thread.join();
  failed = check_errors() || failed;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (size_t i = 0; i < pipelines.size(); ++i)
    if (!pipelines[i].error.empty())
      std::fprintf(stderr, "pipeline %zu: %s\n", i, pipelines[i].error.c_str());
  std::printf(
      "%d pipelines x %ld frames (NV12 of heights %s -> 640x640 float32): %ld tensors, "
      "%.0f frames/s in all\n",
      n_pipelines, frames, argc > 3 ? argv[3] : "1080,720,2160,480", consumed.load(),
      consumed.load() / seconds);
  std::printf("memory (host MB / device MB) at each tenth:");
  for (const MemoryUse &use : series) std::printf(" %.1f/%.1f", use.host_mb, use.device_mb);
  if (series.size() >= 2)
    std::printf("\ngrowth from the first tenth to the end: host %+.1f MB, device %+.1f MB",
                series.back().host_mb - series.front().host_mb,
                series.back().device_mb - series.front().device_mb);
  std::printf("\n");
  for (Pipeline &p : pipelines) {
    gst_element_set_state(p.pipeline, GST_STATE_NULL);
    for (GstBuffer *buffer : p.ring) gst_buffer_unref(buffer);
    gst_object_unref(p.src);
    gst_object_unref(p.sink);
    gst_object_unref(p.pipeline);
  }
  return !failed && consumed.load() == total ? 0 : 1;
}
