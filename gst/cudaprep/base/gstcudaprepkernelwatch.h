// Kernels are compiled when elements negotiate (prepare_kernels in
// gstcudaprepbasetransform.h; cudaprep/kernel_runtime.h). A watch spans one
// frame's work and logs a warning, naming the element, when a kernel was
// compiled or loaded during it after all: the frame waited for it, and a
// live stream shows a stall whose cause the log then names.
#pragma once

#include <gst/gst.h>

#include <cstdint>

#include "cudaprep/kernel_runtime.h"

class GstCudaPrepKernelWatch {
 public:
  explicit GstCudaPrepKernelWatch(GstElement *element)
      : element_(element), before_(modules_made()) {}
  ~GstCudaPrepKernelWatch();
  GstCudaPrepKernelWatch(const GstCudaPrepKernelWatch &) = delete;
  GstCudaPrepKernelWatch &operator=(const GstCudaPrepKernelWatch &) = delete;

 private:
  static uint64_t modules_made() {
    const cudaprep::KernelRuntimeStats stats = cudaprep::kernel_runtime_stats();
    return stats.compiled + stats.loaded_from_disk;
  }

  GstElement *element_;
  uint64_t before_;
};
