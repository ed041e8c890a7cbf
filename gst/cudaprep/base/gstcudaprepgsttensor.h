// GStreamer's own tensor meta (GstTensorMeta, GStreamer >= 1.26,
// gst-libs/gst/analytics/gsttensormeta.h) beside ours, for consumers that
// speak only GStreamer's: each tensor cudaprep writes is also a GstTensor
// with the same id, data type and dims (row major), whose data is a
// GstBuffer sharing our device memory (no copy). Mapping that memory waits
// for the tensor's write; GST_MAP_CUDA gives the device pointer, a plain
// read map a host copy (gstcudaprepmemory.h). Our meta keeps what GstTensor
// lacks: strides, the ready event, the image layout and per-item geometry.
#pragma once

#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gst/gst.h>

G_BEGIN_DECLS

// Whether the GStreamer cudaprep was built against has GstTensorMeta.
gboolean gst_cuda_prep_has_gst_tensor_meta(void);

// Adds to `buffer` a GstTensorMeta with one GstTensor per tensor of `meta`
// (in `meta`'s order), each holding the part of `buffer`'s single memory its
// tensor occupies. A tensor GstTensor cannot describe (strided: GstTensor
// has no strides) is left out with a debug message. Without GstTensorMeta
// (GStreamer < 1.26) it adds nothing and returns TRUE. FALSE if a GstTensor
// could not be made (the reason is logged).
gboolean gst_cuda_prep_add_gst_tensor_meta(GstBuffer *buffer, const GstCudaPrepTensorMeta *meta);

G_END_DECLS
