#pragma once

#include "base/gstcudaprepbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_RESIZE (gst_cuda_prep_resize_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepResize, gst_cuda_prep_resize, GST, CUDA_PREP_RESIZE,
                     GstCudaPrepBaseTransform)

// The values of the `method`, `letterbox-align` and `antialias-intermediate`
// properties.
typedef enum {
  GST_CUDA_PREP_RESIZE_METHOD_NEAREST,
  GST_CUDA_PREP_RESIZE_METHOD_BILINEAR,
  GST_CUDA_PREP_RESIZE_METHOD_BICUBIC,
  GST_CUDA_PREP_RESIZE_METHOD_AREA,
} GstCudaPrepResizeMethod;

typedef enum {
  GST_CUDA_PREP_RESIZE_LETTERBOX_ALIGN_CENTER,
  GST_CUDA_PREP_RESIZE_LETTERBOX_ALIGN_TOP_LEFT,
} GstCudaPrepResizeLetterboxAlign;

typedef enum {
  GST_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE_FLOAT,
  GST_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE_UINT8,
} GstCudaPrepResizeAntialiasIntermediate;

#define GST_TYPE_CUDA_PREP_RESIZE_METHOD (gst_cuda_prep_resize_method_get_type())
GType gst_cuda_prep_resize_method_get_type(void);
#define GST_TYPE_CUDA_PREP_RESIZE_LETTERBOX_ALIGN (gst_cuda_prep_resize_letterbox_align_get_type())
GType gst_cuda_prep_resize_letterbox_align_get_type(void);
#define GST_TYPE_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE \
  (gst_cuda_prep_resize_antialias_intermediate_get_type())
GType gst_cuda_prep_resize_antialias_intermediate_get_type(void);

// How the 8-bit output rounds a value exactly between two codes.
typedef enum {
  GST_CUDA_PREP_RESIZE_ROUNDING_HALF_EVEN,
  GST_CUDA_PREP_RESIZE_ROUNDING_HALF_UP,
} GstCudaPrepResizeRounding;

#define GST_TYPE_CUDA_PREP_RESIZE_ROUNDING (gst_cuda_prep_resize_rounding_get_type())
GType gst_cuda_prep_resize_rounding_get_type(void);

GST_ELEMENT_REGISTER_DECLARE(cudaresize);

G_END_DECLS
