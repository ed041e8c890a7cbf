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

// A device that lets a block take no more than the default 48 KB, with an
// H100's SMs (the row groups per block depend on them).
constexpr RowSumsDevice kDefaultDevice{kTileSharedBytes, 228 * 1024, 132};
// An H100: a block may opt into 227 KB.
constexpr RowSumsDevice kH100{227 * 1024, 228 * 1024, 132};

TEST(AntialiasTwoPassPlan, Resize256Of4kRunsInTwoPasses) {
  const device::ResizeMapping mapping =
      mapping_of(3840, 2160, 455, 256, Interpolation::kBicubic, true);
  const TwoPassPlan plan = two_pass_plan(mapping, 455, 256, AntialiasPath::kChosen, kDefaultDevice);
  ASSERT_TRUE(plan.runs);
  EXPECT_EQ(plan.sums.column_begin, 0);
  EXPECT_EQ(plan.sums.columns, 455);
  EXPECT_EQ(plan.sums.pitch, 480);
  EXPECT_EQ(plan.sums.rect_row_begin, 0);
  EXPECT_EQ(plan.sums.rect_row_end, 256);
  EXPECT_EQ(plan.sums.rows, 2160);  // every source row: the bound is clamped to the frame
  EXPECT_EQ(plan.sums.bytes(), sizeof(float) * (3u * 2160 * 480 + 480));
  // 35 taps per column: five groups of two columns per block fit 48 KB
  // (112 staged columns), six would not (129).
  EXPECT_EQ(plan.capacity.warps, 5);
  EXPECT_LE(plan.row_sums_shared_bytes, kTileSharedBytes);
  EXPECT_EQ(plan.row_sums_shared_bytes, device::row_sums_shared_layout(plan.capacity).bytes);
  EXPECT_GE(plan.taps, 35);
  EXPECT_EQ(plan.row_sums_launch.block.x, 32u);
  EXPECT_EQ(plan.row_sums_launch.block.y, 5u);
  EXPECT_EQ(plan.row_sums_launch.grid.x, (455u + 9) / 10);
  // Three such blocks per SM (128 registers a thread), 396 at once: 46 x 17
  // blocks of four row groups in two rounds (one group each: 3128 blocks in
  // eight rounds).
  EXPECT_EQ(plan.capacity.row_groups, 4);
  EXPECT_EQ(plan.row_sums_launch.grid.y, ((2160u + 31) / 32 + 3) / 4);
  EXPECT_EQ(plan.output_launch.grid.x, (455u + 31) / 32);
  EXPECT_EQ(plan.output_launch.grid.y, 256u / 8);
}

// Where a block may opt into more shared memory (227 KB on an H100): eight
// groups of two columns share one footprint (163 staged columns), two
// blocks per SM (128 registers a thread), and 29 x 9 blocks of eight row
// groups run in one round on 132 SMs.
TEST(AntialiasTwoPassPlan, Resize256Of4kTakesTheSharedMemoryItMayOptInto) {
  const device::ResizeMapping mapping =
      mapping_of(3840, 2160, 455, 256, Interpolation::kBicubic, true);
  const TwoPassPlan plan = two_pass_plan(mapping, 455, 256, AntialiasPath::kChosen, kH100);
  ASSERT_TRUE(plan.runs);
  EXPECT_EQ(plan.capacity.warps, device::kRowSumMostWarps);
  EXPECT_EQ(plan.capacity.staged_columns, 163);
  EXPECT_GT(plan.row_sums_shared_bytes, kTileSharedBytes);
  EXPECT_LE(plan.row_sums_shared_bytes, kH100.block_shared_limit);
  EXPECT_EQ(plan.row_sums_shared_bytes, device::row_sums_shared_layout(plan.capacity).bytes);
  EXPECT_EQ(plan.capacity.row_groups, 8);
  EXPECT_EQ(plan.row_sums_launch.block.y, 8u);
  EXPECT_EQ(plan.row_sums_launch.grid.x, (455u + 15) / 16);
  EXPECT_EQ(plan.row_sums_launch.grid.y, ((2160u + 31) / 32 + 7) / 8);
  // A limit below the default changes nothing: every device allows 48 KB.
  const RowSumsDevice no_opt_in{0, 228 * 1024, 132};
  EXPECT_EQ(two_pass_plan(mapping, 455, 256, AntialiasPath::kChosen, no_opt_in).capacity.warps, 5);
}

// The row groups per block: the fewest rounds of blocks times a block's
// time (its groups and one more).
TEST(AntialiasTwoPassPlan, RowGroupsPerBlockFillTheRoundsOfBlocks) {
  // 4K -> 455 at eight warps: 29 x 68 groups, 264 places: 261 blocks of
  // eight groups in one round (9).
  EXPECT_EQ(row_groups_per_block(29, 68, 2, 132), 8);
  // On 114 SMs (228 places) eight groups would take two rounds (18):
  // three, 29 x 23 = 667 blocks in three rounds of 4 (12; five ties).
  EXPECT_EQ(row_groups_per_block(29, 68, 2, 114), 3);
  // Places for every block of one group.
  EXPECT_EQ(row_groups_per_block(4, 8, 16, 132), 1);
}

TEST(AntialiasTwoPassPlan, TheChosenPathIsTheSinglePassBelowManyHorizontalTaps) {
  for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    EXPECT_FALSE(two_pass_plan(mapping_of(640, 480, 400, 300, method, true), 400, 300,
                               AntialiasPath::kChosen, kDefaultDevice)
                     .runs);
    EXPECT_TRUE(two_pass_plan(mapping_of(640, 480, 400, 300, method, true), 400, 300,
                              AntialiasPath::kTwoPass, kDefaultDevice)
                    .runs);
    // 1080p -> 455 columns: 19 taps (bicubic), 11 (bilinear).
    EXPECT_FALSE(two_pass_plan(mapping_of(1920, 1080, 455, 256, method, true), 455, 256,
                               AntialiasPath::kChosen, kDefaultDevice)
                     .runs);
    EXPECT_FALSE(two_pass_plan(mapping_of(3840, 2160, 455, 256, method, true), 455, 256,
                               AntialiasPath::kSinglePass, kDefaultDevice)
                     .runs);
  }
  // 4K -> 455 columns: 36 taps bicubic, 19 bilinear. Only the columns count:
  // a tall shrink of few taps per column stays on the single pass.
  const auto chosen = [](int src_width, int src_height, int width, int height,
                         Interpolation method) {
    return two_pass_plan(mapping_of(src_width, src_height, width, height, method, true), width,
                         height, AntialiasPath::kChosen, kDefaultDevice)
        .runs;
  };
  EXPECT_TRUE(chosen(3840, 2160, 455, 256, Interpolation::kBicubic));
  EXPECT_FALSE(chosen(3840, 2160, 455, 256, Interpolation::kBilinear));
  EXPECT_FALSE(chosen(640, 3840, 640, 256, Interpolation::kBicubic));
  EXPECT_TRUE(chosen(3840, 640, 256, 640, Interpolation::kBicubic));
}

TEST(AntialiasTwoPassPlan, OnlyAntialiasedSamplersThatFit) {
  EXPECT_FALSE(two_pass_plan(mapping_of(3840, 2160, 455, 256, Interpolation::kBicubic, false), 455,
                             256, AntialiasPath::kTwoPass, kDefaultDevice)
                   .runs);
  // 2000 -> 9 columns: one group's footprint alone outgrows the shared memory.
  EXPECT_FALSE(two_pass_plan(mapping_of(2000, 1000, 9, 7, Interpolation::kBicubic, true), 9, 7,
                             AntialiasPath::kTwoPass, kDefaultDevice)
                   .runs);
}

TEST(AntialiasTwoPassPlan, TheIntermediateHoldsTheRectanglesVisiblePart) {
  // Letterbox: the rectangle inside the destination, every column and row.
  const PixelRect letterbox{0, 80, 640, 480};
  TwoPassPlan plan =
      two_pass_plan(mapping_of(1920, 1440, 640, 640, Interpolation::kBilinear, true, letterbox),
                    640, 640, AntialiasPath::kTwoPass, kDefaultDevice);
  ASSERT_TRUE(plan.runs);
  EXPECT_EQ(plan.sums.column_begin, 0);
  EXPECT_EQ(plan.sums.columns, 640);
  EXPECT_EQ(plan.sums.rect_row_begin, 0);
  EXPECT_EQ(plan.sums.rect_row_end, 480);
  // A crop of the resized frame: the rectangle reaches past every edge.
  const PixelRect crop{-100, -50, 455, 256};
  plan = two_pass_plan(mapping_of(3840, 2160, 224, 224, Interpolation::kBicubic, true, crop), 224,
                       224, AntialiasPath::kChosen, kDefaultDevice);
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
                    256, AntialiasPath::kTwoPass, kDefaultDevice)
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
          const TwoPassPlan plan =
              two_pass_plan(mapping, 64, height, AntialiasPath::kTwoPass, kDefaultDevice);
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
