// The kernel runtime on a GPU, as processes see it (kernels/runtime,
// docs/kernels.md): a module compiled by one process is loaded from the
// disk cache by the next; a bad entry is compiled again and replaced, never
// loaded; an unusable cache directory costs speed, not results; the
// launch's bytes do not depend on where its module came from. Each process
// is a child of the test (a death-test child: the kernel runtime keeps what
// it loaded for the life of a process).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "cudaprep/kernel_runtime.h"
#include "cudaprep/resize.h"

namespace {

using namespace cudaprep;

// In a child: prepares resize() for NV12 bicubic (one module) with the
// cache in `directory`, then says what the runtime did.
[[noreturn]] void prepare_and_report(const std::string &directory) {
  setenv("CUDAPREP_KERNEL_CACHE_DIR", directory.c_str(), 1);
  ResizeParams params;
  params.interpolation = Interpolation::kBicubic;
  const cudaError_t err = prepare_resize(PixelFormat::kNV12, params);
  const KernelRuntimeStats stats = kernel_runtime_stats();
  std::fprintf(stderr, "result=%s compiled=%llu loaded=%llu %s\n", cudaGetErrorName(err),
               static_cast<unsigned long long>(stats.compiled),
               static_cast<unsigned long long>(stats.loaded_from_disk),
               kernel_runtime_error().c_str());
  std::exit(err == cudaSuccess ? 0 : 1);
}

std::vector<std::string> entries(const std::string &directory) {
  std::vector<std::string> names;
  const std::string command = "ls '" + directory + "' 2>/dev/null";
  FILE *listing = popen(command.c_str(), "r");
  char line[512];
  while (listing != nullptr && std::fgets(line, sizeof(line), listing) != nullptr) {
    std::string name = line;
    if (!name.empty() && name.back() == '\n') name.pop_back();
    names.push_back(name);
  }
  if (listing != nullptr) pclose(listing);
  return names;
}

constexpr const char *kDirectoryVariable = "CUDAPREP_RUNTIME_TEST_DIR";

class KernelRuntimeGpu : public ::testing::Test {
 protected:
  // A death-test child runs the test again from the start: it takes the
  // parent's directory from the environment instead of making its own.
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    if (const char *parents = std::getenv(kDirectoryVariable)) {
      directory_ = parents;
      in_child_ = true;
      return;
    }
    char pattern[] = "/tmp/cudaprep-runtime-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    directory_ = pattern;
    setenv(kDirectoryVariable, pattern, 1);
  }
  void TearDown() override {
    unsetenv(kDirectoryVariable);
    chmod(directory_.c_str(), 0700);
    const std::string command = "rm -rf '" + directory_ + "'";
    if (std::system(command.c_str()) != 0) std::fprintf(stderr, "left %s\n", directory_.c_str());
  }
  // In a child every statement before its death test runs again: what
  // changes the cache is the parent's to do.
  bool in_child_ = false;
  std::string directory_;
};

TEST_F(KernelRuntimeGpu, TheNextProcessLoadsTheModuleAndABadEntryIsCompiledAgain) {
  CUDAPREP_REQUIRE_GPU();
  EXPECT_EXIT(prepare_and_report(directory_), ::testing::ExitedWithCode(0),
              "result=cudaSuccess compiled=1 loaded=0");
  const std::vector<std::string> files = entries(directory_);
  ASSERT_EQ(files.size(), 1u) << "one module, nothing else (no temporary file left)";
  EXPECT_EXIT(prepare_and_report(directory_), ::testing::ExitedWithCode(0),
              "result=cudaSuccess compiled=0 loaded=1");

  // Truncated (a process killed mid-write by another writer's rules, a
  // full disk): compiled again, and the entry replaced by a whole one.
  const std::string path = directory_ + "/" + files[0];
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  if (!in_child_) {
    ASSERT_EQ(truncate(path.c_str(), info.st_size / 2), 0);
  }
  EXPECT_EXIT(prepare_and_report(directory_), ::testing::ExitedWithCode(0),
              "result=cudaSuccess compiled=1 loaded=0");
  EXPECT_EXIT(prepare_and_report(directory_), ::testing::ExitedWithCode(0),
              "result=cudaSuccess compiled=0 loaded=1");

  // Another file's bytes under this entry's name: not this key's.
  if (!in_child_) {
    std::ofstream other(path, std::ios::binary | std::ios::trunc);
    other << "cudaprep-kernel\n" << std::string(4096, 'x');
  }
  EXPECT_EXIT(prepare_and_report(directory_), ::testing::ExitedWithCode(0),
              "result=cudaSuccess compiled=1 loaded=0");
}

TEST_F(KernelRuntimeGpu, AnUnwritableCacheCostsTimeNotResults) {
  CUDAPREP_REQUIRE_GPU();
  if (!in_child_) {
    ASSERT_EQ(chmod(directory_.c_str(), 0500), 0);
  }
  if (access(directory_.c_str(), W_OK) == 0) GTEST_SKIP() << "root writes anyway";
  EXPECT_EXIT(prepare_and_report(directory_), ::testing::ExitedWithCode(0),
              "result=cudaSuccess compiled=1 loaded=0");
  EXPECT_EXIT(prepare_and_report(directory_), ::testing::ExitedWithCode(0),
              "result=cudaSuccess compiled=1 loaded=0");
}

// The same bytes from a freshly compiled module and from the cache's: in a
// child, an antialiased bicubic RGBA resize, its output's FNV-1a and the
// runtime's counters written to `report`.
[[noreturn]] void resize_and_report_digest(const std::string &directory,
                                           const std::string &report) {
  setenv("CUDAPREP_KERNEL_CACHE_DIR", directory.c_str(), 1);
  constexpr int kSrcWidth = 333, kSrcHeight = 217, kDstWidth = 128, kDstHeight = 96;
  std::vector<uint8_t> host(static_cast<size_t>(kSrcWidth) * kSrcHeight * 4);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  uint8_t *src = nullptr, *dst = nullptr;
  size_t src_pitch = 0, dst_pitch = 0;
  if (cudaMallocPitch(reinterpret_cast<void **>(&src), &src_pitch, kSrcWidth * 4, kSrcHeight) !=
          cudaSuccess ||
      cudaMallocPitch(reinterpret_cast<void **>(&dst), &dst_pitch, kDstWidth * 4, kDstHeight) !=
          cudaSuccess ||
      cudaMemcpy2D(src, src_pitch, host.data(), kSrcWidth * 4, kSrcWidth * 4, kSrcHeight,
                   cudaMemcpyHostToDevice) != cudaSuccess)
    std::exit(2);
  Image source;
  source.format = PixelFormat::kRGBA;
  source.width = kSrcWidth;
  source.height = kSrcHeight;
  source.planes[0] = {src, src_pitch};
  Image destination;
  destination.format = PixelFormat::kRGBA;
  destination.width = kDstWidth;
  destination.height = kDstHeight;
  destination.planes[0] = {dst, dst_pitch};
  ResizeParams params;
  params.interpolation = Interpolation::kBicubic;
  params.antialias = true;
  if (resize(source, destination, params, nullptr) != cudaSuccess) std::exit(3);
  std::vector<uint8_t> out(static_cast<size_t>(kDstWidth) * kDstHeight * 4);
  if (cudaMemcpy2D(out.data(), kDstWidth * 4, dst, dst_pitch, kDstWidth * 4, kDstHeight,
                   cudaMemcpyDeviceToHost) != cudaSuccess)
    std::exit(4);
  uint64_t digest = 0xcbf29ce484222325ull;
  for (uint8_t byte : out) digest = (digest ^ byte) * 0x100000001b3ull;
  const KernelRuntimeStats stats = kernel_runtime_stats();
  std::ofstream(report) << std::hex << digest << std::dec << " compiled=" << stats.compiled
                        << " loaded=" << stats.loaded_from_disk;
  std::exit(0);
}

std::string read_text(const std::string &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(KernelRuntimeGpu, ACachedModuleWritesTheSameBytesAsAFreshOne) {
  CUDAPREP_REQUIRE_GPU();
  const std::string fresh = directory_ + ".fresh", cached = directory_ + ".cached";
  EXPECT_EXIT(resize_and_report_digest(directory_, fresh), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(resize_and_report_digest(directory_, cached), ::testing::ExitedWithCode(0), "");
  const std::string fresh_report = read_text(fresh), cached_report = read_text(cached);
  std::remove(fresh.c_str());
  std::remove(cached.c_str());
  ASSERT_NE(fresh_report.find(" compiled=1 loaded=0"), std::string::npos) << fresh_report;
  ASSERT_NE(cached_report.find(" compiled=0 loaded=1"), std::string::npos) << cached_report;
  EXPECT_EQ(fresh_report.substr(0, fresh_report.find(' ')),
            cached_report.substr(0, cached_report.find(' ')));
}

}  // namespace
