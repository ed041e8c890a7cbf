/**
 * SECTION:cudaprep-memory
 *
 * Device memory: a GstMemory that owns one cudaMalloc'd block on one device,
 * with the events that order its writers and readers across streams; and
 * pinned host memory for uploads. The pool that reuses device frames is in
 * gstcudapreppool.h.
 *
 * Synchronisation protocol (docs/design.md, "Streams and synchronisation"):
 *
 * - a writer calls gst_cuda_prep_memory_begin_write() before enqueueing
 *   work that writes the memory (its stream waits for every earlier reader
 *   and writer: the pooled-buffer reuse hazard), then
 *   gst_cuda_prep_memory_end_write() after it;
 * - a reader calls gst_cuda_prep_memory_begin_read() (its stream waits for
 *   the last write) before enqueueing work that reads, then
 *   gst_cuda_prep_memory_end_read() after it.
 *
 * Nothing here blocks the host.
 */
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include "cudaprep-prelude.h"

G_BEGIN_DECLS

/**
 * GST_CUDA_PREP_MEMORY_TYPE:
 *
 * The memory type of cudaprep's device memory (GstMemory's mem_type).
 */
#define GST_CUDA_PREP_MEMORY_TYPE "CUDAPitchedMemory"

/**
 * GST_MAP_CUDA_PREP:
 *
 * Map flag: gst_memory_map() with it returns the device pointer. It has the
 * value of GStreamer's GST_MAP_CUDA, so nvcodec's elements map our memory as
 * theirs. Any map first waits on the host for the memory's last write (a
 * consumer that maps knows nothing of the ready event); without this flag a
 * map is for reading only and returns a host copy of the bytes, made at
 * each map (pitched frames keep their row pitch), for consumers such as
 * GStreamer's tensor decoders. Our elements never map.
 */
#define GST_MAP_CUDA_PREP ((GstMapFlags)(GST_MAP_FLAG_LAST << 1))

/**
 * GstCudaPrepAllocator:
 *
 * The allocator of one device's memory: gst_cuda_prep_allocator_get().
 */
#define GST_TYPE_CUDA_PREP_ALLOCATOR (gst_cuda_prep_allocator_get_type())
GST_CUDA_PREP_API
G_DECLARE_FINAL_TYPE(GstCudaPrepAllocator, gst_cuda_prep_allocator, GST, CUDA_PREP_ALLOCATOR,
                     GstAllocator)

/**
 * GstCudaPrepHostAllocator:
 *
 * The allocator of pinned host memory: gst_cuda_prep_host_allocator_get().
 */
#define GST_TYPE_CUDA_PREP_HOST_ALLOCATOR (gst_cuda_prep_host_allocator_get_type())
GST_CUDA_PREP_API
G_DECLARE_FINAL_TYPE(GstCudaPrepHostAllocator, gst_cuda_prep_host_allocator, GST,
                     CUDA_PREP_HOST_ALLOCATOR, GstAllocator)

/**
 * gst_cuda_prep_host_allocator_get:
 *
 * Page-locked (pinned) system memory, which the GPU copies from
 * asynchronously at full PCIe speed. One shared instance.
 *
 * Returns: (transfer full): the allocator; release it with gst_object_unref()
 */
GST_CUDA_PREP_API GstAllocator *gst_cuda_prep_host_allocator_get(void);

/**
 * gst_cuda_prep_allocator_get:
 * @device_id: a CUDA device
 *
 * The allocator of one device (one shared instance per device id).
 *
 * Returns: (transfer full) (nullable): the allocator, NULL for a negative
 *   device id; release it with gst_object_unref()
 */
GST_CUDA_PREP_API GstAllocator *gst_cuda_prep_allocator_get(gint device_id);

/**
 * gst_cuda_prep_memory_new_borrowed:
 * @device_id: the CUDA device the memory is on
 * @device_ptr: the device address of its first byte
 * @size: its bytes
 * @release: called with @release_data once the memory is no longer used
 * @release_data: what @release is called with
 *
 * A memory of @size bytes at @device_ptr on @device_id that someone else
 * owns (a decoder's frame): read and written like any other, never freed
 * here. Once the memory is freed and every reader's recorded event has
 * completed, @release(@release_data) runs: a reader's kernel still running
 * keeps the owner's frame alive without blocking the host.
 *
 * Returns: (transfer full) (nullable): the memory, NULL when its events
 *   cannot be created
 */
GST_CUDA_PREP_API GstMemory *gst_cuda_prep_memory_new_borrowed(gint device_id, guint8 *device_ptr,
                                                               gsize size, GDestroyNotify release,
                                                               gpointer release_data);
/**
 * gst_cuda_prep_memory_release_borrowed:
 *
 * Waits for the readers of every freed borrowed memory and releases them
 * (an element stopping hands its upstream's frames back).
 */
GST_CUDA_PREP_API void gst_cuda_prep_memory_release_borrowed(void);

/**
 * gst_is_cuda_prep_memory:
 * @memory: a memory
 *
 * Returns: whether @memory is cudaprep device memory
 */
GST_CUDA_PREP_API gboolean gst_is_cuda_prep_memory(GstMemory *memory);
/**
 * gst_cuda_prep_memory_get_device_id:
 * @memory: cudaprep device memory
 *
 * Returns: the CUDA device @memory is on
 */
GST_CUDA_PREP_API gint gst_cuda_prep_memory_get_device_id(GstMemory *memory);
/**
 * gst_cuda_prep_memory_get_device_pointer:
 * @memory: cudaprep device memory
 *
 * Returns: the device address of the memory's first byte (its offset
 *   applied)
 */
GST_CUDA_PREP_API guint8 *gst_cuda_prep_memory_get_device_pointer(GstMemory *memory);

/**
 * gst_cuda_prep_memory_begin_write: (skip)
 * @memory: cudaprep device memory
 * @stream: the stream that will write it
 *
 * Makes @stream wait for every earlier reader and writer of @memory, before
 * work that writes it is enqueued on @stream.
 *
 * Returns: the first failing CUDA call's error, or cudaSuccess
 */
GST_CUDA_PREP_API cudaError_t gst_cuda_prep_memory_begin_write(GstMemory *memory,
                                                               cudaStream_t stream);
/**
 * gst_cuda_prep_memory_end_write: (skip)
 * @memory: cudaprep device memory
 * @stream: the stream that wrote it
 *
 * Records the write enqueued on @stream: the memory's ready event.
 *
 * Returns: the first failing CUDA call's error, or cudaSuccess
 */
GST_CUDA_PREP_API cudaError_t gst_cuda_prep_memory_end_write(GstMemory *memory,
                                                             cudaStream_t stream);
/**
 * gst_cuda_prep_memory_begin_read: (skip)
 * @memory: cudaprep device memory
 * @stream: the stream that will read it
 *
 * Makes @stream wait for the last write of @memory, before work that reads
 * it is enqueued on @stream.
 *
 * Returns: the first failing CUDA call's error, or cudaSuccess
 */
GST_CUDA_PREP_API cudaError_t gst_cuda_prep_memory_begin_read(GstMemory *memory,
                                                              cudaStream_t stream);
/**
 * gst_cuda_prep_memory_end_read: (skip)
 * @memory: cudaprep device memory
 * @stream: the stream that read it
 *
 * Records the reads enqueued on @stream, which the next writer waits for.
 *
 * Returns: the first failing CUDA call's error, or cudaSuccess
 */
GST_CUDA_PREP_API cudaError_t gst_cuda_prep_memory_end_read(GstMemory *memory, cudaStream_t stream);
/**
 * gst_cuda_prep_memory_get_pending_reads:
 * @memory: cudaprep device memory
 *
 * Returns: the reads the next writer will wait for: one per reader stream
 *   since the last write, however many times each stream read the memory
 */
GST_CUDA_PREP_API guint gst_cuda_prep_memory_get_pending_reads(GstMemory *memory);
/**
 * gst_cuda_prep_memory_get_ready_event: (skip)
 * @memory: cudaprep device memory
 *
 * An application waits on the returned event (cudaStreamWaitEvent) before
 * reading on its stream.
 *
 * Returns: (nullable): the event recorded by the last
 *   gst_cuda_prep_memory_end_write(), or NULL if never written
 */
GST_CUDA_PREP_API cudaEvent_t gst_cuda_prep_memory_get_ready_event(GstMemory *memory);

/**
 * gst_cuda_prep_memory_get_last_allocation_error: (skip)
 *
 * Returns: why the calling thread's last failed allocation (device or
 *   pinned) failed, e.g. cudaErrorMemoryAllocation; cudaSuccess if none
 *   failed
 */
GST_CUDA_PREP_API cudaError_t gst_cuda_prep_memory_get_last_allocation_error(void);

/**
 * gst_cuda_prep_memory_get_allocation_count:
 *
 * Returns: the device allocations made so far by every cudaprep allocator
 *   (tests prove the steady state allocates nothing)
 */
GST_CUDA_PREP_API guint64 gst_cuda_prep_memory_get_allocation_count(void);

G_END_DECLS
