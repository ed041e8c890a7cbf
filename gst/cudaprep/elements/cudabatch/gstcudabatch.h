// cudabatch: N sources into one batch tensor, one kernel launch per batch.
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_BATCH (gst_cuda_prep_batch_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepBatch, gst_cuda_prep_batch, GST, CUDA_PREP_BATCH, GstAggregator)
GST_ELEMENT_REGISTER_DECLARE(cudabatch);

// How a batch treats a source that delivers faster than the others.
typedef enum {
  GST_CUDA_PREP_BATCH_SOURCE_POLICY_WAIT,    // every queued frame in turn; the source waits
                                             // (backpressure)
  GST_CUDA_PREP_BATCH_SOURCE_POLICY_LATEST,  // its newest frame; older queued ones are dropped
} GstCudaPrepBatchSourcePolicy;

// The tensor id of cudabatch's output.
#define GST_CUDA_PREP_BATCH_TENSOR_ID "image"
// The tensor's id with clip-length > 0.
#define GST_CUDA_PREP_BATCH_CLIP_TENSOR_ID "clip"

G_END_DECLS
