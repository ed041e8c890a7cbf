// The base class of every cudaprep element. It owns what each CUDA element
// repeats: the device (device-id, agreed through a GstContext), the CUDA
// stream (its own, created with stream-priority, or the application's
// cuda-stream), the pools of device frames offered and chosen in the
// allocation queries, and the cross-stream ordering of every transform:
// before process() the stream waits for the input's writer and for the
// output's earlier readers; after it, both are recorded. No host waits.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#include "cudaprep/geometry.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_BASE_TRANSFORM (gst_cuda_prep_base_transform_get_type())
G_DECLARE_DERIVABLE_TYPE(GstCudaPrepBaseTransform, gst_cuda_prep_base_transform, GST,
                         CUDA_PREP_BASE_TRANSFORM, GstBaseTransform)

struct _GstCudaPrepBaseTransformClass {
  GstBaseTransformClass parent_class;

  // Enqueues the work that turns `inbuf` into `outbuf` on the element's
  // stream (gst_cuda_prep_base_transform_get_stream()). Called with the
  // device current and the stream ordered after the input's producer.
  GstFlowReturn (*process)(GstCudaPrepBaseTransform *self, GstBuffer *inbuf, GstBuffer *outbuf);
};

// Valid between start and stop.
cudaStream_t gst_cuda_prep_base_transform_get_stream(GstCudaPrepBaseTransform *self);
gint gst_cuda_prep_base_transform_get_device_id(GstCudaPrepBaseTransform *self);

// The synchronisation steps transform() takes around process(), one at a
// time, for subclasses that do not turn one input into one output (e.g. a
// batching element reads many inputs into one output). Each applies the
// gst_cuda_prep_memory_* step of that name to every CUDA memory of `buffer`
// on the element's stream; on failure it posts an element error and returns
// FALSE. The device must be current (the streaming thread's calls to
// process() have it; others call cudaSetDevice first).
gboolean gst_cuda_prep_base_transform_begin_read(GstCudaPrepBaseTransform *self, GstBuffer *buffer);
gboolean gst_cuda_prep_base_transform_end_read(GstCudaPrepBaseTransform *self, GstBuffer *buffer);
gboolean gst_cuda_prep_base_transform_begin_write(GstCudaPrepBaseTransform *self,
                                                  GstBuffer *buffer);
gboolean gst_cuda_prep_base_transform_end_write(GstCudaPrepBaseTransform *self, GstBuffer *buffer);

// The output buffer of an element that leaves the pixels where they are
// (a crop view, a deferred operation): the input itself when writable, so
// it goes back whole to its pool, otherwise a shallow copy (a tee).
GstBuffer *gst_cuda_prep_buffer_in_place_output(GstBuffer *input);

// Gives `outbuf` the geometry meta of `inbuf` (identity if none) followed by
// `step`, the mapping this element applies: tensor pixels stay traceable to
// the source frame through every crop and resize.
void gst_cuda_prep_buffer_chain_geometry(GstBuffer *inbuf, GstBuffer *outbuf,
                                         const cudaprep::FrameGeometry &step);

G_END_DECLS
