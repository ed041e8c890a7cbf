#pragma once

#include "base/gstcudaprepbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_NORMALIZE (gst_cuda_prep_normalize_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepNormalize, gst_cuda_prep_normalize, GST, CUDA_PREP_NORMALIZE,
                     GstCudaPrepBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(cudanormalize);

G_END_DECLS
