/**
 * SECTION:cudaprep-geometry
 *
 * GstCudaPrepGeometry, the mapping from a source frame to an element's
 * output that the geometry meta, the tensor items and the box helper carry.
 *
 * Public and plain C (installed; included by gstcudaprepmeta.h, which
 * declares the functions on it). The type alone, below everything that
 * uses it: the library's C++ conversion to the kernels' FrameGeometry
 * (gstcudaprepgeometry-private.h) builds on it without the metas.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * GstCudaPrepGeometry:
 * @crop_x: source pixels removed on the left
 * @crop_y: source pixels removed at the top
 * @scale_x: output pixels per source pixel, horizontally
 * @scale_y: output pixels per source pixel, vertically
 * @pad_x: output pixels added on the left
 * @pad_y: output pixels added at the top
 * @orientation: the flip or rotation R applied after the crop, as a
 *   GstVideoOrientationMethod value (0 identity, 1 90r, 2 180, 3 90l,
 *   4 horiz, 5 vert, 6 ul-lr, 7 ur-ll; never auto or custom)
 *
 * The mapping from a source frame to an element's output, in continuous
 * pixel coordinates (pixel i covers [i, i+1)): every crop, flip or
 * rotation, scale and letterbox pad composes into
 * out = R(src - crop) * scale + pad, R being the orientation's signed swap
 * of the axes without offset (90r: (x, y) -> (-y, x); horiz: (-x, y)) and
 * scale applying per output axis. Without orientation crop is the used
 * part's top-left corner; with one, the source point at the oriented
 * image's top-left (a 90r resize of a W x H frame: (0, H)). The identity is
 * crop 0, scale 1, pad 0, orientation 0: start a geometry of your own with
 * gst_cuda_prep_geometry_init_identity() so that no field is left unset.
 */
typedef struct {
  gdouble crop_x, crop_y;
  gdouble scale_x, scale_y;
  gdouble pad_x, pad_y;
  gint orientation;
} GstCudaPrepGeometry;

G_END_DECLS
