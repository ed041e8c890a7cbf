#include "antialias_two_pass.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

namespace cudaprep {
namespace {

std::atomic<AntialiasPath> &path_setting() {
  static std::atomic<AntialiasPath> path{AntialiasPath::kChosen};
  return path;
}

// The row sums' pool of `device`, made on first use. Freed memory stays in
// it (release threshold: all), and it does not hand one stream memory
// another stream freed behind a wait it inserts, which would order two
// elements' streams (internal dependencies off); opportunistic reuse, of
// memory whose free has run on the GPU, stays on.
cudaError_t row_sums_pool(int device, cudaMemPool_t *pool) {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = pools.find(device); found != pools.end()) {
    *pool = found->second;
    return cudaSuccess;
  }
  int supported = 0;
  cudaError_t err = cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device);
  if (err != cudaSuccess) return err;
  if (!supported) return cudaErrorNotSupported;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t created = nullptr;
  err = cudaMemPoolCreate(&created, &props);
  if (err != cudaSuccess) return err;
  uint64_t keep_all = UINT64_MAX;
  int no_internal_dependencies = 0;
  err = cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &keep_all);
  if (err == cudaSuccess) {
    err = cudaMemPoolSetAttribute(created, cudaMemPoolReuseAllowInternalDependencies,
                                  &no_internal_dependencies);
  }
  if (err != cudaSuccess) {
    (void)cudaMemPoolDestroy(created);  // the error to report is the first
    return err;
  }
  pools[device] = created;
  *pool = created;
  return cudaSuccess;
}

}  // namespace

void set_antialias_path(AntialiasPath path) {
  path_setting().store(path);
}

AntialiasPath antialias_path() {
  return path_setting().load();
}

cudaError_t allocate_row_sums(size_t bytes, cudaStream_t stream, float **data) {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  cudaMemPool_t pool = nullptr;
  err = row_sums_pool(device, &pool);
  if (err != cudaSuccess) return err;
  void *memory = nullptr;
  err = cudaMallocFromPoolAsync(&memory, bytes, pool, stream);
  if (err != cudaSuccess) return err;
  *data = static_cast<float *>(memory);
  return cudaSuccess;
}

cudaError_t free_row_sums(float *data, cudaStream_t stream) {
  return cudaFreeAsync(data, stream);
}

cudaError_t prepare_row_sums_pool() {
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  cudaMemPool_t pool = nullptr;
  const cudaError_t made = row_sums_pool(device, &pool);
  return made == cudaErrorNotSupported ? cudaSuccess : made;
}

}  // namespace cudaprep
