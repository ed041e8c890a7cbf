// cudaprep-kernels: the runtime-compiled kernels from the command line
// (docs/kernels.md).
//   cudaprep-kernels info                       NVRTC, the GPU, the cache
//   cudaprep-kernels precompile [--arch LIST] [--dir DIR]
//                                               every variant, ahead of time
//   cudaprep-kernels warm 'LAUNCH LINE'         a pipeline's kernels, by
//                                               bringing it up once
#include <cuda_runtime_api.h>
#include <dirent.h>
#include <gst/gst.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepwarm.h>

#include "cudaprep/kernel_runtime.h"
#include "runtime/kernel_cache.h"
#include "runtime/kernel_variants.h"
#include "runtime/nvrtc_library.h"
#include "runtime/runtime_kernels.h"

namespace {

using cudaprep::runtime::KernelCache;

int usage() {
  std::fprintf(stderr,
               "usage: cudaprep-kernels info\n"
               "       cudaprep-kernels precompile [--arch 75,80,...|auto] [--dir DIR]\n"
               "       cudaprep-kernels warm 'LAUNCH LINE'\n");
  return 2;
}

// Entries and bytes in `directory`.
std::pair<size_t, size_t> cache_size(const std::string &directory) {
  size_t entries = 0, bytes = 0;
  DIR *dir = directory.empty() ? nullptr : opendir(directory.c_str());
  if (dir == nullptr) return {0, 0};
  while (const dirent *entry = readdir(dir)) {
    const std::string name = entry->d_name;
    struct stat info;
    if (name.size() < 7 || name.compare(name.size() - 7, 7, ".module") != 0 ||
        stat((directory + "/" + name).c_str(), &info) != 0)
      continue;
    ++entries;
    bytes += static_cast<size_t>(info.st_size);
  }
  closedir(dir);
  return {entries, bytes};
}

// Compute capabilities of the GPUs here, as 90 for 9.0.
std::vector<int> local_archs() {
  std::vector<int> archs;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return archs;
  for (int device = 0; device < count; ++device) {
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    const int arch = major * 10 + minor;
    bool known = false;
    for (int seen : archs) known = known || seen == arch;
    if (!known) archs.push_back(arch);
  }
  return archs;
}

int info() {
  std::string missing;
  const cudaprep::runtime::NvrtcApi *nvrtc = cudaprep::runtime::nvrtc_api(&missing);
  const std::string version = cudaprep::runtime::loaded_nvrtc_version();
  std::printf("NVRTC: %s\n",
              nvrtc != nullptr ? (version + " (" + nvrtc->path + ")").c_str() : missing.c_str());
  const std::vector<int> archs = local_archs();
  std::printf("GPUs here:");
  for (int arch : archs) std::printf(" sm_%d", arch);
  std::printf("%s\n", archs.empty() ? " none" : "");
  const std::string directory = cudaprep::kernel_cache_directory();
  const auto [entries, bytes] = cache_size(directory);
  std::printf("kernel cache: %s (%zu modules, %.1f MB)\n",
              directory.empty() ? "none" : directory.c_str(), entries, bytes / 1e6);
  std::printf("variants: %zu\n", cudaprep::runtime::all_kernel_variants().size());
  return nvrtc != nullptr ? 0 : 1;
}

int precompile(int argc, char **argv) {
  std::string arch_list = "auto", directory = cudaprep::kernel_cache_directory();
  for (int i = 0; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--arch") == 0) {
      arch_list = argv[i + 1];
    } else if (std::strcmp(argv[i], "--dir") == 0) {
      directory = argv[i + 1];
    } else {
      return usage();
    }
  }
  if (argc % 2 != 0) return usage();
  std::vector<int> archs;
  if (arch_list == "auto") {
    archs = local_archs();
    if (archs.empty()) {
      std::fprintf(stderr,
                   "no GPU here: name the architectures with --arch (e.g. 75,80,86,89,90)\n");
      return 2;
    }
  } else {
    std::stringstream list(arch_list);
    for (std::string item; std::getline(list, item, ',');) archs.push_back(std::atoi(item.c_str()));
  }
  if (directory.empty()) {
    std::fprintf(stderr, "no kernel cache directory: give --dir\n");
    return 2;
  }
  const KernelCache cache(directory);
  const std::vector<cudaprep::runtime::KernelRequest> variants =
      cudaprep::runtime::all_kernel_variants();
  std::atomic<int> failures{0};
  for (const int arch : archs) {
    const auto start = std::chrono::steady_clock::now();
    std::atomic<size_t> next{0}, compiled{0};
    std::mutex print;
    const auto work = [&] {
      for (size_t i = next++; i < variants.size(); i = next++) {
        bool made = false;
        const std::string error =
            cudaprep::runtime::precompile_into(variants[i], arch, cache, &made);
        if (!error.empty()) {
          std::lock_guard<std::mutex> guard(print);
          std::fprintf(stderr, "sm_%d %s: %s\n", arch, variants[i].name_expression.c_str(),
                       error.c_str());
          ++failures;
        }
        compiled += made;
      }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
      threads.emplace_back(work);
    for (std::thread &thread : threads) thread.join();
    std::printf("sm_%d: %zu variants, %zu compiled, in %.1f s\n", arch, variants.size(),
                compiled.load(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::ofstream(directory + "/" + cudaprep::runtime::kPrecompiledManifest)
      << cudaprep::runtime::loaded_nvrtc_version() << "\n";
  const auto [entries, bytes] = cache_size(directory);
  std::printf("%s: %zu modules, %.1f MB\n", directory.c_str(), entries, bytes / 1e6);
  return failures == 0 ? 0 : 1;
}

// Brings the pipeline up once (gst_cuda_prep_warm_kernels: its elements
// compile their kernels as they negotiate), and says what the cache gained.
int warm(const char *launch) {
  const std::string directory = cudaprep::kernel_cache_directory();
  const size_t before = cache_size(directory).first;
  const auto start = std::chrono::steady_clock::now();
  GError *error = nullptr;
  const gboolean warmed = gst_cuda_prep_warm_kernels(launch, 0, &error);
  if (!warmed) {
    std::fprintf(stderr, "cudaprep-kernels warm: %s\n", error ? error->message : "?");
    g_clear_error(&error);
  }
  const size_t after = cache_size(directory).first;
  std::printf("%s in %.2f s; %s: %zu modules (%zu new)\n", warmed ? "warmed" : "gave up",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
              directory.empty() ? "no disk cache" : directory.c_str(), after,
              after >= before ? after - before : 0);
  return warmed ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const std::string command = argv[1];
  if (command == "info" && argc == 2) return info();
  if (command == "precompile") return precompile(argc - 2, argv + 2);
  if (command == "warm" && argc == 3) {
    gst_init(nullptr, nullptr);
    return warm(argv[2]);
  }
  return usage();
}
