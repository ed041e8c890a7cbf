// NVRTC, loaded at run time (dlopen) the first time a kernel is compiled:
// the plugin links no NVRTC, so a machine that only ever loads kernels
// from the cache, or never launches one, does not need it.
#pragma once

#include <cstddef>
#include <string>

namespace cudaprep::runtime {

// The NVRTC entry points the runtime uses, with NVRTC's own signatures
// (nvrtcResult as int, nvrtcProgram as void *).
struct NvrtcApi {
  int (*version)(int *major, int *minor);
  int (*get_num_supported_archs)(int *count);
  int (*get_supported_archs)(int *archs);
  const char *(*get_error_string)(int result);
  int (*create_program)(void **program, const char *source, const char *name, int num_headers,
                        const char *const *headers, const char *const *include_names);
  int (*destroy_program)(void **program);
  int (*add_name_expression)(void *program, const char *name_expression);
  int (*compile_program)(void *program, int num_options, const char *const *options);
  int (*get_lowered_name)(void *program, const char *name_expression, const char **lowered_name);
  int (*get_program_log_size)(void *program, size_t *size);
  int (*get_program_log)(void *program, char *log);
  int (*get_cubin_size)(void *program, size_t *size);
  int (*get_cubin)(void *program, char *cubin);
  int (*get_ptx_size)(void *program, size_t *size);
  int (*get_ptx)(void *program, char *ptx);
  std::string path;  // the library that was loaded
};

// NVRTC, loaded once per process: $CUDAPREP_NVRTC_LIBRARY if set, else
// libnvrtc.so.13, .12 and libnvrtc.so from the loader's path, then from
// $CUDA_HOME/lib64 and /usr/local/cuda/lib64. nullptr when none loads;
// `error` (if given) then says what was tried and what to install.
const NvrtcApi *nvrtc_api(std::string *error);

}  // namespace cudaprep::runtime
