/**
 * SECTION:cudaprep-box
 *
 * Boxes in tensor pixels back to the source frame: what an application
 * calls to draw a detector's boxes on the original frame.
 */
#pragma once

#include <gst/gst.h>

#include "cudaprep-prelude.h"

#include "gstcudaprepmeta.h"

G_BEGIN_DECLS

/**
 * gst_cuda_prep_tensor_box_to_source:
 * @tensor: a tensor
 * @index: the item
 * @x0: the box's left edge, in tensor pixels
 * @y0: its top edge
 * @x1: its right edge
 * @y1: its bottom edge
 * @src_width: the source frame's width
 * @src_height: the source frame's height
 * @out_x0: (out) (optional): the mapped box's left edge
 * @out_y0: (out) (optional): its top edge
 * @out_x1: (out) (optional): its right edge
 * @out_y1: (out) (optional): its bottom edge
 *
 * Maps the box (@x0, @y0)-(@x1, @y1), in continuous pixel coordinates of
 * item @index of @tensor (pixel i covers [i, i + 1)), back to the item's
 * source frame through the item's geometry (through its flip or rotation:
 * the corners come back sorted, x0 <= x1 and y0 <= y1), and clips it to the
 * item's active area: the part of the tensor that holds source pixels (not
 * the letterbox pad) and the source frame's @src_width x @src_height, or
 * for a region item (region_width > 0) its region of the frame. Writes the
 * mapped box to out_* (any may be NULL).
 *
 * Returns: TRUE when some of the box is left; FALSE when the box lies
 *   wholly in the pad or outside the frame, when @index is not a filled
 *   item, or when the geometry has a zero scale
 */
GST_CUDA_PREP_API gboolean gst_cuda_prep_tensor_box_to_source(const GstCudaPrepTensor *tensor,
                                                              gsize index, gdouble x0, gdouble y0,
                                                              gdouble x1, gdouble y1,
                                                              gint src_width, gint src_height,
                                                              gdouble *out_x0, gdouble *out_y0,
                                                              gdouble *out_x1, gdouble *out_y1);

G_END_DECLS
