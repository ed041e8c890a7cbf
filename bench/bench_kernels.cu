// Kernel-level benchmark of the four workloads of the benchmark issue, input
// already on the device: GPU time per frame of the whole chain (resize with
// colour conversion -> normalize -> tensorize), each kernel alone, the chain
// replayed as a CUDA graph (no launch gaps), and the fused preprocess (the
// whole chain in one kernel), which is also checked to write the chain's
// bytes. CUDA events, warm-up, medians and spread; the bandwidth roofline
// from a measured device copy.
//   bench_kernels [iterations] [name-prefix]
// (name-prefix, e.g. "W5": only the workloads whose name starts with it,
// and no regions unless it is "64 regions"). Antialiased workloads time the
// fused preprocess on its chosen path and on the other (two passes, single
// pass) before them, with both digests.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "antialias_two_pass.h"
#include "cudaprep/normalize.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/preprocess_batch.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "cudaprep/tensorize.h"

using namespace cudaprep;

#define CHECK(call)                                                                               \
  do {                                                                                            \
    const cudaError_t err = (call);                                                               \
    if (err != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

constexpr size_t kPitchAlignment = 256;

size_t align_up(size_t value) {
  return (value + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
}

// A pitched device image filled with random bytes (never zeros: they can
// hide unwritten outputs and run faster than real data).
Image make_image(PixelFormat format, int width, int height, bool randomise) {
  Image image;
  image.format = format;
  image.width = width;
  image.height = height;
  const int planes = format_info(format).num_planes;
  size_t total = 0, offsets[kMaxPlanes];
  for (int p = 0; p < planes; ++p) {
    image.planes[p].pitch_bytes = align_up(plane_row_bytes(format, p, width));
    offsets[p] = total;
    total += image.planes[p].pitch_bytes * plane_height(format, p, height);
  }
  uint8_t *base = nullptr;
  CHECK(cudaMalloc(&base, total));
  if (randomise) {
    std::vector<uint8_t> host(total);
    std::mt19937 rng(42);
    for (size_t i = 0; i < total; i += 4) {  // four random bytes per draw
      const uint32_t word = rng();
      std::memcpy(&host[i], &word, std::min<size_t>(4, total - i));
    }
    CHECK(cudaMemcpy(base, host.data(), total, cudaMemcpyHostToDevice));
  }
  for (int p = 0; p < planes; ++p) image.planes[p].data = base + offsets[p];
  return image;
}

PlanarImage make_planar(int width, int height, DataType dtype) {
  PlanarImage planar;
  planar.width = width;
  planar.height = height;
  planar.channels = 3;
  planar.dtype = dtype;
  planar.pitch_bytes = align_up(width * data_type_size(dtype));
  uint8_t *base = nullptr;
  CHECK(cudaMalloc(&base, planar.pitch_bytes * height * 3));
  for (int c = 0; c < 3; ++c) planar.planes[c] = base + c * planar.pitch_bytes * height;
  return planar;
}

// FNV-1a of a buffer's bytes: the bench prints it per workload, so two
// builds' outputs compare bit for bit by their digests.
uint64_t digest(const std::vector<uint8_t> &bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (const uint8_t byte : bytes) hash = (hash ^ byte) * 1099511628211ull;
  return hash;
}

// The digest of a device image's rows (pitch padding left out).
uint64_t image_digest(const Image &image) {
  std::vector<uint8_t> bytes;
  for (int p = 0; p < format_info(image.format).num_planes; ++p) {
    const size_t row = plane_row_bytes(image.format, p, image.width);
    const int rows = plane_height(image.format, p, image.height);
    std::vector<uint8_t> plane(row * rows);
    CHECK(cudaMemcpy2D(plane.data(), row, image.planes[p].data, image.planes[p].pitch_bytes, row,
                       rows, cudaMemcpyDeviceToHost));
    bytes.insert(bytes.end(), plane.begin(), plane.end());
  }
  return digest(bytes);
}

struct Stats {
  double median_us, p10_us, p90_us;
};

Stats time_it(const std::function<void(cudaStream_t)> &work, cudaStream_t stream, int iterations) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 20; ++i) work(stream);  // warm-up: module load, caches, clocks
  CHECK(cudaStreamSynchronize(stream));
  std::vector<double> samples;
  for (int i = 0; i < iterations; ++i) {
    CHECK(cudaEventRecord(start, stream));
    work(stream);
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(ms * 1000.0);
  }
  std::sort(samples.begin(), samples.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return {samples[samples.size() / 2], samples[samples.size() / 10],
          samples[samples.size() * 9 / 10]};
}

// `work` captured `repeats` times into one graph; the times are per repeat.
Stats time_graph(const std::function<void(cudaStream_t)> &work, cudaStream_t stream, int iterations,
                 int repeats = 1) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < repeats; ++i) work(stream);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const Stats stats =
      time_it([&](cudaStream_t s) { CHECK(cudaGraphLaunch(exec, s)); }, stream, iterations);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return {stats.median_us / repeats, stats.p10_us / repeats, stats.p90_us / repeats};
}

// Device copy bandwidth, counting bytes read plus written.
double copy_bandwidth_gbs(cudaStream_t stream) {
  const size_t bytes = size_t(1) << 30;
  void *a, *b;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemset(a, 1, bytes));
  const Stats stats = time_it(
      [&](cudaStream_t s) { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s)); },
      stream, 20);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 2.0 * bytes / (stats.median_us * 1e3);
}

__global__ void empty_kernel() {}

// What the timing itself costs: one empty kernel, and three back to back
// (the chain's launch count), each between a pair of events.
void print_launch_floor(cudaStream_t stream, int iterations) {
  auto launch = [](cudaStream_t s) {
    empty_kernel<<<1, 32, 0, s>>>();
    CHECK(cudaGetLastError());
  };
  const Stats one = time_it(launch, stream, iterations);
  const Stats three = time_it(
      [&](cudaStream_t s) {
        for (int i = 0; i < 3; ++i) launch(s);
      },
      stream, iterations);
  std::printf("launch floor: 1 empty kernel %.1f us, 3 empty kernels %.1f us\n", one.median_us,
              three.median_us);
}

// Host time of the CUDA calls an element makes per frame, each timed alone
// on the host clock (median of many): what a pipeline's per-frame host cost
// is made of, next to GStreamer's own.
void print_host_call_costs(cudaStream_t stream, int iterations) {
  cudaStream_t other;
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  cudaEvent_t event;
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  void *host = nullptr, *device = nullptr;
  CHECK(cudaHostAlloc(&host, 4096, cudaHostAllocDefault));
  CHECK(cudaMalloc(&device, 4096));
  auto host_us = [&](auto &&call) {
    std::vector<double> us;
    for (int i = 0; i < iterations; ++i) {
      const auto start = std::chrono::steady_clock::now();
      call();
      us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
      if (i % 16 == 15) CHECK(cudaStreamSynchronize(stream));  // keep the queue short
    }
    CHECK(cudaStreamSynchronize(stream));
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  };
  int current = 0;
  cudaPointerAttributes attributes;
  std::printf(
      "host cost per call (us, median of %d): cudaGetDevice %.2f, cudaSetDevice %.2f, "
      "cudaEventRecord %.2f, cudaStreamWaitEvent %.2f, cudaEventQuery %.2f, "
      "cudaPointerGetAttributes %.2f, cudaMemcpy2DAsync 4 KB %.2f, empty kernel launch %.2f\n",
      iterations, host_us([&] { CHECK(cudaGetDevice(&current)); }),
      host_us([&] { CHECK(cudaSetDevice(0)); }),
      host_us([&] { CHECK(cudaEventRecord(event, other)); }),
      host_us([&] { CHECK(cudaStreamWaitEvent(stream, event, 0)); }),
      host_us([&] { (void)cudaEventQuery(event); }),
      host_us([&] { CHECK(cudaPointerGetAttributes(&attributes, host)); }), host_us([&] {
        CHECK(cudaMemcpy2DAsync(device, 256, host, 256, 256, 16, cudaMemcpyHostToDevice, stream));
      }),
      host_us([&] {
        empty_kernel<<<1, 32, 0, stream>>>();
        CHECK(cudaGetLastError());
      }));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(host));
  CHECK(cudaEventDestroy(event));
  CHECK(cudaStreamDestroy(other));
}

struct Workload {
  std::string name;
  PixelFormat input_format;
  int input_width, input_height;
  PixelRect crop;             // width 0: whole frame
  int out_width, out_height;  // 0: short-side rule
  int short_side, multiple_of;
  bool letterbox;
  Interpolation interpolation;
  uint8_t pad;
  float mean[3], std[3];
  DataType dtype;
  bool antialias = false;
};

// The workload's frame from N cameras into one N-item tensor: N distinct
// input frames (each item reads its own memory, as cameras do), the batch
// in one preprocess_batch() launch against N preprocess() launches. Per
// item: host-timed (launch included) and GPU only (10 batches in a graph),
// and the ratio of the GPU time to the per-item roofline. Each batch item is
// checked against the single-item tensor.
void run_batches(const Workload &w, const Image &first_source, const ResizeParams &resize_params,
                 const NormalizeParams &normalize_params, int out_width, int out_height,
                 cudaStream_t stream, int iterations, double roofline_us) {
  for (const int batch : {1, 8, 32}) {
    std::vector<Image> inputs;
    std::vector<PreprocessItem> items(batch);
    for (int i = 0; i < batch; ++i) {
      Image source = first_source;
      if (i > 0) {
        inputs.push_back(make_image(w.input_format, w.input_width, w.input_height, true));
        source = inputs.back();
        if (w.crop.width > 0)
          source = sub_image(source, w.crop.x, w.crop.y, w.crop.width, w.crop.height);
      }
      items[i].src = source;
      items[i].resize_params = resize_params;
      items[i].normalize_params = normalize_params;
      items[i].batch_index = i;
    }
    const TensorDesc desc =
        make_contiguous_tensor_desc(TensorLayout::kNCHW, batch, 3, out_height, out_width, w.dtype);
    void *batched = nullptr, *single = nullptr;
    CHECK(cudaMalloc(&batched, tensor_span_bytes(desc)));
    CHECK(cudaMalloc(&single, tensor_span_bytes(desc)));
    auto batched_step = [&](cudaStream_t s) {
      CHECK(preprocess_batch(items.data(), batch, batched, desc, s));
    };
    auto single_steps = [&](cudaStream_t s) {
      for (const PreprocessItem &item : items) {
        CHECK(preprocess(item.src, item.resize_params, item.normalize_params, single, desc,
                         item.batch_index, s));
      }
    };
    constexpr int kRepeats = 10;
    const Stats batched_host = time_it(batched_step, stream, iterations);
    const Stats batched_gpu = time_graph(batched_step, stream, iterations, kRepeats);
    const Stats single_host = time_it(single_steps, stream, iterations);
    const Stats single_gpu = time_graph(single_steps, stream, iterations, kRepeats);
    std::vector<uint8_t> batched_bytes(tensor_span_bytes(desc)), single_bytes(batched_bytes.size());
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(batched_bytes.data(), batched, batched_bytes.size(), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(single_bytes.data(), single, single_bytes.size(), cudaMemcpyDeviceToHost));
    const bool equal = batched_bytes == single_bytes;
    std::printf(
        "%-28s batch %2d  per item: batched %6.2f us (GPU only %6.2f, %.2fx roofline %.2f)  "
        "%d single launches %6.2f us (GPU only %6.2f)  batch == single: %s\n",
        w.name.c_str(), batch, batched_host.median_us / batch, batched_gpu.median_us / batch,
        batched_gpu.median_us / batch / roofline_us, roofline_us, batch,
        single_host.median_us / batch, single_gpu.median_us / batch, equal ? "yes" : "NO");
    CHECK(cudaFree(batched));
    CHECK(cudaFree(single));
    for (const Image &input : inputs) CHECK(cudaFree(input.planes[0].data));  // one allocation
  }
}

// The secondary classifier: 64 regions of one 1080p frame (sizes 48x64 to
// 300x400, spread over the frame) to 224x224 ImageNet float32 NCHW in one
// launch: regions/s and GPU time per region.
void run_regions(PixelFormat format, cudaStream_t stream, int iterations, double bandwidth_gbs) {
  constexpr int kRegions = 64;
  Image frame = make_image(format, 1920, 1080, true);
  std::vector<PreprocessItem> items(kRegions);
  size_t read_bytes = 0;
  std::mt19937 generator(11);
  for (int i = 0; i < kRegions; ++i) {
    const int width = 48 + static_cast<int>(generator() % 253) / 2 * 2;
    const int height = 64 + static_cast<int>(generator() % 337) / 2 * 2;
    const int x = static_cast<int>(generator() % (1920 - width)) / 2 * 2;
    const int y = static_cast<int>(generator() % (1080 - height)) / 2 * 2;
    items[i].src = sub_image(frame, x, y, width, height);
    for (int p = 0; p < format_info(format).num_planes; ++p)
      read_bytes += plane_row_bytes(format, p, width) * plane_height(format, p, height);
    items[i].resize_params.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
    const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
    for (int c = 0; c < 3; ++c) {
      items[i].normalize_params.mean[c] = mean[c];
      items[i].normalize_params.std[c] = std[c];
    }
    items[i].batch_index = i;
  }
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, kRegions, 3, 224, 224, DataType::kFloat32);
  void *tensor = nullptr;
  CHECK(cudaMalloc(&tensor, tensor_span_bytes(desc)));
  auto step = [&](cudaStream_t s) {
    CHECK(preprocess_batch(items.data(), kRegions, tensor, desc, s));
  };
  const Stats host = time_it(step, stream, iterations);
  const Stats gpu = time_graph(step, stream, iterations, 10);
  const double floor_us = (read_bytes + tensor_span_bytes(desc)) / (bandwidth_gbs * 1e3);
  std::printf(
      "64 regions of 1080p %-4s -> 224x224 fp32: %7.1f us per call (GPU only %7.1f), %.2f us per "
      "region (GPU only %.2f), %.2f M regions/s; roofline %.1f us per call\n",
      pixel_format_name(format), host.median_us, gpu.median_us, host.median_us / kRegions,
      gpu.median_us / kRegions, kRegions / gpu.median_us, floor_us);
  CHECK(cudaFree(tensor));
  CHECK(cudaFree(frame.planes[0].data));
}

// An antialiased workload's fused preprocess on the path not chosen (the
// single pass where the chosen path is the two passes, the two passes
// forced otherwise), against the chosen path just timed: both times, and
// the tensor's digest, which must be the chosen path's.
void run_other_path(const Workload &w, const Image &source, const ResizeParams &resize_params,
                    const std::function<void(cudaStream_t)> &fused_step,
                    const std::vector<uint8_t> &chosen_bytes, const Stats &chosen,
                    const Stats &chosen_gpu, int out_width, int out_height, void *fused_tensor,
                    cudaStream_t stream, int iterations) {
  bool two_pass = false;
  CHECK(preprocess_chooses_two_passes(source, resize_params, out_width, out_height, &two_pass));
  set_antialias_path(two_pass ? AntialiasPath::kSinglePass : AntialiasPath::kTwoPass);
  const Stats other = time_it(fused_step, stream, iterations);
  const Stats other_gpu = time_graph(fused_step, stream, iterations, 10);
  std::vector<uint8_t> other_bytes(chosen_bytes.size());
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy(other_bytes.data(), fused_tensor, other_bytes.size(), cudaMemcpyDeviceToHost));
  set_antialias_path(AntialiasPath::kChosen);
  const char *chosen_name = two_pass ? "two passes" : "single pass";
  const char *other_name = two_pass ? "single pass" : "two passes";
  std::printf(
      "%-28s fused, chosen path (%s) %6.1f [p10 %6.1f] GPU only %6.1f us; %s %6.1f "
      "[p10 %6.1f] GPU only %6.1f us; %s digest %016llx, two passes == single pass: %s\n",
      w.name.c_str(), chosen_name, chosen.median_us, chosen.p10_us, chosen_gpu.median_us,
      other_name, other.median_us, other.p10_us, other_gpu.median_us, other_name,
      static_cast<unsigned long long>(digest(other_bytes)),
      other_bytes == chosen_bytes ? "yes" : "NO");
}

void run(const Workload &w, cudaStream_t stream, int iterations, double bandwidth_gbs) {
  Image input = make_image(w.input_format, w.input_width, w.input_height, true);
  Image source = input;
  if (w.crop.width > 0) {  // a zero-copy view, as cudacrop makes
    source = sub_image(input, w.crop.x, w.crop.y, w.crop.width, w.crop.height);
  }
  int out_width = w.out_width, out_height = w.out_height;
  std::string error;
  if (out_width == 0 && !short_side_multiple_size(source.width, source.height, w.short_side,
                                                  w.multiple_of, &out_width, &out_height, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    std::exit(1);
  }
  ResizeParams resize_params;
  resize_params.interpolation = w.interpolation;
  resize_params.antialias = w.antialias;
  resize_params.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
  for (int c = 0; c < 3; ++c) resize_params.pad_value[c] = w.pad;
  if (w.letterbox && !letterbox_rect(source.width, source.height, out_width, out_height,
                                     LetterboxOptions{}, &resize_params.dst_rect, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    std::exit(1);
  }
  Image resized = make_image(PixelFormat::kRGB, out_width, out_height, false);
  PlanarImage normalized = make_planar(out_width, out_height, w.dtype);
  NormalizeParams normalize_params;
  for (int c = 0; c < 3; ++c) {
    normalize_params.mean[c] = w.mean[c];
    normalize_params.std[c] = w.std[c];
  }
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 3, out_height, out_width, w.dtype);
  void *tensor = nullptr;
  CHECK(cudaMalloc(&tensor, tensor_span_bytes(desc)));
  void *fused_tensor = nullptr;
  CHECK(cudaMalloc(&fused_tensor, tensor_span_bytes(desc)));

  auto resize_step = [&](cudaStream_t s) { CHECK(resize(source, resized, resize_params, s)); };
  auto normalize_step = [&](cudaStream_t s) {
    CHECK(normalize(resized, normalized, normalize_params, s));
  };
  auto tensorize_step = [&](cudaStream_t s) {
    CHECK(tensorize_planar(normalized, tensor, desc, 0, s));
  };
  auto chain = [&](cudaStream_t s) {
    resize_step(s);
    normalize_step(s);
    tensorize_step(s);
  };
  auto fused_step = [&](cudaStream_t s) {
    CHECK(preprocess(source, resize_params, normalize_params, fused_tensor, desc, 0, s));
  };
  const Stats resize_stats = time_it(resize_step, stream, iterations);
  const Stats normalize_stats = time_it(normalize_step, stream, iterations);
  const Stats tensorize_stats = time_it(tensorize_step, stream, iterations);
  const Stats chain_stats = time_it(chain, stream, iterations);
  const Stats graph_stats = time_graph(chain, stream, iterations);
  const Stats fused_stats = time_it(fused_step, stream, iterations);
  // GPU time without launch gaps: 10 back-to-back copies in one graph, per copy.
  constexpr int kRepeats = 10;
  const Stats resize_gpu = time_graph(resize_step, stream, iterations, kRepeats);
  const Stats normalize_gpu = time_graph(normalize_step, stream, iterations, kRepeats);
  const Stats tensorize_gpu = time_graph(tensorize_step, stream, iterations, kRepeats);
  const Stats chain_gpu = time_graph(chain, stream, iterations, kRepeats);
  const Stats fused_gpu = time_graph(fused_step, stream, iterations, kRepeats);

  // The fused kernel must write exactly the chain's tensor (tests prove it on
  // small frames; this checks it on the workload itself).
  std::vector<uint8_t> chain_bytes(tensor_span_bytes(desc)), fused_bytes(chain_bytes.size());
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy(chain_bytes.data(), tensor, chain_bytes.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(fused_bytes.data(), fused_tensor, fused_bytes.size(), cudaMemcpyDeviceToHost));
  size_t differing_bytes = 0;
  for (size_t i = 0; i < chain_bytes.size(); ++i)
    differing_bytes += chain_bytes[i] != fused_bytes[i];
  // A source deeper than 8 bits keeps its extra bits in the fused kernel,
  // where the chain's resize rounds to bytes: no equality to expect.
  const bool comparable = bits_per_sample(source.format) == 8;
  const std::string fused_verdict =
      !comparable            ? "n/a (deeper than 8 bits)"
      : differing_bytes == 0 ? "yes"
                             : "NO, " + std::to_string(differing_bytes) + " bytes differ";

  // The fewest bytes any implementation must move: the source pixels it
  // samples (at most the whole view) read once, the tensor written once.
  size_t source_bytes = 0;
  for (int p = 0; p < format_info(source.format).num_planes; ++p)
    source_bytes += plane_row_bytes(source.format, p, source.width) *
                    plane_height(source.format, p, source.height);
  const double floor_us = (source_bytes + tensor_span_bytes(desc)) / (bandwidth_gbs * 1e3);
  std::printf(
      "%-28s %4dx%-4d -> %4dx%-4d  resize %6.1f  normalize %6.1f  tensorize %6.1f  "
      "chain %6.1f [p10 %6.1f p90 %6.1f]  graph %6.1f  fused %6.1f [p10 %6.1f p90 %6.1f] us  "
      "roofline %5.1f us\n",
      w.name.c_str(), source.width, source.height, out_width, out_height, resize_stats.median_us,
      normalize_stats.median_us, tensorize_stats.median_us, chain_stats.median_us,
      chain_stats.p10_us, chain_stats.p90_us, graph_stats.median_us, fused_stats.median_us,
      fused_stats.p10_us, fused_stats.p90_us, floor_us);
  std::printf(
      "%-28s %25s  GPU only (x%d in one graph): resize %6.1f  normalize %6.1f  tensorize %6.1f  "
      "chain %6.1f  fused %6.1f us  fused == chain: %s\n",
      "", "", kRepeats, resize_gpu.median_us, normalize_gpu.median_us, tensorize_gpu.median_us,
      chain_gpu.median_us, fused_gpu.median_us, fused_verdict.c_str());
  // Outputs of this build, to compare with another build's run.
  std::printf("%-28s digests: resize %016llx fused %016llx\n", w.name.c_str(),
              static_cast<unsigned long long>(image_digest(resized)),
              static_cast<unsigned long long>(digest(fused_bytes)));
  if (w.antialias) {
    run_other_path(w, source, resize_params, fused_step, fused_bytes, fused_stats, fused_gpu,
                   out_width, out_height, fused_tensor, stream, iterations);
  }
  // The batch table is issue 13's W1-W4; W5 is one frame per step.
  if (w.name.rfind("W5", 0) != 0) {
    run_batches(w, source, resize_params, normalize_params, out_width, out_height, stream,
                iterations, floor_us);
  }
  CHECK(cudaFree(fused_tensor));
  CHECK(cudaFree(tensor));
  CHECK(cudaFree(normalized.planes[0]));
  CHECK(cudaFree(resized.planes[0].data));
  CHECK(cudaFree(input.planes[0].data));
}

}  // namespace

int main(int argc, char **argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::string only = argc > 2 ? argv[2] : "";
  auto selected = [&](const std::string &name) { return name.rfind(only, 0) == 0; };
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CHECK(cudaDriverGetVersion(&driver));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double bandwidth = copy_bandwidth_gbs(stream);
  std::printf(
      "GPU %s, driver API %d, device copy %.0f GB/s (read+write), %d iterations, "
      "times are medians per frame\n",
      prop.name, driver, bandwidth, iterations);
  print_launch_floor(stream, iterations);
  print_host_call_costs(stream, 20 * iterations);
  const float imagenet_mean[3] = {0.485f, 0.456f, 0.406f};
  const float imagenet_std[3] = {0.229f, 0.224f, 0.225f};
  const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  auto workload = [&](std::string name, PixelFormat format, int w, int h, PixelRect crop, int ow,
                      int oh, int short_side, bool letterbox, Interpolation method,
                      const float *mean, const float *std, DataType dtype) {
    Workload wl{name, format,    w,      h,   crop, ow, oh,   short_side,
                14,   letterbox, method, 114, {},   {}, dtype};
    for (int c = 0; c < 3; ++c) {
      wl.mean[c] = mean[c];
      wl.std[c] = std[c];
    }
    return wl;
  };
  auto run_selected = [&](const Workload &wl) {
    if (selected(wl.name)) run(wl, stream, iterations, bandwidth);
  };
  for (PixelFormat format : {PixelFormat::kRGBA, PixelFormat::kNV12, PixelFormat::kP010}) {
    const char *format_name = pixel_format_name(format);
    run_selected(workload(std::string("W1 detector ") + format_name, format, 1920, 1080, {}, 640,
                          640, 0, true, Interpolation::kBilinear, zero, one, DataType::kFloat32));
    run_selected(workload(std::string("W2 depth ") + format_name, format, 1920, 1080, {}, 0, 0, 518,
                          false, Interpolation::kBicubic, imagenet_mean, imagenet_std,
                          DataType::kFloat32));
    run_selected(workload(std::string("W3 classifier crop ") + format_name, format, 1920, 1080,
                          {700, 300, 512, 512}, 224, 224, 0, false, Interpolation::kBilinear,
                          imagenet_mean, imagenet_std, DataType::kFloat16));
    run_selected(workload(std::string("W4 4K ") + format_name, format, 3840, 2160, {}, 640, 640, 0,
                          true, Interpolation::kBilinear, zero, one, DataType::kFloat32));
  }
  // W5: torchvision's classifier transform, Resize(256) of 1080p and 4K,
  // OpenCV's sampling beside the antialiased one.
  for (const auto &[format, w, h] :
       {std::tuple{PixelFormat::kRGBA, 1920, 1080}, std::tuple{PixelFormat::kNV12, 3840, 2160},
        std::tuple{PixelFormat::kNV12, 1920, 1080}, std::tuple{PixelFormat::kRGBA, 3840, 2160},
        std::tuple{PixelFormat::kP010, 3840, 2160}, std::tuple{PixelFormat::kI420, 3840, 2160}}) {
    for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
      for (const bool antialias : {false, true}) {
        Workload wl =
            workload(std::string("W5 ") + pixel_format_name(format) + " " + std::to_string(h) +
                         "p " + interpolation_name(method) + (antialias ? " aa" : ""),
                     format, w, h, {}, 0, 0, 256, false, method, imagenet_mean, imagenet_std,
                     DataType::kFloat32);
        wl.multiple_of = 1;
        wl.antialias = antialias;
        run_selected(wl);
      }
    }
  }
  // W6: RGB bicubic shrinks around the two passes' threshold for RGB
  // bicubic (antialias_two_pass_launch.cuh), 16 to 33 taps, each path timed.
  for (const auto &[w, h, short_side] :
       {std::tuple{3840, 2160, 640}, std::tuple{3840, 2160, 608}, std::tuple{3840, 2160, 576},
        std::tuple{3840, 2160, 512}, std::tuple{3840, 2160, 400}, std::tuple{3840, 2160, 320},
        std::tuple{1920, 1080, 200}, std::tuple{1920, 1080, 144}}) {
    Workload wl =
        workload(std::string("W6 RGBA ") + std::to_string(h) + "p to " +
                     std::to_string(short_side) + " bicubic aa",
                 PixelFormat::kRGBA, w, h, {}, 0, 0, short_side, false, Interpolation::kBicubic,
                 imagenet_mean, imagenet_std, DataType::kFloat32);
    wl.multiple_of = 1;
    wl.antialias = true;
    run_selected(wl);
  }
  for (PixelFormat format : {PixelFormat::kRGBA, PixelFormat::kNV12})
    if (selected("64 regions")) run_regions(format, stream, iterations, bandwidth);
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
