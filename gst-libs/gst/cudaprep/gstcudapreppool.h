/**
 * SECTION:cudaprep-pool
 *
 * Pools of device memory: frames with their pitched layout (a GstVideoMeta
 * per buffer, restored whenever a frame comes back), and plain blocks for
 * payloads that are not video (planar float frames, tensors).
 */
#pragma once

#include <gst/gst.h>

#include "cudaprep-prelude.h"
#include "gstcudaprepmemory.h"

G_BEGIN_DECLS

/**
 * GstCudaPrepBufferPool:
 *
 * A pool of device frames: gst_cuda_prep_buffer_pool_new().
 */
#define GST_TYPE_CUDA_PREP_BUFFER_POOL (gst_cuda_prep_buffer_pool_get_type())
GST_CUDA_PREP_API
G_DECLARE_FINAL_TYPE(GstCudaPrepBufferPool, gst_cuda_prep_buffer_pool, GST, CUDA_PREP_BUFFER_POOL,
                     GstBufferPool)

/**
 * gst_cuda_prep_buffer_pool_new:
 * @device_id: a CUDA device
 *
 * A pool of device frames of @device_id, each with a GstVideoMeta giving
 * the pitched layout (rows and planes start on 256-byte boundaries).
 * Configure it with caps as any video buffer pool.
 *
 * Returns: (transfer full): the pool
 */
GST_CUDA_PREP_API GstBufferPool *gst_cuda_prep_buffer_pool_new(gint device_id);
/**
 * gst_cuda_prep_buffer_pool_get_device_id:
 * @pool: a pool of gst_cuda_prep_buffer_pool_new()
 *
 * Returns: the CUDA device of @pool's frames
 */
GST_CUDA_PREP_API gint gst_cuda_prep_buffer_pool_get_device_id(GstBufferPool *pool);

/**
 * gst_cuda_prep_block_pool_new:
 * @device_id: a CUDA device
 * @caps: the caps of the payload
 * @size: the bytes of one block
 * @min_buffers: blocks allocated when the pool is activated
 * @max_buffers: blocks at most, 0 for no limit
 *
 * A configured pool of @size-byte blocks of device memory of @device_id
 * for @caps (no GstVideoMeta).
 *
 * Returns: (transfer full) (nullable): the pool, NULL if it cannot be
 *   configured
 */
GST_CUDA_PREP_API GstBufferPool *gst_cuda_prep_block_pool_new(gint device_id, GstCaps *caps,
                                                              guint size, guint min_buffers,
                                                              guint max_buffers);

G_END_DECLS
