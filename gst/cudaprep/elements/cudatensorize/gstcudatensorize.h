#pragma once

#include "base/gstcudaprepbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_TENSORIZE (gst_cuda_prep_tensorize_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepTensorize, gst_cuda_prep_tensorize, GST, CUDA_PREP_TENSORIZE,
                     GstCudaPrepBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(cudatensorize);

// The id (GstCudaPrepTensor.id) of the image tensor cudatensorize attaches.
#define GST_CUDA_PREP_TENSORIZE_TENSOR_ID "image"
// The id of the clip tensor it attaches with clip-length > 0.
#define GST_CUDA_PREP_TENSORIZE_CLIP_TENSOR_ID "clip"

G_END_DECLS
