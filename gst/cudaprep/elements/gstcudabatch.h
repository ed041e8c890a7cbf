// cudabatch: N sources into one batch tensor, one kernel launch per batch.
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_BATCH (gst_cuda_batch_get_type())
G_DECLARE_FINAL_TYPE(GstCudaBatch, gst_cuda_batch, GST, CUDA_BATCH, GstAggregator)
GST_ELEMENT_REGISTER_DECLARE(cudabatch);

#define GST_TYPE_CUDA_BATCH_PAD (gst_cuda_batch_pad_get_type())
G_DECLARE_FINAL_TYPE(GstCudaBatchPad, gst_cuda_batch_pad, GST, CUDA_BATCH_PAD, GstAggregatorPad)

// How a batch treats a source that delivers faster than the others.
typedef enum {
  GST_CUDA_BATCH_SOURCE_POLICY_WAIT,  // every queued frame in turn; the source waits (backpressure)
  GST_CUDA_BATCH_SOURCE_POLICY_LATEST,  // its newest frame; older queued ones are dropped
} GstCudaBatchSourcePolicy;

// Where a sink pad's batch items come from (the pad's `region-source`).
typedef enum {
  GST_CUDA_BATCH_REGION_SOURCE_FRAME,     // one item per frame: the whole frame
  GST_CUDA_BATCH_REGION_SOURCE_PROPERTY,  // one item per rectangle of the pad's `regions`
  GST_CUDA_BATCH_REGION_SOURCE_ROI_META,  // one per GstVideoRegionOfInterestMeta on the frame
} GstCudaBatchRegionSource;

// The tensor id of cudabatch's output.
#define GST_CUDA_BATCH_TENSOR_ID "image"

G_END_DECLS
