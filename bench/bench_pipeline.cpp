// Pipeline-level benchmark: the real elements from system-memory frames to
// cudatensorsink, fed from a ring of pre-made pinned frames (appsrc, so the
// source is not the bottleneck). Reports frames/s, mean and p99 latency from
// the push into cudaframeupload to the tensor being ready on the GPU (the
// consumer waits on the tensor's ready event, as an inference app would),
// and host CPU time per frame. With "cpu" it runs the CPU GStreamer peer
// (videoconvert/videocrop/videoscale + normalisation in C++) instead;
// "ours-queue" puts a queue after cudaframeupload, so that the upload and
// the rest of the chain run in two streaming threads; "ours-queues" a
// second one before cudatensorize (three threads). Each run ends with the
// CPU share of every busy thread, which tells the one that limits.
// The input frames are pinned (default), "pageable" (plain malloc'ed, what
// a source that ignores the upload's pinned pool hands over) or "device"
// (already in device memory, as from a hardware decoder: no PCIe copy,
// cudaframeupload passes them through). Ours' consumer waits for each
// tensor with cudaEventSynchronize on its ready event, which spins a core
// ("spin", default), or "block"s: it orders a blocking-sync event of its
// own stream after the tensor's, as an app that queues its inference
// behind the tensor and sleeps until it is done.
//   bench_pipeline W1|W2|W3|W4 NV12|RGBA [frames] [ours|ours-queue|ours-queues|cpu]
//                  [pinned|pageable|device] [spin|block]
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <condition_variable>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudapreppool.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "cudaprep/copy.h"
#include "cudaprep/resize_geometry.h"
#include "base/gstcudaprepview.h"
#include "cpu_time.h"
#include "memory_use.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Workload {
  int input_width, input_height;
  std::string ours;  // elements between cudaframeupload and cudatensorsink
  std::string cpu;   // CPU elements producing RGB at the tensor size
  int out_width, out_height;
  float mean[3], std[3];
  // The region cudacrop reads and cudaframeupload copies (width 0: whole frame).
  int crop_x = 0, crop_y = 0, crop_width = 0, crop_height = 0;
  // The height the frame is resampled to with bilinear (0: not), whose rows
  // read are all cudaframeupload copies.
  int sampled_rect_height = 0;
};

Workload workload(const std::string &name) {
  const std::string imagenet = "mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\"";
  if (name == "W1" || name == "W4") {
    Workload detector{
        name == "W4" ? 3840 : 1920,
        name == "W4" ? 2160 : 1080,
        "cudaresize method=bilinear add-borders=true pad-value=\"<114,114,114>\" ! "
        "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB ! cudanormalize ! "
        "cudatensorize layout=nchw dtype=float32",
        "videoscale method=bilinear add-borders=true n-threads=0 ! videoconvert n-threads=0 ! "
        "video/x-raw,format=RGB,width=640,height=640",
        640,
        640,
        {0, 0, 0},
        {1, 1, 1}};
    detector.sampled_rect_height = 360;  // 16:9 letterboxed into 640x640
    return detector;
  }
  if (name == "W2")
    return {1920,
            1080,
            "cudaresize method=bicubic short-side=518 multiple-of=14 ! "
            "video/x-raw(memory:CUDAPitched),format=RGB ! cudanormalize " +
                imagenet + " ! cudatensorize layout=nchw dtype=float32",
            "videoscale method=catrom n-threads=0 ! videoconvert n-threads=0 ! "
            "video/x-raw,format=RGB,width=924,height=518",
            924,
            518,
            {0.485f, 0.456f, 0.406f},
            {0.229f, 0.224f, 0.225f}};
  Workload classifier{
      1920,
      1080,
      "cudacrop x=700 y=300 width=512 height=512 ! cudaresize method=bilinear ! "
      "video/x-raw(memory:CUDAPitched),width=224,height=224,format=RGB ! cudanormalize " +
          imagenet + " dtype=float16 ! cudatensorize layout=nchw dtype=float16",
      "videocrop left=700 top=300 right=708 bottom=268 ! videoscale method=bilinear "
      "n-threads=0 ! videoconvert n-threads=0 ! video/x-raw,format=RGB,width=224,height=224",
      224,
      224,
      {0.485f, 0.456f, 0.406f},
      {0.229f, 0.224f, 0.225f}};
  classifier.crop_x = 700;
  classifier.crop_y = 300;
  classifier.crop_width = classifier.crop_height = 512;
  return classifier;
}

// Frames/s that PCIe allows for `copy` (from a pinned frame of
// frame_bytes into 2 * frame_bytes of device memory, on `stream`): the
// median of 50 copies timed with CUDA events, after 10 of warm-up.
double copy_frames_per_second(
    size_t frame_bytes,
    const std::function<void(guint8 *host, guint8 *device, cudaStream_t stream)> &copy) {
  void *host = nullptr, *device = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  if (cudaHostAlloc(&host, frame_bytes, cudaHostAllocDefault) != cudaSuccess ||
      cudaMalloc(&device, 2 * frame_bytes) != cudaSuccess ||
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess)
    return 0;
  std::vector<float> ms;
  for (int i = 0; i < 60; ++i) {
    cudaEventRecord(start, stream);
    copy(static_cast<guint8 *>(host), static_cast<guint8 *>(device), stream);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float elapsed = 0;
    cudaEventElapsedTime(&elapsed, start, stop);
    if (i >= 10) ms.push_back(elapsed);
  }
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaFree(device);
  cudaFreeHost(host);
  return 1000.0 / ms[ms.size() / 2];
}

// The whole frame in one copy.
double pcie_frames_per_second(size_t frame_bytes) {
  return copy_frames_per_second(frame_bytes, [&](guint8 *host, guint8 *device, cudaStream_t s) {
    cudaMemcpyAsync(device, host, frame_bytes, cudaMemcpyHostToDevice, s);
  });
}

// The part of each frame cudaframeupload copies: the crop region, or the
// rows the bilinear downscale reads, copied as the element does
// (cudaprep::copy_image, cudaprep::copy_rows) into pitched device memory.
double partial_copy_frames_per_second(const GstVideoInfo &info, const Workload &w) {
  cudaprep::PixelFormat format;
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&info), &format)) return 0;
  std::vector<cudaprep::RowCopy> rows;  // planned once, as the element does
  if (w.sampled_rect_height > 0)
    rows = cudaprep::plan_row_copies(format, GST_VIDEO_INFO_HEIGHT(&info),
                                     cudaprep::find_row_pattern(cudaprep::resize_rows_read(
                                         cudaprep::Interpolation::kBilinear,
                                         GST_VIDEO_INFO_HEIGHT(&info), w.sampled_rect_height)));
  return copy_frames_per_second(info.size, [&](guint8 *host, guint8 *device, cudaStream_t s) {
    cudaprep::Image source, destination;
    source.format = destination.format = format;
    source.width = destination.width = GST_VIDEO_INFO_WIDTH(&info);
    source.height = destination.height = GST_VIDEO_INFO_HEIGHT(&info);
    size_t device_offset = 0;
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane) {
      source.planes[plane] = {host + GST_VIDEO_INFO_PLANE_OFFSET(&info, plane),
                              static_cast<size_t>(GST_VIDEO_INFO_PLANE_STRIDE(&info, plane))};
      const size_t pitch = (source.planes[plane].pitch_bytes + 255) / 256 * 256;
      destination.planes[plane] = {device + device_offset, pitch};
      device_offset += pitch * cudaprep::plane_height(format, plane, source.height);
    }
    if (!rows.empty()) {
      cudaprep::copy_rows(source, destination, rows.data(), static_cast<int>(rows.size()), s);
    } else {
      cudaprep::copy_image(
          cudaprep::sub_image(source, w.crop_x, w.crop_y, w.crop_width, w.crop_height),
          cudaprep::sub_image(destination, w.crop_x, w.crop_y, w.crop_width, w.crop_height), s);
    }
  });
}

// Replaces the system-memory frames of `ring` by device frames with the
// same pixels, from a cudaprep pool of `device_caps` (kept in *pool).
bool device_frames(const GstVideoInfo &info, GstCaps *device_caps, std::vector<GstBuffer *> &ring,
                   GstBufferPool **pool) {
  GstVideoInfo device_info;
  if (!gst_cuda_prep_device_video_info(&info, &device_info)) return false;
  *pool = gst_cuda_prep_buffer_pool_new(0);
  GstStructure *config = gst_buffer_pool_get_config(*pool);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params(config, device_caps, GST_VIDEO_INFO_SIZE(&device_info),
                                    ring.size(), ring.size());
  if (!gst_buffer_pool_set_config(*pool, config) || !gst_buffer_pool_set_active(*pool, TRUE))
    return false;
  for (GstBuffer *&buffer : ring) {
    GstBuffer *device = nullptr;
    GstVideoFrame host;
    cudaprep::Image from, to;
    const gchar *error = nullptr;
    if (gst_buffer_pool_acquire_buffer(*pool, &device, nullptr) != GST_FLOW_OK ||
        !gst_cuda_prep_buffer_device_image(device, &info, &to, &error) ||
        !gst_video_frame_map(&host, &info, buffer, GST_MAP_READ))
      return false;
    from = to;
    for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES(&host); ++plane)
      from.planes[plane] = {static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&host, plane)),
                            static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&host, plane))};
    const bool copied = cudaprep::copy_image(from, to, nullptr) == cudaSuccess &&
                        cudaDeviceSynchronize() == cudaSuccess;
    gst_video_frame_unmap(&host);
    gst_buffer_unref(buffer);
    buffer = device;
    if (!copied) return false;
  }
  return true;
}

// The normalisation the CPU peer adds after videoscale: float NCHW, as one
// multiply-add per value ((x / 255 - mean) / std folded into scale, bias).
void normalize_on_cpu(const guint8 *rgb, int stride, const Workload &w, std::vector<float> &out) {
  const size_t plane = static_cast<size_t>(w.out_width) * w.out_height;
  float scale[3], bias[3];
  for (int c = 0; c < 3; ++c) {
    scale[c] = 1.0f / (255.0f * w.std[c]);
    bias[c] = -w.mean[c] / w.std[c];
  }
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < w.out_height; ++y) {
      const guint8 *row = rgb + static_cast<size_t>(y) * stride + c;
      float *out_row = out.data() + c * plane + static_cast<size_t>(y) * w.out_width;
      for (int x = 0; x < w.out_width; ++x) out_row[x] = row[x * 3] * scale[c] + bias[c];
    }
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s W1|W2|W3|W4 NV12|RGBA [frames] [ours|ours-queue|ours-queues|cpu] "
                 "[pinned|pageable|device] [spin|block]\n",
                 argv[0]);
    return 2;
  }
  const std::string name = argv[1], format = argv[2];
  const int frames = argc > 3 ? std::atoi(argv[3]) : 2000;
  const std::string mode = argc > 4 ? argv[4] : "ours";
  if (mode != "ours" && mode != "ours-queue" && mode != "ours-queues" && mode != "cpu") {
    std::fprintf(stderr, "unknown mode %s: ours, ours-queue, ours-queues or cpu\n", mode.c_str());
    return 2;
  }
  const bool ours = mode != "cpu";
  const std::string input_memory = argc > 5 ? argv[5] : "pinned";
  if (input_memory != "pinned" && input_memory != "pageable" &&
      (input_memory != "device" || !ours)) {
    std::fprintf(stderr, "unknown input memory %s: pinned, pageable or device (ours only)\n",
                 input_memory.c_str());
    return 2;
  }
  const bool pageable = input_memory == "pageable", on_device = input_memory == "device";
  const std::string consumer_wait = argc > 6 ? argv[6] : "spin";
  if (consumer_wait != "spin" && consumer_wait != "block") {
    std::fprintf(stderr, "unknown consumer wait %s: spin or block\n", consumer_wait.c_str());
    return 2;
  }
  const std::string queue = "queue max-size-buffers=4 max-size-bytes=0 max-size-time=0 ! ";
  const std::string after_upload = mode == "ours" ? "" : queue;
  const Workload w = workload(name);
  std::string chain = w.ours;
  if (mode == "ours-queues") chain.insert(chain.find("cudatensorize"), queue);

  GstVideoInfo info;
  gst_video_info_set_format(&info, gst_video_format_from_string(format.c_str()), w.input_width,
                            w.input_height);
  GstCaps *caps = gst_video_info_to_caps(&info);
  gst_caps_set_simple(caps, "framerate", GST_TYPE_FRACTION, 0, 1, nullptr);
  if (on_device) {
    GstCaps *device_caps =
        gst_cuda_prep_caps_with_feature(caps, GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED);
    gst_caps_unref(caps);
    caps = device_caps;
  }
  const std::string description =
      ours ? "appsrc name=src format=time max-buffers=4 block=true ! cudaframeupload ! " +
                 after_upload + chain + " ! cudatensorsink name=sink max-buffers=4 sync=false"
           : "appsrc name=src format=time max-buffers=4 block=true ! " + w.cpu +
                 " ! appsink name=sink max-buffers=4 sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  if (pipeline == nullptr || error != nullptr) {  // a bad property still gives a pipeline
    std::fprintf(stderr, "pipeline: %s\n", error->message);
    return 1;
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  g_object_set(src, "caps", caps, nullptr);

  // A ring of pinned frames of random bytes, as a capture card would hand over.
  GstAllocator *pinned = gst_cuda_prep_host_allocator_get();
  std::vector<GstBuffer *> ring;
  std::mt19937 rng(1);
  for (int i = 0; i < 8; ++i) {
    GstBuffer *buffer =
        gst_buffer_new_allocate(ours && !pageable ? pinned : nullptr, info.size, nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    for (gsize byte = 0; byte < map.size; ++byte) map.data[byte] = static_cast<guint8>(rng());
    gst_buffer_unmap(buffer, &map);
    ring.push_back(buffer);
  }
  GstBufferPool *device_pool = nullptr;
  if (on_device && !device_frames(info, caps, ring, &device_pool)) {
    std::fprintf(stderr, "could not make device frames\n");
    return 1;
  }
  std::vector<Clock::time_point> pushed(frames), done(frames);

  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    std::fprintf(stderr, "could not start the pipeline\n");
    return 1;
  }
  std::vector<MemoryUse> memory_series;       // at every tenth of the frames
  double producer_cpu = 0, consumer_cpu = 0;  // thread CPU seconds
  std::mutex consumers_lock;                  // guards the two above
  // Ours: one consumer, as an inference app. The CPU peer: enough workers
  // that its normalisation runs on as many cores as it can use, so that the
  // peer is bound by its own chain, not by one thread of this benchmark.
  const unsigned n_consumers = ours ? 1 : std::max(2u, std::thread::hardware_concurrency() / 2);
  // Finishes one sample: the frame's done time, the memory series.
  auto finish = [&](GstSample *sample) {
    const int index = static_cast<int>(GST_BUFFER_PTS(gst_sample_get_buffer(sample)) / GST_MSECOND);
    if (index >= 0 && index < frames) done[index] = Clock::now();
    if (frames >= 10 && index > 0 && index % (frames / 10) == 0) {
      const MemoryUse use = memory_use();
      std::lock_guard<std::mutex> guard(consumers_lock);
      memory_series.push_back(use);
    }
    gst_sample_unref(sample);
  };
  // The CPU peer's normalisation: workers fed by one puller (appsink is not
  // safe to pull from several threads: they share one condition variable
  // with its streaming thread, which can miss its wake-up).
  std::deque<GstSample *> work;  // nullptr: stop
  std::condition_variable work_ready, work_taken;
  auto normalize_worker = [&] {
    std::vector<float> tensor(3 * w.out_width * w.out_height);
    for (;;) {
      GstSample *sample = nullptr;
      {
        std::unique_lock<std::mutex> guard(consumers_lock);
        work_ready.wait(guard, [&] { return !work.empty(); });
        sample = work.front();
        work.pop_front();
      }
      work_taken.notify_one();
      if (sample == nullptr) break;
      GstVideoFrame frame;
      GstVideoInfo out_info;
      gst_video_info_from_caps(&out_info, gst_sample_get_caps(sample));
      gst_video_frame_map(&frame, &out_info, gst_sample_get_buffer(sample), GST_MAP_READ);
      normalize_on_cpu(static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)),
                       GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0), w, tensor);
      gst_video_frame_unmap(&frame);
      finish(sample);
    }
    std::lock_guard<std::mutex> guard(consumers_lock);
    consumer_cpu += thread_cpu_now();
  };
  auto pull = [&] {
    // "block": the consumer's own stream and a blocking-sync event behind each tensor.
    cudaStream_t consumer_stream = nullptr;
    cudaEvent_t consumed = nullptr;
    if (consumer_wait == "block" &&
        (cudaStreamCreateWithFlags(&consumer_stream, cudaStreamNonBlocking) != cudaSuccess ||
         cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming | cudaEventBlockingSync) !=
             cudaSuccess)) {
      std::fprintf(stderr, "could not create the consumer's stream and event\n");
      std::exit(1);
    }
    for (;;) {
      GstSample *sample =
          ours ? gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink))
               : gst_app_sink_pull_sample(GST_APP_SINK(sink));
      if (ours && sample != nullptr) {
        const GstCudaPrepTensor *t = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
        const auto ready = static_cast<cudaEvent_t>(t->ready_event);
        const cudaError_t waited =
            consumed == nullptr ? cudaEventSynchronize(ready)
            : (cudaStreamWaitEvent(consumer_stream, ready, 0) == cudaSuccess &&
               cudaEventRecord(consumed, consumer_stream) == cudaSuccess)
                ? cudaEventSynchronize(consumed)
                : cudaGetLastError();
        if (waited != cudaSuccess) {
          std::fprintf(stderr, "waiting for a tensor: %s\n", cudaGetErrorString(waited));
          std::exit(1);
        }
        finish(sample);
        continue;
      }
      if (ours) break;
      std::unique_lock<std::mutex> guard(consumers_lock);
      work_taken.wait(guard, [&] { return work.size() < 2 * n_consumers; });
      if (sample != nullptr) {
        work.push_back(sample);
      } else {
        work.insert(work.end(), n_consumers, nullptr);
      }
      guard.unlock();
      if (sample == nullptr) {
        work_ready.notify_all();
        break;
      }
      work_ready.notify_one();
    }
    if (consumed != nullptr && (cudaEventDestroy(consumed) != cudaSuccess ||
                                cudaStreamDestroy(consumer_stream) != cudaSuccess)) {
      std::fprintf(stderr, "could not destroy the consumer's stream and event\n");
    }
    std::lock_guard<std::mutex> guard(consumers_lock);
    consumer_cpu += thread_cpu_now();
  };
  std::vector<std::thread> consumers;
  consumers.emplace_back(pull);
  if (!ours)
    for (unsigned i = 0; i < n_consumers; ++i) consumers.emplace_back(normalize_worker);

  const double cpu_start = process_cpu_seconds();
  const Clock::time_point wall_start = Clock::now();
  const auto threads_at_start = thread_cpu_seconds();
  std::thread producer([&] {
    for (int i = 0; i < frames; ++i) {
      GstBuffer *buffer = gst_buffer_copy(ring[i % ring.size()]);  // shares the pinned memory
      GST_BUFFER_PTS(buffer) = i * GST_MSECOND;  // the frame's index, read back at the sink
      pushed[i] = Clock::now();
      if (gst_app_src_push_buffer(GST_APP_SRC(src), buffer) != GST_FLOW_OK) break;
    }
    gst_app_src_end_of_stream(GST_APP_SRC(src));
    producer_cpu = thread_cpu_now();
  });
  // An error stops the pipeline, which unblocks the producer and the consumer.
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, GST_CLOCK_TIME_NONE, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  bool failed = GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR;
  if (failed) {
    GError *bus_error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(message, &bus_error, &debug);
    std::fprintf(stderr, "error: %s (%s)\n", bus_error->message, debug ? debug : "");
    g_clear_error(&bus_error);
    g_free(debug);
    gst_element_set_state(pipeline, GST_STATE_NULL);
  }
  gst_message_unref(message);
  gst_object_unref(bus);
  producer.join();
  for (std::thread &consumer : consumers) consumer.join();
  const double cpu_used = process_cpu_seconds() - cpu_start;
  const double wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
  auto threads = thread_cpu_seconds();
  for (auto &[tid, thread] : threads) {
    const auto before = threads_at_start.find(tid);
    if (before != threads_at_start.end()) thread.second -= before->second.second;
  }
  threads["producer"] = {"producer", producer_cpu};
  threads["consumer"] = {n_consumers > 1 ? "consumers (sum)" : "consumer", consumer_cpu};
  if (failed) return 1;

  // Latencies after a warm-up of a tenth of the frames.
  std::vector<double> latency_us;
  for (int i = frames / 10; i < frames; ++i)
    latency_us.push_back(std::chrono::duration<double, std::micro>(done[i] - pushed[i]).count());
  std::sort(latency_us.begin(), latency_us.end());
  double mean = 0;
  for (double l : latency_us) mean += l;
  mean /= latency_us.size();
  // Several consumers may finish frames out of order: the last one done.
  const Clock::time_point last_done = *std::max_element(done.begin(), done.end());
  const double seconds = std::chrono::duration<double>(last_done - pushed[frames / 10]).count();
  std::printf(
      "%s %s %s %dx%d%s: %.0f frames/s, latency mean %.0f us p99 %.0f us, host CPU %.0f us/frame",
      mode.c_str(), name.c_str(), format.c_str(), w.input_width, w.input_height,
      on_device  ? " from device memory"
      : pageable ? " pageable"
                 : "",
      (frames - frames / 10) / seconds, mean, latency_us[latency_us.size() * 99 / 100],
      1e6 * cpu_used / frames);
  if (ours && !on_device)
    std::printf(", PCIe limit %.0f frames/s", pcie_frames_per_second(info.size));
  if (ours && !on_device && w.crop_width > 0)
    std::printf(" (whole frame), %.0f frames/s (the %dx%d region)",
                partial_copy_frames_per_second(info, w), w.crop_width, w.crop_height);
  if (ours && !on_device && w.sampled_rect_height > 0)
    std::printf(" (whole frame), %.0f frames/s (the rows a bilinear resize to height %d reads)",
                partial_copy_frames_per_second(info, w), w.sampled_rect_height);
  std::printf("\n");
  if (frames >= 100000) {  // a soak run: host and device memory at each tenth
    std::printf("memory (host MB / device MB) at each tenth:");
    for (const MemoryUse &use : memory_series)
      std::printf(" %.1f/%.1f", use.host_mb, use.device_mb);
    std::printf("\n");
  }
  std::printf("busy threads (share of one core over the run):");
  for (const auto &[tid, thread] : threads)
    if (thread.second > 0.05 * wall_seconds)
      std::printf(" %s %.0f%%", thread.first.c_str(), 100 * thread.second / wall_seconds);
  std::printf("\n");
  std::fflush(stdout);

  gst_element_set_state(pipeline, GST_STATE_NULL);
  for (GstBuffer *buffer : ring) gst_buffer_unref(buffer);
  if (device_pool != nullptr) {
    gst_buffer_pool_set_active(device_pool, FALSE);
    gst_object_unref(device_pool);
  }
  gst_object_unref(pinned);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  gst_caps_unref(caps);
  return 0;
}
