#include "runtime_kernels.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "cudaprep/kernel_runtime.h"
#include "kernel_cache.h"
#include "kernel_sources.h"
#include "nvrtc_library.h"

namespace cudaprep::runtime {
namespace {

struct Counters {
  std::atomic<uint64_t> compiled{0};
  std::atomic<uint64_t> loaded_from_disk{0};
  std::atomic<uint64_t> found_in_memory{0};
  std::atomic<int64_t> compile_ns{0};
  std::atomic<int64_t> load_ns{0};
};

Counters &counters() {
  static Counters instance;
  return instance;
}

struct CacheSetting {
  std::mutex mutex;
  bool overridden = false;
  std::string directory;
};

CacheSetting &cache_setting() {
  static CacheSetting instance;
  return instance;
}

KernelCache current_cache() {
  CacheSetting &setting = cache_setting();
  std::lock_guard<std::mutex> lock(setting.mutex);
  return KernelCache(setting.overridden ? setting.directory : default_kernel_cache_directory());
}

int64_t nanoseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

// What NVRTC builds for a GPU of `gpu_arch`: its own cubin when NVRTC knows
// the architecture, else PTX of the newest one below it, which the driver
// compiles for the GPU.
struct Target {
  int arch = 0;
  bool ptx = false;
};

bool target_for(const NvrtcApi &api, int gpu_arch, Target *target, std::string *error) {
  int count = 0;
  if (api.get_num_supported_archs(&count) != 0 || count <= 0) {
    *error = "NVRTC (" + api.path + ") lists no architectures";
    return false;
  }
  std::vector<int> archs(static_cast<size_t>(count));
  api.get_supported_archs(archs.data());
  if (std::find(archs.begin(), archs.end(), gpu_arch) != archs.end()) {
    *target = {gpu_arch, false};
    return true;
  }
  int below = 0;
  for (int arch : archs) {
    if (arch < gpu_arch) below = std::max(below, arch);
  }
  if (below == 0) {
    *error = "NVRTC (" + api.path + ") cannot compile for compute capability " +
             std::to_string(gpu_arch / 10) + "." + std::to_string(gpu_arch % 10);
    return false;
  }
  *target = {below, true};
  return true;
}

// -default-device: the shared headers' unannotated helpers (constexpr
// maths, names) are device functions here. The same floating-point rules as nvcc's defaults
// (contracted multiply-adds, IEEE division and square root, denormals kept), which the kernels'
// explicit _rn intrinsics rely on for the reference results.
std::vector<std::string> compile_options(const Target &target) {
  return {(target.ptx ? "-arch=compute_" : "-arch=sm_") + std::to_string(target.arch),
          "-std=c++17",
          "-default-device",
          "-fmad=true",
          "-ftz=false",
          "-prec-div=true",
          "-prec-sqrt=true"};
}

std::string nvrtc_version(const NvrtcApi &api) {
  int major = 0, minor = 0;
  api.version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string key_for(const std::string &version, const Target &target,
                    const KernelRequest &request) {
  std::string key = "cudaprep kernel module\nsources " + std::string(kKernelSourcesHash) +
                    "\nnvrtc " + version + "\noptions";
  for (const std::string &option : compile_options(target)) key += " " + option;
  return key + "\nheader " + request.header + "\nkernel " + request.name_expression + "\n";
}

// Cache payload: 'C' (cubin) or 'P' (PTX), the lowered name, NUL, the image.
std::vector<char> serialize(const CompiledModule &module) {
  std::vector<char> bytes;
  bytes.push_back(module.is_ptx ? 'P' : 'C');
  bytes.insert(bytes.end(), module.lowered_name.begin(), module.lowered_name.end());
  bytes.push_back('\0');
  bytes.insert(bytes.end(), module.image.begin(), module.image.end());
  return bytes;
}

bool deserialize(const std::vector<char> &bytes, CompiledModule *module) {
  if (bytes.size() < 3 || (bytes[0] != 'C' && bytes[0] != 'P')) return false;
  const auto name_end = std::find(bytes.begin() + 1, bytes.end(), '\0');
  if (name_end == bytes.end() || name_end == bytes.begin() + 1 || name_end + 1 == bytes.end()) {
    return false;
  }
  module->is_ptx = bytes[0] == 'P';
  module->lowered_name.assign(bytes.begin() + 1, name_end);
  module->image.assign(name_end + 1, bytes.end());
  return true;
}

cudaError_t load_module(const CompiledModule &module, const void **kernel, std::string *error) {
  cudaLibrary_t library = nullptr;
  std::vector<char> image = module.image;
  if (module.is_ptx && (image.empty() || image.back() != '\0')) image.push_back('\0');
  cudaError_t err =
      cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (err == cudaSuccess) {
    cudaKernel_t handle = nullptr;
    err = cudaLibraryGetKernel(&handle, library, module.lowered_name.c_str());
    if (err == cudaSuccess) {
      *kernel = reinterpret_cast<const void *>(handle);
      return cudaSuccess;
    }
    cudaLibraryUnload(library);
  }
  cudaGetLastError();
  *error = std::string("loading the compiled kernel ") + module.lowered_name +
           " failed: " + cudaGetErrorString(err);
  return err;
}

int current_gpu_arch(cudaError_t *err) {
  int device = 0, major = 0, minor = 0;
  *err = cudaGetDevice(&device);
  if (*err == cudaSuccess) {
    *err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  }
  if (*err == cudaSuccess) {
    *err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  }
  return major * 10 + minor;
}

// The packager's precompiled modules (meson -Dprecompile): read only, made
// by the NVRTC version its manifest names, so that a machine without NVRTC
// finds them too. $CUDAPREP_PRECOMPILED_KERNEL_DIR, else the installed one.
std::string precompiled_directory() {
  if (const char *directory = std::getenv("CUDAPREP_PRECOMPILED_KERNEL_DIR")) return directory;
#ifdef CUDAPREP_PRECOMPILED_KERNEL_DIR
  return CUDAPREP_PRECOMPILED_KERNEL_DIR;
#else
  return {};
#endif
}

std::string read_manifest_version(const std::string &directory) {
  if (directory.empty()) return {};
  std::ifstream manifest(directory + "/" + kPrecompiledManifest);
  std::string version;
  std::getline(manifest, version);
  return version;
}

bool load_entry(const KernelCache &cache, const std::string &key, const void **kernel) {
  const auto load_start = std::chrono::steady_clock::now();
  CompiledModule module;
  std::string load_error;
  const auto bytes = cache.load(key);
  if (!bytes || !deserialize(*bytes, &module) ||
      load_module(module, kernel, &load_error) != cudaSuccess) {
    return false;  // an entry that passed its checks but does not load is not trusted either
  }
  counters().loaded_from_disk++;
  counters().load_ns += nanoseconds_since(load_start);
  return true;
}

// The disk cache's module, or the precompiled one, or NVRTC's (stored for
// the next process), loaded.
cudaError_t load_or_compile(const KernelRequest &request, int gpu_arch, const void **kernel,
                            std::string *error) {
  std::string nvrtc_error;
  const NvrtcApi *api = nvrtc_api(&nvrtc_error);
  const KernelCache cache = current_cache();
  const KernelCache precompiled(precompiled_directory());
  const std::string precompiled_version = read_manifest_version(precompiled.directory());
  if (api == nullptr) {
    // Without NVRTC only the precompiled modules of this very GPU.
    const Target exact{gpu_arch, false};
    if (!precompiled_version.empty() &&
        load_entry(precompiled, key_for(precompiled_version, exact, request), kernel)) {
      return cudaSuccess;
    }
    *error = nvrtc_error;
    return cudaErrorJitCompilerNotFound;
  }
  Target target;
  if (!target_for(*api, gpu_arch, &target, error)) return cudaErrorNoKernelImageForDevice;
  const std::string key = key_for(nvrtc_version(*api), target, request);
  if (load_entry(cache, key, kernel) || load_entry(precompiled, key, kernel)) return cudaSuccess;
  CompiledModule module;
  const auto compile_start = std::chrono::steady_clock::now();
  *error = compile_module(request, gpu_arch, &module);
  if (!error->empty()) return cudaErrorInvalidSource;
  counters().compiled++;
  counters().compile_ns += nanoseconds_since(compile_start);
  cache.store(key, serialize(module));  // best effort: the next process compiles again
  return load_module(module, kernel, error);
}

// The key under which the disk cache keeps `request` compiled for
// `gpu_arch` by the NVRTC loaded; "" without NVRTC.
std::string module_key(const KernelRequest &request, int gpu_arch) {
  std::string error;
  const NvrtcApi *api = nvrtc_api(&error);
  Target target;
  if (api == nullptr || !target_for(*api, gpu_arch, &target, &error)) return {};
  return key_for(nvrtc_version(*api), target, request);
}

struct Slot {
  std::mutex mutex;
  bool done = false;
  cudaError_t result = cudaSuccess;
  const void *kernel = nullptr;
  std::string error;
};

std::shared_ptr<Slot> slot_for(const std::string &key) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<Slot>> slots;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Slot> &slot = slots[key];
  if (!slot) slot = std::make_shared<Slot>();
  return slot;
}

}  // namespace

std::string loaded_nvrtc_version() {
  const NvrtcApi *api = nvrtc_api(nullptr);
  return api != nullptr ? nvrtc_version(*api) : "";
}

std::string precompile_into(const KernelRequest &request, int gpu_arch, const KernelCache &cache,
                            bool *compiled) {
  *compiled = false;
  const std::string key = module_key(request, gpu_arch);
  if (key.empty()) {
    std::string error;
    nvrtc_api(&error);
    return error.empty() ? "NVRTC cannot compile for this architecture" : error;
  }
  CompiledModule module;
  if (const auto bytes = cache.load(key); bytes && deserialize(*bytes, &module)) return {};
  std::string error = compile_module(request, gpu_arch, &module);
  if (!error.empty()) return error;
  *compiled = true;
  return cache.store(key, serialize(module));
}

std::string compile_module(const KernelRequest &request, int gpu_arch, CompiledModule *module) {
  std::string error;
  const NvrtcApi *api = nvrtc_api(&error);
  if (api == nullptr) return error;
  Target target;
  if (!target_for(*api, gpu_arch, &target, &error)) return error;
  std::vector<const char *> names, texts;
  for (size_t i = 0; i < kKernelSourceCount; ++i) {
    names.push_back(kKernelSources[i].include_name);
    texts.push_back(kKernelSources[i].text);
  }
  const std::string source = std::string("#include \"") + request.header + "\"\n";
  void *program = nullptr;
  int result = api->create_program(&program, source.c_str(), "cudaprep_kernel.cu",
                                   static_cast<int>(names.size()), texts.data(), names.data());
  if (result != 0) return std::string("nvrtcCreateProgram: ") + api->get_error_string(result);
  const std::vector<std::string> options = compile_options(target);
  std::vector<const char *> option_pointers;
  for (const std::string &option : options) option_pointers.push_back(option.c_str());
  result = api->add_name_expression(program, request.name_expression.c_str());
  if (result == 0) {
    result = api->compile_program(program, static_cast<int>(option_pointers.size()),
                                  option_pointers.data());
  }
  if (result != 0) {
    size_t log_size = 0;
    api->get_program_log_size(program, &log_size);
    std::string log(log_size, '\0');
    if (log_size > 0) api->get_program_log(program, log.data());
    error = std::string("NVRTC could not compile ") + request.name_expression + " (" +
            request.header + "): " + api->get_error_string(result) + "\n" + log;
    api->destroy_program(&program);
    return error;
  }
  const char *lowered = nullptr;
  api->get_lowered_name(program, request.name_expression.c_str(), &lowered);
  module->lowered_name = lowered != nullptr ? lowered : "";
  module->is_ptx = target.ptx;
  size_t size = 0;
  result = target.ptx ? api->get_ptx_size(program, &size) : api->get_cubin_size(program, &size);
  if (result == 0) {
    module->image.resize(size);
    result = target.ptx ? api->get_ptx(program, module->image.data())
                        : api->get_cubin(program, module->image.data());
  }
  api->destroy_program(&program);
  if (result != 0 || module->lowered_name.empty() || module->image.empty()) {
    return std::string("NVRTC gave no module for ") + request.name_expression;
  }
  return {};
}

cudaError_t find_kernel(const KernelRequest &request, const void **kernel) {
  int device = -1;
  const bool cached_device = cudaGetDevice(&device) == cudaSuccess && device >= 0 &&
                             device < KernelRequest::kCachedDevices;
  if (cached_device) {
    if (const void *handle = request.handles[device].load(std::memory_order_acquire)) {
      counters().found_in_memory.fetch_add(1, std::memory_order_relaxed);
      *kernel = handle;
      return cudaSuccess;
    }
  }
  cudaError_t err = cudaSuccess;
  const int gpu_arch = current_gpu_arch(&err);
  if (err != cudaSuccess) {
    set_thread_error(std::string("no CUDA device: ") + cudaGetErrorString(err));
    return err;
  }
  const std::shared_ptr<Slot> slot =
      slot_for(std::to_string(gpu_arch) + "\n" + request.header + "\n" + request.name_expression);
  std::lock_guard<std::mutex> lock(slot->mutex);
  if (slot->done) {
    counters().found_in_memory++;
  } else {
    slot->result = load_or_compile(request, gpu_arch, &slot->kernel, &slot->error);
    // A failed load (say, out of memory) is tried again next time; what
    // NVRTC refused or cannot do stays refused.
    slot->done = slot->result == cudaSuccess || slot->result == cudaErrorInvalidSource ||
                 slot->result == cudaErrorJitCompilerNotFound ||
                 slot->result == cudaErrorNoKernelImageForDevice;
  }
  if (slot->result != cudaSuccess) {
    set_thread_error(slot->error);
    return slot->result;
  }
  *kernel = slot->kernel;
  if (cached_device) request.handles[device].store(slot->kernel, std::memory_order_release);
  return cudaSuccess;
}

}  // namespace cudaprep::runtime

namespace cudaprep {

KernelRuntimeStats kernel_runtime_stats() {
  const runtime::Counters &source = runtime::counters();
  KernelRuntimeStats stats;
  stats.compiled = source.compiled;
  stats.loaded_from_disk = source.loaded_from_disk;
  stats.found_in_memory = source.found_in_memory;
  stats.compile_seconds = static_cast<double>(source.compile_ns) * 1e-9;
  stats.load_seconds = static_cast<double>(source.load_ns) * 1e-9;
  return stats;
}

std::string kernel_cache_directory() {
  return runtime::current_cache().directory();
}

void set_kernel_cache_directory(const std::string &directory) {
  runtime::CacheSetting &setting = runtime::cache_setting();
  std::lock_guard<std::mutex> lock(setting.mutex);
  setting.overridden = true;
  setting.directory = directory;
}

}  // namespace cudaprep
