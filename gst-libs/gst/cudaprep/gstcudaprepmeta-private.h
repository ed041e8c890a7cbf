// The C++ side of the public metas (not installed; the plugin and the tests
// use it): the one conversion point between the public C structs and the
// kernel library's types (geometry, tensor descriptions).
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include "cudaprep/geometry.h"
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

// What `buffer`'s pixels are in the original frame's terms: its geometry
// meta, identity without one.
cudaprep::FrameGeometry gst_cuda_prep_buffer_get_geometry(GstBuffer *buffer);
// Sets `buffer`'s geometry meta (added if it has none) to `geometry`.
void gst_cuda_prep_buffer_set_geometry(GstBuffer *buffer, const cudaprep::FrameGeometry &geometry);

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
