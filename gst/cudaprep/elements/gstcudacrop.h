#pragma once

#include "base/gstcudaprepbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_CROP (gst_cuda_prep_crop_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepCrop, gst_cuda_prep_crop, GST, CUDA_PREP_CROP,
                     GstCudaPrepBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(cudacrop);

G_END_DECLS
