#include "gstcudaprepcuda-private.h"

#include <string>

#include "cudaprep/kernel_runtime.h"

gboolean gst_cuda_prep_check(GstElement *element, cudaError_t result, const gchar *call,
                             const gchar *file, const gchar *function, gint line) {
  if (result == cudaSuccess) return TRUE;
  // Clear the non-sticky last error so a later, unrelated check is not blamed.
  cudaGetLastError();
  gchar *debug = g_strdup_printf("%s failed: %s (%s)", call, cudaGetErrorName(result),
                                 cudaGetErrorString(result));
  if (result == cudaErrorMemoryAllocation) {
    gint device_id = -1;
    cudaGetDevice(&device_id);
    gst_element_message_full(
        element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        g_strdup_printf("Out of GPU memory on CUDA device %d; use smaller frames or fewer buffers",
                        device_id),
        debug, file, function, line);
  } else if (result == cudaErrorJitCompilerNotFound || result == cudaErrorInvalidSource ||
             result == cudaErrorNoKernelImageForDevice) {
    // A kernel compiled at run time (cudaprep/kernel_runtime.h): the
    // runtime's own words (NVRTC missing and what to install, NVRTC's log).
    const std::string reason = cudaprep::kernel_runtime_error();
    gchar *with_reason = g_strdup_printf("%s\n%s", debug, reason.c_str());
    g_free(debug);
    gst_element_message_full(
        element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        g_strdup_printf("No CUDA kernel for this GPU: %s",
                        reason.empty() ? cudaGetErrorString(result)
                                       : reason.substr(0, reason.find('\n')).c_str()),
        with_reason, file, function, line);
  } else {
    gst_element_message_full(
        element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        g_strdup_printf("CUDA error: %s", cudaGetErrorString(result)), debug, file, function, line);
  }
  return FALSE;
}
