// preprocess() with a crop composed into its resize (dst_rect moved by minus
// the crop's corner, the tensor the crop's size), the fold a crop after a
// pending resize takes: the same check as test_preprocess_gpu.cpp's (bit for
// bit the unfused chain, within one 8-bit step of the CPU reference) for the
// chains model configs build, and each element of the crop's tensor bit for
// bit the whole frame's at the crop's offset.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "common/preprocess_gpu_rig.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/resize.h"
#include "cudaprep/tensor.h"
#include "reference/color_ref.h"

namespace cudaprep {
namespace {

using ref::HostFrame;
using test::DeviceAllocations;
using namespace test::preprocess_gpu_rig;

// A crop composed into the resize (dst_rect moved by minus the crop's
// corner, the tensor the crop's size) through the fused kernel: bit for bit
// the same chain with resize() doing the same, within a step of the
// reference, for the chains model configs build (PIL's 8-bit antialias with
// a centre crop, plain bicubic, a letterbox whose crop cuts the padding,
// ties rounded up).
TEST_F(PreprocessGpu, ACropComposedIntoTheResizeEqualsTheChain) {
  Stats stats;
  Case pil;  // 1080p NV12, short side 256 (455x256), centre crop 224: (115, 16)
  pil.format = PixelFormat::kNV12;
  pil.src_width = 1920;
  pil.src_height = 1080;
  pil.crop_left = pil.crop_top = 0;
  pil.out_width = pil.out_height = 224;
  pil.resize.interpolation = Interpolation::kBicubic;
  pil.resize.antialias = true;
  pil.resize.antialias_intermediate = AntialiasIntermediate::kUint8;
  pil.resize.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
  pil.resize.dst_rect = PixelRect{-115, -16, 455, 256};
  pil.normalize = imagenet(ChannelOrder::kRGB);
  pil.batch = 1;
  pil.batch_index = 0;
  run_case(pil, stream_, &stats);
  if (HasFatalFailure()) return;

  Case bicubic = pil;  // an odd RGB view, plain bicubic, float16 NHWC BGR
  bicubic.format = PixelFormat::kRGB;
  bicubic.src_width = 331;
  bicubic.src_height = 197;
  bicubic.crop_left = 3;
  bicubic.crop_top = 5;
  bicubic.out_width = 57;
  bicubic.out_height = 41;
  bicubic.resize = ResizeParams{};
  bicubic.resize.interpolation = Interpolation::kBicubic;
  bicubic.resize.dst_rect = PixelRect{-13, -29, 120, 72};
  bicubic.normalize = imagenet(ChannelOrder::kBGR);
  bicubic.dtype = DataType::kFloat16;
  bicubic.layout = TensorLayout::kNHWC;
  run_case(bicubic, stream_, &stats);
  if (HasFatalFailure()) return;

  Case letterboxed = pil;  // 4K RGBA letterboxed to 640 (640x360 at y 140), ties up
  letterboxed.format = PixelFormat::kRGBA;
  letterboxed.src_width = 3840;
  letterboxed.src_height = 2160;
  letterboxed.out_width = 320;
  letterboxed.out_height = 200;
  letterboxed.resize = ResizeParams{};
  letterboxed.resize.interpolation = Interpolation::kBilinear;
  letterboxed.resize.round_half_up = true;
  letterboxed.resize.dst_rect = PixelRect{-100, 140 - 50, 640, 360};
  const uint8_t pad[4] = {114, 114, 114, 255};
  std::copy(pad, pad + 4, letterboxed.resize.pad_value);
  letterboxed.normalize = NormalizeParams{};
  run_case(letterboxed, stream_, &stats);
  print_stats("crop composed", stats);
}

// The same composition where nothing is rounded between the sampler and the
// tensor (float_intermediate, the configs whose library resizes floats), and
// where the 8-bit step is emulated (ties either way): each element of the
// crop's tensor is bit for bit the element of the whole frame's tensor at
// the crop's offset, so a resize followed by a crop loses nothing to the
// crop.
TEST_F(PreprocessGpu, ACropComposedIntoTheResizeIsTheCropOfTheFusedTensor) {
  struct CropCase {
    PixelFormat format;
    int src_width, src_height, width, height;
    PixelRect crop;
    Interpolation method;
    bool antialias, float_intermediate, round_half_up;
  };
  const CropCase cases[] = {
      // torchvision ResNet50 on a float tensor: 1080p -> 412x232, crop 224 at (94, 4).
      {PixelFormat::kNV12,
       1920,
       1080,
       412,
       232,
       {94, 4, 224, 224},
       Interpolation::kBilinear,
       true,
       true,
       false},
      {PixelFormat::kRGBA,
       3840,
       2160,
       412,
       232,
       {94, 4, 224, 224},
       Interpolation::kBicubic,
       true,
       true,
       false},
      {PixelFormat::kRGB,
       1280,
       720,
       924,
       518,
       {11, 7, 512, 500},
       Interpolation::kBicubic,
       false,
       true,
       false},
      {PixelFormat::kI420,
       1280,
       720,
       640,
       360,
       {30, 20, 300, 300},
       Interpolation::kArea,
       false,
       true,
       false},
      {PixelFormat::kRGBA,
       3840,
       2160,
       640,
       360,
       {64, 0, 512, 360},
       Interpolation::kBilinear,
       false,
       false,
       true},
      {PixelFormat::kNV12,
       1920,
       1080,
       455,
       256,
       {115, 16, 224, 224},
       Interpolation::kBilinear,
       true,
       false,
       false},
  };
  for (const CropCase &cc : cases) {
    Case c;
    c.format = cc.format;
    c.src_width = cc.src_width;
    c.src_height = cc.src_height;
    c.crop_left = c.crop_top = 0;
    c.resize.interpolation = cc.method;
    c.resize.antialias = cc.antialias;
    c.resize.float_intermediate = cc.float_intermediate;
    c.resize.round_half_up = cc.round_half_up;
    c.normalize = imagenet(ChannelOrder::kRGB);
    SCOPED_TRACE(describe(c) + (cc.float_intermediate ? ", float intermediate" : ", 8-bit step"));
    DeviceAllocations allocations;
    Image source;
    HostFrame visible;
    make_source(c, 13u * c.src_width + cc.crop.x, &allocations, &source, &visible);
    ASSERT_FALSE(HasFatalFailure());
    std::vector<float> tensors[2];  // whole, crop
    for (int cropped = 0; cropped < 2; ++cropped) {
      ResizeParams params = c.resize;
      const int width = cropped ? cc.crop.width : cc.width;
      const int height = cropped ? cc.crop.height : cc.height;
      if (cropped) params.dst_rect = PixelRect{-cc.crop.x, -cc.crop.y, cc.width, cc.height};
      const TensorDesc desc =
          make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 3, height, width, DataType::kFloat32);
      uint8_t *tensor = nullptr;
      CUDA_ASSERT_OK(allocations.allocate(tensor_span_bytes(desc), &tensor));
      ASSERT_EQ("", preprocess_params_error(source, params, c.normalize, tensor, desc, 0));
      CUDA_ASSERT_OK(preprocess(source, params, c.normalize, tensor, desc, 0, stream_));
      tensors[cropped].resize(tensor_span_bytes(desc) / sizeof(float));
      CUDA_ASSERT_OK(cudaMemcpyAsync(tensors[cropped].data(), tensor, tensor_span_bytes(desc),
                                     cudaMemcpyDeviceToHost, stream_));
    }
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
    long long compared = 0;
    for (int channel = 0; channel < 3; ++channel) {
      for (int y = 0; y < cc.crop.height; ++y) {
        for (int x = 0; x < cc.crop.width; ++x) {
          const float cropped =
              tensors[1][(static_cast<size_t>(channel) * cc.crop.height + y) * cc.crop.width + x];
          const float whole =
              tensors[0][(static_cast<size_t>(channel) * cc.height + y + cc.crop.y) * cc.width + x +
                         cc.crop.x];
          ASSERT_EQ(0, std::memcmp(&cropped, &whole, sizeof(float)))
              << "(c " << channel << ", y " << y << ", x " << x << "): crop " << cropped
              << ", whole frame " << whole;
          ++compared;
        }
      }
    }
    EXPECT_EQ(3LL * cc.crop.width * cc.crop.height, compared);
  }
}

}  // namespace
}  // namespace cudaprep
