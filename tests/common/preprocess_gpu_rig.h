// What the preprocess() suites (kernels/test_preprocess_gpu.cpp and
// test_preprocess_crop_gpu.cpp) share: a case, its source view, and
// run_case(), the check described at the top of test_preprocess_gpu.cpp.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/image.h"
#include "cudaprep/resize.h"
#include "cudaprep/tensor.h"
#include "reference/color_ref.h"

namespace cudaprep::test::preprocess_gpu_rig {

struct Case {
  PixelFormat format = PixelFormat::kRGBA;
  int src_width = 0, src_height = 0;
  int crop_left = 0, crop_top = 0;  // where the view starts in its parent frame
  size_t extra_pitch_bytes = 13;    // 13: unaligned rows; 16: 4-byte aligned
  ResizeParams resize;
  bool letterbox = false;
  NormalizeParams normalize;
  DataType dtype = DataType::kFloat32;
  TensorLayout layout = TensorLayout::kNCHW;
  int out_width = 0, out_height = 0;
  int batch = 3, batch_index = 1;
};

std::string describe(const Case &c);

// A random parent frame on the device and the case's view of it; `visible`
// is what the view shows, for the reference.
void make_source(const Case &c, unsigned seed, DeviceAllocations *allocations, Image *view,
                 ref::HostFrame *visible);

struct Stats {
  int cases = 0;
  long long elements = 0;
  long long differing_from_reference = 0;  // resize's byte 1 off the reference's
  double worst_step_fraction = 0.0;        // max |fused - N(b')| / |scale / std[c]|
};

// One case: the fused kernel bit for bit against the unfused chain, and
// within one 8-bit step of the CPU reference composition; counted in `stats`.
void run_case(const Case &c, cudaStream_t stream, Stats *stats);

class PreprocessGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    CUDAPREP_REQUIRE_GPU();
    // A blocking stream: it waits for the uploads on the legacy default stream.
    CUDA_ASSERT_OK(cudaStreamCreate(&stream_));
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(cudaSuccess, cudaStreamDestroy(stream_));
    }
  }
  cudaStream_t stream_ = nullptr;
};

void print_stats(const char *name, const Stats &stats);

// ImageNet's mean and std, in `order`.
NormalizeParams imagenet(ChannelOrder order);

}  // namespace cudaprep::test::preprocess_gpu_rig
