// The CPU reference of the antialiased resize (ResizeParams::antialias,
// tests/reference/resize_ref.cpp) against PIL's Image.resize, which defines
// it together with torchvision: PIL runs in a Python child process
// (tests/reference/pil_resize.py) on the same frames. PIL rounds to 8 bits
// between its horizontal and vertical passes (clipping cubic overshoot
// there) and uses fixed-point weights, so it is held within +-1 of the
// reference, and on average within a tenth of a step. With the uint8
// intermediate (ResizeParams::antialias_intermediate) the reference keeps
// PIL's 8-bit step and is held to (nearly) PIL's bytes, also on frames
// whose bicubic overshoot clips. No GPU: runs in CI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "reference/color_ref.h"
#include "reference/resize_ref.h"

namespace cudaprep {
namespace {

using ref::HostFrame;

// Smooth gradients with noise on top: like a photograph, edges and texture
// at every frequency, so that a downscale without antialiasing would alias.
// Mostly inside [20, 235]: where bicubic overshoots past 0 or 255 PIL clips
// its intermediate and departs from the definition (3 steps seen).
// `noise_sigma` 25 stays mostly inside; 90 clips a good part of the frame
// to 0 and 255, where bicubic overshoots.
HostFrame textured_rgb(int width, int height, unsigned seed, double noise_sigma = 25.0) {
  HostFrame frame(PixelFormat::kRGB, width, height);
  std::mt19937 generator(seed);
  std::normal_distribution<double> noise(0.0, noise_sigma);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        const double base = 127.5 + 70.0 * std::sin(0.05 * (c + 1) * x + 0.07 * y);
        const double value = std::round(base + noise(generator));
        frame.row(0, y)[3 * x + c] = static_cast<uint8_t>(std::fmin(std::fmax(value, 0.0), 255.0));
      }
    }
  }
  return frame;
}

std::vector<uint8_t> compact_bytes(const HostFrame &frame) {
  std::vector<uint8_t> bytes;
  for (int y = 0; y < frame.height; ++y) {
    bytes.insert(bytes.end(), frame.row(0, y), frame.row(0, y) + 3 * frame.width);
  }
  return bytes;
}

// PIL's resize of `src`, or an empty vector (and a test failure) when the
// child process fails.
std::vector<uint8_t> pil_resize(const HostFrame &src, int width, int height, const char *method) {
  const std::string stem = ::testing::TempDir() + "cudaprep_pil_" + std::to_string(::getpid());
  const std::string in_path = stem + "_in.rgb", out_path = stem + "_out.rgb";
  const std::vector<uint8_t> bytes = compact_bytes(src);
  std::ofstream(in_path, std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  std::ostringstream command;
  command << CUDAPREP_PIL_PYTHON << " " << CUDAPREP_PIL_SCRIPT << " " << in_path << " " << src.width
          << " " << src.height << " " << out_path << " " << width << " " << height << " " << method;
  const int status = std::system(command.str().c_str());
  EXPECT_EQ(0, status) << "failed: " << command.str();
  std::ifstream in(out_path, std::ios::binary);
  std::vector<uint8_t> out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(in_path.c_str());
  std::remove(out_path.c_str());
  return out;
}

struct Case {
  int src_width, src_height, dst_width, dst_height;
};

// The largest and the mean |ours - PIL| over all bytes, and where the
// largest is.
struct Difference {
  int worst = 0;
  size_t worst_index = 0;
  double mean = 0.0;
};

Difference difference(const std::vector<uint8_t> &ours, const std::vector<uint8_t> &pil) {
  Difference d;
  double total = 0.0;
  for (size_t i = 0; i < ours.size(); ++i) {
    const int value = std::abs(int(ours[i]) - int(pil[i]));
    total += value;
    if (value > d.worst) {
      d.worst = value;
      d.worst_index = i;
    }
  }
  d.mean = total / static_cast<double>(ours.size());
  return d;
}

std::string describe(Interpolation method, const Case &sizes) {
  return std::string(interpolation_name(method)) + " " + std::to_string(sizes.src_width) + "x" +
         std::to_string(sizes.src_height) + " -> " + std::to_string(sizes.dst_width) + "x" +
         std::to_string(sizes.dst_height);
}

class AntialiasAgainstPil : public ::testing::TestWithParam<std::tuple<Interpolation, Case>> {};

TEST_P(AntialiasAgainstPil, WithinOneStep) {
  const auto [method, sizes] = GetParam();
  const HostFrame src = textured_rgb(sizes.src_width, sizes.src_height,
                                     static_cast<unsigned>(sizes.src_width * 31 + sizes.dst_width));
  ResizeParams params;
  params.interpolation = method;
  params.antialias = true;
  const HostFrame expected =
      ref::resize_reference(src, PixelFormat::kRGB, sizes.dst_width, sizes.dst_height, params);
  const std::vector<uint8_t> pil =
      pil_resize(src, sizes.dst_width, sizes.dst_height,
                 method == Interpolation::kBicubic ? "bicubic" : "bilinear");
  const std::vector<uint8_t> ours = compact_bytes(expected);
  ASSERT_EQ(ours.size(), pil.size()) << "PIL wrote " << pil.size() << " bytes";
  const Difference d = difference(ours, pil);
  const std::string what = describe(method, sizes);
  EXPECT_LE(d.worst, 1) << what << ": byte " << d.worst_index << " is " << int(ours[d.worst_index])
                        << ", PIL " << int(pil[d.worst_index]);
  EXPECT_LE(d.mean, 0.2) << what;
  // Without antialiasing the same downscale is far from PIL: the comparison
  // can tell the two definitions apart.
  if (sizes.src_width >= 3 * sizes.dst_width) {
    params.antialias = false;
    const std::vector<uint8_t> plain = compact_bytes(
        ref::resize_reference(src, PixelFormat::kRGB, sizes.dst_width, sizes.dst_height, params));
    double plain_total = 0.0;
    for (size_t i = 0; i < plain.size(); ++i) plain_total += std::abs(int(plain[i]) - int(pil[i]));
    EXPECT_GT(plain_total / static_cast<double>(plain.size()), 2.0) << what << " without antialias";
  }
}

// The uint8 intermediate is PIL's own order and rounding: the bytes differ
// by 1 only where PIL's 22-bit fixed-point weights round a value near a
// half the other way (under 1% of them), also where bicubic's overshoot
// clips (the float intermediate is up to 5 off there); the float
// intermediate is measurably further from PIL on every frame.
TEST_P(AntialiasAgainstPil, Uint8IntermediateIsPilsBytes) {
  const auto [method, sizes] = GetParam();
  for (const double noise_sigma : {25.0, 90.0}) {
    const HostFrame src =
        textured_rgb(sizes.src_width, sizes.src_height,
                     static_cast<unsigned>(sizes.src_width * 17 + sizes.dst_height), noise_sigma);
    ResizeParams params;
    params.interpolation = method;
    params.antialias = true;
    params.antialias_intermediate = AntialiasIntermediate::kUint8;
    const std::vector<uint8_t> ours = compact_bytes(
        ref::resize_reference(src, PixelFormat::kRGB, sizes.dst_width, sizes.dst_height, params));
    const std::vector<uint8_t> pil =
        pil_resize(src, sizes.dst_width, sizes.dst_height,
                   method == Interpolation::kBicubic ? "bicubic" : "bilinear");
    ASSERT_EQ(ours.size(), pil.size()) << "PIL wrote " << pil.size() << " bytes";
    const Difference d = difference(ours, pil);
    const std::string what = describe(method, sizes) + ", noise " + std::to_string(noise_sigma);
    EXPECT_LE(d.worst, 1) << what << ": byte " << d.worst_index << " is "
                          << int(ours[d.worst_index]) << ", PIL " << int(pil[d.worst_index]);
    EXPECT_LE(d.mean, 0.01) << what;  // 0.4% of the bytes at most, seen: 300 -> 100 bilinear
    params.antialias_intermediate = AntialiasIntermediate::kFloat;
    const Difference float_d =
        difference(compact_bytes(ref::resize_reference(src, PixelFormat::kRGB, sizes.dst_width,
                                                       sizes.dst_height, params)),
                   pil);
    std::printf("[ %s ] uint8 intermediate: max %d mean %.5f; float: max %d mean %.5f\n",
                what.c_str(), d.worst, d.mean, float_d.worst, float_d.mean);
    EXPECT_GT(float_d.mean, 10 * d.mean + 0.01) << what;
  }
}

// A horizontal value exactly between two bytes (a float kernel may round it
// either way) is named, with the steps its other rounding moves the output;
// a value clear of the boundary is not.
TEST(Uint8IntermediateTies, AreNamedWithTheStepsTheyMove) {
  // 2 -> 1 columns (weights 1/2, 1/2), rows unchanged (weight 1).
  ref::RgbaImage src;
  src.width = 2;
  src.height = 1;
  src.pixels = {ref::RgbaPixel{10, 10, 10, 255}, ref::RgbaPixel{11, 12, 12, 255}};
  std::vector<uint8_t> tie_steps;
  const ref::RgbaImage out =
      ref::resample(src, 1, 1, Interpolation::kBilinear, true, ref::SamplePositions::kExact,
                    AntialiasIntermediate::kUint8, &tie_steps);
  ASSERT_EQ(tie_steps.size(), 1u);
  EXPECT_EQ(out.pixels[0].r, 11.0) << "10.5 rounds half up";
  EXPECT_EQ(out.pixels[0].g, 11.0) << "11 exactly";
  EXPECT_EQ(tie_steps[0], 1) << "red's 10.5 may be 10";
  src.pixels[1].r = 12;  // red now 11 exactly: no tie left
  ref::resample(src, 1, 1, Interpolation::kBilinear, true, ref::SamplePositions::kExact,
                AntialiasIntermediate::kUint8, &tie_steps);
  EXPECT_EQ(tie_steps[0], 0);
  // The float intermediate rounds once: never a tie to name.
  ref::resample(src, 1, 1, Interpolation::kBilinear, true, ref::SamplePositions::kExact,
                AntialiasIntermediate::kFloat, &tie_steps);
  EXPECT_EQ(tie_steps, std::vector<uint8_t>{0});
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, AntialiasAgainstPil,
    ::testing::Combine(::testing::Values(Interpolation::kBilinear, Interpolation::kBicubic),
                       ::testing::Values(Case{480, 270, 114, 64},  // 1080p -> short side 256, /4.2
                                         Case{384, 216, 48, 27},   // 4K -> 480x270, /8
                                         Case{97, 61, 23, 17},     // odd factors
                                         Case{300, 200, 100, 90},  // /3 and /2.2
                                         Case{1920, 1080, 455, 256})),  // torchvision Resize(256)
    [](const ::testing::TestParamInfo<AntialiasAgainstPil::ParamType> &info) {
      const Case sizes = std::get<1>(info.param);
      return std::string(interpolation_name(std::get<0>(info.param))) + "_" +
             std::to_string(sizes.src_width) + "x" + std::to_string(sizes.src_height) + "_to_" +
             std::to_string(sizes.dst_width) + "x" + std::to_string(sizes.dst_height);
    });

}  // namespace
}  // namespace cudaprep
