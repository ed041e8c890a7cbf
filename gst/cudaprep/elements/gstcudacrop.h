#pragma once

#include "base/gstcudaprepbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CROP (gst_cuda_crop_get_type())
G_DECLARE_FINAL_TYPE(GstCudaCrop, gst_cuda_crop, GST, CUDA_CROP, GstCudaPrepBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(cudacrop);

G_END_DECLS
