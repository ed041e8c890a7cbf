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

// Gives `outbuf` the geometry meta of `inbuf` (identity if none) followed by
// `step`, the mapping this element applies: tensor pixels stay traceable to
// the source frame through every crop and resize.
void gst_cuda_prep_buffer_chain_geometry(GstBuffer *inbuf, GstBuffer *outbuf,
                                         const cudaprep::FrameGeometry &step);

G_END_DECLS
