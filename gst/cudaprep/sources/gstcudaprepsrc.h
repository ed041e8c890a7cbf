// cudaprepsrc: one camera or file as a source that survives its faults.
//
// A bin around uridecodebin (the decoder: nvcodec's nvh264dec/nvh265dec
// first when present, so frames stay on the GPU), a stable queue and an
// optional chain (`chain`, e.g. "cudaresize ! cudanormalize"), with one
// always src pad on the stable part. An ERROR of any child is caught in the
// bin and posted as a WARNING and a `cudaprepsrc-fault` element message;
// the decoder is then rebuilt after a back-off. A source that sends no
// frame for `stall-timeout` while PLAYING is treated the same. EOS of a
// file ends only this src pad; EOS of a live source (rtspsrc's answer to a
// server that closes) is a fault too, unless `on-eos` says otherwise. Credentials in `uri` never
// reach a log, message or statistic (sources/gstcudaprepcredentials.h).
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_SRC (gst_cuda_prep_src_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepSrc, gst_cuda_prep_src, GST, CUDA_PREP_SRC, GstBin)
GST_ELEMENT_REGISTER_DECLARE(cudaprepsrc);

// Where a source stands (the `state` field of `stats`).
typedef enum {
  GST_CUDA_PREP_SRC_STATE_STOPPED,       // not started (READY or NULL)
  GST_CUDA_PREP_SRC_STATE_CONNECTING,    // a decoder is built, no frame yet
  GST_CUDA_PREP_SRC_STATE_STREAMING,     // frames flow
  GST_CUDA_PREP_SRC_STATE_RECONNECTING,  // after a fault, waiting for the next attempt
  GST_CUDA_PREP_SRC_STATE_ENDED,         // EOS: the src pad sent EOS
  GST_CUDA_PREP_SRC_STATE_FAILED,        // reconnect-attempts spent: the src pad sent EOS
} GstCudaPrepSrcState;

GType gst_cuda_prep_src_state_get_type(void);

// What the source's EOS means (`on-eos`).
typedef enum {
  GST_CUDA_PREP_SRC_ON_EOS_AUTO,       // a live source reconnects, a file ends
  GST_CUDA_PREP_SRC_ON_EOS_END,        // the src pad sends EOS: this source is done
  GST_CUDA_PREP_SRC_ON_EOS_RECONNECT,  // a fault: reconnect (rtspsrc ends when a server closes)
} GstCudaPrepSrcOnEos;

GType gst_cuda_prep_src_on_eos_get_type(void);

G_END_DECLS
