// What every cudaprep CUDA element shares, whatever GStreamer base class it
// derives from (GstBaseTransform today, GstAggregator for batching): one
// object an element holds and forwards to.
//
//  - the device: `device-id`, or the one the pipeline agreed on through the
//    `cudaprep.device` GstContext (answered to peers' queries);
//  - the CUDA stream: the element's own, created at start with
//    `stream-priority`, or the application's `cuda-stream`, never destroyed;
//  - the cross-stream ordering of buffers (docs/design.md "Streams and
//    synchronisation"): begin/end read and write on the element's stream,
//    so that nothing blocks the host;
//  - the pools of device memory offered upstream and chosen downstream.
//
// Every function posts its own element error and returns FALSE on failure.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GstCudaPrepCore GstCudaPrepCore;

// Installs device-id, cuda-device-id (nvcodec's name for it),
// stream-priority and cuda-stream on `klass` with ids first_prop_id and up;
// returns the first id after them.
guint gst_cuda_prep_core_install_properties(GObjectClass *klass, guint first_prop_id);

GstCudaPrepCore *gst_cuda_prep_core_new(GstElement *element, guint first_prop_id);
void gst_cuda_prep_core_free(GstCudaPrepCore *core);

// Handle the properties installed above; FALSE for other ids.
gboolean gst_cuda_prep_core_set_property(GstCudaPrepCore *core, guint prop_id, const GValue *value);
gboolean gst_cuda_prep_core_get_property(GstCudaPrepCore *core, guint prop_id, GValue *value);

// From the element's set_context and query (context queries): TRUE when the
// query was answered.
void gst_cuda_prep_core_set_context(GstCudaPrepCore *core, GstContext *context);
gboolean gst_cuda_prep_core_answer_query(GstCudaPrepCore *core, GstQuery *query);

// Chooses the device and sets up the stream (start), waits for the queued
// work and releases the stream (stop).
gboolean gst_cuda_prep_core_start(GstCudaPrepCore *core);
gboolean gst_cuda_prep_core_stop(GstCudaPrepCore *core);

// Valid between start and stop.
cudaStream_t gst_cuda_prep_core_get_stream(GstCudaPrepCore *core);
gint gst_cuda_prep_core_get_device_id(GstCudaPrepCore *core);

// Makes the element's device current on the calling thread: every
// streaming-thread entry point calls it before creating or using device
// objects (a pipeline on device 1 runs in threads that start on device 0).
gboolean gst_cuda_prep_core_make_current(GstCudaPrepCore *core);

// The gst_cuda_prep_memory_* step of that name for every device memory of
// `buffer`, on the element's stream, with the device current.
gboolean gst_cuda_prep_core_begin_read(GstCudaPrepCore *core, GstBuffer *buffer);
gboolean gst_cuda_prep_core_end_read(GstCudaPrepCore *core, GstBuffer *buffer);
gboolean gst_cuda_prep_core_begin_write(GstCudaPrepCore *core, GstBuffer *buffer);
gboolean gst_cuda_prep_core_end_write(GstCudaPrepCore *core, GstBuffer *buffer);

// Allocation queries. propose: offers upstream a pool of device frames for
// the query's caps when they are device video (and asks for GstVideoMeta). decide_frames: keeps
// downstream's pool when it is one of device frames on this device, else
// puts one of our own. decide_blocks: a pool of `size`-byte blocks for a
// payload that is not video (planar frames, tensors).
gboolean gst_cuda_prep_core_propose_pool(GstCudaPrepCore *core, GstQuery *query);
gboolean gst_cuda_prep_core_decide_frame_pool(GstCudaPrepCore *core, GstQuery *query);
gboolean gst_cuda_prep_core_decide_block_pool(GstCudaPrepCore *core, GstQuery *query, gsize size);

// A buffer from `pool` (activated if it is not yet); out of GPU memory and
// other failures are element errors naming the size and device.
GstFlowReturn gst_cuda_prep_core_acquire(GstCudaPrepCore *core, GstBufferPool *pool,
                                         GstBuffer **buffer);

G_END_DECLS
