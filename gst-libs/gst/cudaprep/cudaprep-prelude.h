#pragma once

#include <gst/gst.h>

/**
 * GST_CUDA_PREP_API:
 *
 * The export macro of libgstcudaprep-1.0: the library is built with hidden
 * visibility, so a function is part of the ABI only when its declaration in
 * an installed header carries GST_CUDA_PREP_API (GStreamer's GST_*_API).
 */
#ifndef GST_CUDA_PREP_API
#ifdef BUILDING_GST_CUDA_PREP
#define GST_CUDA_PREP_API GST_API_EXPORT
#else
#define GST_CUDA_PREP_API GST_API_IMPORT
#endif
#endif
