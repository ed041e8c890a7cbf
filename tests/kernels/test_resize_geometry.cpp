// Letterbox, "short side S, multiple of M" and FrameGeometry maths of
// resize_geometry.h, and the row patterns and row copies (copy.h) an
// upload plans from the rows a resize reads. No GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "cudaprep/copy.h"
#include "cudaprep/resize_geometry.h"
#include "reference/resize_ref.h"

namespace cudaprep {
namespace {

PixelRect letterbox(int src_width, int src_height, int dst_width, int dst_height,
                    LetterboxOptions options = {}) {
  PixelRect rect;
  std::string error;
  EXPECT_TRUE(letterbox_rect(src_width, src_height, dst_width, dst_height, options, &rect, &error))
      << error;
  return rect;
}

void expect_rect(const PixelRect &rect, int x, int y, int width, int height) {
  EXPECT_EQ(x, rect.x);
  EXPECT_EQ(y, rect.y);
  EXPECT_EQ(width, rect.width);
  EXPECT_EQ(height, rect.height);
}

// Expected values below follow Ultralytics' LetterBox by hand:
// r = min(640/1080, 640/1920) = 1/3, unpadded 640x360, dh = 280 -> 140 + 140.
TEST(Letterbox, Yolo1080pInto640Square) {
  expect_rect(letterbox(1920, 1080, 640, 640), 0, 140, 640, 360);
}

TEST(Letterbox, PortraitPadsLeftAndRight) {
  expect_rect(letterbox(480, 640, 640, 640), 80, 0, 480, 640);
}

// 100x51 into 64x64: r 0.64, height round(32.64) = 33, 31 rows of padding:
// top round(15.5 - 0.1) = 15, bottom 16.
TEST(Letterbox, OddPaddingGoesBottomRight) {
  expect_rect(letterbox(100, 51, 64, 64), 0, 15, 64, 33);
}

// Python's round() is half-to-even: 2.5 -> 2 and 3.5 -> 4.
TEST(Letterbox, SidesRoundHalfToEven) {
  expect_rect(letterbox(10, 5, 5, 5), 0, 1, 5, 2);
  expect_rect(letterbox(14, 7, 7, 7), 0, 1, 7, 4);
}

TEST(Letterbox, TopLeftPutsAllPaddingRightAndBottom) {
  LetterboxOptions options;
  options.align = LetterboxAlign::kTopLeft;
  expect_rect(letterbox(1920, 1080, 640, 640, options), 0, 0, 640, 360);
}

TEST(Letterbox, WithoutScaleUpSmallSourceStaysUnscaled) {
  LetterboxOptions options;
  options.scale_up = false;
  expect_rect(letterbox(320, 240, 640, 640, options), 160, 200, 320, 240);
  // Shrinking still happens.
  expect_rect(letterbox(1280, 720, 640, 640, options), 0, 140, 640, 360);
}

TEST(Letterbox, ExtremeAspectKeepsAtLeastOnePixel) {
  expect_rect(letterbox(10000, 1, 64, 64), 0, 31, 64, 1);
  expect_rect(letterbox(1, 10000, 64, 64), 31, 0, 1, 64);
}

TEST(Letterbox, RectangleAlwaysInsideAndAspectKept) {
  for (int src_width : {1, 7, 97, 640, 1920}) {
    for (int src_height : {1, 5, 41, 480, 1080}) {
      for (int dst_width : {1, 3, 64, 320}) {
        for (int dst_height : {1, 2, 64, 256}) {
          const PixelRect rect = letterbox(src_width, src_height, dst_width, dst_height);
          ASSERT_GE(rect.x, 0);
          ASSERT_GE(rect.y, 0);
          ASSERT_GE(rect.width, 1);
          ASSERT_GE(rect.height, 1);
          ASSERT_LE(rect.x + rect.width, dst_width);
          ASSERT_LE(rect.y + rect.height, dst_height);
          // One side fills the output; the other is the rounded scaled side.
          const double ratio =
              std::min(double(dst_width) / src_width, double(dst_height) / src_height);
          ASSERT_TRUE(rect.width == dst_width || rect.height == dst_height);
          ASSERT_LE(std::abs(rect.width - std::max(1.0, src_width * ratio)), 0.5 + 1e-9);
          ASSERT_LE(std::abs(rect.height - std::max(1.0, src_height * ratio)), 0.5 + 1e-9);
          // Centred: left/top padding is the smaller half.
          ASSERT_EQ(rect.x, (dst_width - rect.width) / 2);
          ASSERT_EQ(rect.y, (dst_height - rect.height) / 2);
        }
      }
    }
  }
}

TEST(Letterbox, EmptySizesAreErrorsWithReasons) {
  PixelRect rect{1, 2, 3, 4};
  for (const auto &[src_width, src_height, dst_width, dst_height] :
       {std::tuple{0, 10, 10, 10}, {10, -1, 10, 10}, {10, 10, 0, 10}, {10, 10, 10, 0}}) {
    std::string error;
    EXPECT_FALSE(letterbox_rect(src_width, src_height, dst_width, dst_height, {}, &rect, &error));
    EXPECT_FALSE(error.empty());
  }
  EXPECT_FALSE(letterbox_rect(0, 0, 1, 1, {}, &rect, nullptr));
  expect_rect(rect, 1, 2, 3, 4);  // untouched on failure
}

// Depth-Anything's Resize(518, 518, keep_aspect_ratio, ensure_multiple_of=14,
// "lower_bound"), worked by hand: 1920x1080 -> scale 518/1080, width
// 920.9 -> round(65.78) * 14 = 924.
TEST(ShortSide, DepthAnything1080p) {
  int width = 0, height = 0;
  std::string error;
  ASSERT_TRUE(short_side_multiple_size(1920, 1080, 518, 14, &width, &height, &error)) << error;
  EXPECT_EQ(924, width);
  EXPECT_EQ(518, height);
  ASSERT_TRUE(short_side_multiple_size(1080, 1920, 518, 14, &width, &height, &error)) << error;
  EXPECT_EQ(518, width);
  EXPECT_EQ(924, height);
}

TEST(ShortSide, WorkedExamples) {
  struct Case {
    int src_width, src_height, short_side, multiple_of, width, height;
  };
  const Case cases[] = {
      {518, 518, 518, 14, 518, 518},
      {640, 480, 518, 14, 686, 518},    // 690.7 / 14 = 49.3 -> 49 -> 686
      {1920, 1080, 518, 1, 921, 518},   // 920.9 rounds to 921
      {1000, 1000, 505, 14, 518, 518},  // round(36.07) * 14 = 504 < 505 -> ceil -> 518
      {100, 10, 7, 2, 70, 8},           // 7 -> round(3.5) = 4 -> 8; 70 -> 70
      {3000, 2000, 16, 32, 32, 32},     // 24 -> round(0.75) = 1 -> 32
  };
  for (const Case &c : cases) {
    int width = 0, height = 0;
    std::string error;
    ASSERT_TRUE(short_side_multiple_size(c.src_width, c.src_height, c.short_side, c.multiple_of,
                                         &width, &height, &error))
        << error;
    EXPECT_EQ(c.width, width) << c.src_width << "x" << c.src_height;
    EXPECT_EQ(c.height, height) << c.src_width << "x" << c.src_height;
  }
}

TEST(ShortSide, AlwaysMultipleAndAtLeastShortSide) {
  for (int src_width : {2, 13, 640, 1280, 1920, 4096}) {
    for (int src_height : {3, 17, 480, 720, 1080, 2160}) {
      for (int multiple_of : {1, 8, 14, 32}) {
        int width = 0, height = 0;
        ASSERT_TRUE(short_side_multiple_size(src_width, src_height, 518, multiple_of, &width,
                                             &height, nullptr));
        EXPECT_EQ(0, width % multiple_of);
        EXPECT_EQ(0, height % multiple_of);
        EXPECT_GE(std::min(width, height), 518);
        // Snapping moves each side by less than one multiple.
        const double scale = std::max(518.0 / src_width, 518.0 / src_height);
        EXPECT_LT(std::abs(width - src_width * scale), multiple_of + 1e-9);
        EXPECT_LT(std::abs(height - src_height * scale), multiple_of + 1e-9);
      }
    }
  }
}

TEST(ShortSide, ImpossibleInputsAreErrors) {
  int width = 0, height = 0;
  std::string error;
  EXPECT_FALSE(short_side_multiple_size(0, 10, 518, 14, &width, &height, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(short_side_multiple_size(10, 10, 0, 14, &width, &height, &error));
  EXPECT_FALSE(short_side_multiple_size(10, 10, 518, 0, &width, &height, &error));
  EXPECT_FALSE(short_side_multiple_size(100000, 1, 518, 14, &width, &height, &error));
  EXPECT_NE(std::string::npos, error.find("longer than")) << error;
}

// A source point goes to the output and back exactly; an output pixel's
// centre lands on the source position the half-pixel samplers read.
TEST(ResizeFrameGeometry, RoundTripsThroughLetterbox) {
  for (const auto &[src_width, src_height] : {std::pair{1920, 1080}, {97, 41}, {480, 640}}) {
    const PixelRect rect = letterbox(src_width, src_height, 640, 640);
    const FrameGeometry geometry = resize_frame_geometry(src_width, src_height, rect);
    double out_x, out_y;
    geometry.to_output(0, 0, &out_x, &out_y);
    EXPECT_DOUBLE_EQ(rect.x, out_x);
    EXPECT_DOUBLE_EQ(rect.y, out_y);
    geometry.to_output(src_width, src_height, &out_x, &out_y);
    EXPECT_NEAR(rect.x + rect.width, out_x, 1e-9);
    EXPECT_NEAR(rect.y + rect.height, out_y, 1e-9);
    for (int x = 0; x < src_width; x += 7) {
      const int y = (x * 13) % src_height;
      double back_x, back_y;
      geometry.to_output(x + 0.5, y + 0.5, &out_x, &out_y);
      geometry.to_source(out_x, out_y, &back_x, &back_y);
      EXPECT_NEAR(x + 0.5, back_x, 1e-9);
      EXPECT_NEAR(y + 0.5, back_y, 1e-9);
      // The output pixel holding the point maps back within half of it.
      const double pixel_x = std::floor(out_x) + 0.5, pixel_y = std::floor(out_y) + 0.5;
      geometry.to_source(pixel_x, pixel_y, &back_x, &back_y);
      EXPECT_LE(std::abs(back_x - (x + 0.5)), 0.5 / geometry.scale_x + 1e-9);
      EXPECT_LE(std::abs(back_y - (y + 0.5)), 0.5 / geometry.scale_y + 1e-9);
    }
    // Output pixel d's centre: the sampler's (d + 0.5) * src / rect.
    double src_x, src_y;
    geometry.to_source(rect.x + 10 + 0.5, rect.y + 3 + 0.5, &src_x, &src_y);
    EXPECT_NEAR((10 + 0.5) * src_width / rect.width, src_x, 1e-9);
    EXPECT_NEAR((3 + 0.5) * src_height / rect.height, src_y, 1e-9);
  }
}

TEST(ResizeFrameGeometry, ComposesWithAnUpstreamCrop) {
  FrameGeometry crop;
  crop.crop_x = 100;
  crop.crop_y = 40;
  const PixelRect rect = letterbox(800, 600, 320, 320);  // 320x240 at y 40
  const FrameGeometry composed = crop.then(resize_frame_geometry(800, 600, rect));
  double out_x, out_y, src_x, src_y;
  composed.to_output(100 + 400, 40 + 300, &out_x, &out_y);  // centre of the crop
  EXPECT_NEAR(160.0, out_x, 1e-9);
  EXPECT_NEAR(40.0 + 120.0, out_y, 1e-9);
  composed.to_source(out_x, out_y, &src_x, &src_y);
  EXPECT_NEAR(500.0, src_x, 1e-9);
  EXPECT_NEAR(340.0, src_y, 1e-9);
}

// A turned resize's geometry agrees with the kernels' definition of the
// turn (resize.h, written out in ref::oriented_source_pixel): source pixel
// (sx, sy)'s centre lands on the centre of the output pixel that holds it
// at scale 1, and on the scaled centre otherwise; points round-trip.
TEST(ResizeFrameGeometry, TurnedResizeMapsPixelsWhereTheKernelsPutThem) {
  for (int o = 0; o <= static_cast<int>(Orientation::kAntiTranspose); ++o) {
    const Orientation orientation = static_cast<Orientation>(o);
    SCOPED_TRACE(orientation_name(orientation));
    const int src_width = 97, src_height = 41;
    const bool swapped = swaps_axes(orientation);
    const int turned_width = swapped ? src_height : src_width;
    const int turned_height = swapped ? src_width : src_height;
    const PixelRect rect = letterbox(turned_width, turned_height, 320, 320);
    const FrameGeometry unscaled = resize_frame_geometry(
        src_width, src_height, PixelRect{0, 0, turned_width, turned_height}, orientation);
    const FrameGeometry scaled = resize_frame_geometry(src_width, src_height, rect, orientation);
    for (int y = 0; y < turned_height; y += 5) {
      for (int x = 0; x < turned_width; x += 3) {
        int sx = 0, sy = 0;
        ref::oriented_source_pixel(orientation, src_width, src_height, x, y, &sx, &sy);
        double out_x, out_y;
        unscaled.to_output(sx + 0.5, sy + 0.5, &out_x, &out_y);
        ASSERT_NEAR(x + 0.5, out_x, 1e-9) << "source pixel " << sx << ", " << sy;
        ASSERT_NEAR(y + 0.5, out_y, 1e-9) << "source pixel " << sx << ", " << sy;
        scaled.to_output(sx + 0.5, sy + 0.5, &out_x, &out_y);
        ASSERT_NEAR(rect.x + (x + 0.5) * rect.width / turned_width, out_x, 1e-9);
        ASSERT_NEAR(rect.y + (y + 0.5) * rect.height / turned_height, out_y, 1e-9);
        double back_x, back_y;
        scaled.to_source(out_x, out_y, &back_x, &back_y);
        ASSERT_NEAR(sx + 0.5, back_x, 1e-9);
        ASSERT_NEAR(sy + 0.5, back_y, 1e-9);
      }
    }
  }
}

// then() composes turns, crops, scales and pads: crop -> turned letterbox
// -> crop -> another turn equals applying the four in sequence, for every
// pair of orientations, and compose() is the group's product.
TEST(ResizeFrameGeometry, ComposesTurnsCropsAndScales) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> coordinate(0.0, 700.0);
  for (int first = 0; first <= 7; ++first) {
    for (int second = 0; second <= 7; ++second) {
      const Orientation a = static_cast<Orientation>(first), b = static_cast<Orientation>(second);
      SCOPED_TRACE(std::string(orientation_name(a)) + " then " + orientation_name(b));
      FrameGeometry crop;
      crop.crop_x = 100;
      crop.crop_y = 40;
      const bool swapped_a = swaps_axes(a);
      const PixelRect rect = letterbox(swapped_a ? 600 : 800, swapped_a ? 800 : 600, 320, 320);
      const FrameGeometry turn_a = resize_frame_geometry(800, 600, rect, a);
      FrameGeometry crop_again;
      crop_again.crop_x = 7;
      crop_again.crop_y = 11;
      const FrameGeometry turn_b = resize_frame_geometry(300, 290, PixelRect{5, 9, 150, 200}, b);
      const FrameGeometry composed = crop.then(turn_a).then(crop_again).then(turn_b);
      for (int i = 0; i < 20; ++i) {
        const double x = coordinate(rng), y = coordinate(rng);
        double px = x, py = y;
        for (const FrameGeometry *step :
             std::initializer_list<const FrameGeometry *>{&crop, &turn_a, &crop_again, &turn_b})
          step->to_output(px, py, &px, &py);
        double cx, cy;
        composed.to_output(x, y, &cx, &cy);
        ASSERT_NEAR(px, cx, 1e-9);
        ASSERT_NEAR(py, cy, 1e-9);
        double back_x, back_y;
        composed.to_source(cx, cy, &back_x, &back_y);
        ASSERT_NEAR(x, back_x, 1e-9);
        ASSERT_NEAR(y, back_y, 1e-9);
      }
      // compose() against the table: turning a pixel by a, then by b.
      const Orientation ab = compose(a, b);
      for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 5; ++x) {
          // The a-turned 6x4 image, turned by b: its pixel (x, y).
          const int aw = swaps_axes(a) ? 4 : 6, ah = swaps_axes(a) ? 6 : 4;
          const int bw = swaps_axes(b) ? ah : aw, bh = swaps_axes(b) ? aw : ah;
          if (x >= bw || y >= bh) continue;
          int mx, my, sx, sy, direct_x, direct_y;
          ref::oriented_source_pixel(b, aw, ah, x, y, &mx, &my);
          ref::oriented_source_pixel(a, 6, 4, mx, my, &sx, &sy);
          ref::oriented_source_pixel(ab, 6, 4, x, y, &direct_x, &direct_y);
          ASSERT_EQ(sx, direct_x) << "pixel " << x << ", " << y;
          ASSERT_EQ(sy, direct_y) << "pixel " << x << ", " << y;
        }
      }
    }
  }
}

}  // namespace
}  // namespace cudaprep

namespace cudaprep {
namespace {

// --- Rows a resize reads ----------------------------------------------------

// Bilinear's rows from the definition, in double: sample y = (d + 0.5) *
// src / dst - 0.5, rows floor(y) and, unless y is a whole row, floor(y) + 1.
std::vector<bool> bilinear_rows_reference(int src_height, int dst_height) {
  std::vector<bool> rows(src_height, false);
  for (int d = 0; d < dst_height; ++d) {
    const double y = (d + 0.5) * src_height / dst_height - 0.5;
    const long below = static_cast<long>(std::floor(y));
    rows[std::clamp<long>(below, 0, src_height - 1)] = true;
    if (y != std::floor(y)) rows[std::clamp<long>(below + 1, 0, src_height - 1)] = true;
  }
  return rows;
}

TEST(RowsRead, BilinearThirdOf1080pIsEveryThirdRow) {
  const std::vector<bool> rows = resize_rows_read(Interpolation::kBilinear, 1080, 360);
  EXPECT_EQ(rows, bilinear_rows_reference(1080, 360));
  EXPECT_EQ(std::count(rows.begin(), rows.end(), true), 360);
  const RowPattern pattern = find_row_pattern(rows);
  EXPECT_EQ(pattern.first, 1);
  EXPECT_EQ(pattern.last, 1078);
  EXPECT_EQ(pattern.period, 3);
  EXPECT_EQ(pattern.mask, 0b1u);
}

TEST(RowsRead, BilinearSixthOf4KIsTwoRowsInSix) {
  const std::vector<bool> rows = resize_rows_read(Interpolation::kBilinear, 2160, 360);
  EXPECT_EQ(rows, bilinear_rows_reference(2160, 360));
  const RowPattern pattern = find_row_pattern(rows);
  EXPECT_EQ(pattern.first, 2);
  EXPECT_EQ(pattern.last, 2157);
  EXPECT_EQ(pattern.period, 6);
  EXPECT_EQ(pattern.mask, 0b11u);
}

TEST(RowsRead, BilinearOtherRatiosMatchTheDefinition) {
  for (const auto &[src, dst] :
       {std::pair{1080, 518}, {1080, 640}, {720, 360}, {480, 640}, {1080, 1}, {7, 3}, {2160, 1080}})
    EXPECT_EQ(resize_rows_read(Interpolation::kBilinear, src, dst),
              bilinear_rows_reference(src, dst))
        << src << " -> " << dst;
  // 1080 -> 518 reads nearly every row: no pattern worth copying by.
  const std::vector<bool> rows = resize_rows_read(Interpolation::kBilinear, 1080, 518);
  EXPECT_GT(std::count(rows.begin(), rows.end(), true), 1000);
}

TEST(RowsRead, NearestTakesTheRowBelowEachSample) {
  const std::vector<bool> rows = resize_rows_read(Interpolation::kNearest, 1080, 360);
  for (int row = 0; row < 1080; ++row) EXPECT_EQ(rows[row], row % 3 == 0) << row;
}

TEST(RowsRead, BicubicAndAreaAreNotAnalysed) {
  EXPECT_TRUE(resize_rows_read(Interpolation::kBicubic, 1080, 360).empty());
  EXPECT_TRUE(resize_rows_read(Interpolation::kArea, 1080, 360).empty());
  EXPECT_TRUE(resize_rows_read(Interpolation::kBilinear, 0, 360).empty());
}

TEST(RowPatterns, FindAndExpandAgree) {
  EXPECT_EQ(find_row_pattern(std::vector<bool>(10, false)).period, 0);
  std::vector<bool> range(10, false);
  std::fill(range.begin() + 3, range.begin() + 7, true);
  const RowPattern contiguous = find_row_pattern(range);
  EXPECT_EQ(contiguous.period, 1);
  EXPECT_EQ(expand_row_pattern(contiguous, 10), range);
  std::vector<bool> irregular(100, false);
  for (int row : {1, 2, 4, 8, 16, 32, 64}) irregular[row] = true;
  EXPECT_EQ(find_row_pattern(irregular).period, 0);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int period = 1 + static_cast<int>(rng() % kMaxRowPeriod);
    const uint32_t mask =
        (static_cast<uint32_t>(rng()) | 1u) & (period == 32 ? ~0u : (1u << period) - 1u);
    const RowPattern pattern{static_cast<int>(rng() % 50), 0, period, mask};
    const int height = pattern.first + 1 + static_cast<int>(rng() % 400);
    RowPattern bounded = pattern;
    bounded.last = height - 1;
    const std::vector<bool> rows = expand_row_pattern(bounded, height);
    EXPECT_EQ(expand_row_pattern(find_row_pattern(rows), height), rows) << "trial " << trial;
  }
}

}  // namespace

// gtest prints RowCopy values with this (found by argument lookup).
void PrintTo(const RowCopy &copy, std::ostream *os) {
  *os << "{plane " << copy.plane << ", rows " << copy.first_row << " + k * " << copy.period << ", "
      << copy.count << " rows}";
}

namespace {

// W1: 1080 -> 360 bilinear; W4: 2160 -> 360.
TEST(RowCopies, OneCopyPerRowClassOfEachPlane) {
  const RowPattern w1 = find_row_pattern(resize_rows_read(Interpolation::kBilinear, 1080, 360));
  EXPECT_EQ(plan_row_copies(PixelFormat::kRGBA, 1080, w1), (std::vector<RowCopy>{{0, 1, 3, 360}}));
  // NV12: chroma row r serves rows 2r, 2r + 1: rows 1, 4, 7, 10 need 0, 2, 3, 5.
  EXPECT_EQ(plan_row_copies(PixelFormat::kNV12, 1080, w1),
            (std::vector<RowCopy>{{0, 1, 3, 360}, {1, 0, 3, 180}, {1, 2, 3, 180}}));
  const RowPattern w4 = find_row_pattern(resize_rows_read(Interpolation::kBilinear, 2160, 360));
  EXPECT_EQ(plan_row_copies(PixelFormat::kNV12, 2160, w4),
            (std::vector<RowCopy>{{0, 2, 6, 360}, {0, 3, 6, 360}, {1, 1, 3, 360}}));
  // I420: both chroma planes.
  EXPECT_EQ(plan_row_copies(PixelFormat::kI420, 2160, w4).size(), 4u);
}

TEST(RowCopies, CoverExactlyThePatternsRows) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 100; ++trial) {
    const int height = 2 + static_cast<int>(rng() % 500);
    const int src = height, dst = 1 + static_cast<int>(rng() % height);
    const std::vector<bool> rows = resize_rows_read(Interpolation::kBilinear, src, dst);
    const RowPattern pattern = find_row_pattern(rows);
    if (pattern.period == 0) continue;
    std::vector<bool> copied(height, false);
    for (const RowCopy &copy : plan_row_copies(PixelFormat::kRGBA, height, pattern))
      for (int k = 0; k < copy.count; ++k) {
        ASSERT_LT(copy.first_row + k * copy.period, height);
        copied[copy.first_row + k * copy.period] = true;
      }
    EXPECT_EQ(copied, rows) << src << " -> " << dst;
  }
}

}  // namespace
}  // namespace cudaprep
