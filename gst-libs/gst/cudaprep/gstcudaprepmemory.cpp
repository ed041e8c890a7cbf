#include "gstcudaprepmemory.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "gstcudaprepcuda-private.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_memory_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_memory_debug

namespace {

std::atomic<guint64> allocation_count{0};
// Why this thread's last allocation failed, for the element that asked.
thread_local cudaError_t last_allocation_error = cudaSuccess;

// The synchronisation state of one device allocation, shared by the memory
// that owns it and every memory shared from it.
struct SyncState {
  std::mutex lock;
  cudaEvent_t write_event = nullptr;
  bool written = false;
  cudaStream_t write_stream = nullptr;  // the stream write_event was last recorded on
  struct Read {
    cudaEvent_t event;
    cudaStream_t stream;  // the reader stream it was last recorded on
  };
  std::vector<Read> reads;  // reused: only the first active_reads are pending
  size_t active_reads = 0;
  // Host copy for maps without GST_MAP_CUDA_PREP (the whole allocation,
  // made at the first such map, refreshed at each).
  guint8 *host_staging = nullptr;
};

struct GstCudaPrepMemory {
  GstMemory parent;
  gint device_id;
  guint8 *device_ptr;  // start of the whole allocation (before any offset)
  SyncState *sync;     // owned by the root memory
  // Borrowed memory (gst_cuda_prep_memory_new_borrowed): not ours to free;
  // release(release_data) once its readers are done. NULL: cudaMalloc'd.
  GDestroyNotify release;
  gpointer release_data;
};

// Borrowed memories freed while a reader's kernel may still run: released
// once their read events complete, checked without blocking whenever
// borrowed memory comes or goes, and waited for by
// gst_cuda_prep_memory_release_borrowed().
struct RetiredBorrow {
  gint device_id;
  SyncState *sync;
  GDestroyNotify release;
  gpointer release_data;
};
std::mutex retired_lock;
std::vector<RetiredBorrow> retired;

void destroy_sync_state(SyncState *sync) {
  cudaEventDestroy(sync->write_event);
  for (const SyncState::Read &read : sync->reads) cudaEventDestroy(read.event);
  g_free(sync->host_staging);
  delete sync;
}

// Whether every read recorded on `sync` has completed; waits for them when
// `wait`.
bool reads_done(const RetiredBorrow &borrow, bool wait) {
  GstCudaPrepScopedDevice device(borrow.device_id);
  for (size_t i = 0; i < borrow.sync->active_reads; ++i) {
    const cudaEvent_t event = borrow.sync->reads[i].event;
    const cudaError_t err = wait ? cudaEventSynchronize(event) : cudaEventQuery(event);
    if (err == cudaErrorNotReady) return false;
    if (err != cudaSuccess) GST_ERROR("waiting for a reader failed: %s", cudaGetErrorString(err));
  }
  return true;
}

// Releases the retired borrows whose readers are done (all when `wait`).
// The owners' release functions run outside the lock: they may free
// buffers back to pools that call in here again.
void release_retired(bool wait) {
  std::vector<RetiredBorrow> done;
  {
    std::lock_guard<std::mutex> guard(retired_lock);
    auto keep = retired.begin();
    for (auto it = retired.begin(); it != retired.end(); ++it) {
      if (reads_done(*it, wait))
        done.push_back(*it);
      else
        *keep++ = *it;
    }
    retired.erase(keep, retired.end());
  }
  for (const RetiredBorrow &borrow : done) {
    destroy_sync_state(borrow.sync);
    borrow.release(borrow.release_data);
  }
}

GstCudaPrepMemory *root_memory(GstMemory *memory) {
  while (memory->parent != nullptr) memory = memory->parent;
  return reinterpret_cast<GstCudaPrepMemory *>(memory);
}

}  // namespace

struct _GstCudaPrepAllocator {
  GstAllocator parent;
  gint device_id;
};

G_DEFINE_TYPE(GstCudaPrepAllocator, gst_cuda_prep_allocator, GST_TYPE_ALLOCATOR)

static GstMemory *gst_cuda_prep_allocator_alloc(GstAllocator *allocator, gsize size,
                                                GstAllocationParams *params) {
  GstCudaPrepAllocator *self = GST_CUDA_PREP_ALLOCATOR(allocator);
  (void)params;  // device memory is aligned to 256 bytes by cudaMalloc; no prefix/padding
  GstCudaPrepScopedDevice device(self->device_id);

  auto *sync = new SyncState();
  cudaError_t err = gst_cuda_prep_consume_error(
      cudaEventCreateWithFlags(&sync->write_event, cudaEventDisableTiming));
  if (err != cudaSuccess) {
    GST_ERROR("cudaEventCreateWithFlags failed on device %d: %s", self->device_id,
              cudaGetErrorString(err));
    last_allocation_error = err;
    delete sync;
    return nullptr;
  }
  void *device_ptr = nullptr;
  err = cudaMalloc(&device_ptr, size);
  // Zeroed once: a frame the upload writes only in part (a crop region, the
  // rows a downscale reads) never holds another allocation's bytes, and a
  // kernel's zero-weight taps read defined memory. Synchronous, so no
  // stream can see it before.
  if (err == cudaSuccess) {
    err = cudaMemset(device_ptr, 0, size);
    if (err == cudaSuccess) err = cudaStreamSynchronize(cudaStreamLegacy);
    if (err != cudaSuccess) cudaFree(device_ptr);
  }
  if (gst_cuda_prep_consume_error(err) != cudaSuccess) {
    GST_ERROR("allocating %" G_GSIZE_FORMAT
              " bytes (cudaMalloc, cudaMemset) failed on device %d: %s",
              size, self->device_id, cudaGetErrorString(err));
    last_allocation_error = err;
    cudaEventDestroy(sync->write_event);
    delete sync;
    return nullptr;
  }
  allocation_count.fetch_add(1, std::memory_order_relaxed);

  auto *memory = g_new0(GstCudaPrepMemory, 1);
  gst_memory_init(GST_MEMORY_CAST(memory), static_cast<GstMemoryFlags>(0), allocator, nullptr, size,
                  0, 0, size);
  memory->device_id = self->device_id;
  memory->device_ptr = static_cast<guint8 *>(device_ptr);
  memory->sync = sync;
  return GST_MEMORY_CAST(memory);
}

static void gst_cuda_prep_allocator_free(GstAllocator *allocator, GstMemory *gst_memory) {
  (void)allocator;
  auto *memory = reinterpret_cast<GstCudaPrepMemory *>(gst_memory);
  if (gst_memory->parent == nullptr && memory->release != nullptr) {
    {
      std::lock_guard<std::mutex> guard(retired_lock);
      retired.push_back({memory->device_id, memory->sync, memory->release, memory->release_data});
    }
    release_retired(false);
  } else if (gst_memory->parent == nullptr) {
    GstCudaPrepScopedDevice device(memory->device_id);
    // cudaFree waits for the device, so pending readers finish first.
    cudaError_t err = gst_cuda_prep_consume_error(cudaFree(memory->device_ptr));
    if (err != cudaSuccess) GST_ERROR("cudaFree failed: %s", cudaGetErrorString(err));
    destroy_sync_state(memory->sync);
  } else {
    gst_memory_unref(gst_memory->parent);
  }
  g_free(memory);
}

// A map is where a consumer that knows nothing of our events meets the
// memory (a GstTensor's data, an nvcodec element mapping GST_MAP_CUDA, which
// is our flag's value): it waits on the host for the last write. With
// GST_MAP_CUDA_PREP it returns the device pointer; without it, for reading
// only, a host copy of the bytes. Our elements never map: they order their
// work with the events instead.
static gpointer gst_cuda_prep_memory_map(GstMemory *gst_memory, gsize maxsize, GstMapFlags flags) {
  (void)maxsize;  // the root allocation's, for a shared memory too
  GstCudaPrepMemory *root = root_memory(gst_memory);
  const bool device_map = (flags & GST_MAP_CUDA_PREP) != 0;
  if (!device_map && (flags & GST_MAP_WRITE) != 0) {
    GST_ERROR(
        "CUDA device memory cannot be mapped for writing from the host; map it with "
        "GST_MAP_CUDA (the device pointer), or bring frames to system memory with "
        "cudaframedownload");
    return nullptr;
  }
  GstCudaPrepScopedDevice device(root->device_id);
  SyncState *sync = root->sync;
  std::lock_guard<std::mutex> guard(sync->lock);
  cudaError_t err = device.result();
  if (err == cudaSuccess && sync->written) err = cudaEventSynchronize(sync->write_event);
  if (err == cudaSuccess && device_map) return root->device_ptr;
  if (err == cudaSuccess) {
    // gst_memory_map() adds the memory's offset to what this returns.
    if (sync->host_staging == nullptr)
      sync->host_staging = static_cast<guint8 *>(g_malloc(GST_MEMORY_CAST(root)->maxsize));
    err = cudaMemcpy(sync->host_staging + gst_memory->offset, root->device_ptr + gst_memory->offset,
                     gst_memory->size, cudaMemcpyDeviceToHost);
  }
  if (gst_cuda_prep_consume_error(err) != cudaSuccess) {
    GST_ERROR("mapping CUDA device memory of device %d failed: %s", root->device_id,
              cudaGetErrorString(err));
    return nullptr;
  }
  return sync->host_staging;
}

static void gst_cuda_prep_memory_unmap(GstMemory *gst_memory) {
  (void)gst_memory;
}

static GstMemory *gst_cuda_prep_memory_share(GstMemory *gst_memory, gssize offset, gssize size) {
  auto *memory = reinterpret_cast<GstCudaPrepMemory *>(gst_memory);
  GstMemory *root = GST_MEMORY_CAST(root_memory(gst_memory));
  if (size == -1) size = gst_memory->size - offset;

  auto *shared = g_new0(GstCudaPrepMemory, 1);
  gst_memory_init(
      GST_MEMORY_CAST(shared),
      static_cast<GstMemoryFlags>(GST_MINI_OBJECT_FLAGS(root) | GST_MINI_OBJECT_FLAG_LOCK_READONLY),
      gst_memory->allocator, gst_memory_ref(root), gst_memory->maxsize, gst_memory->align,
      gst_memory->offset + offset, size);
  shared->device_id = memory->device_id;
  shared->device_ptr = memory->device_ptr;
  shared->sync = memory->sync;
  return GST_MEMORY_CAST(shared);
}

static GstMemory *gst_cuda_prep_memory_copy(GstMemory *gst_memory, gssize offset, gssize size) {
  auto *memory = reinterpret_cast<GstCudaPrepMemory *>(gst_memory);
  if (size == -1) size = gst_memory->size - offset;
  GstMemory *copy = gst_allocator_alloc(gst_memory->allocator, size, nullptr);
  if (copy == nullptr) return nullptr;

  GstCudaPrepScopedDevice device(memory->device_id);
  // A copy is a host-side request with no stream: wait for the last writer.
  cudaError_t err = cudaEventSynchronize(memory->sync->write_event);
  if (err == cudaSuccess) {
    err = cudaMemcpy(reinterpret_cast<GstCudaPrepMemory *>(copy)->device_ptr,
                     memory->device_ptr + gst_memory->offset + offset, size,
                     cudaMemcpyDeviceToDevice);
  }
  if (gst_cuda_prep_consume_error(err) != cudaSuccess) {
    GST_ERROR("copying device memory failed: %s", cudaGetErrorString(err));
    gst_memory_unref(copy);
    return nullptr;
  }
  return copy;
}

static void gst_cuda_prep_allocator_class_init(GstCudaPrepAllocatorClass *klass) {
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS(klass);
  allocator_class->alloc = gst_cuda_prep_allocator_alloc;
  allocator_class->free = gst_cuda_prep_allocator_free;
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_memory_debug, "cudaprepmemory", 0,
                          "cudaprep pitched device memory");
}

static void gst_cuda_prep_allocator_init(GstCudaPrepAllocator *self) {
  GstAllocator *allocator = GST_ALLOCATOR(self);
  allocator->mem_type = GST_CUDA_PREP_MEMORY_TYPE;
  allocator->mem_map = gst_cuda_prep_memory_map;
  allocator->mem_unmap = gst_cuda_prep_memory_unmap;
  allocator->mem_share = gst_cuda_prep_memory_share;
  allocator->mem_copy = gst_cuda_prep_memory_copy;
  GST_OBJECT_FLAG_SET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *gst_cuda_prep_allocator_get(gint device_id) {
  static std::mutex allocators_lock;
  static std::vector<GstAllocator *> allocators;  // index: device id; live for the process
  std::lock_guard<std::mutex> guard(allocators_lock);
  if (device_id < 0) return nullptr;
  if (static_cast<size_t>(device_id) >= allocators.size()) allocators.resize(device_id + 1);
  if (allocators[device_id] == nullptr) {
    auto *allocator = GST_CUDA_PREP_ALLOCATOR(g_object_new(GST_TYPE_CUDA_PREP_ALLOCATOR, nullptr));
    gst_object_ref_sink(allocator);
    GST_OBJECT_FLAG_SET(allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    allocator->device_id = device_id;
    allocators[device_id] = GST_ALLOCATOR(allocator);
  }
  return GST_ALLOCATOR(gst_object_ref(allocators[device_id]));
}

GstMemory *gst_cuda_prep_memory_new_borrowed(gint device_id, guint8 *device_ptr, gsize size,
                                             GDestroyNotify release, gpointer release_data) {
  release_retired(false);
  GstCudaPrepScopedDevice device(device_id);
  auto *sync = new SyncState();
  const cudaError_t err = cudaEventCreateWithFlags(&sync->write_event, cudaEventDisableTiming);
  if (err != cudaSuccess) {
    GST_ERROR("cudaEventCreateWithFlags failed on device %d: %s", device_id,
              cudaGetErrorString(err));
    last_allocation_error = err;
    delete sync;
    return nullptr;
  }
  auto *memory = g_new0(GstCudaPrepMemory, 1);
  // gst_memory_init takes its own reference on the allocator.
  GstAllocator *allocator = gst_cuda_prep_allocator_get(device_id);
  gst_memory_init(GST_MEMORY_CAST(memory), static_cast<GstMemoryFlags>(0), allocator, nullptr, size,
                  0, 0, size);
  gst_object_unref(allocator);
  memory->device_id = device_id;
  memory->device_ptr = device_ptr;
  memory->sync = sync;
  memory->release = release;
  memory->release_data = release_data;
  return GST_MEMORY_CAST(memory);
}

void gst_cuda_prep_memory_release_borrowed(void) {
  release_retired(true);
}

gboolean gst_is_cuda_prep_memory(GstMemory *memory) {
  return memory != nullptr && memory->allocator != nullptr &&
         GST_IS_CUDA_PREP_ALLOCATOR(memory->allocator);
}

gint gst_cuda_prep_memory_get_device_id(GstMemory *memory) {
  return reinterpret_cast<GstCudaPrepMemory *>(memory)->device_id;
}

guint8 *gst_cuda_prep_memory_get_device_pointer(GstMemory *memory) {
  return reinterpret_cast<GstCudaPrepMemory *>(memory)->device_ptr + memory->offset;
}

// Whether work on `stream` is already ordered after what was recorded on
// `recorded_on`: the same stream, not one of the handles that name a
// different stream on each thread (per-thread default stream) or by mode.
// The wait it saves is a driver call per frame (7 to 17 us on a streaming
// thread that slept since the last frame).
static bool same_stream(cudaStream_t stream, cudaStream_t recorded_on) {
  return stream == recorded_on && stream != nullptr && stream != cudaStreamLegacy &&
         stream != cudaStreamPerThread;
}

cudaError_t gst_cuda_prep_memory_begin_write(GstMemory *memory, cudaStream_t stream) {
  SyncState *sync = root_memory(memory)->sync;
  std::lock_guard<std::mutex> guard(sync->lock);
  // The reuse hazard: a pooled memory may come back while another stream's
  // kernel still reads it, so this writer waits for every reader, on the GPU.
  for (size_t i = 0; i < sync->active_reads; ++i) {
    if (same_stream(stream, sync->reads[i].stream)) continue;
    cudaError_t err = cudaStreamWaitEvent(stream, sync->reads[i].event, 0);
    if (err != cudaSuccess) return err;
  }
  sync->active_reads = 0;
  if (sync->written && !same_stream(stream, sync->write_stream))
    return cudaStreamWaitEvent(stream, sync->write_event, 0);
  return cudaSuccess;
}

cudaError_t gst_cuda_prep_memory_end_write(GstMemory *memory, cudaStream_t stream) {
  SyncState *sync = root_memory(memory)->sync;
  std::lock_guard<std::mutex> guard(sync->lock);
  cudaError_t err = cudaEventRecord(sync->write_event, stream);
  if (err == cudaSuccess) {
    sync->written = true;
    sync->write_stream = stream;
  }
  return err;
}

cudaError_t gst_cuda_prep_memory_begin_read(GstMemory *memory, cudaStream_t stream) {
  SyncState *sync = root_memory(memory)->sync;
  std::lock_guard<std::mutex> guard(sync->lock);
  if (!sync->written || same_stream(stream, sync->write_stream)) return cudaSuccess;
  return cudaStreamWaitEvent(stream, sync->write_event, 0);
}

cudaError_t gst_cuda_prep_memory_end_read(GstMemory *memory, cudaStream_t stream) {
  GstCudaPrepMemory *root = root_memory(memory);
  SyncState *sync = root->sync;
  std::lock_guard<std::mutex> guard(sync->lock);
  // A later read on a stream orders after its earlier ones: one event per
  // reader stream, however often a frame is read before its next write.
  for (size_t i = 0; i < sync->active_reads; ++i)
    if (sync->reads[i].stream == stream) return cudaEventRecord(sync->reads[i].event, stream);
  if (sync->active_reads == sync->reads.size()) {
    // Grows only up to the number of concurrent readers, then is reused.
    GstCudaPrepScopedDevice device(root->device_id);
    cudaEvent_t event = nullptr;
    cudaError_t err = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    if (err != cudaSuccess) return err;
    sync->reads.push_back({event, nullptr});
  }
  SyncState::Read &read = sync->reads[sync->active_reads];
  cudaError_t err = cudaEventRecord(read.event, stream);
  if (err == cudaSuccess) {
    read.stream = stream;
    ++sync->active_reads;
  }
  return err;
}

guint gst_cuda_prep_memory_get_pending_reads(GstMemory *memory) {
  SyncState *sync = root_memory(memory)->sync;
  std::lock_guard<std::mutex> guard(sync->lock);
  return static_cast<guint>(sync->active_reads);
}

cudaEvent_t gst_cuda_prep_memory_get_ready_event(GstMemory *memory) {
  SyncState *sync = root_memory(memory)->sync;
  std::lock_guard<std::mutex> guard(sync->lock);
  return sync->written ? sync->write_event : nullptr;
}

cudaError_t gst_cuda_prep_memory_get_last_allocation_error(void) {
  return last_allocation_error;
}

guint64 gst_cuda_prep_memory_get_allocation_count(void) {
  return allocation_count.load(std::memory_order_relaxed);
}

/* --- pinned host memory --- */

struct _GstCudaPrepHostAllocator {
  GstAllocator parent;
};

G_DEFINE_TYPE(GstCudaPrepHostAllocator, gst_cuda_prep_host_allocator, GST_TYPE_ALLOCATOR)

static void free_pinned(gpointer host) {
  const cudaError_t err = gst_cuda_prep_consume_error(cudaFreeHost(host));
  if (err != cudaSuccess) GST_ERROR("cudaFreeHost failed: %s", cudaGetErrorString(err));
}

// Ordinary system memory to every reader (wrapped), whose pages are pinned.
static GstMemory *gst_cuda_prep_host_allocator_alloc(GstAllocator *allocator, gsize size,
                                                     GstAllocationParams *params) {
  (void)allocator;
  const gsize maxsize = size + params->prefix + params->padding;
  void *host = nullptr;
  // Page-aligned, which satisfies any params->align.
  const cudaError_t err =
      gst_cuda_prep_consume_error(cudaHostAlloc(&host, maxsize, cudaHostAllocPortable));
  if (err != cudaSuccess) {
    GST_ERROR("cudaHostAlloc of %" G_GSIZE_FORMAT " bytes failed: %s", maxsize,
              cudaGetErrorString(err));
    last_allocation_error = err;
    return nullptr;
  }
  GstMemory *memory =
      gst_memory_new_wrapped(params->flags, host, maxsize, params->prefix, size, host, free_pinned);
  gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(memory), gst_cuda_prep_pinned_host_quark(),
                            GINT_TO_POINTER(1), nullptr);
  return memory;
}

static void gst_cuda_prep_host_allocator_class_init(GstCudaPrepHostAllocatorClass *klass) {
  GST_ALLOCATOR_CLASS(klass)->alloc = gst_cuda_prep_host_allocator_alloc;
}

static void gst_cuda_prep_host_allocator_init(GstCudaPrepHostAllocator *self) {
  GST_OBJECT_FLAG_SET(self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *gst_cuda_prep_host_allocator_get(void) {
  static GstAllocator *allocator = [] {
    auto *instance = GST_ALLOCATOR(g_object_new(GST_TYPE_CUDA_PREP_HOST_ALLOCATOR, nullptr));
    gst_object_ref_sink(instance);
    GST_OBJECT_FLAG_SET(instance, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    return instance;
  }();
  return GST_ALLOCATOR(gst_object_ref(allocator));
}
