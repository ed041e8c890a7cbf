// The geometry's C++ side (not installed; the library, the plugin and the
// tests use it): the one conversion point between the public
// GstCudaPrepGeometry and the kernel library's cudaprep::FrameGeometry,
// which does the math (composition, mapping points). Header-only and below
// the metas: gstcudaprepmeta.cpp implements the public geometry functions
// and the geometry meta's transform with it.
#pragma once

#include <glib.h>

#include "cudaprep/geometry.h"
#include "gstcudaprepgeometry.h"

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
