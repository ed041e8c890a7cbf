// The CUDA call discipline of every cudaprep element: each call's result is
// checked and a failure becomes an element error naming the call; device
// objects are made with their device current, whatever thread runs.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

// Posts a GST_ELEMENT_ERROR naming the failed CUDA call (out of memory gets
// its own message) and returns FALSE; returns TRUE on cudaSuccess.
gboolean gst_cuda_prep_check(GstElement *element, cudaError_t result, const gchar *call,
                             const gchar *file, const gchar *function, gint line);

#define CUDAPREP_CHECK(element, call) \
  gst_cuda_prep_check(GST_ELEMENT(element), (call), #call, __FILE__, GST_FUNCTION, __LINE__)

// A failed CUDA call also leaves its error as the thread's last error, which
// the next kernel launch checked on that thread (a pooled streaming thread,
// perhaps another pipeline's by then) would report as its own. Every error
// handled outside gst_cuda_prep_check() passes through here.
inline cudaError_t gst_cuda_prep_consume_error(cudaError_t result) {
  if (result != cudaSuccess) cudaGetLastError();
  return result;
}

// Makes `device_id` current for the scope and restores the caller's device:
// memory and events may be created or freed from any thread, including the
// application's.
class GstCudaPrepScopedDevice {
 public:
  explicit GstCudaPrepScopedDevice(gint device_id) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (previous_ != device_id) result_ = cudaSetDevice(device_id);
  }
  ~GstCudaPrepScopedDevice() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  GstCudaPrepScopedDevice(const GstCudaPrepScopedDevice &) = delete;
  GstCudaPrepScopedDevice &operator=(const GstCudaPrepScopedDevice &) = delete;
  // Whether making the device current worked.
  cudaError_t result() const { return result_; }

 private:
  gint previous_ = -1;
  cudaError_t result_ = cudaSuccess;
};

// Pinned host memory of gst_cuda_prep_host_allocator_get() carries this
// mark (qdata), so that cudaframeupload knows a frame from the pool it
// offers is pinned without asking the driver each frame.
inline GQuark gst_cuda_prep_pinned_host_quark(void) {
  return g_quark_from_static_string("GstCudaPrepPinnedHost");
}

// Whether `memory` (or the memory it shares) is marked pinned.
inline gboolean gst_cuda_prep_memory_is_marked_pinned(GstMemory *memory) {
  for (; memory != nullptr; memory = memory->parent)
    if (gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(memory),
                                  gst_cuda_prep_pinned_host_quark()) != nullptr)
      return TRUE;
  return FALSE;
}
