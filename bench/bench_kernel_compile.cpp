// First use of the runtime-compiled kernels (docs/kernels.md), per typical
// pipeline: the prepare_*() calls its elements make when they negotiate,
// timed on the wall clock, with what the runtime did (compiled by NVRTC,
// loaded from the disk cache). Run it twice with the same
// CUDAPREP_KERNEL_CACHE_DIR: the first run shows a cold cache, the second a
// warm one (each process starts with nothing loaded).
//   bench_kernel_compile
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cudaprep/kernel_runtime.h"
#include "cudaprep/normalize.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/preprocess_batch.h"
#include "cudaprep/resize.h"
#include "cudaprep/tensorize.h"

namespace {

using namespace cudaprep;

ResizeParams sampler(Interpolation method, bool antialias = false) {
  ResizeParams params;
  params.interpolation = method;
  params.antialias = antialias;
  return params;
}

struct Pipeline {
  std::string name;
  std::function<cudaError_t()> prepare;  // what its elements prepare
};

}  // namespace

int main() {
  const PixelFormat nv12 = PixelFormat::kNV12;
  const std::vector<Pipeline> pipelines = {
      // cudaresize (fused into cudatensorize) and cudatensorize's own kernel.
      {"W1 detector NV12, fused, cudatensorize",
       [&] {
         cudaError_t err =
             prepare_preprocess(nv12, sampler(Interpolation::kBilinear), DataType::kFloat32);
         if (err == cudaSuccess)
           err = prepare_tensorize_planar(DataType::kFloat32, DataType::kFloat32);
         return err;
       }},
      {"W1 detector NV12, batch of 8 (cudabatch)",
       [&] {
         cudaError_t err = prepare_preprocess_batch(&nv12, 1, sampler(Interpolation::kBilinear),
                                                    DataType::kFloat32, 8);
         if (err == cudaSuccess)
           err = prepare_tensorize_planar(DataType::kFloat32, DataType::kFloat32);
         return err;
       }},
      {"W1 detector NV12, element by element",
       [&] {
         cudaError_t err = prepare_resize(nv12, sampler(Interpolation::kBilinear));
         if (err == cudaSuccess)
           err = prepare_normalize(PixelFormat::kRGB, ChannelOrder::kRGB, DataType::kFloat32);
         if (err == cudaSuccess)
           err = prepare_tensorize_planar(DataType::kFloat32, DataType::kFloat32);
         return err;
       }},
      {"W2 depth NV12 bicubic, batch of 8",
       [&] {
         return prepare_preprocess_batch(&nv12, 1, sampler(Interpolation::kBicubic),
                                         DataType::kFloat32, 8);
       }},
      {"W3 classifier crop NV12, float16, batch of 32",
       [&] {
         return prepare_preprocess_batch(&nv12, 1, sampler(Interpolation::kBilinear),
                                         DataType::kFloat16, 32);
       }},
      // timm's ViT config: bicubic resize with antialias, RGBA upload.
      {"model config (timm vit, RGBA, bicubic antialias)",
       [&] {
         return prepare_preprocess(PixelFormat::kRGBA, sampler(Interpolation::kBicubic, true),
                                   DataType::kFloat32);
       }},
  };
  if (cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  std::printf("kernel cache: %s\n", kernel_cache_directory().c_str());
  int failures = 0;
  for (const Pipeline &pipeline : pipelines) {
    const KernelRuntimeStats before = kernel_runtime_stats();
    const auto start = std::chrono::steady_clock::now();
    const cudaError_t err = pipeline.prepare();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const KernelRuntimeStats after = kernel_runtime_stats();
    std::printf("%-52s %9.1f ms  compiled %2llu  loaded %2llu  in memory %2llu  %s\n",
                pipeline.name.c_str(), ms,
                static_cast<unsigned long long>(after.compiled - before.compiled),
                static_cast<unsigned long long>(after.loaded_from_disk - before.loaded_from_disk),
                static_cast<unsigned long long>(after.found_in_memory - before.found_in_memory),
                err == cudaSuccess ? "" : kernel_runtime_error().c_str());
    failures += err != cudaSuccess;
  }
  const KernelRuntimeStats total = kernel_runtime_stats();
  std::printf("total: %llu compiled in %.2f s, %llu loaded in %.3f s\n",
              static_cast<unsigned long long>(total.compiled), total.compile_seconds,
              static_cast<unsigned long long>(total.loaded_from_disk), total.load_seconds);
  return failures == 0 ? 0 : 1;
}
