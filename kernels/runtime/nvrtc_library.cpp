#include "nvrtc_library.h"

#include <dirent.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace cudaprep::runtime {
namespace {

std::vector<std::string> candidate_paths() {
  if (const char *forced = std::getenv("CUDAPREP_NVRTC_LIBRARY")) return {forced};
  const std::vector<std::string> names = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  std::vector<std::string> paths = names;
  std::vector<std::string> roots;
  if (const char *home = std::getenv("CUDA_HOME")) roots.emplace_back(home);
  roots.emplace_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    for (const std::string &name : names) paths.push_back(root + "/lib64/" + name);
  }
  return paths;
}

// NVRTC opens its builtins library (libnvrtc-builtins.so.MAJOR.MINOR) by
// name when it compiles: a directory off the loader's path (the toolkit's
// lib64, a wheel's lib) would not give it. Loaded first from NVRTC's own
// directory, it is found by that name.
void preload_builtins(const std::string &nvrtc_path) {
  const size_t slash = nvrtc_path.rfind('/');
  if (slash == std::string::npos) return;  // from the loader's path: so is it
  const std::string directory = nvrtc_path.substr(0, slash);
  DIR *listing = opendir(directory.c_str());
  if (listing == nullptr) return;
  while (const dirent *entry = readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.rfind("libnvrtc-builtins.so.", 0) == 0 &&
        dlopen((directory + "/" + name).c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr)
      break;
  }
  closedir(listing);
}

template <class Function>
bool resolve(void *library, const char *symbol, Function *function) {
  *function = reinterpret_cast<Function>(::dlsym(library, symbol));
  return *function != nullptr;
}

struct Loaded {
  NvrtcApi api{};
  bool ok = false;
  std::string error;
};

Loaded load() {
  Loaded loaded;
  std::string tried;
  for (const std::string &path : candidate_paths()) {
    void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      tried += "\n  " + path + ": " + ::dlerror();
      continue;
    }
    NvrtcApi &api = loaded.api;
    const bool complete =
        resolve(library, "nvrtcVersion", &api.version) &&
        resolve(library, "nvrtcGetNumSupportedArchs", &api.get_num_supported_archs) &&
        resolve(library, "nvrtcGetSupportedArchs", &api.get_supported_archs) &&
        resolve(library, "nvrtcGetErrorString", &api.get_error_string) &&
        resolve(library, "nvrtcCreateProgram", &api.create_program) &&
        resolve(library, "nvrtcDestroyProgram", &api.destroy_program) &&
        resolve(library, "nvrtcAddNameExpression", &api.add_name_expression) &&
        resolve(library, "nvrtcCompileProgram", &api.compile_program) &&
        resolve(library, "nvrtcGetLoweredName", &api.get_lowered_name) &&
        resolve(library, "nvrtcGetProgramLogSize", &api.get_program_log_size) &&
        resolve(library, "nvrtcGetProgramLog", &api.get_program_log) &&
        resolve(library, "nvrtcGetCUBINSize", &api.get_cubin_size) &&
        resolve(library, "nvrtcGetCUBIN", &api.get_cubin) &&
        resolve(library, "nvrtcGetPTXSize", &api.get_ptx_size) &&
        resolve(library, "nvrtcGetPTX", &api.get_ptx);
    if (!complete) {
      tried += "\n  " + path + ": not a usable NVRTC (missing " + ::dlerror() + ")";
      ::dlclose(library);
      continue;
    }
    api.path = path;
    preload_builtins(path);
    loaded.ok = true;
    return loaded;
  }
  loaded.error =
      "cudaprep compiles its CUDA kernels at run time with NVRTC, and no NVRTC library could be "
      "loaded. Install it: the CUDA toolkit (libnvrtc.so in <cuda>/lib64), Debian/Ubuntu "
      "'cuda-nvrtc-13-0' from NVIDIA's repository, or 'pip install nvidia-cuda-nvrtc' and point "
      "CUDAPREP_NVRTC_LIBRARY at its libnvrtc.so.13 (docs/kernels.md). Tried:" +
      tried;
  return loaded;
}

}  // namespace

const NvrtcApi *nvrtc_api(std::string *error) {
  static const Loaded loaded = load();
  if (!loaded.ok && error != nullptr) *error = loaded.error;
  return loaded.ok ? &loaded.api : nullptr;
}

}  // namespace cudaprep::runtime
