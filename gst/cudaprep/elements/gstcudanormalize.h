#pragma once

#include "base/gstcudaprepbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_NORMALIZE (gst_cuda_normalize_get_type())
G_DECLARE_FINAL_TYPE(GstCudaNormalize, gst_cuda_normalize, GST, CUDA_NORMALIZE,
                     GstCudaPrepBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(cudanormalize);

G_END_DECLS
