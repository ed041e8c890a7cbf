// The library's C++ side of the metas (not installed): the pending meta of
// fusion, which holds kernel parameters, and conversions between the public
// C structs and the kernel library's types.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include "cudaprep/geometry.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "cudaprep/tensor.h"
#include "gstcudaprepmeta.h"

// --- Geometry conversions ---------------------------------------------------

inline cudaprep::FrameGeometry gst_cuda_prep_geometry_to_frame(const GstCudaPrepGeometry &g) {
  cudaprep::FrameGeometry frame;
  frame.crop_x = g.crop_x;
  frame.crop_y = g.crop_y;
  frame.scale_x = g.scale_x;
  frame.scale_y = g.scale_y;
  frame.pad_x = g.pad_x;
  frame.pad_y = g.pad_y;
  // Same values as GstVideoOrientationMethod; others (auto, custom) never
  // reach a geometry.
  frame.orientation =
      g.orientation >= 0 &&
              g.orientation <= static_cast<gint>(cudaprep::Orientation::kAntiTranspose)
          ? static_cast<cudaprep::Orientation>(g.orientation)
          : cudaprep::Orientation::kIdentity;
  return frame;
}

inline GstCudaPrepGeometry gst_cuda_prep_geometry_from_frame(const cudaprep::FrameGeometry &f) {
  return GstCudaPrepGeometry{
      f.crop_x, f.crop_y, f.scale_x, f.scale_y, f.pad_x, f.pad_y, static_cast<gint>(f.orientation)};
}

// --- Pending meta (fusion) -------------------------------------------------

// Operations an element left for a later one to run in a single kernel
// (DESIGN.md "Later"): the buffer's memory and GstVideoMeta still hold the
// source frame, the caps describe the result. cudaresize and cudanormalize
// leave their work here when downstream announces the meta's API in the
// allocation query; cudatensorize runs it with cudaprep::preprocess().
typedef struct {
  GstMeta meta;
  gboolean has_resize;
  cudaprep::ResizeParams resize;  // into the caps' size; identity when !has_resize
  gboolean has_normalize;
  cudaprep::NormalizeParams normalize;
  // How the resize fits a picture into the caps' size (letterbox with these
  // options, or stretched), so that a reader resizing parts of the source
  // (cudabatch's regions) fits each part as cudaresize fits the frame.
  gboolean letterbox;
  cudaprep::LetterboxOptions letterbox_options;
  // The held source frame's mapping from the original frame: its geometry
  // before the pending resize was composed onto the buffer's geometry meta.
  GstCudaPrepGeometry source_geometry;
} GstCudaPrepPendingMeta;

#define GST_CUDA_PREP_PENDING_META_API_TYPE (gst_cuda_prep_pending_meta_api_get_type())
GType gst_cuda_prep_pending_meta_api_get_type(void);
const GstMetaInfo *gst_cuda_prep_pending_meta_get_info(void);
// The buffer's pending meta, added (nothing pending) if it has none.
GstCudaPrepPendingMeta *gst_buffer_ensure_cuda_prep_pending_meta(GstBuffer *buffer);
GstCudaPrepPendingMeta *gst_buffer_get_cuda_prep_pending_meta(GstBuffer *buffer);

// --- Tensor descriptions ----------------------------------------------------

// Describes `tensor` as the rank-4 image tensor `desc` at device pointer
// `data` on `device_id`; (re)allocates batch_size = N items, each with no PTS
// and identity geometry, and sets batch_filled to 0. `tensor` is one of a
// meta's (zeroed when added) or one set before. False if desc has a
// non-positive dim or a negative stride.
gboolean gst_cuda_prep_tensor_set_from_desc(GstCudaPrepTensor *tensor, GQuark id,
                                            const cudaprep::TensorDesc &desc, gpointer data,
                                            gint device_id, cudaEvent_t ready_event);

// The kernel library's description of `tensor`; false if it is not a rank-4
// image tensor of a type the kernels know (uint8, float16, float32).
gboolean gst_cuda_prep_tensor_to_desc(const GstCudaPrepTensor *tensor, cudaprep::TensorDesc *desc);
