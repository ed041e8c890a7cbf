// Benchmark (c) of issue 13: the regions of one frame into one classifier
// batch. R regions (default 64, detector-like boxes of 32 to 400 pixels) of
// each 1920x1080 frame are cropped, resized (bilinear, stretched) to
// 224x224 and normalised with ImageNet's mean/std into one float32 NCHW
// batch of R items by cudabatch, in one preprocess_batch() launch.
//  - kernel: GPU time of that launch on a device frame (CUDA events around
//    repeated launches of the items cudabatch builds for those regions),
//    per region, next to one preprocess() launch per region; the issue's
//    target is <= 1 us per region.
//  - kernel by count: the batched launch alone for 1, 16, 64, 256 and 1000
//    regions of the same generator (several launches past
//    kMaxPreprocessBatchItems), with the tensor's digest and whether it
//    equals one preprocess() per region.
//  - pipeline: pinned frames through appsrc ! cudaframeupload ! cudaresize !
//    cudanormalize ! cudabatch ! cudatensorsink, the consumer waiting on each
//    tensor's ready event; regions from GstVideoRegionOfInterestMeta (the
//    upload copies whole frames) and from the pad's static regions (the
//    upload copies their bounding box): regions/s and host CPU per region.
// CV-CUDA's per-sample path (the peer) is not run here.
// `tiles` (issue 36) times a 3840x2160 frame cut into the 32 tiles of
// 640x640 that README's example makes (128 pixels of overlap), letterboxed
// into a 640x640 tensor each: the kernel per tiled frame, and the pipeline
// with the pad's `region-source=tiles` beside the same 32 rectangles as
// static regions, in the same run.
//   bench_regions [frames] [NV12|RGBA] [regions | tiles]
#include <cuda_runtime_api.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "check_cuda.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/preprocess_batch.h"
#include "cpu_time.h"

namespace {

using Clock = std::chrono::steady_clock;

// The frame and the tensor's items: 1080p into 224x224 classifier crops,
// or (tiles) 4K into 640x640 tiles.
struct Workload {
  int width = 1920, height = 1080, side = 224;
  bool tiles = false;
};
Workload workload;
const float kMean[3] = {0.485f, 0.456f, 0.406f}, kStd[3] = {0.229f, 0.224f, 0.225f};

struct Box {
  int x, y, width, height;
};

// Detector-like boxes: sides of 32 to 400 pixels anywhere in the frame,
// origins even (as cudabatch aligns them for 4:2:0 frames).
std::vector<Box> detections(int count) {
  std::mt19937 rng(64);
  std::uniform_int_distribution<int> side(32, 400);
  std::vector<Box> boxes;
  for (int i = 0; i < count; ++i) {
    const int w = side(rng), h = side(rng);
    const int x = std::uniform_int_distribution<int>(0, workload.width - w)(rng) & ~1;
    const int y = std::uniform_int_distribution<int>(0, workload.height - h)(rng) & ~1;
    boxes.push_back(Box{x, y, w, h});
  }
  return boxes;
}

// README's 32 tiles of a 4K frame (640x640, 128 pixels of overlap: a step
// of 512, the last column and row moved back to the edge), row by row, as
// python/tests/test_tiles.py works them out.
std::vector<Box> readme_tiles() {
  std::vector<Box> boxes;
  for (const int y : {0, 512, 1024, 1520})
    for (const int x : {0, 512, 1024, 1536, 2048, 2560, 3072, 3200})
      boxes.push_back({x, y, 640, 640});
  return boxes;
}

// A device frame of the workload's size, filled with one byte value.
cudaprep::Image device_frame(cudaprep::PixelFormat format) {
  cudaprep::Image frame;
  frame.format = format;
  frame.width = workload.width;
  frame.height = workload.height;
  const bool nv12 = format == cudaprep::PixelFormat::kNV12;
  const size_t row_bytes = nv12 ? workload.width : 4 * workload.width;
  const int rows = nv12 ? workload.height * 3 / 2 : workload.height;
  guint8 *device = nullptr;
  size_t pitch = 0;
  CHECK_CUDA(cudaMallocPitch(reinterpret_cast<void **>(&device), &pitch, row_bytes, rows));
  CHECK_CUDA(cudaMemset2D(device, pitch, 0x5a, row_bytes, rows));
  frame.planes[0].data = device;
  frame.planes[0].pitch_bytes = pitch;
  if (nv12) {
    frame.planes[1].data = device + pitch * workload.height;
    frame.planes[1].pitch_bytes = pitch;
  }
  return frame;
}

// The items cudabatch builds for `boxes` of `frame`, item i into slot i,
// and the source bytes they cover.
std::vector<cudaprep::PreprocessItem> region_items(const cudaprep::Image &frame,
                                                   const std::vector<Box> &boxes,
                                                   size_t *bytes_read) {
  const bool nv12 = frame.format == cudaprep::PixelFormat::kNV12;
  std::vector<cudaprep::PreprocessItem> items(boxes.size());
  *bytes_read = 0;
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Box &b = boxes[i];
    items[i].src = cudaprep::sub_image(frame, b.x, b.y, b.width, b.height);
    items[i].resize_params.source_colorimetry.matrix = cudaprep::ColorMatrix::kBT709;
    std::copy(kMean, kMean + 3, items[i].normalize_params.mean);
    std::copy(kStd, kStd + 3, items[i].normalize_params.std);
    items[i].batch_index = static_cast<int>(i);
    *bytes_read += static_cast<size_t>(b.width) * b.height * (nv12 ? 3 : 8) / 2;
  }
  return items;
}

cudaprep::TensorDesc regions_tensor(int count) {
  return cudaprep::make_contiguous_tensor_desc(cudaprep::TensorLayout::kNCHW, count, 3,
                                               workload.side, workload.side,
                                               cudaprep::DataType::kFloat32);
}

// GPU microseconds per call of `launch` on `stream`: CUDA events around
// `repeats` back-to-back calls after 20 unmeasured ones.
template <class Launch>
double gpu_us_per_call(cudaStream_t stream, int repeats, const Launch &launch) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 20; ++i) launch();
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < repeats; ++i) launch();
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  return 1000.0 * ms / repeats;
}

// GPU microseconds of one preprocess_batch() launch over the boxes of one
// device frame, and of one preprocess() launch per box, averaged.
void time_kernel(cudaprep::PixelFormat format, const std::vector<Box> &boxes) {
  const cudaprep::Image frame = device_frame(format);
  const int count = static_cast<int>(boxes.size());
  const cudaprep::TensorDesc desc = regions_tensor(count);
  void *tensor = nullptr;
  CHECK_CUDA(cudaMalloc(&tensor, cudaprep::tensor_span_bytes(desc)));
  size_t bytes_read = 0;
  const std::vector<cudaprep::PreprocessItem> items = region_items(frame, boxes, &bytes_read);
  const std::string error = cudaprep::preprocess_batch_error(items.data(), count, tensor, desc);
  if (!error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    std::exit(1);
  }
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto measure = [&](const char *what, int repeats, const auto &launch) {
    const double per_call_us = gpu_us_per_call(stream, repeats, launch);
    std::printf("kernel %-22s %3d regions: %8.2f us per call, %6.3f us per region\n", what, count,
                per_call_us, per_call_us / count);
    return per_call_us / count;
  };
  const double batched = measure("preprocess_batch", 500, [&] {
    CHECK_CUDA(cudaprep::preprocess_batch(items.data(), count, tensor, desc, stream));
  });
  measure("preprocess per region", 100, [&] {
    for (const cudaprep::PreprocessItem &item : items)
      CHECK_CUDA(cudaprep::preprocess(item.src, item.resize_params, item.normalize_params, tensor,
                                      desc, item.batch_index, stream));
  });
  const double written = static_cast<double>(cudaprep::tensor_span_bytes(desc)) / count;
  std::printf(
      "kernel bytes per region: %.0f written (float32), %.0f of source in the box "
      "(mean); %.0f GB/s written by the batched launch\n",
      written, static_cast<double>(bytes_read) / count, written / (batched * 1e3));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(tensor));
  CHECK_CUDA(cudaFree(frame.planes[0].data));
}

// 64-bit FNV-1a of a device buffer's bytes.
uint64_t device_digest(const void *data, size_t bytes, std::vector<uint8_t> *host) {
  host->resize(bytes);
  CHECK_CUDA(cudaMemcpy(host->data(), data, bytes, cudaMemcpyDeviceToHost));
  uint64_t hash = 1469598103934665603ull;
  for (const uint8_t byte : *host) hash = (hash ^ byte) * 1099511628211ull;
  return hash;
}

// The batched launch's GPU time per region from 1 to 1000 regions of one
// frame (the same box generator, so each count's boxes begin with the
// smaller counts' boxes): per call and per region, the tensor's digest (to
// compare builds) and whether it equals one preprocess() per region.
void time_region_counts(cudaprep::PixelFormat format) {
  const cudaprep::Image frame = device_frame(format);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const int count : {1, 16, 64, 256, 1000}) {
    size_t bytes_read = 0;
    const std::vector<cudaprep::PreprocessItem> items =
        region_items(frame, detections(count), &bytes_read);
    const cudaprep::TensorDesc desc = regions_tensor(count);
    const size_t bytes = cudaprep::tensor_span_bytes(desc);
    void *batched = nullptr, *single = nullptr;
    CHECK_CUDA(cudaMalloc(&batched, bytes));
    CHECK_CUDA(cudaMalloc(&single, bytes));
    CHECK_CUDA(cudaMemsetAsync(batched, 0xff, bytes, stream));
    CHECK_CUDA(cudaMemsetAsync(single, 0xff, bytes, stream));
    const int repeats = std::clamp(50000 / count, 50, 2000);
    const double per_call_us = gpu_us_per_call(stream, repeats, [&] {
      CHECK_CUDA(cudaprep::preprocess_batch(items.data(), count, batched, desc, stream));
    });
    for (const cudaprep::PreprocessItem &item : items)
      CHECK_CUDA(cudaprep::preprocess(item.src, item.resize_params, item.normalize_params, single,
                                      desc, item.batch_index, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    std::vector<uint8_t> batched_bytes, single_bytes;
    const uint64_t digest = device_digest(batched, bytes, &batched_bytes);
    device_digest(single, bytes, &single_bytes);
    std::printf(
        "kernel by count %s %4d regions: %8.2f us per call, %6.3f us per region, digest "
        "%016llx, batch == single: %s\n",
        format == cudaprep::PixelFormat::kNV12 ? "NV12" : "RGBA", count, per_call_us,
        per_call_us / count, static_cast<unsigned long long>(digest),
        batched_bytes == single_bytes ? "yes" : "NO");
    CHECK_CUDA(cudaFree(batched));
    CHECK_CUDA(cudaFree(single));
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(frame.planes[0].data));
}

// Where the pad's regions come from: the frames' ROI metas, its static
// `regions` (the same boxes), or its tiling rule (`tiles`).
enum class RegionSource { kRoiMeta, kStatic, kTiles };

// Pushes `frames` pinned frames with `boxes` (as `source` gives them to the
// pad) through the chain into cudabatch and prints regions/s and host CPU
// per region.

void run_pipeline(const std::string &format, const std::vector<Box> &boxes, int frames,
                  RegionSource source) {
  const int count = static_cast<int>(boxes.size());
  const bool static_regions = source == RegionSource::kStatic;
  std::string pad = "sink_0::region-source=roi-meta";
  if (source == RegionSource::kTiles)
    pad =
        "sink_0::region-source=tiles sink_0::tile-width=640 sink_0::tile-height=640 "
        "sink_0::tile-overlap-pixels=128";
  if (static_regions) {
    pad = "sink_0::region-source=regions sink_0::regions=\"<";
    for (int i = 0; i < count; ++i) {
      const Box &b = boxes[i];
      pad += (i ? ",<" : "<") + std::to_string(b.x) + "," + std::to_string(b.y) + "," +
             std::to_string(b.width) + "," + std::to_string(b.height) + ">";
    }
    pad += ">\"";
  }
  const std::string caps = "video/x-raw,format=" + format +
                           ",width=" + std::to_string(workload.width) +
                           ",height=" + std::to_string(workload.height) + ",framerate=30/1";
  const std::string description =
      "appsrc name=src format=time max-buffers=4 block=true caps=\"" + caps +
      "\" ! cudaframeupload ! cudaresize method=bilinear add-borders=" +
      (workload.tiles ? "true" : "false") +
      " ! video/x-raw(memory:CUDAPitched),width=" + std::to_string(workload.side) +
      ",height=" + std::to_string(workload.side) +
      ",format=RGB ! "
      "cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\" ! "
      "cudabatch name=b batch-size=" +
      std::to_string(count) + " " + pad + " ! cudatensorsink name=sink max-buffers=4 sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  if (pipeline == nullptr || error != nullptr) {
    std::fprintf(stderr, "pipeline: %s\n", error != nullptr ? error->message : "?");
    std::exit(1);
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  GstVideoInfo info;
  GstCaps *parsed = gst_caps_from_string(caps.c_str());
  gst_video_info_from_caps(&info, parsed);
  gst_caps_unref(parsed);
  // A ring of pinned frames of random bytes, each with the regions as a
  // detector would attach them.
  GstAllocator *pinned = gst_cuda_prep_host_allocator_get();
  std::vector<GstBuffer *> ring;
  std::mt19937 rng(1);
  for (int i = 0; i < 8; ++i) {
    GstBuffer *buffer = gst_buffer_new_allocate(pinned, info.size, nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    for (gsize byte = 0; byte < map.size; ++byte) map.data[byte] = static_cast<guint8>(rng());
    gst_buffer_unmap(buffer, &map);
    if (source == RegionSource::kRoiMeta) {
      for (int r = 0; r < count; ++r) {
        const Box &b = boxes[r];
        gst_buffer_add_video_region_of_interest_meta(buffer, "object", b.x, b.y, b.width, b.height)
            ->id = r;
      }
    }
    ring.push_back(buffer);
  }
  gst_object_unref(pinned);
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    std::fprintf(stderr, "could not start the pipeline\n");
    std::exit(1);
  }
  // Steady state: the clock starts at the tenth tensor.
  const int warmup = std::min(10, frames / 2);
  Clock::time_point first, last;
  double cpu_first = 0;
  int tensors = 0, regions = 0;
  std::thread consumer([&] {
    while (GstSample *sample =
               gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink))) {
      const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
      cudaEventSynchronize(static_cast<cudaEvent_t>(tensor->ready_event));
      if (tensors >= warmup) regions += static_cast<int>(tensor->batch_filled);
      if (++tensors == warmup) {
        first = Clock::now();
        cpu_first = process_cpu_seconds();
      }
      last = Clock::now();
      gst_sample_unref(sample);
    }
  });
  for (int f = 0; f < frames; ++f) {
    // A shallow copy shares the pinned memory and carries the ROI metas.
    GstBuffer *frame = gst_buffer_copy(ring[f % ring.size()]);
    GST_BUFFER_PTS(frame) = f * GST_SECOND / 30;
    GST_BUFFER_DURATION(frame) = GST_SECOND / 30;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), frame) != GST_FLOW_OK) break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  consumer.join();
  const double cpu = process_cpu_seconds() - cpu_first;
  GstMessage *message = gst_bus_pop_filtered(GST_ELEMENT_BUS(pipeline), GST_MESSAGE_ERROR);
  if (message != nullptr) {
    GError *err = nullptr;
    gst_message_parse_error(message, &err, nullptr);
    std::fprintf(stderr, "pipeline error: %s\n", err->message);
    g_error_free(err);
    gst_message_unref(message);
  }
  const double seconds = std::chrono::duration<double>(last - first).count();
  std::printf(
      "pipeline %-8s %s %d regions/frame: %d tensors, %.0f regions/s (%.1f frames/s), "
      "%.2f us wall and %.2f us host CPU per region\n",
      source == RegionSource::kTiles ? "tiles"
      : static_regions               ? "static"
                                     : "roi-meta",
      format.c_str(), count, tensors, regions / seconds, regions / seconds / count,
      1e6 * seconds / regions, 1e6 * cpu / regions);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  for (GstBuffer *buffer : ring) gst_buffer_unref(buffer);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  const int frames = argc > 1 ? std::atoi(argv[1]) : 1000;
  const std::string format = argc > 2 ? argv[2] : "NV12";
  const bool tiles = argc > 3 && std::string(argv[3]) == "tiles";
  const int count = tiles ? 32 : argc > 3 ? std::atoi(argv[3]) : 64;
  if (frames < 2 || (format != "NV12" && format != "RGBA") || count < 1 ||
      count > cudaprep::kMaxPreprocessBatchItems) {
    std::fprintf(stderr, "usage: %s [frames >= 2] [NV12|RGBA] [regions 1..%d | tiles]\n", argv[0],
                 cudaprep::kMaxPreprocessBatchItems);
    return 2;
  }
  // The consumer blocks on each tensor's ready event instead of spinning, so
  // that the host CPU per region is the pipeline's own.
  CHECK_CUDA(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  const cudaprep::PixelFormat pixel_format =
      format == "NV12" ? cudaprep::PixelFormat::kNV12 : cudaprep::PixelFormat::kRGBA;
  if (tiles) {
    workload = Workload{3840, 2160, 640, true};
    const std::vector<Box> boxes = readme_tiles();
    time_kernel(pixel_format, boxes);
    run_pipeline(format, boxes, frames, RegionSource::kTiles);
    run_pipeline(format, boxes, frames, RegionSource::kStatic);
    return 0;
  }
  const std::vector<Box> boxes = detections(count);
  time_kernel(pixel_format, boxes);
  time_region_counts(pixel_format);
  run_pipeline(format, boxes, frames, RegionSource::kRoiMeta);
  run_pipeline(format, boxes, frames, RegionSource::kStatic);
  return 0;
}
