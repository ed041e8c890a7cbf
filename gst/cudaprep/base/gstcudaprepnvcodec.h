// Meeting GStreamer's own CUDA world (gst-plugins-bad's libgstcuda, used by
// nvcodec's decoders and encoders): one CUDA context per device, and its
// GstCudaMemory frames read in place.
//
// - Context: nvcodec elements create a context of their own unless the
//   pipeline hands them one as a `gst.cuda.context` GstContext. cudaprep's
//   elements answer that query (and announce the context to the pipeline)
//   with a GstCudaContext wrapping the device's primary context, the one
//   the CUDA runtime API (our kernels, TensorRT, PyTorch) runs on, so that
//   decoded frames live where our kernels run.
// - Frames: a buffer of GstCudaMemory becomes, without a copy, a buffer of
//   a borrowed GstCudaPrepMemory over the same device bytes, with the
//   GstVideoMeta of the decoder's layout. The decoder's buffer stays mapped
//   and referenced until every kernel that reads it has completed.
// - A frame from another context (an application set its own
//   gst.cuda.context) is refused with an error that says how to fix it;
//   nothing goes through the host.
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_CAPS_FEATURE_MEMORY_CUDA_NVCODEC "memory:CUDAMemory"
// libgstcuda's GST_CUDA_CONTEXT_TYPE.
#define GST_CUDA_PREP_NVCODEC_CONTEXT_TYPE "gst.cuda.context"

// Caps of nvcodec's device frames in `formats`.
#define GST_CUDA_PREP_NVCODEC_VIDEO_CAPS(formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_CUDA_NVCODEC, formats)

// Whether the first structure of `caps` is in memory:CUDAMemory.
gboolean gst_cuda_prep_caps_are_nvcodec(const GstCaps *caps);

// The CUcontext (as a pointer) of `device_id`'s primary context, the one
// gst.cuda.context answers carry; NULL with `*error` set (g_free) when CUDA
// or libgstcuda cannot provide it.
gpointer gst_cuda_prep_nvcodec_primary_context_handle(gint device_id, gchar **error);

// Answers a `gst.cuda.context` query with the primary context of
// `device_id`; FALSE for other queries, or when it cannot be made.
gboolean gst_cuda_prep_nvcodec_answer_query(GstElement *element, GstQuery *query, gint device_id);

// Posts have-context with that context, so that the pipeline hands it to
// nvcodec elements that ask later (an encoder after cudaprep's elements).
void gst_cuda_prep_nvcodec_announce_context(GstElement *element, gint device_id);

// Whether `context` is a gst.cuda.context (one an application may set).
gboolean gst_cuda_prep_context_is_nvcodec(GstContext *context);

// A buffer reading `input`'s GstCudaMemory in place as cudaprep device
// memory on `device_id`: same device pointer, the decoder's plane offsets
// and strides in its GstVideoMeta, `input`'s timestamps, flags and metas.
// NULL with `*error` set (g_free) when `input` is not one GstCudaMemory of
// the primary context of `device_id`.
GstBuffer *gst_cuda_prep_nvcodec_wrap_buffer(GstBuffer *input, gint device_id, gchar **error);

G_END_DECLS
