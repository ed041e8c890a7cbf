// Which frames preprocess() runs in two passes and how
// (kernels/antialias_two_pass_launch.cuh), without a GPU: the chosen path,
// the forced ones, the rectangle's columns and rows the intermediate holds,
// its rows bounding the source rows the taps read, and the launches'
// shared memory within the default limit or the device's opt-in one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "antialias_two_pass_launch.cuh"
#include "resize_launch.cuh"

namespace cudaprep {
namespace {

device::ResizeMapping mapping_of(int src_width, int src_height, int width, int height,
                                 Interpolation method, bool antialias, PixelRect rect = {}) {
  ResizeParams params;
  params.interpolation = method;
  params.antialias = antialias;
  params.dst_rect = rect;
  return resize_mapping(src_width, src_height, width, height, params);
}

// An H100's or H200's SMs (the segments fill them).
constexpr RowSumsDevice kDefaultDevice{132};
// Readers: NV12 or I420 read with 16-byte loads (YUV), RGBA read so, a
// reader without them (a crop, a format pass 1 reads pixel by pixel).
constexpr TwoPassReader kYuvReader{true, true};
constexpr TwoPassReader kRgbaReader{true, false};
constexpr TwoPassReader kPixelByPixel{false, true};

TEST(AntialiasTwoPassPlan, Resize256Of4kRunsInTwoPasses) {
  const device::ResizeMapping mapping =
      mapping_of(3840, 2160, 455, 256, Interpolation::kBicubic, true);
  const TwoPassPlan plan =
      two_pass_plan(mapping, 455, 256, kYuvReader, AntialiasPath::kChosen, kDefaultDevice);
  ASSERT_TRUE(plan.runs);
  EXPECT_EQ(plan.sums.column_begin, 0);
  EXPECT_EQ(plan.sums.columns, 455);
  EXPECT_EQ(plan.sums.pitch, 480);
  EXPECT_EQ(plan.sums.rect_row_begin, 0);
  EXPECT_EQ(plan.sums.rect_row_end, 256);
  EXPECT_EQ(plan.sums.rows, 2160);  // every source row: the bound is clamped to the frame
  EXPECT_EQ(plan.sums.bytes(), sizeof(float) * (3u * 2160 * 480 + 480));
  // 68 groups of 32 rows: segments of 32 columns would give 15 x 68 = 1020
  // warps, fewer than 12 per SM (1584): segments of 16, 29 x 68 warps.
  EXPECT_EQ(plan.capacity.segment_columns, 16);
  EXPECT_EQ(plan.capacity.table_pixels,
            tile_footprint_bound(mapping.axes.antialias_x, 16) + 2 * device::kWalkChunk);
  EXPECT_LE(plan.row_sums_shared_bytes, kTileSharedBytes);
  EXPECT_EQ(plan.row_sums_shared_bytes, device::row_walk_shared_layout(plan.capacity).bytes);
  // A band of 8 rows reads at most ceil(7 x 8.44 + 2 x 16.88) + 2 = 95 row sums.
  EXPECT_EQ(plan.band.rows, 95);
  EXPECT_LE(plan.band_shared_bytes, kTileSharedBytes);
  EXPECT_EQ(plan.band_shared_bytes, device::band_layout(plan.band).bytes);
  EXPECT_EQ(plan.row_sums_launch.block.x, 32u);
  EXPECT_EQ(plan.row_sums_launch.block.y, static_cast<unsigned>(device::kWalkWarps));
  EXPECT_EQ(plan.row_sums_launch.grid.x, (455u + 15) / 16);
  EXPECT_EQ(plan.row_sums_launch.grid.y, (68u + device::kWalkWarps - 1) / device::kWalkWarps);
  EXPECT_EQ(plan.output_launch.block.x, 32u);
  EXPECT_EQ(plan.output_launch.block.y, static_cast<unsigned>(device::kBandWarps));
  EXPECT_EQ(plan.output_launch.grid.x, (455u + 31) / 32);
  EXPECT_EQ(plan.output_launch.grid.y, 256u / 8);
}

// Segments as wide as still give every SM its warps.
TEST(AntialiasTwoPassPlan, SegmentsFillTheSms) {
  // 4K rows: 68 groups of 32.
  EXPECT_EQ(walk_segment_columns(455, 2160, 132), 16);
  EXPECT_EQ(walk_segment_columns(455, 2160, 60), 32);                       // 15 x 68 = 1020 >= 720
  EXPECT_EQ(walk_segment_columns(455, 2160, 20), 64);                       // the widest
  EXPECT_EQ(walk_segment_columns(64, 300, 132), kWalkSegmentColumnsLeast);  // the narrowest
}

TEST(AntialiasTwoPassPlan, TheChosenPathIsTheSinglePassBelowManyHorizontalTaps) {
  for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    EXPECT_FALSE(two_pass_plan(mapping_of(640, 480, 400, 300, method, true), 400, 300, kYuvReader,
                               AntialiasPath::kChosen, kDefaultDevice)
                     .runs);
    EXPECT_TRUE(two_pass_plan(mapping_of(640, 480, 400, 300, method, true), 400, 300, kYuvReader,
                              AntialiasPath::kTwoPass, kDefaultDevice)
                    .runs);
    EXPECT_FALSE(two_pass_plan(mapping_of(3840, 2160, 455, 256, method, true), 455, 256, kYuvReader,
                               AntialiasPath::kSinglePass, kDefaultDevice)
                     .runs);
  }
  const auto chosen = [](int src_width, int src_height, int width, int height, Interpolation method,
                         const TwoPassReader &reader) {
    return two_pass_plan(mapping_of(src_width, src_height, width, height, method, true), width,
                         height, reader, AntialiasPath::kChosen, kDefaultDevice)
        .runs;
  };
  // 4K -> 455 columns: 36 taps bicubic, 19 bilinear; 1080p -> 455: 19 and
  // 11. Bicubic and YUV bilinear from 16 taps; RGB bilinear from 32.
  for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    EXPECT_TRUE(chosen(3840, 2160, 455, 256, method, kYuvReader));
    // Pixel by pixel, pass 1 is not chosen.
    EXPECT_FALSE(chosen(3840, 2160, 455, 256, method, kPixelByPixel));
  }
  EXPECT_TRUE(chosen(1920, 1080, 455, 256, Interpolation::kBicubic, kYuvReader));
  EXPECT_FALSE(chosen(1920, 1080, 455, 256, Interpolation::kBilinear, kYuvReader));
  EXPECT_TRUE(chosen(3840, 2160, 455, 256, Interpolation::kBicubic, kRgbaReader));
  EXPECT_FALSE(chosen(3840, 2160, 455, 256, Interpolation::kBilinear, kRgbaReader));
  EXPECT_TRUE(chosen(1920, 1080, 455, 256, Interpolation::kBicubic, kRgbaReader));
  EXPECT_FALSE(chosen(1920, 1080, 455, 256, Interpolation::kBilinear, kRgbaReader));
  // 1920 -> 530 columns bicubic: 17 taps, two passes from RGBA and YUV;
  // 1920 -> 640: 15 taps, one pass from both.
  for (const TwoPassReader &reader : {kRgbaReader, kYuvReader}) {
    EXPECT_TRUE(chosen(1920, 1080, 530, 298, Interpolation::kBicubic, reader));
    EXPECT_FALSE(chosen(1920, 1080, 640, 360, Interpolation::kBicubic, reader));
  }
  // Only the columns count: a tall shrink of few taps per column stays on
  // the single pass.
  EXPECT_FALSE(chosen(640, 3840, 640, 256, Interpolation::kBicubic, kYuvReader));
  EXPECT_TRUE(chosen(3840, 640, 256, 640, Interpolation::kBicubic, kYuvReader));
}

// The frames for which preprocess() asks the device for its limits.
TEST(AntialiasTwoPassPlan, TwoPassesAreConsideredWhereThePathMayTakeThem) {
  const device::ResampleAxes plain =
      mapping_of(3840, 2160, 455, 256, Interpolation::kBicubic, false).axes;
  const device::ResampleAxes shrink =
      mapping_of(3840, 2160, 455, 256, Interpolation::kBicubic, true).axes;
  const device::ResampleAxes mild =
      mapping_of(640, 480, 400, 300, Interpolation::kBicubic, true).axes;
  EXPECT_FALSE(two_passes_considered(plain, kYuvReader, AntialiasPath::kTwoPass));
  EXPECT_FALSE(two_passes_considered(shrink, kYuvReader, AntialiasPath::kSinglePass));
  EXPECT_TRUE(two_passes_considered(shrink, kYuvReader, AntialiasPath::kChosen));
  EXPECT_FALSE(two_passes_considered(shrink, kPixelByPixel, AntialiasPath::kChosen));
  EXPECT_FALSE(two_passes_considered(mild, kYuvReader, AntialiasPath::kChosen));
  EXPECT_TRUE(two_passes_considered(mild, kPixelByPixel, AntialiasPath::kTwoPass));
}

TEST(AntialiasTwoPassPlan, OnlyAntialiasedSamplersThatFit) {
  EXPECT_FALSE(two_pass_plan(mapping_of(3840, 2160, 455, 256, Interpolation::kBicubic, false), 455,
                             256, kYuvReader, AntialiasPath::kTwoPass, kDefaultDevice)
                   .runs);
  // 2000 -> 9 columns: pass 1's weight table of a segment outgrows the shared memory.
  EXPECT_FALSE(two_pass_plan(mapping_of(2000, 1000, 9, 7, Interpolation::kBicubic, true), 9, 7,
                             kYuvReader, AntialiasPath::kTwoPass, kDefaultDevice)
                   .runs);
}

TEST(AntialiasTwoPassPlan, TheIntermediateHoldsTheRectanglesVisiblePart) {
  // Letterbox: the rectangle inside the destination, every column and row.
  const PixelRect letterbox{0, 80, 640, 480};
  TwoPassPlan plan =
      two_pass_plan(mapping_of(1920, 1440, 640, 640, Interpolation::kBilinear, true, letterbox),
                    640, 640, kYuvReader, AntialiasPath::kTwoPass, kDefaultDevice);
  ASSERT_TRUE(plan.runs);
  EXPECT_EQ(plan.sums.column_begin, 0);
  EXPECT_EQ(plan.sums.columns, 640);
  EXPECT_EQ(plan.sums.rect_row_begin, 0);
  EXPECT_EQ(plan.sums.rect_row_end, 480);
  // A crop of the resized frame: the rectangle reaches past every edge.
  const PixelRect crop{-100, -50, 455, 256};
  plan = two_pass_plan(mapping_of(3840, 2160, 224, 224, Interpolation::kBicubic, true, crop), 224,
                       224, kYuvReader, AntialiasPath::kChosen, kDefaultDevice);
  ASSERT_TRUE(plan.runs);
  EXPECT_EQ(plan.sums.column_begin, 100);
  EXPECT_EQ(plan.sums.columns, 224);
  EXPECT_EQ(plan.sums.pitch, 224);
  EXPECT_EQ(plan.sums.rect_row_begin, 50);
  EXPECT_EQ(plan.sums.rect_row_end, 256);
  EXPECT_LT(plan.sums.rows, 2160);  // the rows above row 50's taps are left out
  // Nothing of the rectangle visible: no pass has work.
  const PixelRect outside{300, 0, 200, 100};
  EXPECT_FALSE(
      two_pass_plan(mapping_of(1000, 500, 256, 256, Interpolation::kBicubic, true, outside), 256,
                    256, kYuvReader, AntialiasPath::kTwoPass, kDefaultDevice)
          .runs);
}

// The rows allocated hold the source rows the visible rows' taps read,
// computed here in double from the definition (centre (d + 0.5) * scale,
// taps from trunc(centre - support + 0.5) to trunc(centre + support + 0.5)).
TEST(AntialiasTwoPassPlan, TheRowsHoldEveryTapOfTheVisibleRows) {
  for (const int src_height : {2160, 1080, 777, 301}) {
    for (const int rect_height : {256, 97, 31}) {
      for (const int row_begin : {0, 7}) {
        for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
          const PixelRect rect{0, -row_begin, 64, rect_height};
          const int height = rect_height - row_begin - 3;
          const device::ResizeMapping mapping =
              mapping_of(640, src_height, 64, height, method, true, rect);
          const TwoPassPlan plan = two_pass_plan(mapping, 64, height, kYuvReader,
                                                 AntialiasPath::kTwoPass, kDefaultDevice);
          ASSERT_TRUE(plan.runs);
          ASSERT_EQ(plan.sums.rect_row_begin, row_begin);
          ASSERT_EQ(plan.sums.rect_row_end, rect_height - 3);
          const double scale = static_cast<double>(src_height) / rect_height;
          const double support =
              (method == Interpolation::kBicubic ? 2.0 : 1.0) * std::max(scale, 1.0);
          const auto first = [&](int d) {
            return std::max(static_cast<int>((d + 0.5) * scale - support + 0.5), 0);
          };
          const auto end = [&](int d) {
            return std::min(static_cast<int>((d + 0.5) * scale + support + 0.5), src_height);
          };
          // One row to spare for the float coordinates, within the frame.
          EXPECT_GE(plan.sums.rows,
                    std::min(end(plan.sums.rect_row_end - 1) - first(plan.sums.rect_row_begin) + 1,
                             src_height))
              << src_height << " -> " << rect_height << " from row " << row_begin;
          EXPECT_LE(plan.sums.rows, src_height);
        }
      }
    }
  }
}

}  // namespace
}  // namespace cudaprep
