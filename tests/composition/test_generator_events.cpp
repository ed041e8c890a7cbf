// The differential composition test's events (issue 23), without a GPU:
// caps changes (derive() gives what generate() recorded, segments and the
// tensors a caps change splits, every segment negotiates on paper) and
// flushes (what a flush drops, every item leaves once or is flushed).
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

// --- Caps changes ----------------------------------------------------------------

// GRAY8 10x20 through cudaresize short-side=5 (5x10), `frames` frames, no
// event yet.
Pipeline short_side_gray(int frames) {
  Pipeline p = hand_pipeline(PixelFormat::kGRAY8, 10, 20);
  p.normalize.order = ChannelOrder::kGray;
  Stage resize = resize_stage(p, Interpolation::kBilinear, 5, 10, PixelFormat::kGRAY8);
  resize.resize.short_side = 5;
  add_resize(&p, resize);
  p.tensor_width = 5;
  p.tensor_height = 10;
  p.frame_count = frames;
  p.events.assign(frames, {});
  return p;
}

// A caps change after frame `frame` to the input `width` wide.
void widen_after(Pipeline *p, int frame, int width) {
  Event grow;
  grow.kind = EventKind::kCapsChange;
  grow.caps = p->input();
  grow.caps.width = width;
  p->events[frame].push_back(grow);
}

// derive() reproduces every value generate() recorded for the first caps.
TEST(CapsChanges, DeriveGivesWhatGenerateRecorded) {
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    const Pipeline p = generate(seed);
    Pipeline q = p;
    q.source_width = q.source_height = q.tensor_width = q.tensor_height = -1;
    for (Stage &stage : q.stages) {
      if (stage.kind == Stage::Kind::kCrop) {
        stage.crop.effective = PixelRect{-1, -1, -1, -1};
      } else {
        stage.resize.in_width = -1;
        if (stage.resize.short_side > 0 || stage.resize.size_open) stage.resize.out_width = -1;
      }
    }
    std::string why;
    ASSERT_TRUE(derive(&q, &why)) << why;
    ASSERT_EQ(q.stages.size(), p.stages.size());
    for (size_t i = 0; i < p.stages.size(); ++i) {
      const PixelRect &a = p.stages[i].crop.effective, &b = q.stages[i].crop.effective;
      EXPECT_EQ(std::vector<int>({a.x, a.y, a.width, a.height}),
                std::vector<int>({b.x, b.y, b.width, b.height}))
          << "seed " << seed;
      EXPECT_EQ(p.stages[i].resize.in_width, q.stages[i].resize.in_width) << "seed " << seed;
      EXPECT_EQ(p.stages[i].resize.out_width, q.stages[i].resize.out_width) << "seed " << seed;
    }
    EXPECT_EQ(q.tensor_width, p.tensor_width) << "seed " << seed;
    EXPECT_EQ(q.tensor_height, p.tensor_height) << "seed " << seed;
    EXPECT_EQ(q.source_width, p.source_width) << "seed " << seed;
    EXPECT_EQ(q.source_height, p.source_height) << "seed " << seed;
  }
}

// By hand: GRAY8 10x20 through a short-side=5 resize (5x10), batch 4, three
// frames, the input grown to 40x20 after the first: frames 1 and 2 go
// through a resize to 10x5 (a new tensor), the partial batch of frame 0
// leaves first, two tensors in all; a crop before the resize is rounded
// again where the new format subsamples it.
TEST(CapsChanges, SegmentsDeriveTheirSizesAndTheTensorsSplit) {
  Pipeline p = short_side_gray(3);
  p.tensorize.batch_size = 4;
  ASSERT_EQ(constraint_error(p), "");
  EXPECT_EQ(p.tensor_count(), 1);
  widen_after(&p, 0, 40);
  ASSERT_EQ(constraint_error(p), "");
  EXPECT_EQ(segment(p, 0).tensor_width, 5);
  const Pipeline grown = segment(p, 1);
  EXPECT_EQ(grown.width, 40);
  EXPECT_EQ(grown.stages[0].resize.in_width, 40);
  EXPECT_EQ(grown.tensor_width, 10);
  EXPECT_EQ(grown.tensor_height, 5);
  EXPECT_EQ(segment(p, 2).tensor_width, 10);
  EXPECT_EQ(p.tensor_count(), 2) << "the partial batch of frame 0, then frames 1 and 2";
  // A change that keeps the tensor's frame (a capsfilter size) keeps the
  // batch: one tensor.
  Pipeline fixed = p;
  fixed.stages[0].resize.short_side = 0;
  std::string why;
  ASSERT_TRUE(derive(&fixed, &why)) << why;
  EXPECT_EQ(segment(fixed, 1).tensor_width, 5);
  EXPECT_EQ(fixed.tensor_count(), 1);

  // RGB 8x8 cropped at <3,3,4,4> then resized; the input becomes NV12
  // 8x8: the crop rounds to (2,2).
  Pipeline rgb = hand_pipeline(PixelFormat::kRGB, 8, 8);
  add_crop(&rgb, {3, 3, 4, 4});
  add_resize(&rgb, resize_stage(rgb, Interpolation::kNearest, 4, 4, PixelFormat::kRGB));
  rgb.frame_count = 2;
  rgb.events.assign(2, {});
  Event nv12;
  nv12.kind = EventKind::kCapsChange;
  nv12.caps =
      InputCaps{PixelFormat::kNV12, 8, 8, "bt709", {ColorMatrix::kBT709, ColorRange::kLimited}};
  rgb.events[0].push_back(nv12);
  ASSERT_EQ(constraint_error(rgb), "");
  const Pipeline second = segment(rgb, 1);
  EXPECT_EQ(second.stages[0].crop.effective.x, 2);
  EXPECT_EQ(second.stages[0].crop.effective.y, 2);
  EXPECT_EQ(second.stages[1].resize.in_format, PixelFormat::kNV12);
  EXPECT_EQ(second.source_format, PixelFormat::kNV12);
  EXPECT_EQ(second.colorimetry.matrix.kr, Colorimetry{ColorMatrix::kBT709}.matrix.kr);
  EXPECT_EQ(segment(rgb, 0).stages[0].crop.effective.x, 3);
}

// Every caps change's segment negotiates on paper as the generator says:
// each crop's output for the frame it now receives (a lone cudacrop's caps
// query), the short-side rule's size as cudaresize derives it, an open
// size as cudaresize fixates it.
TEST(CapsChanges, EverySegmentNegotiatesOnPaper) {
  int segments = 0;
  for (uint64_t seed = 0; seed < kParseSeeds; ++seed) {
    const Pipeline p = generate(seed);
    for (int frame = 1; frame < p.frame_count; ++frame) {
      bool changed = false;
      for (const Event &event : p.events[frame - 1])
        changed = changed || event.kind == EventKind::kCapsChange;
      if (!changed) continue;
      const Pipeline s = segment(p, frame);
      SCOPED_TRACE("seed " + std::to_string(seed) + " frame " + std::to_string(frame) + ": " +
                   s.input_caps());
      ++segments;
      for (const Stage &stage : s.stages) {
        GstElement *lone = nullptr;
        std::string upstream;
        int width = 0, height = 0;
        if (stage.kind == Stage::Kind::kCrop) {
          const CropStage &c = stage.crop;
          lone = gst_element_factory_make("cudacrop", nullptr);
          g_object_set(lone, "x", c.x, "y", c.y, "width", c.width, "height", c.height, nullptr);
          upstream = test::caps_string(format_name(c.in_format), c.in_width, c.in_height, true);
          width = c.effective.width;
          height = c.effective.height;
        } else {
          const ResizeStage &r = stage.resize;
          if (r.short_side == 0 && !r.size_open) continue;  // a capsfilter's size
          lone = gst_element_factory_make("cudaresize", nullptr);
          g_object_set(lone, "short-side", r.short_side, "multiple-of", r.multiple_of, nullptr);
          gst_util_set_object_arg(G_OBJECT(lone), "video-direction", direction_name(r.direction));
          upstream = test::caps_string(format_name(r.in_format), r.in_width, r.in_height, true);
          width = r.out_width;
          height = r.out_height;
        }
        // An open size is fixated (nothing downstream of the lone element).
        GstCaps *out =
            stage.kind == Stage::Kind::kResize && stage.resize.size_open
                ? gst_caps_from_string(test::negotiated_with_peer(lone, upstream).c_str())
                : test::caps_downstream_of(lone, upstream.c_str());
        EXPECT_EQ(caps_int(out, "width"), width);
        EXPECT_EQ(caps_int(out, "height"), height);
        gst_caps_unref(out);
        gst_object_unref(lone);
      }
      // The new caps are valid caps.
      GstVideoInfo info;
      GstCaps *caps = gst_caps_from_string(s.input_caps().c_str());
      EXPECT_TRUE(gst_video_info_from_caps(&info, caps));
      gst_caps_unref(caps);
    }
  }
  EXPECT_GT(segments, 50);
}

TEST(Generator, TheConstraintCheckSeesBrokenCapsChanges) {
  const Pipeline changed = first_generated([](const Pipeline &p) {
    Pipeline copy = p;
    return copy.resize() == nullptr && first_caps_change(&copy) != nullptr;
  });
  ASSERT_EQ(constraint_error(changed), "");
  Pipeline shrunk = changed;
  first_caps_change(&shrunk)->caps.width = shrunk.width - 1;
  EXPECT_TRUE(has(constraint_error(shrunk), "the input shrinks")) << constraint_error(shrunk);
  Pipeline format = changed;
  Event *event = first_caps_change(&format);
  event->caps.format =
      event->caps.format == PixelFormat::kRGB ? PixelFormat::kBGR : PixelFormat::kRGB;
  EXPECT_TRUE(has(constraint_error(format), "a new format without a cudaresize"))
      << constraint_error(format);
  Pipeline same = changed;
  first_caps_change(&same)->caps = same.input();
  EXPECT_TRUE(has(constraint_error(same), "the caps do not change")) << constraint_error(same);
  Pipeline last = changed;
  Event moved = *first_caps_change(&last);
  for (auto &after : last.events) after.clear();
  last.events.back().push_back(moved);
  EXPECT_TRUE(has(constraint_error(last), "no frame follows")) << constraint_error(last);

  // A crop after a short-side resize that the new input's size no longer
  // fits: GRAY8 10x20, short-side 5 gives 5x10, a crop <0,0,5,10>; grown to
  // 40x20 the resize gives 10x5.
  Pipeline p = short_side_gray(2);
  add_crop(&p, {0, 0, 5, 10});
  ASSERT_EQ(constraint_error(p), "");
  widen_after(&p, 0, 40);
  EXPECT_TRUE(has(constraint_error(p), "frame 1's caps: crop 1 <0,0,5,10> does not fit 10x5"))
      << constraint_error(p);
}

// --- Flushes -------------------------------------------------------------------

TEST(Flushes, TheConstraintCheckSeesMisplacedFlushes) {
  Pipeline p = short_side_gray(3);
  Event flush, gap;
  flush.kind = EventKind::kFlush;
  p.events[1] = {gap, flush};
  EXPECT_TRUE(has(constraint_error(p), "a flush after frame 1 is not the first event there"))
      << constraint_error(p);
  p.events[1] = {flush, gap};
  EXPECT_EQ(constraint_error(p), "");
  p.events[0] = {flush};
  p.events[2] = {flush};
  EXPECT_TRUE(has(constraint_error(p), "3 flushes")) << constraint_error(p);
}

std::vector<std::pair<int, int>> pairs(const std::vector<ItemRef> &items) {
  std::vector<std::pair<int, int>> out;
  for (const ItemRef &item : items) out.emplace_back(item.frame, item.index);
  return out;
}

// By hand: batch 3, five frames, a flush after frame 3: frames 0-2 leave
// full, frame 3 waits in the partial batch the flush drops, frame 4 leaves
// at EOS; with a caps change to another tensor after frame 0 (pushing frame
// 0 alone), frames 1-3 fill a batch and the flush finds nothing to drop.
TEST(Flushes, TheFlushDropsThePartialBatchOnly) {
  Pipeline p = short_side_gray(5);
  p.tensorize.batch_size = 3;
  Event flush;
  flush.kind = EventKind::kFlush;
  p.events[3].push_back(flush);
  ASSERT_EQ(constraint_error(p), "");
  Batching plan = batching(p);
  ASSERT_EQ(plan.tensors.size(), 2u);
  EXPECT_EQ(pairs(plan.tensors[0]), (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {2, 0}}));
  EXPECT_EQ(pairs(plan.tensors[1]), (std::vector<std::pair<int, int>>{{4, 0}}));
  EXPECT_EQ(pairs(plan.flushed), (std::vector<std::pair<int, int>>{{3, 0}}));
  EXPECT_EQ(plan.tensors_before_flush, std::vector<int>{1});
  EXPECT_EQ(p.tensor_count(), 2);

  widen_after(&p, 0, 40);
  ASSERT_EQ(constraint_error(p), "");
  plan = batching(p);
  ASSERT_EQ(plan.tensors.size(), 3u);
  EXPECT_EQ(pairs(plan.tensors[0]), (std::vector<std::pair<int, int>>{{0, 0}}));
  EXPECT_EQ(pairs(plan.tensors[1]), (std::vector<std::pair<int, int>>{{1, 0}, {2, 0}, {3, 0}}));
  EXPECT_TRUE(plan.flushed.empty());
  EXPECT_EQ(plan.tensors_before_flush, std::vector<int>{2});

  // Regions spilling over a batch: three regions a frame, batch 2, a flush
  // after frame 0: region 0 and 1 leave, region 2 is flushed.
  Pipeline regions = hand_pipeline(PixelFormat::kGRAY8, 4, 4);
  regions.normalize.order = ChannelOrder::kGray;
  regions.terminal = Terminal::kBatch;
  regions.batch.batch_size = 2;
  regions.batch.source = RegionSource::kRegions;
  regions.batch.regions = {PixelRect{0, 0, 2, 2}, PixelRect{2, 2, 2, 2}, PixelRect{1, 1, 2, 2}};
  regions.frame_count = 2;
  regions.events.assign(2, {});
  regions.events[0].push_back(flush);
  ASSERT_EQ(constraint_error(regions), "");
  plan = batching(regions);
  ASSERT_EQ(plan.tensors.size(), 3u);
  EXPECT_EQ(pairs(plan.tensors[0]), (std::vector<std::pair<int, int>>{{0, 0}, {0, 1}}));
  EXPECT_EQ(pairs(plan.flushed), (std::vector<std::pair<int, int>>{{0, 2}}));
  EXPECT_EQ(pairs(plan.tensors[1]), (std::vector<std::pair<int, int>>{{1, 0}, {1, 1}}));
  EXPECT_EQ(pairs(plan.tensors[2]), (std::vector<std::pair<int, int>>{{1, 2}}))
      << "frame 1's region 2 leaves at EOS";
}

// Every item of every generated pipeline is in exactly one tensor or
// flushed, in frame order.
TEST(Flushes, EveryItemLeavesOnceOrIsFlushed) {
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    const Pipeline p = generate(seed);
    const Batching plan = batching(p);
    std::vector<std::pair<int, int>> all;
    for (const auto &tensor : plan.tensors) {
      EXPECT_LE(static_cast<int>(tensor.size()), p.batch_size()) << "seed " << seed;
      EXPECT_FALSE(tensor.empty()) << "seed " << seed;
      for (const ItemRef &item : tensor) all.emplace_back(item.frame, item.index);
    }
    for (const ItemRef &item : plan.flushed) all.emplace_back(item.frame, item.index);
    std::sort(all.begin(), all.end());
    std::vector<std::pair<int, int>> wanted;
    for (int frame = 0; frame < p.frame_count; ++frame)
      for (size_t i = 0; i < frame_items(p, frame).size(); ++i)
        wanted.emplace_back(frame, static_cast<int>(i));
    EXPECT_EQ(all, wanted) << "seed " << seed;
  }
}

}  // namespace
