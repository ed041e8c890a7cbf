// The cudaprep tracer (GST_TRACERS=cudapreptime, read with
// GST_DEBUG=GST_TRACER:7): per element, the GPU time of its kernels and the
// host time its streaming thread
// spends in it per frame — the time from a buffer entering the element's
// chain function to its return, minus the time its own pushes downstream
// took. Any element, cudaprep's or not; bins are left out (their time is
// their children's). Every `every` frames of an element (parameter, default
// 100: GST_TRACERS="cudapreptime(every=30)") it logs
//   cudaprep-host-time, element=(string)..., frames=(guint64)N,
//     host-ns-per-frame=(guint64)mean over those frames, host-ns-max=(guint64)...
// and, after it, for cudaprep's elements whose kernels' work completed since
// the last record (measured with CUDA events on the element's stream, see
// base/gstcudapreptrace.h; no GPU work, no such line):
//   cudaprep-gpu-time, element=(string)..., frames=(guint64)N,
//     gpu-ns-per-frame=(guint64)..., gpu-ns-max=(guint64)...
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_TRACER (gst_cuda_prep_tracer_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepTracer, gst_cuda_prep_tracer, GST, CUDA_PREP_TRACER, GstTracer)

G_END_DECLS
