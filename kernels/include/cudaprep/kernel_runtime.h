// The kernels are compiled at run time, by NVRTC, for the GPU in hand
// (docs/kernels.md): the first launch of a variant (operation, formats,
// sampler, dtype...) on an architecture compiles it, or loads it from the
// disk cache; the prepare_*() functions of each operation do that ahead of
// the first frame. This header controls the cache and reports what the
// runtime did.
#pragma once

#include <cstdint>
#include <string>

namespace cudaprep {

struct KernelRuntimeStats {
  uint64_t compiled = 0;          // modules NVRTC compiled in this process
  uint64_t loaded_from_disk = 0;  // modules read from the disk cache
  uint64_t found_in_memory = 0;   // requests answered by a module already loaded
  double compile_seconds = 0;     // NVRTC time, all modules
  double load_seconds = 0;        // disk reads and module loads, all modules
};

// Counters of this copy of the kernel library (each library linking it
// statically, such as the GStreamer plugin, keeps its own).
KernelRuntimeStats kernel_runtime_stats();

// The directory of the disk cache, empty when there is none. Default:
// $CUDAPREP_KERNEL_CACHE_DIR if set (set and empty: no disk cache), else
// $XDG_CACHE_HOME/cudaprep/kernels, else $HOME/.cache/cudaprep/kernels.
std::string kernel_cache_directory();

// Uses `directory` for the disk cache from now on in this process ("":
// none). Modules already loaded stay loaded.
void set_kernel_cache_directory(const std::string &directory);

// Why the calling thread's last kernel compile or load failed (NVRTC
// missing and what to install, NVRTC's log, the CUDA error), or "".
std::string kernel_runtime_error();

}  // namespace cudaprep
