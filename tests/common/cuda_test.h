// Helpers shared by the test suites.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace cudaprep::test {

// Empty when a CUDA device is usable, otherwise why not.
inline std::string cuda_unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(err);
  if (count == 0) return "no CUDA device: cudaGetDeviceCount() returned 0";
  return {};
}

}  // namespace cudaprep::test

// GPU tests call this first: without a GPU they skip and say why.
#define CUDAPREP_REQUIRE_GPU()                                                     \
  do {                                                                             \
    const std::string cudaprep_reason = cudaprep::test::cuda_unavailable_reason(); \
    if (!cudaprep_reason.empty()) GTEST_SKIP() << cudaprep_reason;                 \
  } while (0)

#define CUDA_ASSERT_OK(expr)                                                                   \
  do {                                                                                         \
    const cudaError_t cudaprep_err = (expr);                                                   \
    ASSERT_EQ(cudaSuccess, cudaprep_err) << #expr << ": " << cudaGetErrorString(cudaprep_err); \
  } while (0)

namespace cudaprep::test {

// A GPU test with its own non-blocking stream (skips without a GPU).
class GpuStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CUDAPREP_REQUIRE_GPU();
    CUDA_ASSERT_OK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(cudaSuccess, cudaStreamDestroy(stream_));
    }
  }
  cudaStream_t stream_ = nullptr;
};

}  // namespace cudaprep::test
