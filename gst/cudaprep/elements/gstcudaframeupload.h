#pragma once

#include "base/gstcudaprepbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_FRAME_UPLOAD (gst_cuda_prep_frame_upload_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepFrameUpload, gst_cuda_prep_frame_upload, GST,
                     CUDA_PREP_FRAME_UPLOAD, GstCudaPrepBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(cudaframeupload);

G_END_DECLS
