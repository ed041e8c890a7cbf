// The CPU references of resize and colour conversion against OpenCV, which
// defines the expected behaviour (cv::resize, cv::cvtColor), within +-1 on
// 8-bit data; flips and rotations against cv::rotate/cv::flip/cv::transpose
// and the float path's sample positions against cv::resize of doubles. No
// GPU: runs in CI.
#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "reference/color_ref.h"
#include "reference/resize_ref.h"

namespace cudaprep {
namespace {

using ref::HostFrame;

int opencv_flag(Interpolation method) {
  switch (method) {
    case Interpolation::kNearest:
      return cv::INTER_NEAREST;
    case Interpolation::kBilinear:
      return cv::INTER_LINEAR;
    case Interpolation::kBicubic:
      return cv::INTER_CUBIC;
    case Interpolation::kArea:
      return cv::INTER_AREA;
  }
  return -1;
}

void fill_random(HostFrame *frame, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto &plane : frame->planes) {
    for (uint8_t &value : plane) value = static_cast<uint8_t>(byte(generator));
  }
}

// A cv::Mat header over plane 0 of a packed frame (no copy).
cv::Mat as_mat(HostFrame &frame, int channels) {
  return cv::Mat(frame.height, frame.width, CV_8UC(channels), frame.planes[0].data(),
                 frame.pitch_bytes[0]);
}

// Compares `actual` with `expected` (same size, `channels` bytes a pixel),
// allowing `tolerance`; on failure names the first bad pixel and the count.
::testing::AssertionResult bytes_near(const cv::Mat &expected, const cv::Mat &actual, int tolerance,
                                      const std::string &what) {
  if (expected.size() != actual.size() || expected.type() != actual.type()) {
    return ::testing::AssertionFailure() << what << ": shape/type differ";
  }
  const int channels = expected.channels();
  long long bad = 0, off_by_one = 0;
  std::ostringstream first;
  for (int y = 0; y < expected.rows; ++y) {
    const uint8_t *e = expected.ptr<uint8_t>(y);
    const uint8_t *a = actual.ptr<uint8_t>(y);
    for (int i = 0; i < expected.cols * channels; ++i) {
      const int diff = std::abs(int(e[i]) - int(a[i]));
      if (diff == 1) ++off_by_one;
      if (diff > tolerance) {
        if (bad++ == 0) {
          first << " first at (x " << i / channels << ", y " << y << ", channel " << i % channels
                << "): expected " << int(e[i]) << ", reference " << int(a[i]);
        }
      }
    }
  }
  if (bad > 0) {
    return ::testing::AssertionFailure()
           << what << ": " << bad << " values off by more than " << tolerance << ";" << first.str();
  }
  return ::testing::AssertionSuccess() << what << ": " << off_by_one << " values off by one";
}

struct SizeCase {
  int src_width, src_height, dst_width, dst_height;
};

std::string describe(const SizeCase &size) {
  std::ostringstream out;
  out << size.src_width << "x" << size.src_height << " -> " << size.dst_width << "x"
      << size.dst_height;
  return out.str();
}

// Up, down, same size, integer and non-integer ratios, 1-pixel edges.
const std::vector<SizeCase> kSizes = {
    {1, 1, 1, 1},         {1, 1, 5, 3},       {1, 17, 5, 3},     {17, 1, 3, 5},
    {1, 9, 1, 20},        {9, 1, 20, 1},      {13, 11, 1, 1},    {7, 5, 7, 5},
    {64, 48, 32, 24},     {64, 48, 128, 96},  {60, 45, 20, 15},  {37, 23, 64, 48},
    {101, 67, 33, 29},    {100, 100, 30, 30}, {33, 20, 100, 61}, {31, 17, 47, 29},
    {640, 480, 224, 224}, {250, 130, 77, 51}, {2, 3, 147, 98},   {8, 8, 3, 3},
    {33, 33, 100, 7},     {3, 200, 150, 2},
};

bool area_axes_disagree(const SizeCase &size) {
  const bool shrink_x = size.dst_width < size.src_width;
  const bool shrink_y = size.dst_height < size.src_height;
  const bool grow_x = size.dst_width > size.src_width;
  const bool grow_y = size.dst_height > size.src_height;
  return (shrink_x && grow_y) || (grow_x && shrink_y);
}

class ResizeVsOpenCV : public ::testing::TestWithParam<std::tuple<Interpolation, PixelFormat>> {};

TEST_P(ResizeVsOpenCV, WithinOneOverManySizes) {
  const auto [method, format] = GetParam();
  const int channels = static_cast<int>(plane_row_bytes(format, 0, 1));
  int compared = 0;
  for (const SizeCase &size : kSizes) {
    // OpenCV's INTER_AREA is not an area mean when one axis grows and the
    // other shrinks; that case has its own test below.
    if (method == Interpolation::kArea && area_axes_disagree(size)) continue;
    HostFrame src(format, size.src_width, size.src_height, /*extra_pitch_bytes=*/5);
    fill_random(&src, 17u * size.src_width + size.dst_height);
    ResizeParams params;
    params.interpolation = method;
    HostFrame expected_frame =
        ref::resize_reference(src, format, size.dst_width, size.dst_height, params);
    cv::Mat opencv;
    cv::resize(as_mat(src, channels), opencv, cv::Size(size.dst_width, size.dst_height), 0, 0,
               opencv_flag(method));
    const auto result = bytes_near(opencv, as_mat(expected_frame, channels),
                                   method == Interpolation::kNearest ? 0 : 1,
                                   std::string(interpolation_name(method)) + " " + describe(size));
    EXPECT_TRUE(result);
    ++compared;
  }
  std::printf("[ %s, %d channels ] %d sizes compared\n", interpolation_name(method), channels,
              compared);
}

INSTANTIATE_TEST_SUITE_P(
    AllMethods, ResizeVsOpenCV,
    ::testing::Combine(::testing::Values(Interpolation::kNearest, Interpolation::kBilinear,
                                         Interpolation::kBicubic, Interpolation::kArea),
                       ::testing::Values(PixelFormat::kRGB, PixelFormat::kRGBA,
                                         PixelFormat::kGRAY8)),
    [](const auto &info) {
      const PixelFormat format = std::get<1>(info.param);
      return std::string(interpolation_name(std::get<0>(info.param))) + "_" +
             (format == PixelFormat::kRGB    ? "RGB"
              : format == PixelFormat::kRGBA ? "RGBA"
                                             : "GRAY8");
    });

// OpenCV's 8-bit INTER_LINEAR is fixed point whose sums start at half a
// unit: a tie rounds up. Where every sample is a tie or a whole pixel (6:1,
// 3:1 and 2:1 shrinks, the last taken by its INTER_AREA fast path) the
// reference with round_half_up equals it exactly, and with ties to even it
// does not at 6:1 (Ultralytics' letterbox of a 4K frame to 640).
TEST(RoundHalfUpVsOpenCV, IntegerShrinksEqualInterLinearExactly) {
  for (const SizeCase &size : {SizeCase{3840, 2160, 640, 360}, SizeCase{1920, 1080, 640, 360},
                               SizeCase{1280, 720, 640, 360}, SizeCase{600, 60, 100, 10}}) {
    HostFrame src(PixelFormat::kRGB, size.src_width, size.src_height);
    fill_random(&src, 3u * size.src_width + size.src_height);
    cv::Mat opencv;
    cv::resize(as_mat(src, 3), opencv, cv::Size(size.dst_width, size.dst_height), 0, 0,
               cv::INTER_LINEAR);
    ResizeParams params;
    params.interpolation = Interpolation::kBilinear;
    params.round_half_up = true;
    HostFrame up =
        ref::resize_reference(src, PixelFormat::kRGB, size.dst_width, size.dst_height, params);
    EXPECT_TRUE(bytes_near(opencv, as_mat(up, 3), 0, "ties up, " + describe(size)));
    if (size.src_width == 6 * size.dst_width) {
      params.round_half_up = false;
      HostFrame even =
          ref::resize_reference(src, PixelFormat::kRGB, size.dst_width, size.dst_height, params);
      EXPECT_FALSE(bytes_near(opencv, as_mat(even, 3), 0, "ties to even, " + describe(size)));
    }
  }
}

// Area is separable: a true area mean equals an INTER_AREA pass per axis
// (each pass has one axis unchanged, where OpenCV is a true area mean),
// done in float so the intermediate is not rounded.
TEST(AreaVsOpenCV, OneAxisGrowsOtherShrinksIsSeparableAreaMean) {
  for (const SizeCase &size : kSizes) {
    if (!area_axes_disagree(size)) continue;
    HostFrame src(PixelFormat::kRGB, size.src_width, size.src_height);
    fill_random(&src, 5u * size.src_width + size.dst_width);
    ResizeParams params;
    params.interpolation = Interpolation::kArea;
    HostFrame expected_frame =
        ref::resize_reference(src, PixelFormat::kRGB, size.dst_width, size.dst_height, params);
    cv::Mat as_float, horizontal, both, opencv;
    as_mat(src, 3).convertTo(as_float, CV_32FC3);
    cv::resize(as_float, horizontal, cv::Size(size.dst_width, size.src_height), 0, 0,
               cv::INTER_AREA);
    cv::resize(horizontal, both, cv::Size(size.dst_width, size.dst_height), 0, 0, cv::INTER_AREA);
    both.convertTo(opencv, CV_8UC3);
    EXPECT_TRUE(bytes_near(opencv, as_mat(expected_frame, 3), 1, "area " + describe(size)));
  }
}

// --- Colour conversion -----------------------------------------------------

// A 1:1 nearest "resize" is the reference's pure conversion.
HostFrame convert(const HostFrame &src, PixelFormat dst_format,
                  const Colorimetry &colorimetry = {}) {
  ResizeParams params;
  params.interpolation = Interpolation::kNearest;
  params.source_colorimetry = colorimetry;
  return ref::resize_reference(src, dst_format, src.width, src.height, params);
}

// OpenCV's layout of a 4:2:0 frame: one 8-bit plane of height * 3 / 2 rows.
cv::Mat packed_420(const HostFrame &frame) {
  const int width = frame.width, height = frame.height;
  cv::Mat packed(height * 3 / 2, width, CV_8UC1);
  for (int y = 0; y < height; ++y) std::memcpy(packed.ptr(y), frame.row(0, y), width);
  if (frame.format == PixelFormat::kNV12) {
    for (int y = 0; y < height / 2; ++y)
      std::memcpy(packed.ptr(height + y), frame.row(1, y), width);
  } else {
    uint8_t *chroma = packed.ptr(height);
    for (int plane = 1; plane <= 2; ++plane) {
      for (int y = 0; y < height / 2; ++y, chroma += width / 2) {
        std::memcpy(chroma, frame.row(plane, y), width / 2);
      }
    }
  }
  return packed;
}

// OpenCV reads limited-range luma below 16 as 16 (max(0, Y - 16)); we
// apply the matrix as written. Keep the luma codes where the two agree.
void raise_luma_to_video_black(HostFrame *frame) {
  const bool packed = frame->format == PixelFormat::kYUY2;
  for (int y = 0; y < frame->height; ++y) {
    uint8_t *row = frame->row(0, y);
    for (int x = 0; x < frame->width; ++x) {
      uint8_t &luma = packed ? row[2 * x] : row[x];
      luma = std::max<uint8_t>(luma, 16);
    }
  }
}

struct YuvCase {
  PixelFormat format;
  int to_rgb_code;
  int to_bgr_code;
};

TEST(ColorVsOpenCV, YuvToRgbIsBt601LimitedWithinOne) {
  const YuvCase cases[] = {
      {PixelFormat::kNV12, cv::COLOR_YUV2RGB_NV12, cv::COLOR_YUV2BGR_NV12},
      {PixelFormat::kI420, cv::COLOR_YUV2RGB_I420, cv::COLOR_YUV2BGR_I420},
      {PixelFormat::kYUY2, cv::COLOR_YUV2RGB_YUY2, cv::COLOR_YUV2BGR_YUY2},
  };
  for (const YuvCase &yuv : cases) {
    for (const auto &[width, height] : {std::pair{2, 2}, {64, 48}, {38, 26}, {256, 2}}) {
      HostFrame src(yuv.format, width, height, /*extra_pitch_bytes=*/3);
      fill_random(&src, width * 31u + height);
      raise_luma_to_video_black(&src);
      const cv::Mat input =
          yuv.format == PixelFormat::kYUY2
              ? cv::Mat(height, width, CV_8UC2, src.planes[0].data(), src.pitch_bytes[0])
              : packed_420(src);
      cv::Mat rgb, bgr;
      cv::cvtColor(input, rgb, yuv.to_rgb_code);
      cv::cvtColor(input, bgr, yuv.to_bgr_code);
      HostFrame ours_rgb = convert(src, PixelFormat::kRGB);
      HostFrame ours_bgr = convert(src, PixelFormat::kBGR);
      const std::string what = std::to_string(width) + "x" + std::to_string(height) +
                               (yuv.format == PixelFormat::kNV12   ? " NV12"
                                : yuv.format == PixelFormat::kI420 ? " I420"
                                                                   : " YUY2");
      EXPECT_TRUE(bytes_near(rgb, as_mat(ours_rgb, 3), 1, what + " -> RGB"));
      EXPECT_TRUE(bytes_near(bgr, as_mat(ours_bgr, 3), 1, what + " -> BGR"));
    }
  }
}

struct PackedCase {
  PixelFormat from;
  PixelFormat to;
  int opencv_code;
  const char *name;
};

TEST(ColorVsOpenCV, PackedRgbAndGrayConversionsWithinOne) {
  const PackedCase cases[] = {
      {PixelFormat::kRGBA, PixelFormat::kBGR, cv::COLOR_RGBA2BGR, "RGBA->BGR"},
      {PixelFormat::kRGBA, PixelFormat::kRGB, cv::COLOR_RGBA2RGB, "RGBA->RGB"},
      {PixelFormat::kBGRA, PixelFormat::kRGB, cv::COLOR_BGRA2RGB, "BGRA->RGB"},
      {PixelFormat::kBGRA, PixelFormat::kRGBA, cv::COLOR_BGRA2RGBA, "BGRA->RGBA"},
      {PixelFormat::kRGB, PixelFormat::kBGR, cv::COLOR_RGB2BGR, "RGB->BGR"},
      {PixelFormat::kRGB, PixelFormat::kRGBA, cv::COLOR_RGB2RGBA, "RGB->RGBA"},
      {PixelFormat::kBGR, PixelFormat::kRGBA, cv::COLOR_BGR2RGBA, "BGR->RGBA"},
      {PixelFormat::kRGB, PixelFormat::kGRAY8, cv::COLOR_RGB2GRAY, "RGB->GRAY8"},
      {PixelFormat::kBGR, PixelFormat::kGRAY8, cv::COLOR_BGR2GRAY, "BGR->GRAY8"},
      {PixelFormat::kRGBA, PixelFormat::kGRAY8, cv::COLOR_RGBA2GRAY, "RGBA->GRAY8"},
      {PixelFormat::kBGRA, PixelFormat::kGRAY8, cv::COLOR_BGRA2GRAY, "BGRA->GRAY8"},
      {PixelFormat::kGRAY8, PixelFormat::kRGB, cv::COLOR_GRAY2RGB, "GRAY8->RGB"},
      {PixelFormat::kGRAY8, PixelFormat::kBGRA, cv::COLOR_GRAY2BGRA, "GRAY8->BGRA"},
  };
  for (const PackedCase &c : cases) {
    HostFrame src(c.from, 37, 21, /*extra_pitch_bytes=*/7);
    fill_random(&src, 99);
    const int src_channels = static_cast<int>(plane_row_bytes(c.from, 0, 1));
    const int dst_channels = static_cast<int>(plane_row_bytes(c.to, 0, 1));
    cv::Mat opencv;
    cv::cvtColor(as_mat(src, src_channels), opencv, c.opencv_code);
    HostFrame ours = convert(src, c.to);
    EXPECT_TRUE(bytes_near(opencv, as_mat(ours, dst_channels), 1, c.name));
  }
}

// x bytes read as opaque and are written as 255, unlike OpenCV which has no
// RGBx; the colour bytes must still match a plain channel swap.
TEST(ColorVsOpenCV, RgbxReadsColourAndWritesOpaqueFiller) {
  HostFrame src(PixelFormat::kRGBx, 19, 7);
  fill_random(&src, 3);
  cv::Mat opencv;
  cv::cvtColor(as_mat(src, 4), opencv, cv::COLOR_RGBA2BGRA);
  opencv.forEach<cv::Vec4b>([](cv::Vec4b &pixel, const int *) { pixel[3] = 255; });
  HostFrame ours = convert(src, PixelFormat::kBGRx);
  EXPECT_TRUE(bytes_near(opencv, as_mat(ours, 4), 0, "RGBx->BGRx"));
}

// COLOR_YCrCb2RGB is JPEG's full-range BT.601 (with Cr before Cb).
TEST(ColorVsOpenCV, FullRangeBt601MatchesYCrCb) {
  cv::Mat ycrcb(64, 64, CV_8UC3);
  cv::randu(ycrcb, 0, 256);
  cv::Mat opencv;
  cv::cvtColor(ycrcb, opencv, cv::COLOR_YCrCb2RGB);
  cv::Mat ours(ycrcb.size(), CV_8UC3);
  const Colorimetry full_601{ColorMatrix::kBT601, ColorRange::kFull};
  for (int y = 0; y < ycrcb.rows; ++y) {
    for (int x = 0; x < ycrcb.cols; ++x) {
      const cv::Vec3b code = ycrcb.at<cv::Vec3b>(y, x);
      const ref::RgbaPixel rgb = ref::yuv_to_rgb(code[0], code[2], code[1], full_601);
      ours.at<cv::Vec3b>(y, x) =
          cv::Vec3b(cv::saturate_cast<uint8_t>(rgb.r), cv::saturate_cast<uint8_t>(rgb.g),
                    cv::saturate_cast<uint8_t>(rgb.b));
    }
  }
  EXPECT_TRUE(bytes_near(opencv, ours, 1, "full-range BT.601"));
}

// OpenCV has no BT.709 YUV: check against the matrices published for it
// (e.g. ITU-R BT.709 derived, as used by FFmpeg/libyuv), and that
// yuv_to_rgb inverts the forward definition.
TEST(ColorReference, Bt709MatchesPublishedMatrices) {
  struct Published {
    ColorRange range;
    double y_gain, r_v, g_u, g_v, b_u;
    double y_black, chroma_centre;
  };
  const Published matrices[] = {
      {ColorRange::kLimited, 1.164384, 1.792741, -0.213249, -0.532909, 2.112402, 16, 128},
      {ColorRange::kFull, 1.0, 1.5748, -0.187324, -0.468124, 1.8556, 0, 128},
  };
  for (const Published &m : matrices) {
    for (int y = 0; y < 256; y += 15) {
      for (int u = 0; u < 256; u += 17) {
        for (int v = 0; v < 256; v += 19) {
          const double luma = m.y_gain * (y - m.y_black);
          const double cb = u - m.chroma_centre, cr = v - m.chroma_centre;
          const ref::RgbaPixel ours =
              ref::yuv_to_rgb(y, u, v, Colorimetry{ColorMatrix::kBT709, m.range});
          const double tolerance = 2e-3 * 128;  // published values carry 6-7 digits
          EXPECT_NEAR(std::clamp(luma + m.r_v * cr, 0.0, 255.0), ours.r, tolerance);
          EXPECT_NEAR(std::clamp(luma + m.g_u * cb + m.g_v * cr, 0.0, 255.0), ours.g, tolerance);
          EXPECT_NEAR(std::clamp(luma + m.b_u * cb, 0.0, 255.0), ours.b, tolerance);
        }
      }
    }
  }
}

TEST(ColorReference, YuvToRgbInvertsTheForwardDefinition) {
  for (const ColorMatrix matrix : {ColorMatrix::kBT601, ColorMatrix::kBT709}) {
    for (const ColorRange range : {ColorRange::kLimited, ColorRange::kFull}) {
      for (int r = 0; r < 256; r += 51) {
        for (int g = 0; g < 256; g += 17) {
          for (int b = 0; b < 256; b += 15) {
            double y, u, v;
            ref::rgb_to_yuv(r, g, b, Colorimetry{matrix, range}, &y, &u, &v);
            const ref::RgbaPixel back = ref::yuv_to_rgb(y, u, v, Colorimetry{matrix, range});
            EXPECT_NEAR(r, back.r, 1e-9);
            EXPECT_NEAR(g, back.g, 1e-9);
            EXPECT_NEAR(b, back.b, 1e-9);
          }
        }
      }
    }
  }
}

// Conversion and resampling in one pass equal cvtColor followed by resize:
// we resample unrounded RGB, OpenCV rounds in between, hence +-1.
TEST(ColorVsOpenCV, Nv12ResizedToRgbMatchesCvtColorThenResize) {
  for (const Interpolation method :
       {Interpolation::kNearest, Interpolation::kBilinear, Interpolation::kArea}) {
    for (const SizeCase &size : {SizeCase{64, 48, 30, 20}, SizeCase{38, 26, 97, 61}}) {
      HostFrame src(PixelFormat::kNV12, size.src_width, size.src_height);
      fill_random(&src, 7);
      raise_luma_to_video_black(&src);
      cv::Mat rgb, opencv;
      cv::cvtColor(packed_420(src), rgb, cv::COLOR_YUV2RGB_NV12);
      cv::resize(rgb, opencv, cv::Size(size.dst_width, size.dst_height), 0, 0, opencv_flag(method));
      ResizeParams params;
      params.interpolation = method;
      HostFrame ours =
          ref::resize_reference(src, PixelFormat::kRGB, size.dst_width, size.dst_height, params);
      EXPECT_TRUE(
          bytes_near(opencv, as_mat(ours, 3), 1,
                     std::string("NV12 ") + interpolation_name(method) + " " + describe(size)));
    }
  }
}

// Ultralytics' letterbox: cv::resize into the unpadded size, then
// copyMakeBorder with the pad colour.
TEST(LetterboxVsOpenCV, ResizeIntoRectangleThenPad) {
  HostFrame src(PixelFormat::kRGB, 97, 41);
  fill_random(&src, 11);
  const int dst_width = 64, dst_height = 64;
  ResizeParams params;
  params.interpolation = Interpolation::kBilinear;
  params.dst_rect = PixelRect{0, 18, 64, 27};
  const uint8_t pad[4] = {114, 20, 250, 255};
  std::copy(pad, pad + 4, params.pad_value);
  HostFrame ours = ref::resize_reference(src, PixelFormat::kRGB, dst_width, dst_height, params);
  cv::Mat scaled, opencv;
  cv::resize(as_mat(src, 3), scaled, cv::Size(64, 27), 0, 0, cv::INTER_LINEAR);
  cv::copyMakeBorder(scaled, opencv, 18, 64 - 27 - 18, 0, 0, cv::BORDER_CONSTANT,
                     cv::Scalar(pad[0], pad[1], pad[2]));
  EXPECT_TRUE(bytes_near(opencv, as_mat(ours, 3), 1, "letterbox 97x41 -> 64x64"));
}

// `frame` decoded to RGBA on the 8-bit scale (BT.601 limited for YUV).
ref::RgbaImage decoded_image(const HostFrame &frame) {
  ref::RgbaImage image;
  image.width = frame.width;
  image.height = frame.height;
  image.pixels = ref::decode_to_rgba(frame, Colorimetry{});
  return image;
}

const Orientation kOrientations[] = {
    Orientation::kIdentity,  Orientation::kRotate90,       Orientation::kRotate180,
    Orientation::kRotate270, Orientation::kFlipHorizontal, Orientation::kFlipVertical,
    Orientation::kTranspose, Orientation::kAntiTranspose,
};

// OpenCV's own functions for each orientation (ur-ll has none: it is the
// transpose turned by 180 degrees).
cv::Mat opencv_oriented(const cv::Mat &src, Orientation orientation) {
  cv::Mat out;
  switch (orientation) {
    case Orientation::kIdentity:
      out = src.clone();
      break;
    case Orientation::kRotate90:
      cv::rotate(src, out, cv::ROTATE_90_CLOCKWISE);
      break;
    case Orientation::kRotate180:
      cv::rotate(src, out, cv::ROTATE_180);
      break;
    case Orientation::kRotate270:
      cv::rotate(src, out, cv::ROTATE_90_COUNTERCLOCKWISE);
      break;
    case Orientation::kFlipHorizontal:
      cv::flip(src, out, 1);
      break;
    case Orientation::kFlipVertical:
      cv::flip(src, out, 0);
      break;
    case Orientation::kTranspose:
      cv::transpose(src, out);
      break;
    case Orientation::kAntiTranspose: {
      cv::Mat transposed;
      cv::transpose(src, transposed);
      cv::flip(transposed, out, -1);
      break;
    }
  }
  return out;
}

// The reference's orientation (written from resize.h's table) moves the
// pixels exactly as cv::rotate, cv::flip and cv::transpose do.
TEST(OrientVsOpenCV, EveryOrientationEqualsOpenCVsBitForBit) {
  for (const SizeCase &size :
       {SizeCase{7, 5, 0, 0}, SizeCase{1, 9, 0, 0}, SizeCase{64, 48, 0, 0}}) {
    HostFrame src(PixelFormat::kRGB, size.src_width, size.src_height, /*extra_pitch_bytes=*/3);
    fill_random(&src, 5u * size.src_width + size.src_height);
    const ref::RgbaImage decoded = decoded_image(src);
    for (const Orientation orientation : kOrientations) {
      SCOPED_TRACE(std::string(orientation_name(orientation)) + " " + describe(size));
      const cv::Mat expected = opencv_oriented(as_mat(src, 3), orientation);
      HostFrame oriented = ref::orient(src, orientation);
      ASSERT_EQ(expected.cols, oriented.width);
      ASSERT_EQ(expected.rows, oriented.height);
      EXPECT_TRUE(bytes_near(expected, as_mat(oriented, 3), 0, "frame"));
      // The RgbaImage version, on the decoded pixels.
      const ref::RgbaImage image = ref::orient(decoded, orientation);
      ASSERT_EQ(expected.cols, image.width);
      for (int y = 0; y < expected.rows; ++y) {
        for (int x = 0; x < expected.cols; ++x) {
          const cv::Vec3b pixel = expected.at<cv::Vec3b>(y, x);
          ASSERT_EQ(pixel[0], image.at(x, y).r) << "x " << x << " y " << y;
          ASSERT_EQ(pixel[2], image.at(x, y).b) << "x " << x << " y " << y;
        }
      }
    }
  }
}

// 4:2:0 frames orient plane by plane: decoding the oriented NV12 frame
// gives the oriented decoded image, so chroma moved with its luma.
TEST(OrientReference, Nv12PlanesOrientWithTheirPixels) {
  HostFrame src(PixelFormat::kNV12, 10, 6);
  fill_random(&src, 3);
  const ref::RgbaImage decoded = decoded_image(src);
  for (const Orientation orientation : kOrientations) {
    SCOPED_TRACE(orientation_name(orientation));
    const HostFrame oriented = ref::orient(src, orientation);
    const ref::RgbaImage expected = ref::orient(decoded, orientation);
    const std::vector<ref::RgbaPixel> actual = ref::decode_to_rgba(oriented, Colorimetry{});
    ASSERT_EQ(expected.pixels.size(), actual.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      ASSERT_EQ(expected.pixels[i].r, actual[i].r) << i;
      ASSERT_EQ(expected.pixels[i].g, actual[i].g) << i;
      ASSERT_EQ(expected.pixels[i].b, actual[i].b) << i;
    }
  }
}

// cv2.resize of a float64 image (Depth-Anything resizes img / 255.0):
// sample positions rounded to float as SamplePositions::kOpenCvFloat says,
// weights in float. The reference with those positions is within 1e-3 of
// an 8-bit step of it (2.4e-4 measured: cv2's float weights); exact
// positions are 0.02 off (the gap the float intermediate closes by using
// OpenCV's positions).
TEST(FloatResizeVsOpenCV, OpenCvFloatPositionsMatchCv2ResizeOfDoubles) {
  HostFrame src(PixelFormat::kRGB, 1280, 720);
  fill_random(&src, 29);
  const ref::RgbaImage decoded = decoded_image(src);
  cv::Mat unit;  // img / 255.0
  as_mat(src, 3).convertTo(unit, CV_64FC3, 1.0 / 255.0);
  for (const Interpolation method : {Interpolation::kBicubic, Interpolation::kBilinear}) {
    for (const SizeCase &size : {SizeCase{1280, 720, 924, 518}, SizeCase{1280, 720, 1701, 997}}) {
      SCOPED_TRACE(std::string(interpolation_name(method)) + " " + describe(size));
      cv::Mat opencv;
      cv::resize(unit, opencv, cv::Size(size.dst_width, size.dst_height), 0, 0,
                 opencv_flag(method));
      double worst[2] = {0.0, 0.0};  // kOpenCvFloat, kExact; in 8-bit steps
      for (const ref::SamplePositions positions :
           {ref::SamplePositions::kOpenCvFloat, ref::SamplePositions::kExact}) {
        const ref::RgbaImage ours =
            ref::resample(decoded, size.dst_width, size.dst_height, method, false, positions);
        double &bound = worst[positions == ref::SamplePositions::kExact];
        for (int y = 0; y < size.dst_height; ++y) {
          for (int x = 0; x < size.dst_width; ++x) {
            const cv::Vec3d expected = opencv.at<cv::Vec3d>(y, x);
            const ref::RgbaPixel &pixel = ours.at(x, y);
            for (const auto &[value, wanted] :
                 {std::pair{pixel.r, expected[0]}, {pixel.g, expected[1]}, {pixel.b, expected[2]}})
              bound = std::max(bound, std::fabs(value - wanted * 255.0));
          }
        }
      }
      std::printf("[ %s %s ] from cv2.resize of doubles: OpenCV positions %.2g steps, exact %.2g\n",
                  interpolation_name(method), describe(size).c_str(), worst[0], worst[1]);
      EXPECT_LE(worst[0], 1e-3);
      if (method == Interpolation::kBicubic) {
        EXPECT_GT(worst[1], 5e-3);
      }
    }
  }
}

}  // namespace
}  // namespace cudaprep
