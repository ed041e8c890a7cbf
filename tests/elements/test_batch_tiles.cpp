// cudabatch's tiles (region-source=tiles, SAHI-style slicing), on the CPU:
//  - the rule (elements/cudabatch/gstcudabatchtiles.h) against rectangles
//    worked out by hand: a 3840x2160 frame into 640x640 tiles with 20 %
//    overlap, frames smaller than a tile along one or both axes (overlap 0,
//    whole frame asked), the step's rounding and its floor of 1;
//  - a pad set to tiles (gst-launch's sink_N:: syntax) reports the same
//    region list as the same rectangles given as static regions, again for
//    a new frame size (a caps change upstream);
//  - the tile properties' defaults, blurbs and ranges: values out of range
//    refused with GLib's warning naming the property (set directly or from
//    a launch line); an overlap in pixels not smaller than the tile named;
//    the allocation answer asks for whole frames.
// The items themselves (bytes, geometry, a box mapped back) are
// BatchRegionsGpu.TilesEqualTheSameRectanglesAsStaticRegions (test_batch.cpp).
#include <gst/base/gstaggregator.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/gstcudaprepregion.h"
#include "elements/cudabatch/gstcudabatchpad.h"
#include "elements/cudabatch/gstcudabatchtiles.h"

namespace {

using cudaprep::PixelRect;
using cudaprep::batch::tile_regions;
using cudaprep::batch::TilingRule;

struct Rect {
  int x, y, width, height;
};

void expect_rects(const std::vector<PixelRect> &actual, const std::vector<Rect> &expected,
                  const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].x, expected[i].x) << what << ", tile " << i;
    EXPECT_EQ(actual[i].y, expected[i].y) << what << ", tile " << i;
    EXPECT_EQ(actual[i].width, expected[i].width) << what << ", tile " << i;
    EXPECT_EQ(actual[i].height, expected[i].height) << what << ", tile " << i;
  }
}

// 3840x2160 into 640x640, overlap 0.2: a step of 640 - 128 = 512. Columns
// start at 0, 512, ..., 3072 (ends 3712 < 3840), then the last is moved back
// from 3584 to 3840 - 640 = 3200; rows at 0, 512, 1024 (ends 1664 < 2160),
// then 2160 - 640 = 1520 in place of 1536. 8 x 4 = 32 tiles, row by row.
std::vector<Rect> tiles_of_4k() {
  const int columns[] = {0, 512, 1024, 1536, 2048, 2560, 3072, 3200};
  const int rows[] = {0, 512, 1024, 1520};
  std::vector<Rect> tiles;
  for (int y : rows)
    for (int x : columns) tiles.push_back(Rect{x, y, 640, 640});
  return tiles;
}

TEST(BatchTilesRule, A4kFrameInto640TilesWith20PercentOverlap) {
  const TilingRule rule{640, 640, 0.2, false};
  expect_rects(tile_regions(rule, 3840, 2160), tiles_of_4k(), "3840x2160");
  std::vector<Rect> with_frame = tiles_of_4k();
  with_frame.push_back(Rect{0, 0, 3840, 2160});
  expect_rects(tile_regions(TilingRule{640, 640, 0.2, true}, 3840, 2160), with_frame,
               "3840x2160 and the whole frame");
  // 1920x1080: columns 0, 512, 1024 (ends 1664 < 1920), then 1280; rows
  // 0 (ends 640 < 1080), then 440.
  std::vector<Rect> hd;
  for (int y : {0, 440})
    for (int x : {0, 512, 1024, 1280}) hd.push_back(Rect{x, y, 640, 640});
  expect_rects(tile_regions(rule, 1920, 1080), hd, "1920x1080");
}

// A frame smaller than a tile along an axis has one tile of its size along
// it; overlap 0 steps by the whole tile; the whole frame follows the tiles,
// but not after a single tile (which already is the whole frame).
TEST(BatchTilesRule, FramesSmallerThanATile) {
  const TilingRule rule{640, 640, 0.0, true};
  expect_rects(tile_regions(rule, 500, 300), {{0, 0, 500, 300}}, "500x300: one tile");
  expect_rects(tile_regions(rule, 640, 640), {{0, 0, 640, 640}}, "640x640: one tile");
  // 1000 wide: 0 (ends 640 < 1000), then 360; 300 high: one row of 300.
  expect_rects(tile_regions(rule, 1000, 300),
               {{0, 0, 640, 300}, {360, 0, 640, 300}, {0, 0, 1000, 300}},
               "1000x300 and the whole frame");
  // 1280 wide, overlap 0: 0 and 640, the second ending at the edge as it is.
  expect_rects(tile_regions(TilingRule{640, 100, 0.0, false}, 1280, 100),
               {{0, 0, 640, 100}, {640, 0, 640, 100}}, "1280x100");
}

// The overlap in pixels is rounded (0.29 x 100 = 28.999... in floating
// point: 29, a step of 71; SAHI's int() would give 72), and the step is at
// least 1 (tile 1, overlap 0.9 rounds to an overlap of 1 pixel).
TEST(BatchTilesRule, TheOverlapIsRoundedAndTheStepIsAtLeastOne) {
  expect_rects(tile_regions(TilingRule{100, 100, 0.29, false}, 250, 100),
               {{0, 0, 100, 100}, {71, 0, 100, 100}, {142, 0, 100, 100}, {150, 0, 100, 100}},
               "250x100, step 71");
  expect_rects(tile_regions(TilingRule{1, 1, 0.9, false}, 3, 2),
               {{0, 0, 1, 1}, {1, 0, 1, 1}, {2, 0, 1, 1}, {0, 1, 1, 1}, {1, 1, 1, 1}, {2, 1, 1, 1}},
               "3x2 in 1x1 tiles");
}

// An overlap in pixels takes the fraction's place along both axes: 128
// pixels of a 640 tile is the 20 % case exactly, whatever the fraction says.
// 100 pixels: a step of 540; columns 0, 540, ..., 2700 (ends 3340 < 3840),
// then 3200 in place of 3240; rows 0, 540, 1080 (ends 1720 < 2160), then
// 1520 in place of 1620: 7 x 4 tiles. A 400x200 tile, 150 pixels: columns
// of a 1000-wide frame step 250 (0, 250, 500, then 600), rows of a 300-high
// one step 50 (0, 50, then 100).
TEST(BatchTilesRule, AnOverlapInPixels) {
  expect_rects(tile_regions(TilingRule{640, 640, 0.5, false, 128}, 3840, 2160), tiles_of_4k(),
               "3840x2160, 128 pixels, the fraction ignored");
  std::vector<Rect> hundred;
  for (int y : {0, 540, 1080, 1520})
    for (int x : {0, 540, 1080, 1620, 2160, 2700, 3200}) hundred.push_back(Rect{x, y, 640, 640});
  expect_rects(tile_regions(TilingRule{640, 640, 0.2, false, 100}, 3840, 2160), hundred,
               "3840x2160, 100 pixels");
  std::vector<Rect> oblong;
  for (int y : {0, 50, 100})
    for (int x : {0, 250, 500, 600}) oblong.push_back(Rect{x, y, 400, 200});
  expect_rects(tile_regions(TilingRule{400, 200, 0.0, false, 150}, 1000, 300), oblong,
               "1000x300 in 400x200 tiles, 150 pixels");
}

GstPad *sink_pad(GstElement *batch) {
  GstPad *pad = gst_element_request_pad_simple(batch, "sink_%u");
  EXPECT_NE(pad, nullptr);
  return pad;
}

// The regions a pad applies to a frame of width x height.
std::vector<PixelRect> pad_regions(GstPad *pad, int width, int height) {
  auto *batch_pad = GST_CUDA_PREP_BATCH_PAD(pad);
  const GstCudaPrepBatchPadSettings settings = gst_cuda_prep_batch_pad_get_settings(batch_pad);
  std::string error;
  const std::vector<PixelRect> *rects =
      gst_cuda_prep_batch_pad_static_regions(batch_pad, settings, width, height, &error);
  EXPECT_NE(rects, nullptr) << error;
  return rects != nullptr ? *rects : std::vector<PixelRect>{};
}

// A launch line's tiled pad and a pad given the same rectangles as static
// regions apply the same list to a 4K frame, then to a 1080p one (caps
// changed upstream), then to the 4K one again; changing a tile property
// applies from the next frame.
TEST(BatchTilesCpu, ATiledPadReportsTheSameRegionsAsStaticRegions) {
  GError *error = nullptr;
  GstElement *tiled = gst_parse_launch(
      "cudabatch sink_0::region-source=tiles sink_0::tile-width=640 sink_0::tile-height=640 "
      "sink_0::tile-overlap=0.2 sink_0::tile-whole-frame=true",
      &error);
  ASSERT_EQ(error, nullptr) << error->message;
  GstPad *tiles_pad = sink_pad(tiled);
  std::string regions = "<";
  std::vector<Rect> expected = tiles_of_4k();
  expected.push_back(Rect{0, 0, 3840, 2160});
  for (size_t i = 0; i < expected.size(); ++i) {
    const Rect &r = expected[i];
    regions += std::string(i ? ",<" : "<") + std::to_string(r.x) + "," + std::to_string(r.y) + "," +
               std::to_string(r.width) + "," + std::to_string(r.height) + ">";
  }
  regions += ">";
  GstElement *listed = gst_element_factory_make("cudabatch", nullptr);
  GstPad *regions_pad = sink_pad(listed);
  gst_util_set_object_arg(G_OBJECT(regions_pad), "region-source", "regions");
  gst_util_set_object_arg(G_OBJECT(regions_pad), "regions", regions.c_str());

  const auto same = [&](const std::vector<PixelRect> &actual, const std::string &what) {
    const std::vector<PixelRect> reference = pad_regions(regions_pad, 3840, 2160);
    ASSERT_EQ(reference.size(), 33u);
    std::vector<Rect> rects;
    for (const PixelRect &r : reference) rects.push_back(Rect{r.x, r.y, r.width, r.height});
    expect_rects(actual, rects, what);
  };
  same(pad_regions(tiles_pad, 3840, 2160), "4K");
  EXPECT_EQ(pad_regions(tiles_pad, 1920, 1080).size(), 9u) << "1080p: 8 tiles and the frame";
  same(pad_regions(tiles_pad, 3840, 2160), "4K again");
  g_object_set(tiles_pad, "tile-whole-frame", FALSE, "tile-overlap", 0.0, nullptr);
  EXPECT_EQ(pad_regions(tiles_pad, 3840, 2160).size(), 6u * 4u) << "overlap 0: 6 x 4 tiles";
  g_object_set(tiles_pad, "tile-overlap-pixels", 100, nullptr);
  EXPECT_EQ(pad_regions(tiles_pad, 3840, 2160).size(), 7u * 4u) << "100 pixels: 7 x 4 tiles";
  g_object_set(tiles_pad, "tile-overlap-pixels", 0, nullptr);
  gst_util_set_object_arg(G_OBJECT(tiles_pad), "region-source", "frame");
  EXPECT_TRUE(pad_regions(tiles_pad, 3840, 2160).empty()) << "whole frames: no rectangles";

  gst_element_release_request_pad(listed, regions_pad);
  gst_object_unref(regions_pad);
  gst_object_unref(listed);
  gst_element_release_request_pad(tiled, tiles_pad);
  gst_object_unref(tiles_pad);
  gst_object_unref(tiled);
}

struct LoggedWarnings {
  std::vector<std::string> messages;
};

void record_warning(const gchar *, GLogLevelFlags, const gchar *message, gpointer data) {
  static_cast<LoggedWarnings *>(data)->messages.push_back(message);
}

// Defaults, blurbs and ranges; a value out of range is refused by GLib with
// a warning naming the property and leaves the value as it was.
TEST(BatchTilesCpu, TilePropertiesDefaultsAndRanges) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  ASSERT_NE(batch, nullptr);
  GstPad *pad = sink_pad(batch);
  GObjectClass *klass = G_OBJECT_GET_CLASS(pad);
  for (const char *name :
       {"tile-width", "tile-height", "tile-overlap", "tile-overlap-pixels", "tile-whole-frame"}) {
    GParamSpec *spec = g_object_class_find_property(klass, name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_GT(strlen(g_param_spec_get_blurb(spec)), 40u) << name << " has a blurb";
  }
  for (const char *name : {"tile-width", "tile-height"}) {
    const auto *spec = G_PARAM_SPEC_INT(g_object_class_find_property(klass, name));
    EXPECT_EQ(spec->minimum, 1) << name;
    EXPECT_EQ(spec->maximum, G_MAXINT) << name;
    EXPECT_EQ(spec->default_value, 640) << name;
  }
  const auto *overlap = G_PARAM_SPEC_DOUBLE(g_object_class_find_property(klass, "tile-overlap"));
  EXPECT_EQ(overlap->minimum, 0.0);
  EXPECT_EQ(overlap->maximum, 0.9);
  EXPECT_EQ(overlap->default_value, 0.2);
  const auto *pixels = G_PARAM_SPEC_INT(g_object_class_find_property(klass, "tile-overlap-pixels"));
  EXPECT_EQ(pixels->minimum, 0) << "0: tile-overlap's fraction";
  EXPECT_EQ(pixels->maximum, G_MAXINT) << "one not smaller than the tile is named at start";
  EXPECT_EQ(pixels->default_value, 0);
  const auto *whole = G_PARAM_SPEC_BOOLEAN(g_object_class_find_property(klass, "tile-whole-frame"));
  EXPECT_FALSE(whole->default_value);

  LoggedWarnings warnings;
  const guint handler = g_log_set_handler(
      "GLib-GObject", static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL),
      record_warning, &warnings);
  g_object_set(pad, "tile-overlap", 0.95, nullptr);
  g_object_set(pad, "tile-width", 0, nullptr);
  g_object_set(pad, "tile-height", -640, nullptr);
  g_object_set(pad, "tile-overlap-pixels", -1, nullptr);
  // As a launch line sets it, once the pad exists.
  GError *error = nullptr;
  GstElement *launched = gst_parse_launch("cudabatch sink_0::tile-overlap=1.5", &error);
  ASSERT_EQ(error, nullptr) << error->message;
  GstPad *launched_pad = sink_pad(launched);
  g_log_remove_handler("GLib-GObject", handler);
  gdouble launched_overlap = -1.0;
  g_object_get(launched_pad, "tile-overlap", &launched_overlap, nullptr);
  EXPECT_EQ(launched_overlap, 0.2) << "1.5 refused";
  gst_element_release_request_pad(launched, launched_pad);
  gst_object_unref(launched_pad);
  gst_object_unref(launched);
  gint width = 0, height = 0, overlap_pixels = -2;
  gdouble fraction = -1.0;
  g_object_get(pad, "tile-width", &width, "tile-height", &height, "tile-overlap", &fraction,
               "tile-overlap-pixels", &overlap_pixels, nullptr);
  EXPECT_EQ(width, 640) << "0 refused";
  EXPECT_EQ(height, 640) << "-640 refused";
  EXPECT_EQ(fraction, 0.2) << "0.95 refused";
  EXPECT_EQ(overlap_pixels, 0) << "-1 refused";
  ASSERT_EQ(warnings.messages.size(), 5u);
  const char *names[] = {"'tile-overlap'", "'tile-width'", "'tile-height'", "'tile-overlap-pixels'",
                         "'tile-overlap'"};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_NE(warnings.messages[i].find("out of range for property"), std::string::npos)
        << warnings.messages[i];
    EXPECT_NE(warnings.messages[i].find(names[i]), std::string::npos) << warnings.messages[i];
  }
  gst_element_release_request_pad(batch, pad);
  gst_object_unref(pad);
  gst_object_unref(batch);
}

// A tiled pad's settings work, and it asks its upload for whole frames
// (every pixel lies in some tile). (Tile properties on a pad that does not
// take tiles: BatchRegionsCpu.SettingsThatCannotWorkAreNamedAtStart.)
TEST(BatchTilesCpu, TilesReadWholeFrames) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  GstPad *pad = sink_pad(batch);
  g_object_set(pad, "tile-width", 320, nullptr);
  gst_util_set_object_arg(G_OBJECT(pad), "region-source", "tiles");
  GstCudaPrepRegion region;
  ASSERT_TRUE(gst_cuda_prep_batch_pad_regions_read(GST_CUDA_PREP_BATCH_PAD(pad), &region));
  EXPECT_EQ(region.rect.x, 0);
  EXPECT_EQ(region.rect.y, 0);
  EXPECT_EQ(region.rect.width, G_MAXINT) << "no frame fits: the upload copies whole frames";
  EXPECT_EQ(region.rect.height, G_MAXINT);
  auto *batch_pad = GST_CUDA_PREP_BATCH_PAD(pad);
  EXPECT_EQ(gst_cuda_prep_batch_pad_settings_error(batch_pad,
                                                   gst_cuda_prep_batch_pad_get_settings(batch_pad)),
            "")
      << "tile properties with region-source=tiles";
  // An overlap in pixels must be smaller than both sides of the 320x640 tile.
  g_object_set(pad, "tile-overlap-pixels", 319, nullptr);
  EXPECT_EQ(gst_cuda_prep_batch_pad_settings_error(batch_pad,
                                                   gst_cuda_prep_batch_pad_get_settings(batch_pad)),
            "")
      << "319 pixels of a 320-wide tile";
  g_object_set(pad, "tile-overlap-pixels", 320, nullptr);
  EXPECT_EQ(gst_cuda_prep_batch_pad_settings_error(batch_pad,
                                                   gst_cuda_prep_batch_pad_get_settings(batch_pad)),
            "sink_0: tile-overlap-pixels=320 is not smaller than the tile (tile-width=320, "
            "tile-height=640); set it below both sides, or to 0 to use tile-overlap's fraction");
  gst_element_release_request_pad(batch, pad);
  gst_object_unref(pad);
  gst_object_unref(batch);
}

}  // namespace
