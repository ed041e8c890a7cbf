// Kernels compiled at run time (docs/kernels.md): a kernel is a template
// instantiation, named by its C++ name expression, in one of the kernel
// headers (kernels/*_kernel.cuh). The first request for it on a GPU
// architecture compiles that header with NVRTC for the architecture (or
// loads the module from the disk cache); later requests find it in memory.
// Each kernel takes one argument, a struct the host fills (*Args in the
// kernel headers), so host and device agree on the parameters by
// construction.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "../launch.cuh"

namespace cudaprep::runtime {

struct KernelRequest {
  KernelRequest(const char *header, std::string name_expression)
      : header(header), name_expression(std::move(name_expression)) {}
  // A copy names the same kernel and finds its handles anew.
  KernelRequest(const KernelRequest &other)
      : header(other.header), name_expression(other.name_expression) {}
  KernelRequest &operator=(const KernelRequest &) = delete;

  const char *header;           // e.g. "resize_kernel.cuh"
  std::string name_expression;  // e.g. "cudaprep::resize_kernel<...>"

  // The handle find_kernel() found on each device (0 to kCachedDevices - 1)
  // of this request, kept by the launchers' long-lived requests: a launch
  // after the first costs an atomic load, not a lookup.
  static constexpr int kCachedDevices = 16;
  mutable std::atomic<const void *> handles[kCachedDevices] = {};
};

// The kernel of `request` for the calling thread's current device, as a
// handle cudaLaunchKernel takes. On failure returns cudaErrorJitCompilerNotFound
// (no NVRTC), cudaErrorInvalidSource (NVRTC refused the source) or the CUDA
// error of loading it; kernel_runtime_error() then says why.
cudaError_t find_kernel(const KernelRequest &request, const void **kernel);

// A module as NVRTC made it for one architecture: a cubin, or PTX for an
// architecture newer than NVRTC knows (the driver compiles that).
struct CompiledModule {
  bool is_ptx = false;
  std::string lowered_name;  // the kernel's symbol in the image
  std::vector<char> image;
};

// `gpu_arch`: compute capability as major * 10 + minor (90 for an H100).
// Compiles `request` with NVRTC, no GPU needed. Returns "" or why not
// (NVRTC missing, its log).
std::string compile_module(const KernelRequest &request, int gpu_arch, CompiledModule *module);

class KernelCache;

// The file of a precompiled directory that names the NVRTC version its
// modules were compiled by ("13.0").
constexpr const char *kPrecompiledManifest = "nvrtc-version";

// The version of the NVRTC loaded ("13.0"), "" without one.
std::string loaded_nvrtc_version();

// Compiles `request` for `gpu_arch` into `cache` unless an intact entry is
// there already (`compiled` says which). "" or why not.
std::string precompile_into(const KernelRequest &request, int gpu_arch, const KernelCache &cache,
                            bool *compiled);

// Records why the calling thread's last kernel request failed
// (kernel_runtime_error(); runtime_error.cpp).
void set_thread_error(std::string error);

// find_kernel() for its side effect: the kernel compiled or loaded now.
inline cudaError_t prepare_kernel(const KernelRequest &request) {
  const void *kernel = nullptr;
  return find_kernel(request, &kernel);
}

template <class Args>
cudaError_t launch_kernel(const KernelRequest &request, const LaunchShape &shape,
                          size_t shared_bytes, cudaStream_t stream, const Args &args) {
  const void *kernel = nullptr;
  const cudaError_t found = find_kernel(request, &kernel);
  if (found != cudaSuccess) return found;
  void *params[] = {const_cast<Args *>(&args)};
  return cudaLaunchKernel(kernel, shape.grid, shape.block, params, shared_bytes, stream);
}

}  // namespace cudaprep::runtime
