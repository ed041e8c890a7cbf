// cudaprep::resize() on the GPU against the CPU reference (tests/reference),
// within +-1 per 8-bit value: every source format x destination format x
// interpolation, sizes up/down/odd/1-pixel, sources that are crops of a
// larger oddly-pitched allocation, letterbox padding, and no write outside
// the destination view (poisoned before each run). Failures name the
// formats, method, sizes and the first bad pixel. (Identities held bit for
// bit, flips and rotations among them: test_resize_exact_gpu.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "common/resize_gpu_rig.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "reference/color_ref.h"
#include "reference/resize_ref.h"

namespace cudaprep {
namespace {

using ref::HostFrame;
using test::DeviceAllocations;
using test::fake_image;
using namespace test::resize_gpu_rig;

const PixelFormat kSourceFormats[] = {
    PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx,  PixelFormat::kBGRx,
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kGRAY8, PixelFormat::kNV12,
    PixelFormat::kI420, PixelFormat::kYUY2,
};
const PixelFormat kDestinationFormats[] = {
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kRGBA,  PixelFormat::kBGRA,
    PixelFormat::kRGBx, PixelFormat::kBGRx, PixelFormat::kGRAY8,
};

// Runs one case on the GPU (source view, poisoned destination view) and
// compares with the reference.
void run_case(const Case &c, cudaStream_t stream, Comparison *stats, int tolerance = 1) {
  DeviceAllocations allocations;
  SourceView source;
  make_source_view(c.src_format, c.src_width, c.src_height,
                   1000u * c.src_width + 10u * c.src_height + static_cast<unsigned>(c.src_format),
                   &allocations, &source);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  DestinationView destination;
  make_destination_view(c.dst_format, c.dst_width, c.dst_height, &allocations, &destination);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());

  const std::string what = describe(c);
  ASSERT_EQ("", resize_params_error(source.device, destination.device, c.params)) << what;
  CUDA_ASSERT_OK(resize_and_download(source.device, c.params, stream, &destination));

  const HostFrame expected =
      ref::resize_reference(source.visible, c.dst_format, c.dst_width, c.dst_height, c.params);
  ASSERT_TRUE(check_destination(destination, expected, tolerance, what, stats));
}

// Odd sizes, up and down, non-integer ratios, same size, 1-pixel sides.
const SizePair kMatrixSizes[] = {
    {37, 23, 64, 48}, {101, 67, 33, 29}, {32, 24, 32, 24}, {1, 9, 5, 3},
    {16, 1, 3, 7},    {9, 13, 1, 1},     {24, 16, 8, 8},   {31, 17, 47, 9},
};

class ResizeGpuMatrix
    : public ResizeGpu,
      public ::testing::WithParamInterface<std::tuple<PixelFormat, Interpolation>> {};

TEST_P(ResizeGpuMatrix, EveryDestinationFormatAndSize) {
  const auto [src_format, method] = GetParam();
  Comparison stats;
  int cases = 0;
  for (const PixelFormat dst_format : kDestinationFormats) {
    for (const SizePair &size : kMatrixSizes) {
      Case c{src_format,     size.src_width,  size.src_height, dst_format,
             size.dst_width, size.dst_height, ResizeParams{}};
      c.params.interpolation = method;
      c.params.source_colorimetry = Colorimetry{ColorMatrix::kBT709, ColorRange::kLimited};
      run_case(c, stream_, &stats);
      if (HasFatalFailure()) return;
      ++cases;
    }
  }
  std::printf("[ %s %s ] %d cases, %lld values, %lld off by one\n", pixel_format_name(src_format),
              interpolation_name(method), cases, stats.values, stats.off_by_one);
}

INSTANTIATE_TEST_SUITE_P(AllSourcesAllMethods, ResizeGpuMatrix,
                         ::testing::Combine(::testing::ValuesIn(kSourceFormats),
                                            ::testing::ValuesIn(kMethods)),
                         [](const auto &info) {
                           return std::string(pixel_format_name(std::get<0>(info.param))) + "_" +
                                  interpolation_name(std::get<1>(info.param));
                         });

// Every colorimetry on every YUV format, at a mild downscale.
TEST_F(ResizeGpu, YuvColorimetries) {
  Comparison stats;
  for (const PixelFormat src_format :
       {PixelFormat::kNV12, PixelFormat::kI420, PixelFormat::kYUY2}) {
    for (const ColorMatrix matrix : {ColorMatrix::kBT601, ColorMatrix::kBT709}) {
      for (const ColorRange range : {ColorRange::kLimited, ColorRange::kFull}) {
        Case c{src_format, 66, 42, PixelFormat::kRGB, 51, 37, ResizeParams{}};
        c.params.interpolation = Interpolation::kBilinear;
        c.params.source_colorimetry = Colorimetry{matrix, range};
        run_case(c, stream_, &stats);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Letterbox rectangles from letterbox_rect(), centred and top-left, with a
// pad colour whose channels differ so that a swapped order shows.
TEST_F(ResizeGpu, LetterboxPadsOutsideTheRectangle) {
  Comparison stats;
  for (const LetterboxAlign align : {LetterboxAlign::kCenter, LetterboxAlign::kTopLeft}) {
    for (const PixelFormat dst_format : kDestinationFormats) {
      for (const PixelFormat src_format :
           {PixelFormat::kNV12, PixelFormat::kBGR, PixelFormat::kRGBA}) {
        for (const auto &[src_width, src_height] : {std::pair{96, 54}, {40, 70}}) {
          Case c{src_format, src_width, src_height, dst_format, 64, 48, ResizeParams{}};
          c.params.interpolation = Interpolation::kBilinear;
          LetterboxOptions options;
          options.align = align;
          std::string error;
          ASSERT_TRUE(letterbox_rect(src_width, src_height, c.dst_width, c.dst_height, options,
                                     &c.params.dst_rect, &error))
              << error;
          const uint8_t pad[4] = {114, 20, 250, 77};
          std::copy(pad, pad + 4, c.params.pad_value);
          run_case(c, stream_, &stats);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  // Any rectangle inside, including one touching no edge.
  Case c{PixelFormat::kRGB, 33, 21, PixelFormat::kRGBA, 40, 30, ResizeParams{}};
  c.params.interpolation = Interpolation::kBicubic;
  c.params.dst_rect = PixelRect{5, 3, 29, 17};
  run_case(c, stream_, &stats);
}

// Realistic frame sizes, where float coordinates have the least headroom.
TEST_F(ResizeGpu, CameraSizedFrames) {
  Comparison stats;
  for (const Interpolation method : kMethods) {
    for (const PixelFormat src_format : {PixelFormat::kNV12, PixelFormat::kRGBA}) {
      Case down{src_format, 1920, 1080, PixelFormat::kRGB, 640, 360, ResizeParams{}};
      down.params.interpolation = method;
      run_case(down, stream_, &stats);
      if (HasFatalFailure()) return;
      Case up{src_format, 300, 200, PixelFormat::kBGR, 1001, 667, ResizeParams{}};
      up.params.interpolation = method;
      run_case(up, stream_, &stats);
      if (HasFatalFailure()) return;
    }
  }
  // Depth-Anything: short side 518, multiple of 14, bicubic.
  int width = 0, height = 0;
  ASSERT_TRUE(short_side_multiple_size(1280, 720, 518, 14, &width, &height, nullptr));
  Case depth{PixelFormat::kI420, 1280, 720, PixelFormat::kRGB, width, height, ResizeParams{}};
  depth.params.interpolation = Interpolation::kBicubic;
  run_case(depth, stream_, &stats);
  std::printf("[ camera sizes ] %lld values, %lld off by one\n", stats.values, stats.off_by_one);
}

// Antialiased bilinear and bicubic (the torchvision/PIL definition) against
// the reference, with either intermediate between the passes: every source
// format through an odd view, the downscales it is for (1080p and 4K to
// torchvision's Resize(256), odd factors), an upscale, one axis down and
// one up, and a letterbox.
TEST_F(ResizeGpu, AntialiasedMatchesTheReference) {
  const SizePair sizes[] = {{1920, 1080, 455, 256},
                            {3840, 2160, 455, 256},
                            {101, 67, 33, 29},
                            {37, 23, 64, 48},
                            {120, 30, 37, 71}};
  Comparison stats;
  for (const auto &[method, intermediate] :
       {std::pair{Interpolation::kBilinear, AntialiasIntermediate::kFloat},
        std::pair{Interpolation::kBicubic, AntialiasIntermediate::kFloat},
        std::pair{Interpolation::kBilinear, AntialiasIntermediate::kUint8},
        std::pair{Interpolation::kBicubic, AntialiasIntermediate::kUint8}}) {
    for (const PixelFormat src_format : kSourceFormats) {
      for (const SizePair &size : sizes) {
        // The big frames once per method in the formats decoders give.
        if (size.src_width > 1000 && src_format != PixelFormat::kNV12 &&
            src_format != PixelFormat::kRGBA)
          continue;
        Case c{src_format,     size.src_width,  size.src_height, PixelFormat::kRGB,
               size.dst_width, size.dst_height, ResizeParams{}};
        c.params.interpolation = method;
        c.params.antialias = true;
        c.params.antialias_intermediate = intermediate;
        run_case(c, stream_, &stats);
        if (HasFatalFailure()) return;
      }
    }
    Case letterbox{PixelFormat::kBGRx, 640, 360, PixelFormat::kBGR, 96, 96, ResizeParams{}};
    letterbox.params.interpolation = method;
    letterbox.params.antialias = true;
    letterbox.params.antialias_intermediate = intermediate;
    letterbox.params.dst_rect = PixelRect{0, 21, 96, 54};
    run_case(letterbox, stream_, &stats);
    if (HasFatalFailure()) return;
  }
  // Float against double: a byte off by one only where the value sits at .5.
  EXPECT_LT(stats.off_by_one * 100, stats.values) << stats.off_by_one << " of " << stats.values;
}

// A moved rectangle against the CPU reference (which places it the same
// way): within one step, like every resize.
TEST_F(ResizeGpu, AMovedRectangleMatchesTheReference) {
  Comparison stats;
  for (const Interpolation method : kMethods) {
    Case c{PixelFormat::kNV12, 96, 54, PixelFormat::kBGRA, 30, 20, ResizeParams{}};
    c.params.interpolation = method;
    c.params.dst_rect = PixelRect{-17, -9, 64, 36};
    run_case(c, stream_, &stats);
    if (HasFatalFailure()) return;
  }
}

// round_half_up: a 6:1 bilinear shrink puts every sample midway between two
// source pixels (weights 1/2, 1/2 on both axes): a value is the mean of four
// bytes, a tie (k + 1/2) for one sum in four, and the two roundings differ
// on the ties with k even, one value in eight. Exact in float, each value
// must equal the reference rounded the same way, with neither tolerance nor
// exception. 3:1 (whole pixels, no ties) and an antialiased shrink (whose
// own passes round half up) match the reference with it too.
TEST_F(ResizeGpu, RoundHalfUpRoundsTiesUpAndNothingElse) {
  Comparison stats;
  for (const PixelFormat src_format : {PixelFormat::kRGBA, PixelFormat::kRGB}) {
    for (const bool half_up : {false, true}) {
      Case c{src_format, 3840, 2160, PixelFormat::kRGB, 640, 360, ResizeParams{}};
      c.params.interpolation = Interpolation::kBilinear;
      c.params.round_half_up = half_up;
      run_case(c, stream_, &stats, 0);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(0, stats.off_by_one);
  HostFrame source(PixelFormat::kRGBA, 3840, 2160);
  fill_random(&source, 5);
  ResizeParams params;
  params.interpolation = Interpolation::kBilinear;
  const HostFrame even = ref::resize_reference(source, PixelFormat::kRGB, 640, 360, params);
  params.round_half_up = true;
  const HostFrame up = ref::resize_reference(source, PixelFormat::kRGB, 640, 360, params);
  long long ties = 0;
  for (size_t i = 0; i < even.planes[0].size(); ++i) ties += even.planes[0][i] != up.planes[0][i];
  EXPECT_GT(ties * 10, static_cast<long long>(even.planes[0].size()))
      << "the roundings of a 6:1 shrink of random bytes should differ on about one value in eight";

  for (const bool antialias : {false, true}) {
    Case c{PixelFormat::kRGBA, 1920, 1080, PixelFormat::kRGB, 640, 360, ResizeParams{}};
    c.params.interpolation = Interpolation::kBilinear;
    c.params.antialias = antialias;
    c.params.antialias_intermediate =
        antialias ? AntialiasIntermediate::kUint8 : AntialiasIntermediate::kFloat;
    c.params.round_half_up = true;
    run_case(c, stream_, &stats, antialias ? 1 : 0);
    if (HasFatalFailure()) return;
  }
}

// --- Validation: no GPU needed, nothing is launched ------------------------

void expect_rejected(const Image &src, const Image &dst, const ResizeParams &params,
                     const char *expected_words) {
  const std::string error = resize_params_error(src, dst, params);
  EXPECT_NE(std::string::npos, error.find(expected_words)) << "error was: \"" << error << "\"";
  EXPECT_EQ(cudaErrorInvalidValue, resize(src, dst, params, nullptr));
}

TEST(ResizeValidation, ImpossibleInputsAreRejectedWithReasons) {
  const Image src = fake_image(PixelFormat::kNV12, 64, 48);
  const Image dst = fake_image(PixelFormat::kRGB, 32, 32);
  ResizeParams params;
  EXPECT_EQ("", resize_params_error(src, dst, params));

  expect_rejected(src, fake_image(PixelFormat::kNV12, 32, 32), params, "cannot write NV12");
  expect_rejected(fake_image(PixelFormat::kNV12, 0, 48), dst, params, "source size 0x48");
  expect_rejected(src, fake_image(PixelFormat::kRGB, 32, -1), params, "destination size");

  Image no_chroma = src;
  no_chroma.planes[1].data = nullptr;
  expect_rejected(no_chroma, dst, params, "source plane 1 (NV12) has no data");
  Image short_pitch = dst;
  short_pitch.planes[0].pitch_bytes = 95;
  expect_rejected(src, short_pitch, params, "pitch 95 is shorter than its row of 96");

  // A rectangle reaching beyond the destination is a crop of the resized
  // frame (its inside part is written); one that counts past INT_MAX is not.
  for (const PixelRect rect :
       {PixelRect{1, 0, 32, 32}, PixelRect{-1, 0, 4, 4}, PixelRect{0, 30, 32, 3},
        PixelRect{-500, -700, 1920, 1080}, PixelRect{40, 40, 8, 8}}) {
    params.dst_rect = rect;
    EXPECT_EQ("", resize_params_error(src, dst, params));
  }
  for (const PixelRect rect : {PixelRect{0, 0, 0, 5}, PixelRect{2147483000, 0, 1000, 1},
                               PixelRect{-2147483640, 0, 4, 4}, PixelRect{0, -2147483640, 4, 4}}) {
    params.dst_rect = rect;
    expect_rejected(src, dst, params, "is empty or too far from the 32x32 destination");
  }
  params.dst_rect = PixelRect{};
  params.interpolation = static_cast<Interpolation>(17);
  expect_rejected(src, dst, params, "unknown interpolation");
  params.antialias = true;
  for (const Interpolation method : {Interpolation::kNearest, Interpolation::kArea}) {
    params.interpolation = method;
    expect_rejected(src, dst, params, "antialias applies to bilinear and bicubic");
  }
  params = ResizeParams{};
  params.antialias_intermediate = AntialiasIntermediate::kUint8;
  expect_rejected(src, dst, params, "uint8 antialias intermediate needs antialias");
  params.antialias_intermediate = static_cast<AntialiasIntermediate>(5);
  params.antialias = true;
  expect_rejected(src, dst, params, "unknown antialias intermediate 5");
  params = ResizeParams{};
  params.float_intermediate = true;
  expect_rejected(src, dst, params, "float_intermediate is for preprocess()");
  params = ResizeParams{};
  params.orientation = static_cast<Orientation>(8);
  expect_rejected(src, dst, params, "unknown orientation 8");
}

TEST(ResizeValidation, FormatSupport) {
  for (const PixelFormat format : kSourceFormats) EXPECT_TRUE(is_resize_source_format(format));
  for (const PixelFormat format : kDestinationFormats) {
    EXPECT_TRUE(is_resize_destination_format(format));
  }
  for (const PixelFormat format : {PixelFormat::kNV12, PixelFormat::kI420, PixelFormat::kYUY2}) {
    EXPECT_FALSE(is_resize_destination_format(format));
  }
}

}  // namespace
}  // namespace cudaprep
