#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_PREPROCESS (gst_cuda_prep_preprocess_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepPreprocess, gst_cuda_prep_preprocess, GST, CUDA_PREP_PREPROCESS,
                     GstBin)

GST_ELEMENT_REGISTER_DECLARE(cudapreprocess);

G_END_DECLS
