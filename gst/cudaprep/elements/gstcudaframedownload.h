#pragma once

#include "base/gstcudaprepbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_FRAME_DOWNLOAD (gst_cuda_prep_frame_download_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepFrameDownload, gst_cuda_prep_frame_download, GST,
                     CUDA_PREP_FRAME_DOWNLOAD, GstCudaPrepBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(cudaframedownload);

G_END_DECLS
