// Host time of the CUDA calls a frame's path makes: hot (back to back),
// slept (each call after the thread slept 2 ms) and cold (after the sleep,
// 64 MB of other memory went through the caches too, as between two frames
// of a live camera's streaming thread when 31 others ran meanwhile). Tells which calls to cut from
// the per-frame path: the upload's 2D copies of a 1080p NV12 frame (the rows a bilinear downscale
// to 360 lines reads: 3 strided copies; both planes whole: 2 copies; both planes as one copy, where
// they lie back to back at one pitch), an event record, a stream wait, cudaEventQuery and
// cudaEventSynchronize of a completed event, cudaPointerGetAttributes, cudaSetDevice. Wall time
// around the calls alone, median and p90 over the rounds, us.
//   bench_host_calls [cold and slept rounds=300] [hot rounds=3000]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "check_cuda.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWidth = 1920, kHeight = 1080;
constexpr size_t kEvictBytes = 64u << 20;

struct Frame {
  unsigned char *host = nullptr;  // pinned, NV12, pitch kWidth, planes back to back
  unsigned char *device = nullptr;
  size_t device_pitch = 0;  // planes back to back at this pitch
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr, done = nullptr;
};

// One 2D copy of `rows` rows every `period`-th from `first` of the plane at
// row `plane_row` (0 luma, kHeight chroma).
void copy_rows(const Frame &f, int plane_row, int first, int period, int rows) {
  CHECK_CUDA(cudaMemcpy2DAsync(f.device + (plane_row + first) * f.device_pitch,
                               period * f.device_pitch, f.host + (plane_row + first) * kWidth,
                               period * kWidth, kWidth, rows, cudaMemcpyHostToDevice, f.stream));
}

struct Call {
  std::string name;
  std::function<void()> run;
};

double percentile(std::vector<double> us, int p) {
  std::sort(us.begin(), us.end());
  return us[us.size() * p / 100];
}

// Median and p90 of `call` over `rounds`, each after `before` (not timed);
// the stream is drained every 16 rounds (not timed) so that it never fills.
void time_call(const Call &call, const Frame &f, int rounds, const std::function<void()> &before,
               const char *mode) {
  std::vector<double> us;
  for (int i = 0; i < rounds; ++i) {
    before();
    const Clock::time_point start = Clock::now();
    call.run();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (i % 16 == 15) CHECK_CUDA(cudaStreamSynchronize(f.stream));
  }
  CHECK_CUDA(cudaStreamSynchronize(f.stream));
  std::printf("%-44s %-5s median %6.2f us  p90 %6.2f us\n", call.name.c_str(), mode,
              percentile(us, 50), percentile(us, 90));
}

}  // namespace

int main(int argc, char **argv) {
  const int cold_rounds = argc > 1 ? std::atoi(argv[1]) : 300;
  const int hot_rounds = argc > 2 ? std::atoi(argv[2]) : 3000;
  if (cold_rounds < 10 || hot_rounds < 10) {
    std::fprintf(stderr, "usage: bench_host_calls [cold rounds >= 10] [hot rounds >= 10]\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  CHECK_CUDA(cudaSetDevice(0));
  Frame f;
  const int rows = kHeight * 3 / 2;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void **>(&f.host), size_t{kWidth} * rows,
                           cudaHostAllocPortable));
  std::memset(f.host, 7, size_t{kWidth} * rows);
  CHECK_CUDA(cudaMallocPitch(reinterpret_cast<void **>(&f.device), &f.device_pitch, kWidth, rows));
  CHECK_CUDA(cudaStreamCreateWithFlags(&f.stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaEventCreateWithFlags(&f.event, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&f.done, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventRecord(f.done, f.stream));
  CHECK_CUDA(cudaStreamSynchronize(f.stream));

  const std::vector<Call> calls = {
      {"3 strided 2D copies (rows for 360 lines)",
       [&] {
         copy_rows(f, 0, 1, 3, 360);
         copy_rows(f, kHeight, 0, 3, 180);
         copy_rows(f, kHeight, 2, 3, 180);
       }},
      {"2 2D copies (each plane whole)",
       [&] {
         copy_rows(f, 0, 0, 1, kHeight);
         copy_rows(f, kHeight, 0, 1, kHeight / 2);
       }},
      {"1 2D copy (both planes, back to back)", [&] { copy_rows(f, 0, 0, 1, rows); }},
      {"1 strided 2D copy (360 rows)", [&] { copy_rows(f, 0, 1, 3, 360); }},
      {"cudaEventRecord", [&] { CHECK_CUDA(cudaEventRecord(f.event, f.stream)); }},
      {"cudaStreamWaitEvent", [&] { CHECK_CUDA(cudaStreamWaitEvent(f.stream, f.done, 0)); }},
      {"cudaEventQuery (completed)", [&] { CHECK_CUDA(cudaEventQuery(f.done)); }},
      {"cudaEventSynchronize (completed)", [&] { CHECK_CUDA(cudaEventSynchronize(f.done)); }},
      {"cudaPointerGetAttributes (pinned)",
       [&] {
         cudaPointerAttributes attributes;
         CHECK_CUDA(cudaPointerGetAttributes(&attributes, f.host));
       }},
      {"cudaSetDevice (already current)", [&] { CHECK_CUDA(cudaSetDevice(0)); }},
  };
  std::vector<unsigned char> evict(kEvictBytes);
  unsigned sink = 0;
  const auto go_cold = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (size_t i = 0; i < evict.size(); i += 64) sink += ++evict[i];
  };
  const auto just_sleep = [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
  const auto stay_hot = [] {};
  std::printf("1080p NV12, pinned host -> device pitch %zu; cold: %d rounds, hot: %d rounds\n",
              f.device_pitch, cold_rounds, hot_rounds);
  for (const Call &call : calls) {
    time_call(call, f, cold_rounds, go_cold, "cold");
    time_call(call, f, cold_rounds, just_sleep, "slept");
    time_call(call, f, hot_rounds, stay_hot, "hot");
  }
  if (sink == 1) std::printf(" \n");  // keeps the eviction loop
  CHECK_CUDA(cudaEventDestroy(f.event));
  CHECK_CUDA(cudaEventDestroy(f.done));
  CHECK_CUDA(cudaStreamDestroy(f.stream));
  CHECK_CUDA(cudaFree(f.device));
  CHECK_CUDA(cudaFreeHost(f.host));
  return 0;
}
