// Host resident memory and device memory in use, to show both stay flat
// over long runs.
#pragma once

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>

struct MemoryUse {
  double host_mb = 0, device_mb = 0;
};

inline MemoryUse memory_use() {
  MemoryUse use;
  std::FILE *statm = std::fopen("/proc/self/statm", "r");
  long total_pages = 0, resident_pages = 0;
  if (statm != nullptr) {
    if (std::fscanf(statm, "%ld %ld", &total_pages, &resident_pages) != 2) resident_pages = 0;
    std::fclose(statm);
  }
  use.host_mb = resident_pages * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
    use.device_mb = static_cast<double>(total_bytes - free_bytes) / (1 << 20);
  return use;
}
