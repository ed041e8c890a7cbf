// cudaresize on a GPU: upload ! cudaresize ! download against the CPU
// reference (cudaprep::ref) within +-1 per value, letterbox borders exact,
// and the geometry meta mapping tensor points back to the source frame, for
// every case of resize_cases() (methods, formats, colorimetries, rules,
// borders, directions, antialiasing). Without a GPU the cases skip.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "common/resize_checks.h"
#include "cudaprep/resize.h"
#include "reference/resize_ref.h"

namespace {

using namespace cudaprep::test;
using cudaprep::PixelRect;
using cudaprep::ref::HostFrame;

struct ResizeCase {
  const char *name;
  const char *input_format;
  int width, height;
  const char *colorimetry;  // caps colorimetry; nullptr leaves it unset
  cudaprep::Colorimetry expected_colorimetry;
  const char *output_format;
  int out_width, out_height;
  const char *properties;  // cudaresize's
  cudaprep::Interpolation method;
  PixelRect image;      // where the source lands; 0x0 = the whole output
  uint8_t pad_rgba[4];  // the pad value the properties mean, as R,G,B,A
  cudaprep::Orientation orientation = cudaprep::Orientation::kIdentity;  // video-direction's
  bool antialias = false;                                                // antialias's
  cudaprep::AntialiasIntermediate antialias_intermediate =               // antialias-intermediate's
      cudaprep::AntialiasIntermediate::kFloat;
};

// gtest names a failing case by this (its byte dump would read padding).
void PrintTo(const ResizeCase &c, std::ostream *os) {
  *os << c.name << " " << c.input_format << " " << c.width << "x" << c.height << " -> "
      << c.output_format << " " << c.out_width << "x" << c.out_height << " (" << c.properties
      << ")";
}

constexpr cudaprep::Colorimetry kBt601Limited{cudaprep::ColorMatrix::kBT601,
                                              cudaprep::ColorRange::kLimited};
constexpr cudaprep::Colorimetry kBt709Limited{cudaprep::ColorMatrix::kBT709,
                                              cudaprep::ColorRange::kLimited};
constexpr cudaprep::Colorimetry kBt709Full{cudaprep::ColorMatrix::kBT709,
                                           cudaprep::ColorRange::kFull};
constexpr cudaprep::Colorimetry kBt601Full{cudaprep::ColorMatrix::kBT601,
                                           cudaprep::ColorRange::kFull};
constexpr cudaprep::Colorimetry kBt2020Limited{cudaprep::ColorMatrix::kBT2020,
                                               cudaprep::ColorRange::kLimited};
constexpr cudaprep::Colorimetry kBt2020Full{cudaprep::ColorMatrix::kBT2020,
                                            cudaprep::ColorRange::kFull};

std::string input_caps(const ResizeCase &c) {
  std::string caps = caps_string(c.input_format, c.width, c.height);
  if (c.colorimetry != nullptr) caps += std::string(",colorimetry=") + c.colorimetry;
  return caps;
}

// The whole output when the case gives no rectangle.
PixelRect image_rect(const ResizeCase &c) {
  return c.image.width > 0 ? c.image : PixelRect{0, 0, c.out_width, c.out_height};
}

HostFrame reference(const HostFrame &source, const ResizeCase &c) {
  cudaprep::ResizeParams params;
  params.interpolation = c.method;
  params.source_colorimetry = c.expected_colorimetry;
  params.dst_rect = image_rect(c);
  params.orientation = c.orientation;
  params.antialias = c.antialias;
  params.antialias_intermediate = c.antialias_intermediate;
  std::memcpy(params.pad_value, c.pad_rgba, 4);
  const GstVideoInfo out_info = video_info(caps_string(c.output_format, c.out_width, c.out_height));
  return cudaprep::ref::resize_reference(source, pixel_format(out_info), c.out_width, c.out_height,
                                         params);
}

class ResizePixels : public ::testing::TestWithParam<ResizeCase> {};

TEST_P(ResizePixels, MatchTheCpuReference) {
  CUDAPREP_REQUIRE_GPU();
  const ResizeCase c = GetParam();
  const GstVideoInfo in_info = video_info(input_caps(c));
  const std::string out_caps = caps_string(c.output_format, c.out_width, c.out_height);
  const GstVideoInfo out_info = video_info(out_caps);
  const std::string description =
      std::string("cudaframeupload ! cudaresize ") + c.properties + " ! cudaframedownload";
  GstHarness *harness = gst_harness_new_parse(description.c_str());
  gst_harness_set_src_caps_str(harness, input_caps(c).c_str());
  gst_harness_set_sink_caps_str(harness, out_caps.c_str());
  std::mt19937 rng(c.width * 7919 + c.out_width);
  for (int frame = 0; frame < 2; ++frame) {
    GstBuffer *input = random_frame(in_info, rng);
    const HostFrame expected = reference(host_frame(input, in_info), c);
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK) << c.name;
    GstBuffer *output = gst_harness_pull(harness);
    ASSERT_NE(output, nullptr) << c.name;
    const std::string mismatch =
        reference_mismatch(plane_bytes(output, out_info, 0), expected, image_rect(c));
    EXPECT_TRUE(mismatch.empty()) << c.name << " (" << input_caps(c) << " -> " << out_caps << ", "
                                  << c.properties << ", frame " << frame << "): " << mismatch;
    expect_geometry(output, image_rect(c), 0, 0, c.width, c.height, c.name, c.orientation);
    gst_buffer_unref(output);
  }
  gst_harness_teardown(harness);
}

std::vector<ResizeCase> resize_cases() {
  using cudaprep::Interpolation;
  std::vector<ResizeCase> cases;
  const std::pair<const char *, Interpolation> methods[] = {
      {"method=nearest", Interpolation::kNearest},
      {"method=bilinear", Interpolation::kBilinear},
      {"method=bicubic", Interpolation::kBicubic},
      {"method=area", Interpolation::kArea}};
  // Every method, shrinking and enlarging, from RGB-family, grey and YUV
  // sources (BT.709 limited caps), to several output formats.
  struct Source {
    const char *format;
    const char *colorimetry;
    cudaprep::Colorimetry expected;
    const char *output;
  } const sources[] = {{"RGBA", nullptr, {}, "RGB"},
                       {"BGRx", nullptr, {}, "BGRA"},
                       {"RGB", nullptr, {}, "BGR"},
                       {"GRAY8", nullptr, {}, "RGBx"},
                       {"NV12", "bt709", kBt709Limited, "RGB"},
                       {"I420", "bt709", kBt709Limited, "BGR"},
                       {"YUY2", "bt709", kBt709Limited, "GRAY8"}};
  for (const auto &[properties, method] : methods)
    for (const Source &source : sources) {
      cases.push_back({"shrink",
                       source.format,
                       333,
                       201,
                       source.colorimetry,
                       source.expected,
                       source.output,
                       160,
                       96,
                       properties,
                       method,
                       {},
                       {0, 0, 0, 255}});
      cases.push_back({"enlarge",
                       source.format,
                       47,
                       31,
                       source.colorimetry,
                       source.expected,
                       source.output,
                       101,
                       77,
                       properties,
                       method,
                       {},
                       {0, 0, 0, 255}});
    }
  // Colorimetry from the caps: unset (GStreamer: BT.601 for SD, BT.709 for
  // HD, limited range), explicit BT.601, full-range BT.709.
  cases.push_back({"unset_sd",
                   "NV12",
                   640,
                   480,
                   nullptr,
                   kBt601Limited,
                   "RGB",
                   320,
                   240,
                   "",
                   Interpolation::kBilinear,
                   {},
                   {0, 0, 0, 255}});
  cases.push_back({"unset_hd",
                   "I420",
                   1280,
                   720,
                   nullptr,
                   kBt709Limited,
                   "RGB",
                   320,
                   180,
                   "method=area",
                   Interpolation::kArea,
                   {},
                   {0, 0, 0, 255}});
  cases.push_back({"bt601",
                   "YUY2",
                   1280,
                   720,
                   "bt601",
                   kBt601Limited,
                   "RGBA",
                   300,
                   200,
                   "",
                   Interpolation::kBilinear,
                   {},
                   {0, 0, 0, 255}});
  cases.push_back({"bt709_full",
                   "NV12",
                   640,
                   360,
                   "1:3:5:1",
                   kBt709Full,
                   "BGRx",
                   200,
                   100,
                   "",
                   Interpolation::kBilinear,
                   {},
                   {0, 0, 0, 255}});
  // BT.2020 and BT.601 full range from 8-bit NV12; 10/12/16-bit 4:2:0 as
  // NVDEC writes it (HEVC Main10: P010, BT.2020), limited and full range.
  struct ColourCase {
    const char *name, *format, *colorimetry;
    cudaprep::Colorimetry expected;
    const char *properties;
    Interpolation method;
  } const colour_cases[] = {
      {"bt2020", "NV12", "bt2020", kBt2020Limited, "", Interpolation::kBilinear},
      {"bt601_full", "NV12", "1:4:0:0", kBt601Full, "", Interpolation::kBilinear},
      {"p010_bt2020", "P010_10LE", "bt2020", kBt2020Limited, "", Interpolation::kBilinear},
      {"p010_bt2020_full", "P010_10LE", "1:6:0:0", kBt2020Full, "method=area",
       Interpolation::kArea},
      {"p010_bt709", "P010_10LE", "bt709", kBt709Limited, "method=bicubic",
       Interpolation::kBicubic},
      {"p012_bt601_full", "P012_LE", "1:4:0:0", kBt601Full, "", Interpolation::kBilinear},
      {"p016_bt2020", "P016_LE", "bt2020", kBt2020Limited, "method=nearest",
       Interpolation::kNearest}};
  for (const ColourCase &colour : colour_cases)
    cases.push_back({colour.name,
                     colour.format,
                     322,
                     182,
                     colour.colorimetry,
                     colour.expected,
                     "RGB",
                     160,
                     90,
                     colour.properties,
                     colour.method,
                     {},
                     {0, 0, 0, 255}});
  // Letterbox: Ultralytics' rectangles worked out by hand; borders exact.
  cases.push_back({"letterbox_yolo",
                   "RGBA",
                   1920,
                   1080,
                   nullptr,
                   {},
                   "RGB",
                   640,
                   640,
                   "add-borders=true pad-value=<114,114,114>",
                   Interpolation::kBilinear,
                   {0, 140, 640, 360},
                   {114, 114, 114, 255}});
  cases.push_back({"letterbox_top_left",
                   "NV12",
                   1920,
                   1080,
                   "bt709",
                   kBt709Limited,
                   "RGB",
                   640,
                   640,
                   "add-borders=true letterbox-align=top-left pad-value=<114,114,114>",
                   Interpolation::kBilinear,
                   {0, 0, 640, 360},
                   {114, 114, 114, 255}});
  cases.push_back({"letterbox_rgb_pad",
                   "NV12",
                   640,
                   480,
                   nullptr,
                   kBt601Limited,
                   "BGR",
                   320,
                   320,
                   "method=nearest add-borders=true pad-value=<1,2,3>",
                   Interpolation::kNearest,
                   {0, 40, 320, 240},
                   {1, 2, 3, 255}});
  cases.push_back({"letterbox_portrait_alpha",
                   "GRAY8",
                   100,
                   200,
                   nullptr,
                   {},
                   "RGBA",
                   64,
                   64,
                   "method=bicubic add-borders=true pad-value=<10,20,30,40>",
                   Interpolation::kBicubic,
                   {16, 0, 32, 64},
                   {10, 20, 30, 40}});
  cases.push_back({"letterbox_grey_pad",
                   "I420",
                   300,
                   100,
                   nullptr,
                   kBt601Limited,
                   "BGRx",
                   90,
                   90,
                   "method=area add-borders=true pad-value=<50>",
                   Interpolation::kArea,
                   {0, 30, 90, 30},
                   {50, 50, 50, 255}});
  cases.push_back({"letterbox_grey_out",
                   "RGBx",
                   160,
                   90,
                   nullptr,
                   {},
                   "GRAY8",
                   64,
                   64,
                   "add-borders=true pad-value=<200,100,50>",
                   Interpolation::kBilinear,
                   {0, 14, 64, 36},
                   {200, 100, 50, 255}});
  // Depth-Anything: size derived from the input, no capsfilter needed for it.
  cases.push_back({"depth_anything",
                   "NV12",
                   1920,
                   1080,
                   "bt709",
                   kBt709Limited,
                   "RGB",
                   924,
                   518,
                   "method=bicubic short-side=518 multiple-of=14",
                   Interpolation::kBicubic,
                   {},
                   {0, 0, 0, 255}});
  // Every video-direction, shrinking a YUV and an RGB frame into the turned
  // size; equal caps turned (never passed through); a turned letterbox; the
  // short-side rule on the turned frame.
  const char *const directions[] = {"identity", "90r",  "180",   "90l",
                                    "horiz",    "vert", "ul-lr", "ur-ll"};
  static std::vector<std::string> direction_properties;  // the cases keep pointers
  direction_properties.reserve(3 * 8);
  struct TurnedSource {
    const char *name, *format;
    int width, height;
    const char *colorimetry;
    cudaprep::Colorimetry expected;
    const char *output;
    int out_width, out_height;  // before turning
    const char *method_name;
    Interpolation method;
  } const turned_sources[] = {
      {"turned", "NV12", 334, 200, "bt709", kBt709Limited, "RGB", 160, 96, "bicubic",
       Interpolation::kBicubic},
      {"turned", "RGBA", 47, 31, nullptr, {}, "BGRx", 30, 20, "area", Interpolation::kArea},
      {"turned_same_caps",
       "RGBA",
       48,
       48,
       nullptr,
       {},
       "RGBA",
       48,
       48,
       "nearest",
       Interpolation::kNearest},
  };
  for (int d = 0; d < 8; ++d) {
    const auto orientation = static_cast<cudaprep::Orientation>(d);
    const bool swapped = cudaprep::swaps_axes(orientation);
    for (const TurnedSource &source : turned_sources) {
      // The identity passes equal caps through (ResizePassthrough).
      if (d == 0 && source.width == source.out_width && source.height == source.out_height)
        continue;
      direction_properties.push_back(std::string("method=") + source.method_name +
                                     " video-direction=" + directions[d]);
      ResizeCase turned{source.name,
                        source.format,
                        source.width,
                        source.height,
                        source.colorimetry,
                        source.expected,
                        source.output,
                        swapped ? source.out_height : source.out_width,
                        swapped ? source.out_width : source.out_height,
                        direction_properties.back().c_str(),
                        source.method,
                        {},
                        {0, 0, 0, 255}};
      turned.orientation = orientation;
      cases.push_back(turned);
    }
  }
  ResizeCase letterbox{"turned_letterbox",
                       "NV12",
                       320,
                       180,
                       "bt709",
                       kBt709Limited,
                       "RGB",
                       96,
                       96,
                       "video-direction=90l add-borders=true pad-value=<114>",
                       Interpolation::kBilinear,
                       {21, 0, 54, 96},
                       {114, 114, 114, 255}};
  letterbox.orientation = cudaprep::Orientation::kRotate270;
  cases.push_back(letterbox);
  ResizeCase rule{"turned_short_side",
                  "NV12",
                  1920,
                  1080,
                  "bt709",
                  kBt709Limited,
                  "RGB",
                  518,
                  924,
                  "method=bicubic short-side=518 multiple-of=14 video-direction=ur-ll",
                  Interpolation::kBicubic,
                  {},
                  {0, 0, 0, 255}};
  rule.orientation = cudaprep::Orientation::kAntiTranspose;
  cases.push_back(rule);
  // Antialiased, both intermediates: torchvision's Resize(256) of a 1080p
  // frame (short-side rule), from RGB (PIL's input) and NV12, and an
  // enlargement along one axis only.
  struct Antialiased {
    const char *name, *format;
    int width, height;
    const char *colorimetry;
    cudaprep::Colorimetry expected;
    int out_width, out_height;
    const char *properties;
    Interpolation method;
    cudaprep::AntialiasIntermediate intermediate;
  } const antialiased[] = {
      {"antialias_uint8",
       "RGB",
       1920,
       1080,
       nullptr,
       {},
       455,
       256,
       "method=bicubic short-side=256 antialias=true antialias-intermediate=uint8",
       Interpolation::kBicubic,
       cudaprep::AntialiasIntermediate::kUint8},
      {"antialias_uint8", "NV12", 1920, 1080, "bt709", kBt709Limited, 455, 256,
       "method=bilinear short-side=256 antialias=true antialias-intermediate=uint8",
       Interpolation::kBilinear, cudaprep::AntialiasIntermediate::kUint8},
      {"antialias_uint8_one_axis",
       "RGBA",
       200,
       61,
       nullptr,
       {},
       67,
       90,
       "method=bicubic antialias=true antialias-intermediate=uint8",
       Interpolation::kBicubic,
       cudaprep::AntialiasIntermediate::kUint8},
      {"antialias_float",
       "RGB",
       1920,
       1080,
       nullptr,
       {},
       455,
       256,
       "method=bicubic short-side=256 antialias=true",
       Interpolation::kBicubic,
       cudaprep::AntialiasIntermediate::kFloat},
  };
  for (const Antialiased &a : antialiased) {
    ResizeCase c{a.name,     a.format, a.width,       a.height,     a.colorimetry,
                 a.expected, "RGB",    a.out_width,   a.out_height, a.properties,
                 a.method,   {},       {0, 0, 0, 255}};
    c.antialias = true;
    c.antialias_intermediate = a.intermediate;
    cases.push_back(c);
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<ResizeCase> &info) {
  const ResizeCase &c = info.param;
  std::string name =
      std::to_string(info.index) + "_" + c.name + "_" + c.input_format + "_to_" + c.output_format;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, ResizePixels, ::testing::ValuesIn(resize_cases()), case_name);

}  // namespace
