// The calling thread's last kernel-runtime error, apart from the runtime
// itself: code that only reports it (the GStreamer library's CUDA check)
// links this, not the compiler and the embedded sources.
#include <string>
#include <utility>

#include "cudaprep/kernel_runtime.h"
#include "runtime_kernels.h"

namespace cudaprep {
namespace {

thread_local std::string t_error;

}  // namespace

void runtime::set_thread_error(std::string error) {
  t_error = std::move(error);
}

std::string kernel_runtime_error() {
  return t_error;
}

}  // namespace cudaprep
