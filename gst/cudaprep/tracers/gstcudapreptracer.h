// The cudaprep tracer (GST_TRACERS=cudapreptime, read with
// GST_DEBUG=GST_TRACER:7): per element, the host time its streaming thread
// spends in it per frame — the time from a buffer entering the element's
// chain function to its return, minus the time its own pushes downstream
// took. Any element, cudaprep's or not; bins are left out (their time is
// their children's). Every `every` frames of an element (parameter, default
// 100: GST_TRACERS="cudapreptime(every=30)") it logs
//   cudaprep-host-time, element=(string)..., frames=(guint64)N,
//     host-ns-per-frame=(guint64)mean over those frames, host-ns-max=(guint64)...
// GPU kernel time per element needs a hook in the base class (see
// docs/sources.md, "Tracer").
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_TRACER (gst_cuda_prep_tracer_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepTracer, gst_cuda_prep_tracer, GST, CUDA_PREP_TRACER, GstTracer)

G_END_DECLS
