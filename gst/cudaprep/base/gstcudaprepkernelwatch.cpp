#include "gstcudaprepkernelwatch.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_kernel_watch_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_kernel_watch_debug

GstCudaPrepKernelWatch::~GstCudaPrepKernelWatch() {
  const uint64_t made = modules_made() - before_;
  if (made == 0) return;
  static gsize debug_initialized = 0;
  if (g_once_init_enter(&debug_initialized)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_kernel_watch_debug, "cudaprepkernels", 0,
                            "cudaprep kernels compiled at run time");
    g_once_init_leave(&debug_initialized, 1);
  }
  GST_WARNING_OBJECT(element_,
                     "%" G_GUINT64_FORMAT
                     " kernel module(s) compiled or loaded on a frame, not "
                     "when the element negotiated: this frame waited for them",
                     made);
}
