// The base class of cudaprep's one-in, one-out CUDA elements. It owns what
// each of them would otherwise repeat, so that an element holds its caps
// logic, its settings and one kernel call:
//
//  - a GstCudaPrepCore: device and GstContext, stream, the read/write
//    event protocol, pools;
//  - caps: parsed once per negotiation (video caps into GstVideoInfo, with
//    the error posted here) and handed to the element's set_info();
//  - the output plan: per buffer the element says whether its kernel runs
//    into a new buffer, the input goes on in place (a view, or work left to
//    a downstream fused kernel), or the frame is dropped; the base
//    implements prepare_output_buffer and transform once for all three.
//    Passthrough does no GPU work and never writes the buffer;
//  - the protocols between elements: the region an element reads (told to
//    the upload), whether it takes pending work (fusion), whether
//    downstream reads views (GstVideoMeta), and the geometry meta, which
//    follows every frame.
//
// Around process() the element's stream waits for the input's writer and
// the output's earlier readers, and both are recorded after: no host waits.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "cudaprep/geometry.h"
#include "cudaprep/image.h"
#include "gstcudaprepcore.h"
#include "gstcudapreppendingmeta.h"
#include "gstcudaprepregion.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_BASE_TRANSFORM (gst_cuda_prep_base_transform_get_type())
G_DECLARE_DERIVABLE_TYPE(GstCudaPrepBaseTransform, gst_cuda_prep_base_transform, GST,
                         CUDA_PREP_BASE_TRANSFORM, GstBaseTransform)

// What becomes of one input buffer.
typedef enum {
  // process() writes a new buffer from the output pool.
  GST_CUDA_PREP_OUTPUT_RUN,
  // The input goes on with new metadata (a view, pending work); no GPU work.
  GST_CUDA_PREP_OUTPUT_IN_PLACE,
  // The frame cannot be shown (uploaded for settings that changed since).
  GST_CUDA_PREP_OUTPUT_DROP,
  // The element cannot handle the frame and posted an element error.
  GST_CUDA_PREP_OUTPUT_ERROR,
} GstCudaPrepOutputPlan;

struct _GstCudaPrepBaseTransformClass {
  GstBaseTransformClass parent_class;

  // Why the element's settings (properties) cannot work, as a sentence
  // naming the property and value (g_free'd), or NULL. Checked when the
  // element goes to READY and to PAUSED and when caps are set, before any
  // GPU work (also on machines without a GPU). Optional.
  gchar *(*settings_error)(GstCudaPrepBaseTransform *self);

  // Problems of input frames that no output caps can fix (an impossible
  // crop, an unsupported colour matrix), as a message (g_free'd) posted when
  // the input caps arrive rather than as a bare not-negotiated; NULL when
  // the element can take them. Optional.
  gchar *(*input_error)(GstCudaPrepBaseTransform *self, const GstVideoInfo *in_info);

  // Negotiated caps. `in_info`/`out_info` are the parsed video caps of each
  // side, NULL where the side is not video (planar frames, tensors). Called
  // with the device current. Posts an element error and returns FALSE when
  // the element cannot work with them. Optional.
  gboolean (*set_info)(GstCudaPrepBaseTransform *self, GstCaps *incaps, const GstVideoInfo *in_info,
                       GstCaps *outcaps, const GstVideoInfo *out_info);

  // Decides what becomes of `inbuf` (not called in passthrough). Optional:
  // always RUN.
  GstCudaPrepOutputPlan (*plan_output)(GstCudaPrepBaseTransform *self, GstBuffer *inbuf);

  // Describes `outbuf` (for IN_PLACE the input itself, writable): geometry,
  // pending work, view layout. Posts an element error and returns FALSE on
  // failure. Optional.
  gboolean (*annotate_output)(GstCudaPrepBaseTransform *self, GstBuffer *inbuf, GstBuffer *outbuf,
                              GstCudaPrepOutputPlan plan);

  // RUN: enqueues the element's work turning `inbuf` into `outbuf` on the
  // element's stream, with the device current and the stream ordered after
  // the input's writer and the output's readers.
  GstFlowReturn (*process)(GstCudaPrepBaseTransform *self, GstBuffer *inbuf, GstBuffer *outbuf);

  // The part of frames of `in_info` the element reads, announced upstream
  // so that only it is uploaded; FALSE: the whole frame. Optional.
  gboolean (*region_read)(GstCudaPrepBaseTransform *self, const GstVideoInfo *in_info,
                          GstCudaPrepRegion *region);

  // Whether upstream may leave its work to this element in a
  // GstCudaPrepPendingMeta. Optional: no.
  gboolean (*accepts_pending)(GstCudaPrepBaseTransform *self);
  // With accepts_pending, for the element that runs the pending work
  // itself: how it launches it for input `caps` (announced upstream, which
  // compiles the kernel ahead). Optional: elements that hand the work on
  // announce what their downstream announced.
  gboolean (*pending_reader)(GstCudaPrepBaseTransform *self, GstCaps *caps,
                             GstCudaPrepPendingReader *reader);

  // Compiles (cudaprep/kernel_runtime.h) what the element will launch with
  // the negotiated caps, or with `pending` (not NULL) the fused kernel that
  // downstream launches with this element's work, so that no frame waits
  // for a compile. Called, with the element's device current, once the
  // allocation is decided. A failure is only logged: the first frame
  // compiles again and reports it. Optional.
  cudaError_t (*prepare_kernels)(GstCudaPrepBaseTransform *self,
                                 const GstCudaPrepPendingReader *pending);

  // TRUE for elements that hand their input frame on untouched when
  // downstream runs pending work (cudaresize, cudanormalize where it
  // accepts_pending): a region such a downstream announces (cudabatch's
  // regions) is then a region of this element's input too, and is announced
  // upstream in place of region_read's.
  gboolean hands_input_to_pending;
  // With hands_input_to_pending: the pending work leaves every pixel where
  // it is (cudanormalize), so a region of its result
  // (GstCudaPrepRegion::of_result, cudacrop's) is one of its input too.
  // Otherwise (cudaresize) such a region is not forwarded.
  gboolean pending_keeps_pixels;

  // Bytes of each output buffer when the output is not video (planar
  // frames, tensors): the base then gives the element a pool of such blocks.
  gsize (*output_block_size)(GstCudaPrepBaseTransform *self);

  // Set by gst_cuda_prep_base_transform_class_read_nvcodec_frames(): the
  // element's own transform_caps, for memory:CUDAPitched.
  GstCaps *(*device_transform_caps)(GstBaseTransform *trans, GstPadDirection direction,
                                    GstCaps *caps, GstCaps *filter);
};

// Makes an element class read nvcodec's frames (video/x-raw(memory:
// CUDAMemory), from nvh264dec and friends) in place: its sink pad template
// must list them; call this after setting transform_caps, which keeps
// describing memory:CUDAPitched. Input in CUDAMemory is then negotiated as
// the same caps in CUDAPitched, and each such buffer reaches the element as
// a cudaprep device frame over the decoder's memory (gstcudaprepnvcodec.h).
void gst_cuda_prep_base_transform_class_read_nvcodec_frames(GstCudaPrepBaseTransformClass *klass);

// Whether the negotiated input is nvcodec's memory:CUDAMemory.
gboolean gst_cuda_prep_base_transform_input_is_nvcodec(GstCudaPrepBaseTransform *self);

GstCudaPrepCore *gst_cuda_prep_base_transform_get_core(GstCudaPrepBaseTransform *self);
// Valid between start and stop.
cudaStream_t gst_cuda_prep_base_transform_get_stream(GstCudaPrepBaseTransform *self);
gint gst_cuda_prep_base_transform_get_device_id(GstCudaPrepBaseTransform *self);

// The negotiated video caps of each side; NULL where that side is not video.
const GstVideoInfo *gst_cuda_prep_base_transform_get_in_info(GstCudaPrepBaseTransform *self);
const GstVideoInfo *gst_cuda_prep_base_transform_get_out_info(GstCudaPrepBaseTransform *self);

// The input/output device frame as the negotiated caps describe it; posts
// the element error and returns FALSE when the buffer is not such a frame.
gboolean gst_cuda_prep_base_transform_input_image(GstCudaPrepBaseTransform *self, GstBuffer *buffer,
                                                  cudaprep::Image *image);
gboolean gst_cuda_prep_base_transform_output_image(GstCudaPrepBaseTransform *self,
                                                   GstBuffer *buffer, cudaprep::Image *image);

// From the last allocation query: downstream reads GstVideoMeta (so a crop
// may be a view), and downstream runs pending work (so the element may
// leave its own to it).
gboolean gst_cuda_prep_base_transform_downstream_reads_views(GstCudaPrepBaseTransform *self);
gboolean gst_cuda_prep_base_transform_downstream_runs_pending(GstCudaPrepBaseTransform *self);

// Whether downstream takes pending work, asked now with the current output
// caps (an allocation query to the peer): for accepts_pending, which
// upstream calls before this element's own allocation is decided.
gboolean gst_cuda_prep_base_transform_ask_downstream_takes_pending(GstCudaPrepBaseTransform *self);

G_END_DECLS
