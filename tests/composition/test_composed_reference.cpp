// The differential composition test's composed reference (issue 23),
// without a GPU: small cases computed by hand, regions of interest through
// the crops against a pixel mask, region items as the chain behind one more
// crop; every generated pipeline and item has a reference.
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/gst_frames.h"
#include "composition/generator.h"
#include "composition/generator_suites.h"
#include "composition/reference.h"
#include "reference/normalize_ref.h"

namespace {

using namespace cudaprep;
using namespace cudaprep::composition;
using namespace cudaprep::composition::suites;

// --- The composed reference on cases computed by hand ------------------------

// A w x h frame whose byte i of plane p is (p * 100 + i) % 256.
ref::HostFrame numbered_frame(PixelFormat format, int width, int height) {
  ref::HostFrame frame(format, width, height);
  for (int plane = 0; plane < format_info(format).num_planes; ++plane)
    for (size_t i = 0; i < frame.planes[plane].size(); ++i)
      frame.planes[plane][i] = static_cast<uint8_t>((plane * 100 + i) % 256);
  return frame;
}

TEST(ComposedReference, ACropOfACropIsOneCrop) {
  const ref::HostFrame frame = numbered_frame(PixelFormat::kRGBA, 4, 4);
  const ref::HostFrame twice = crop_frame(crop_frame(frame, {1, 1, 3, 3}), {1, 0, 2, 2});
  const ref::HostFrame once = crop_frame(frame, {2, 1, 2, 2});
  EXPECT_EQ(twice.planes[0], once.planes[0]);
  // By hand: row 1 starts at byte 16, pixel 2 at byte 8 of it.
  const std::vector<uint8_t> expected = {24, 25, 26, 27, 28, 29, 30, 31,
                                         40, 41, 42, 43, 44, 45, 46, 47};
  EXPECT_EQ(once.planes[0], expected);
  EXPECT_EQ(once.width, 2);
  EXPECT_EQ(once.height, 2);
}

TEST(ComposedReference, CropsOfSubsampledFramesMoveWholeChromaBlocks) {
  // NV12 4x4: Y is 4x4 (bytes 0..15), UV is 2 rows of 4 bytes (100..107).
  const ref::HostFrame nv12 = numbered_frame(PixelFormat::kNV12, 4, 4);
  const ref::HostFrame crop = crop_frame(nv12, {2, 2, 2, 2});
  EXPECT_EQ(crop.planes[0], (std::vector<uint8_t>{10, 11, 14, 15}));
  EXPECT_EQ(crop.planes[1], (std::vector<uint8_t>{106, 107}));
  // I420 4x4: U and V are 2x2 (100..103, 200..203).
  const ref::HostFrame i420 = crop_frame(numbered_frame(PixelFormat::kI420, 4, 4), {2, 0, 2, 4});
  EXPECT_EQ(i420.planes[1], (std::vector<uint8_t>{101, 103}));
  EXPECT_EQ(i420.planes[2], (std::vector<uint8_t>{201, 203}));
  // YUY2 4x2: 8 bytes a row, a unit of 4 bytes per pixel pair; y may be odd.
  const ref::HostFrame yuy2 = crop_frame(numbered_frame(PixelFormat::kYUY2, 4, 2), {2, 1, 2, 1});
  EXPECT_EQ(yuy2.planes[0], (std::vector<uint8_t>{12, 13, 14, 15}));
  EXPECT_THROW(crop_frame(nv12, {1, 0, 2, 2}), std::invalid_argument);
}

TEST(ComposedReference, TwoCropsAndNormalizeGiveTheBytesInChannelOrder) {
  Pipeline p = hand_pipeline(PixelFormat::kBGRA, 4, 4);
  add_crop(&p, {1, 1, 3, 3});
  add_crop(&p, {1, 0, 2, 2});
  p.normalize.order = ChannelOrder::kRGB;
  ASSERT_EQ(constraint_error(p), "");
  const ItemReference item = item_reference(p, numbered_frame(PixelFormat::kBGRA, 4, 4));
  ASSERT_EQ(item.channels, 3);
  ASSERT_EQ(item.width, 2);
  ASSERT_EQ(item.height, 2);
  // Pixels of the source at (2,1) (3,1) (2,2) (3,2): bytes 24, 28, 40, 44 as
  // B, G, R, A; R is byte +2.
  EXPECT_EQ(item.chw, (std::vector<float>{26, 30, 42, 46, 25, 29, 41, 45, 24, 28, 40, 44}));
  EXPECT_EQ(item.resampled, (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(item.geometry.crop_x, 2.0);
  EXPECT_EQ(item.geometry.crop_y, 1.0);
  EXPECT_EQ(item.geometry.scale_x, 1.0);
  EXPECT_EQ(item.geometry.orientation, Orientation::kIdentity);

  // Into an NHWC batch of 2 with one item: the second is zeros.
  p.tensorize.layout = TensorLayout::kNHWC;
  p.tensorize.batch_size = 2;
  const std::vector<uint8_t> tensor = expected_tensor(p, {&item});
  const TensorDesc desc = tensor_desc(p);
  ASSERT_EQ(tensor.size(), 2u * 2 * 2 * 3 * sizeof(float));
  EXPECT_EQ(tensor_value(desc, tensor, 0, 0, 1, 0), 42.0f);  // R of (2,2)
  EXPECT_EQ(tensor_value(desc, tensor, 0, 2, 0, 1), 28.0f);  // B of (3,1)
  float second_pixel[3];
  std::memcpy(second_pixel, tensor.data() + 3 * sizeof(float), sizeof second_pixel);
  EXPECT_EQ(second_pixel[0], 30.0f) << "NHWC: pixel (1,0) follows pixel (0,0)'s channels";
  for (size_t i = tensor.size() / 2; i < tensor.size(); ++i)
    ASSERT_EQ(tensor[i], 0) << "the unfilled item is zeros";
}

TEST(ComposedReference, NearestDoublingRepeatsEveryPixel) {
  Pipeline p = hand_pipeline(PixelFormat::kGRAY8, 2, 2);
  add_resize(&p, resize_stage(p, Interpolation::kNearest, 4, 4, PixelFormat::kGRAY8));
  p.tensor_width = p.tensor_height = 4;
  p.normalize.order = ChannelOrder::kGray;
  ASSERT_EQ(constraint_error(p), "");
  const ItemReference item = item_reference(p, numbered_frame(PixelFormat::kGRAY8, 2, 2));
  EXPECT_EQ(item.chw, (std::vector<float>{0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3}));
  EXPECT_EQ(item.geometry.scale_x, 2.0);
  EXPECT_EQ(item.geometry.scale_y, 2.0);
  for (uint8_t r : item.resampled) EXPECT_EQ(r, 1);
}

// RGB 4x2 letterboxed into 4x4, centred: the image in rows 1-2, borders
// exact with the pad value, turned 180 degrees.
TEST(ComposedReference, LetterboxBordersAreExactAndTheImageIsTurned) {
  Pipeline p = hand_pipeline(PixelFormat::kRGB, 4, 2);
  Stage stage = resize_stage(p, Interpolation::kNearest, 4, 4, PixelFormat::kRGB);
  stage.resize.add_borders = true;
  stage.resize.pad_values = {7};
  stage.resize.direction = Orientation::kRotate180;
  add_resize(&p, stage);
  p.tensor_width = p.tensor_height = 4;
  ASSERT_EQ(constraint_error(p), "");
  const ItemReference item = item_reference(p, numbered_frame(PixelFormat::kRGB, 4, 2));
  const std::vector<uint8_t> mask = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  EXPECT_EQ(item.resampled, mask);
  // Channel R: border rows are 7; row 1 is the source's row 1 reversed
  // (R of pixel x of row 1 is byte 12 + 3x), row 2 its row 0 reversed.
  const std::vector<float> red(item.chw.begin(), item.chw.begin() + 16);
  EXPECT_EQ(red, (std::vector<float>{7, 7, 7, 7, 21, 18, 15, 12, 9, 6, 3, 0, 7, 7, 7, 7}));
  // Tensor pixel (0, 1) shows the source's far corner (4, 2), padded by 1.
  double sx = 0, sy = 0;
  item.geometry.to_source(0.0, 1.0, &sx, &sy);
  EXPECT_DOUBLE_EQ(sx, 4.0);
  EXPECT_DOUBLE_EQ(sy, 2.0);
  EXPECT_EQ(item.geometry.pad_y, 1.0);
}

TEST(ComposedReference, ACropAfterATurnComposesTheGeometry) {
  // 4x2 RGBA turned 90r (output 2x4, scale 1), then cropped at (1, 2): the
  // tensor's top-left is the turned image's (1, 2), i.e. source pixel
  // (2, 0) (kRotate90: output (x, y) holds source (y, H - 1 - x)), whose
  // corner nearest the tensor origin is the source point (2, 1).
  Pipeline p = hand_pipeline(PixelFormat::kRGBA, 4, 2);
  Stage stage = resize_stage(p, Interpolation::kNearest, 2, 4, PixelFormat::kRGBA);
  stage.resize.direction = Orientation::kRotate90;
  add_resize(&p, stage);
  p.normalize.in_format = PixelFormat::kRGBA;
  p.tensor_width = 2;
  p.tensor_height = 4;
  add_crop(&p, {1, 2, 1, 2});
  ASSERT_EQ(constraint_error(p), "");
  const ItemReference item = item_reference(p, numbered_frame(PixelFormat::kRGBA, 4, 2));
  // R of source (2, 0) is byte 8, of source (3, 0) byte 12.
  EXPECT_EQ(item.chw[0], 8.0f);
  EXPECT_EQ(item.chw[1], 12.0f);
  double sx = 0, sy = 0;
  item.geometry.to_source(0.0, 0.0, &sx, &sy);
  EXPECT_DOUBLE_EQ(sx, 2.0);
  EXPECT_DOUBLE_EQ(sy, 1.0);
  EXPECT_EQ(item.geometry.orientation, Orientation::kRotate90);
}

TEST(ComposedReference, TheToleranceIsOneStepInsideAndNoneInTheBorders) {
  Pipeline p = hand_pipeline(PixelFormat::kRGB, 4, 2);
  Stage stage = resize_stage(p, Interpolation::kBilinear, 4, 4, PixelFormat::kRGB);
  stage.resize.add_borders = true;
  add_resize(&p, stage);
  p.tensor_width = p.tensor_height = 4;
  p.normalize.has_scale = false;
  p.normalize.scale = 1.0 / 255.0;
  p.normalize.has_std = true;
  p.normalize.std[0] = p.normalize.std[1] = p.normalize.std[2] = 0.25;
  const ItemReference item = item_reference(p, numbered_frame(PixelFormat::kRGB, 4, 2));
  const TensorDesc desc = tensor_desc(p);
  std::vector<uint8_t> tensor = expected_tensor(p, {&item});
  EXPECT_EQ(compare_item(p, tensor, 0, item).differing, 0);
  const float step = (1.0f / 255.0f) / 0.25f;
  auto set = [&](int c, int y, int x, float value) {
    std::memcpy(tensor.data() + reference::element_offset(desc, 0, c, y, x), &value, sizeof value);
  };
  set(1, 1, 2, item.chw[16 + 1 * 4 + 2] + step);  // inside, one step
  ItemComparison one = compare_item(p, tensor, 0, item);
  EXPECT_EQ(one.differing, 1);
  EXPECT_EQ(one.beyond, 0) << one.first_beyond;
  set(1, 1, 2, item.chw[16 + 1 * 4 + 2] + 2 * step);  // inside, two steps
  EXPECT_EQ(compare_item(p, tensor, 0, item).beyond, 1);
  set(1, 1, 2, item.chw[16 + 1 * 4 + 2]);
  set(0, 0, 0, item.chw[0] + step / 2);  // a border, half a step
  EXPECT_EQ(compare_item(p, tensor, 0, item).beyond, 1);
}

// Every generated pipeline has a reference (a small sample: the CPU
// resampler is in double precision), and the reference has the tensor's
// shape.
TEST(ComposedReference, EveryGeneratedPipelineHasAReference) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const Pipeline p = generate(seed);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + p.description());
    const ItemReference item = item_reference(p, numbered_frame(p.input_format, p.width, p.height));
    EXPECT_EQ(item.width, p.tensor_width);
    EXPECT_EQ(item.height, p.tensor_height);
    EXPECT_EQ(item.chw.size(), static_cast<size_t>(p.channels()) * item.width * item.height);
    const std::vector<uint8_t> tensor = expected_tensor(p, {&item});
    EXPECT_EQ(compare_item(p, tensor, 0, item).beyond, 0);
  }
}

// --- Regions of interest and region items ------------------------------------

// A region of interest as it reaches cudabatch, computed pixel by pixel: a
// mask of the input pixels it covers (on a canvas that holds its part past
// the frame), cut by every crop as the crop cuts the frame, cut to the
// source frame, and its bounding box. Nothing is shared with
// roi_in_source() but the pipeline.
bool roi_by_mask(const Pipeline &p, const RegionOfInterest &roi, PixelRect *rect) {
  int width = 2 * p.width + 4, height = 2 * p.height + 4;
  std::vector<uint8_t> mask(static_cast<size_t>(width) * height, 0);
  for (int y = roi.y; y < roi.y + roi.height; ++y)
    for (int x = roi.x; x < roi.x + roi.width; ++x) mask[static_cast<size_t>(y) * width + x] = 1;
  // The frame, then each crop: a window of the mask before.
  std::vector<PixelRect> windows = {PixelRect{0, 0, p.width, p.height}};
  for (const Stage &stage : p.stages) {
    if (stage.kind != Stage::Kind::kCrop) break;
    windows.push_back(stage.crop.effective);
  }
  windows.push_back(PixelRect{0, 0, p.source_width, p.source_height});
  for (const PixelRect &window : windows) {
    std::vector<uint8_t> cut(static_cast<size_t>(window.width) * window.height, 0);
    for (int y = 0; y < window.height; ++y)
      for (int x = 0; x < window.width; ++x)
        cut[static_cast<size_t>(y) * window.width + x] =
            mask[static_cast<size_t>(window.y + y) * width + window.x + x];
    mask = std::move(cut);
    width = window.width;
    height = window.height;
  }
  int left = width, top = height, right = -1, bottom = -1;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      if (mask[static_cast<size_t>(y) * width + x]) {
        left = std::min(left, x);
        right = std::max(right, x);
        top = std::min(top, y);
        bottom = std::max(bottom, y);
      }
  if (right < 0) return false;
  *rect = PixelRect{left, top, right - left + 1, bottom - top + 1};
  return true;
}

TEST(ComposedReference, RegionsOfInterestThroughCropsEqualThePixelMask) {
  int compared = 0, removed = 0;
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    const Pipeline p = generate(seed);
    if (p.region_source() != RegionSource::kRoiMeta) continue;
    for (int frame = 0; frame < p.frame_count; ++frame) {
      const Pipeline s = segment(p, frame);
      for (const RegionOfInterest &roi : p.rois[frame]) {
        PixelRect mapped, expected;
        const bool kept = roi_in_source(s, roi, &mapped);
        ASSERT_EQ(kept, roi_by_mask(s, roi, &expected))
            << "seed " << seed << " roi " << roi.id << ": " << p.description();
        ++compared;
        if (!kept) {
          ++removed;
          continue;
        }
        EXPECT_EQ(mapped.x, expected.x) << "seed " << seed << " roi " << roi.id;
        EXPECT_EQ(mapped.y, expected.y) << "seed " << seed << " roi " << roi.id;
        EXPECT_EQ(mapped.width, expected.width) << "seed " << seed << " roi " << roi.id;
        EXPECT_EQ(mapped.height, expected.height) << "seed " << seed << " roi " << roi.id;
      }
    }
  }
  EXPECT_GT(compared, 500);
  EXPECT_GT(removed, 0);
  EXPECT_LT(removed, compared);
}

// By hand: an NV12 8x8 input cropped at <3,2,6,5> (x rounded to 2: the
// source frame is (2,2) 6x5), regions of interest of the input.
TEST(ComposedReference, RegionsOfInterestMoveClipAndVanishWithTheCrop) {
  Pipeline p = hand_pipeline(PixelFormat::kNV12, 8, 8);
  p.terminal = Terminal::kBatch;
  p.batch.source = RegionSource::kRoiMeta;
  Stage crop;
  crop.crop = CropStage{3, 2, 6, 5, PixelRect{2, 2, 6, 5}, PixelFormat::kNV12, 8, 8};
  p.stages.push_back(crop);
  p.source_width = 6;
  p.source_height = 5;
  p.rois = {{RegionOfInterest{3, 3, 2, 2, 7, "face"}, RegionOfInterest{0, 0, 4, 4, 8, "object"},
             RegionOfInterest{0, 0, 2, 8, 9, "face"}, RegionOfInterest{5, 6, 9, 9, 10, "face"}}};
  PixelRect rect;
  ASSERT_TRUE(roi_in_source(p, p.rois[0][0], &rect));
  EXPECT_EQ((std::vector<int>{rect.x, rect.y, rect.width, rect.height}),
            (std::vector<int>{1, 1, 2, 2}));
  ASSERT_TRUE(roi_in_source(p, p.rois[0][1], &rect));  // clipped at the crop's corner
  EXPECT_EQ((std::vector<int>{rect.x, rect.y, rect.width, rect.height}),
            (std::vector<int>{0, 0, 2, 2}));
  EXPECT_FALSE(roi_in_source(p, p.rois[0][2], &rect)) << "left of the crop: removed";
  ASSERT_TRUE(roi_in_source(p, p.rois[0][3], &rect));  // past the crop's far corner
  EXPECT_EQ((std::vector<int>{rect.x, rect.y, rect.width, rect.height}),
            (std::vector<int>{3, 4, 3, 1}));
  // The items: NV12 rounds x and y down to even, sizes kept; roi-type face
  // leaves out id 8.
  p.batch.roi_type = "face";
  const std::vector<ItemSpec> items = frame_items(p, 0);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].region_id, 7);
  EXPECT_EQ((std::vector<int>{items[0].rect.x, items[0].rect.y, items[0].rect.width,
                              items[0].rect.height}),
            (std::vector<int>{0, 0, 2, 2}));
  EXPECT_EQ(items[1].region_id, 10);
  EXPECT_EQ((std::vector<int>{items[1].rect.x, items[1].rect.y, items[1].rect.width,
                              items[1].rect.height}),
            (std::vector<int>{2, 4, 3, 1}));
  EXPECT_FALSE(items[0].whole_frame);
}

// A static region of a GRAY8 4x4 frame through a pending nearest resize to
// 4x4: the region <2,2,2,2> doubled, every pixel repeated; its geometry
// maps tensor (0,0) to source (2,2) at scale 2. Without the resize the same
// region is stretched bilinear to the 2x2 frame... of a 2x2 source: itself.
TEST(ComposedReference, AStaticRegionIsCroppedThenResizedAsThePadsResize) {
  Pipeline p = hand_pipeline(PixelFormat::kGRAY8, 4, 4);
  p.normalize.order = ChannelOrder::kGray;
  p.terminal = Terminal::kBatch;
  p.batch.source = RegionSource::kRegions;
  p.batch.regions = {PixelRect{2, 2, 2, 2}};
  add_resize(&p, resize_stage(p, Interpolation::kNearest, 4, 4, PixelFormat::kGRAY8));
  p.stages.back().resize.direction = Orientation::kIdentity;
  // Same size and format, no turn: in passthrough, nothing pending.
  EXPECT_FALSE(p.resize_pending());
  p.stages.back().resize.out_width = p.tensor_width = 8;
  p.stages.back().resize.out_height = p.tensor_height = 8;
  ASSERT_TRUE(p.resize_pending());
  ASSERT_EQ(constraint_error(p), "");
  const std::vector<ItemSpec> items = frame_items(p, 0);
  ASSERT_EQ(items.size(), 1u);
  const ItemReference item = item_reference(p, numbered_frame(PixelFormat::kGRAY8, 4, 4), items[0]);
  ASSERT_EQ(item.width, 8);
  // Source pixels (2,2)=10 (3,2)=11 (2,3)=14 (3,3)=15, each 2x2 in a 4x4
  // image, each 4x4 in the 8x8 tensor.
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      ASSERT_EQ(item.chw[y * 8 + x], static_cast<float>(10 + (x / 4) + 4 * (y / 4)))
          << "x " << x << " y " << y;
  double sx = 0, sy = 0;
  item.geometry.to_source(0.0, 0.0, &sx, &sy);
  EXPECT_DOUBLE_EQ(sx, 2.0);
  EXPECT_DOUBLE_EQ(sy, 2.0);
  EXPECT_EQ(item.geometry.scale_x, 4.0);

  // Letterboxed, a 1x2 region into the 8x8 frame: the image 4 wide,
  // centred (columns 2..5), the rest the pad value, exact.
  p.stages.back().resize.add_borders = true;
  p.stages.back().resize.pad_values = {9};
  p.batch.regions = {PixelRect{1, 0, 1, 2}};
  const ItemReference boxed =
      item_reference(p, numbered_frame(PixelFormat::kGRAY8, 4, 4), frame_items(p, 0)[0]);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      const bool image = x >= 2 && x < 6;
      ASSERT_EQ(boxed.resampled[y * 8 + x], image ? 1 : 0) << "x " << x << " y " << y;
      ASSERT_EQ(boxed.chw[y * 8 + x], image ? (y < 4 ? 1.0f : 5.0f) : 9.0f)
          << "x " << x << " y " << y;
    }
  EXPECT_EQ(boxed.geometry.pad_x, 2.0);

  // No resize at all: the region stretched bilinear to cudanormalize's
  // frame; a 2x2 region of a 2x2 frame is the frame itself.
  Pipeline plain = hand_pipeline(PixelFormat::kGRAY8, 2, 2);
  plain.normalize.order = ChannelOrder::kGray;
  plain.terminal = Terminal::kBatch;
  plain.batch.source = RegionSource::kRegions;
  plain.batch.regions = {PixelRect{0, 0, 2, 2}, PixelRect{1, 0, 1, 2}};
  ASSERT_EQ(constraint_error(plain), "");
  const ref::HostFrame two = numbered_frame(PixelFormat::kGRAY8, 2, 2);
  const std::vector<ItemSpec> plain_items = frame_items(plain, 0);
  EXPECT_EQ(item_reference(plain, two, plain_items[0]).chw, (std::vector<float>{0, 1, 2, 3}));
  // Column 1 (values 1 and 3) stretched to two columns: bilinear repeats it.
  EXPECT_EQ(item_reference(plain, two, plain_items[1]).chw, (std::vector<float>{1, 1, 3, 3}));
}

// A region item is the same chain behind one more cudacrop (cudabatch's
// definition, as test_batch checks it on the GPU): that chain, ending in
// cudatensorize, keeps every constraint, and a whole-frame item is the
// pipeline itself.
TEST(ComposedReference, EveryRegionItemIsAValidCroppedChain) {
  int checked = 0;
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    const Pipeline p = generate(seed);
    if (p.terminal != Terminal::kBatch) continue;
    for (int frame = 0; frame < p.frame_count; ++frame) {
      const Pipeline s = segment(p, frame);
      for (const ItemSpec &item : frame_items(p, frame)) {
        Pipeline chain = item_pipeline(s, item);
        if (item.whole_frame) {
          EXPECT_EQ(chain.description(), s.description());
          continue;
        }
        // One frame's chain: no other frames, no events.
        chain.terminal = Terminal::kTensorize;
        chain.batch = BatchStage{};
        chain.rois.clear();
        chain.frame_count = 1;
        chain.events.assign(1, {});
        EXPECT_EQ(chain.crop_count(), p.crop_count() + 1) << "seed " << seed;
        // One crop more than the generator makes is the only excess allowed.
        std::string error = constraint_error(chain);
        const std::string extra_crop = std::to_string(kMaxCrops + 1) + " crops; ";
        const size_t at = error.find(extra_crop);
        if (at != std::string::npos) error.erase(at, extra_crop.size());
        EXPECT_EQ(error, "") << "seed " << seed << " item " << item.region_id;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// Every item of the generated cudabatch pipelines and of those with caps
// changes has a reference of its segment's tensor frame size, as the GPU
// harness builds them.
TEST(ComposedReference, EveryGeneratedItemHasAReference) {
  int items = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    const Pipeline p = generate(seed);
    bool changes = false;
    for (const auto &after : p.events)
      for (const Event &event : after) changes = changes || event.kind == EventKind::kCapsChange;
    if (p.terminal != Terminal::kBatch && !changes) continue;
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + p.description());
    for (int frame = 0; frame < p.frame_count; ++frame) {
      const Pipeline s = segment(p, frame);
      const ref::HostFrame input = numbered_frame(s.input_format, s.width, s.height);
      for (const ItemSpec &spec : frame_items(p, frame)) {
        const ItemReference item = item_reference(s, input, spec);
        EXPECT_EQ(item.width, s.tensor_width);
        EXPECT_EQ(item.height, s.tensor_height);
        const std::vector<uint8_t> tensor = expected_tensor(s, {&item});
        EXPECT_EQ(compare_item(s, tensor, 0, item).beyond, 0);
        ++items;
      }
    }
  }
  EXPECT_GT(items, 100);
}

}  // namespace
