// NVRTC compiles the kernels from the embedded sources without a GPU
// (kernels/runtime): every variant the launchers may request for sm_90, and
// for each architecture of the portable list and the newer ones a covering
// set (every kernel header, every template argument - reader, sampler,
// dtype, capacity - at least once: what could differ between
// architectures is code generation, which any variant exercises, while the
// C++ that differs between variants is the same text for every
// architecture). Also: a missing NVRTC is an error that says what to
// install.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/kernel_variants.h"
#include "runtime/runtime_kernels.h"

namespace {

using cudaprep::runtime::CompiledModule;
using cudaprep::runtime::KernelRequest;

// The top-level template arguments of a name expression, each tagged with
// its header: the features a covering set must hold.
std::vector<std::string> features(const KernelRequest &request) {
  const std::string &name = request.name_expression;
  std::vector<std::string> found = {request.header};
  const size_t open = name.find('<');
  if (open == std::string::npos) return found;
  int depth = 0;
  std::string argument;
  for (size_t i = open + 1; i + 1 < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (c == ',' && depth == 0) {
      found.push_back(std::string(request.header) + "|" + argument);
      argument.clear();
      continue;
    }
    if (c != ' ' || !argument.empty()) argument += c;
  }
  found.push_back(std::string(request.header) + "|" + argument);
  return found;
}

std::vector<KernelRequest> covering_set(const std::vector<KernelRequest> &every) {
  std::set<std::string> covered;
  std::vector<KernelRequest> chosen;
  for (const KernelRequest &request : every) {
    bool adds = false;
    for (const std::string &feature : features(request))
      adds = covered.insert(feature).second || adds;
    if (adds) chosen.push_back(request);
  }
  return chosen;
}

struct Compiled {
  size_t modules = 0;
  double seconds = 0;
  std::vector<std::string> failures;
};

// Compiles `requests` for `arch` on every core.
Compiled compile_all(const std::vector<KernelRequest> &requests, int arch) {
  Compiled result;
  std::mutex lock;
  std::atomic<size_t> next{0};
  const auto start = std::chrono::steady_clock::now();
  const auto work = [&] {
    for (size_t i = next++; i < requests.size(); i = next++) {
      CompiledModule module;
      const std::string error = cudaprep::runtime::compile_module(requests[i], arch, &module);
      std::lock_guard<std::mutex> guard(lock);
      if (!error.empty()) {
        result.failures.push_back(error);
      } else if (module.image.empty() || module.lowered_name.rfind("_Z", 0) != 0 || module.is_ptx) {
        result.failures.push_back(requests[i].name_expression + ": no cubin or no mangled name");
      } else {
        ++result.modules;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
    threads.emplace_back(work);
  for (std::thread &thread : threads) thread.join();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string first_failure(const Compiled &compiled) {
  return compiled.failures.empty() ? "" : compiled.failures.front().substr(0, 4000);
}

TEST(KernelVariants, EveryFamilyAndReaderIsListedOnce) {
  const std::vector<KernelRequest> every = cudaprep::runtime::all_kernel_variants();
  std::set<std::string> names, headers;
  for (const KernelRequest &request : every) {
    EXPECT_TRUE(names.insert(request.name_expression).second) << request.name_expression;
    headers.insert(request.header);
  }
  EXPECT_EQ(headers,
            (std::set<std::string>{"resize_kernel.cuh", "preprocess_kernel.cuh",
                                   "preprocess_batch_kernel.cuh", "normalize_kernel.cuh",
                                   "tensorize_kernel.cuh", "antialias_two_pass_kernel.cuh"}));
  // 14 readers (7 formats' readers, straight and turned) x 6 samplers.
  size_t resize = 0;
  for (const KernelRequest &request : every)
    resize += std::string(request.header) == "resize_kernel.cuh";
  EXPECT_EQ(resize, 14u * 6u);
  std::printf("%zu variants, covering set %zu\n", every.size(), covering_set(every).size());
}

TEST(KernelCompile, EveryVariantCompilesForSm90) {
  const std::vector<KernelRequest> every = cudaprep::runtime::all_kernel_variants();
  const Compiled compiled = compile_all(every, 90);
  std::printf("sm_90: %zu variants in %.1f s (%.2f s each on one core)\n", compiled.modules,
              compiled.seconds,
              compiled.seconds * std::max(1u, std::thread::hardware_concurrency()) / every.size());
  EXPECT_EQ(compiled.modules, every.size()) << first_failure(compiled);
}

class Architecture : public ::testing::TestWithParam<int> {};

TEST_P(Architecture, ACoveringSetCompiles) {
  const std::vector<KernelRequest> covering =
      covering_set(cudaprep::runtime::all_kernel_variants());
  const Compiled compiled = compile_all(covering, GetParam());
  std::printf("sm_%d: %zu of %zu covering variants in %.1f s\n", GetParam(), compiled.modules,
              covering.size(), compiled.seconds);
  EXPECT_EQ(compiled.modules, covering.size()) << first_failure(compiled);
}

INSTANTIATE_TEST_SUITE_P(PortableAndNewer, Architecture,
                         ::testing::Values(75, 80, 86, 89, 90, 100, 120));

// A GPU newer than NVRTC knows gets PTX of the newest architecture below
// it, which the driver compiles.
TEST(KernelCompile, AnArchitectureNewerThanNvrtcGetsPtx) {
  CompiledModule module;
  const KernelRequest request{"tensorize_kernel.cuh", "cudaprep::tensorize_interleaved_kernel"};
  ASSERT_EQ(cudaprep::runtime::compile_module(request, 990, &module), "");
  EXPECT_TRUE(module.is_ptx);
  EXPECT_NE(std::string(module.image.begin(), module.image.end()).find(".entry"),
            std::string::npos);
}

TEST(KernelCompile, NvrtcRefusingTheSourceSaysWhy) {
  CompiledModule module;
  const std::string error = cudaprep::runtime::compile_module(
      {"tensorize_kernel.cuh", "cudaprep::no_such_kernel<float>"}, 90, &module);
  EXPECT_NE(error.find("NVRTC could not compile cudaprep::no_such_kernel<float>"),
            std::string::npos)
      << error;
}

// (A child process: NVRTC is loaded once per process.)
TEST(KernelCompileDeathTest, WithoutNvrtcTheErrorSaysWhatToInstall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CUDAPREP_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", 1);
        CompiledModule module;
        const std::string error = cudaprep::runtime::compile_module(
            {"tensorize_kernel.cuh", "cudaprep::tensorize_interleaved_kernel"}, 90, &module);
        std::fprintf(stderr, "%s\n", error.c_str());
        std::exit(error.empty() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0),
      "no NVRTC library could be loaded.*pip install nvidia-cuda-nvrtc.*CUDAPREP_NVRTC_LIBRARY"
      ".*/nonexistent/libnvrtc.so.13");
}

}  // namespace
