// cudabatch's regions: the regions of a frame (ROI metas, static regions,
// tiles, detections) as the items of one batch tensor.
//  - CPU: pad properties region-source, regions (parsed from gst-launch's
//    sink_N:: syntax), roi-type; settings that cannot work are errors
//    naming the pad at start; the allocation answer carries the static
//    regions' bounding box.
//  - GPU: 20 regions of interest on one frame give 20 items, each equal
//    (bit-exact, same geometry) to cudacrop + the same chain with
//    cudatensorize; static regions likewise, with the upload copying only
//    their bounding box; a 4K frame's tiles equal the same rectangles as
//    static regions, and a box on a tile maps back exactly; a frame's
//    regions spill over batches (8, 8, 4) with the right counts, PTS and
//    ids; a frame with no region gives no item; a box maps back through a
//    region item within half a pixel.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/gstaggregator.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gst/cudaprep/gstcudaprepbox.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "base/gstcudapreppixelmetas.h"
#include "base/gstcudaprepregion.h"
#include "common/cuda_test.h"
#ifdef CUDAPREP_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif
#include "common/gst_frames.h"
#include "common/batch_rig.h"

namespace {

using namespace cudaprep::test;

GstPad *request_sink_pad(GstElement *batch) {
  GstPad *pad = gst_element_request_pad_simple(batch, "sink_%u");
  EXPECT_NE(pad, nullptr);
  return pad;
}

TEST(BatchRegionsCpu, PadPropertiesDefaultsAndGstLaunchSyntax) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  ASSERT_NE(batch, nullptr);
  GstPad *pad = request_sink_pad(batch);
  gint source = -1;
  gchar *roi_type = nullptr;
  GValue regions = G_VALUE_INIT;
  g_value_init(&regions, GST_TYPE_ARRAY);
  g_object_get(pad, "region-source", &source, "roi-type", &roi_type, nullptr);
  g_object_get_property(G_OBJECT(pad), "regions", &regions);
  EXPECT_EQ(source, 0) << "whole frames by default";
  EXPECT_EQ(roi_type, nullptr);
  EXPECT_EQ(gst_value_array_get_size(&regions), 0u);
  g_value_unset(&regions);
  for (const char *name : {"region-source", "regions", "roi-type", "min-confidence"}) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(pad), name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_GT(strlen(g_param_spec_get_blurb(spec)), 20u) << name << " has a blurb";
  }
  // Through the element, as gst-launch sets them (sink_0::...).
  gst_util_set_object_arg(G_OBJECT(pad), "regions", "<<3,5,10,20>,<0,1,2,3>>");
  gst_child_proxy_set(GST_CHILD_PROXY(batch), "sink_0::roi-type", "car", nullptr);
  g_value_init(&regions, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(pad), "regions", &regions);
  const int expected[2][4] = {{3, 5, 10, 20}, {0, 1, 2, 3}};
  ASSERT_EQ(gst_value_array_get_size(&regions), 2u);
  for (guint i = 0; i < 2; ++i) {
    const GValue *rect = gst_value_array_get_value(&regions, i);
    ASSERT_EQ(gst_value_array_get_size(rect), 4u);
    for (guint n = 0; n < 4; ++n)
      EXPECT_EQ(g_value_get_int(gst_value_array_get_value(rect, n)), expected[i][n]);
  }
  g_value_unset(&regions);
  g_object_get(pad, "roi-type", &roi_type, nullptr);
  EXPECT_STREQ(roi_type, "car");
  g_free(roi_type);
  gst_element_release_request_pad(batch, pad);
  gst_object_unref(pad);
  gst_object_unref(batch);

  // A launch line sets a request pad's properties once the pad exists.
  GError *error = nullptr;
  GstElement *bin = gst_parse_launch(
      "cudabatch name=b sink_0::region-source=regions sink_0::regions=\"<<1,2,30,40>>\"", &error);
  ASSERT_EQ(error, nullptr) << error->message;
  GstElement *parsed = GST_IS_BIN(bin) ? by_name(bin, "b") : bin;
  GstPad *sink_0 = request_sink_pad(parsed);
  g_object_get(sink_0, "region-source", &source, nullptr);
  EXPECT_EQ(source, 1) << "region-source=regions";
  g_value_init(&regions, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(sink_0), "regions", &regions);
  ASSERT_EQ(gst_value_array_get_size(&regions), 1u);
  const GValue *rect = gst_value_array_get_value(&regions, 0);
  EXPECT_EQ(g_value_get_int(gst_value_array_get_value(rect, 2)), 30);
  g_value_unset(&regions);
  gst_element_release_request_pad(parsed, sink_0);
  gst_object_unref(sink_0);
  gst_object_unref(bin);
}

// Settings that cannot work stop the element at READY -> PAUSED with an
// error naming the pad and what to change; no GPU is needed to see them.
// min-confidence belongs to region-source=detections; a cudaprep built
// without GStreamer's analytics (1.22) names what detections need.
TEST(BatchRegionsCpu, SettingsThatCannotWorkAreNamedAtStart) {
  struct Case {
    const char *region_source, *regions, *roi_type;
    double min_confidence;
    const char *expected;
    int tile_width = 640;  // the default: no tile property set
    int tile_overlap_pixels = 0;
  };
  std::vector<Case> cases = {
      {"regions", "<<0,0,0,10>>", nullptr, 0.0, "regions entry 0"},
      {"regions", "<<0,0,4>>", nullptr, 0.0, "not <x, y, width, height>"},
      {"regions", "<<-2,0,4,4>>", nullptr, 0.0, "x, y >= 0"},
      {"regions", "<>", nullptr, 0.0, "regions property is empty"},
      {"frame", "<<0,0,4,4>>", nullptr, 0.0, "region-source is not regions"},
      {"regions", "<<0,0,4,4>>", "car", 0.0, "roi-type is set"},
      {"roi-meta", "<>", nullptr, 0.5,
       "min-confidence is set, but region-source is not detections"},
      {"frame", "<>", nullptr, 0.0, "a tile property is set, but region-source is not tiles", 320},
      {"tiles", "<>", nullptr, 0.0,
       "tile-overlap-pixels=400 is not smaller than the tile (tile-width=320, tile-height=640)",
       320, 400},
  };
  if (!gst_cuda_prep_has_analytics())
    cases.push_back(
        {"detections", "<>", nullptr, 0.0, "built without (it needs GStreamer >= 1.24"});
  for (const Case &c : cases) {
    GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
    GstPad *pad = request_sink_pad(batch);
    gst_util_set_object_arg(G_OBJECT(pad), "region-source", c.region_source);
    gst_util_set_object_arg(G_OBJECT(pad), "regions", c.regions);
    if (c.roi_type != nullptr) g_object_set(pad, "roi-type", c.roi_type, nullptr);
    g_object_set(pad, "min-confidence", c.min_confidence, "tile-width", c.tile_width,
                 "tile-overlap-pixels", c.tile_overlap_pixels, nullptr);
    GstStateChangeReturn result = GST_STATE_CHANGE_SUCCESS;
    const std::string message =
        posted_error(batch, [&] { result = gst_element_set_state(batch, GST_STATE_PAUSED); });
    EXPECT_EQ(result, GST_STATE_CHANGE_FAILURE) << c.region_source << " " << c.regions;
    EXPECT_NE(message.find("sink_0"), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    gst_element_set_state(batch, GST_STATE_NULL);
    gst_element_release_request_pad(batch, pad);
    gst_object_unref(pad);
    gst_object_unref(batch);
  }
}

// The allocation answer of a pad with static regions names their bounding
// box, origin rounded down to even (chroma-subsampled uploads copy by it);
// a roi-meta pad names a rectangle no frame fits (every pixel may be read:
// the chain's cudaresize must not announce its own rows, the upload copies
// whole frames); a whole-frame pad names none.
TEST(BatchRegionsCpu, AllocationAnswerCarriesTheStaticRegionsBoundingBox) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  GstPad *pad = request_sink_pad(batch);
  GstCaps *caps = gst_caps_from_string(
      "application/x-cudaprep-planar(memory:CUDAPitched),dtype=float32,channels=3,"
      "channel-order=RGB,width=32,height=32,framerate=30/1");
  const auto announced = [&](GstCudaPrepRegion *region, gint bound = 4096) {
    // The element's answer itself: an aggregator queues serialized queries
    // for its streaming thread, which a stopped element does not run.
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    EXPECT_TRUE(GST_AGGREGATOR_GET_CLASS(batch)->sink_query(GST_AGGREGATOR(batch),
                                                            GST_AGGREGATOR_PAD(pad), query));
    const gboolean found = gst_cuda_prep_query_find_region(query, bound, bound, region);
    gst_query_unref(query);
    return found;
  };
  GstCudaPrepRegion region;
  EXPECT_FALSE(announced(&region)) << "whole frames: no region";
  gst_util_set_object_arg(G_OBJECT(pad), "region-source", "regions");
  gst_util_set_object_arg(G_OBJECT(pad), "regions", "<<3,5,10,20>,<100,7,11,2>>");
  ASSERT_TRUE(announced(&region));
  EXPECT_EQ(region.rect.x, 2);
  EXPECT_EQ(region.rect.y, 4);
  EXPECT_EQ(region.rect.x + region.rect.width, 111);
  EXPECT_EQ(region.rect.y + region.rect.height, 25);
  EXPECT_EQ(region.rows.period, 0);
  gst_util_set_object_arg(G_OBJECT(pad), "regions", "<>");
  gst_util_set_object_arg(G_OBJECT(pad), "region-source", "roi-meta");
  EXPECT_FALSE(announced(&region)) << "no frame holds what roi-meta pads read";
  ASSERT_TRUE(announced(&region, G_MAXINT));
  EXPECT_EQ(region.rect.x, 0);
  EXPECT_EQ(region.rect.width, G_MAXINT);
  EXPECT_EQ(region.rect.height, G_MAXINT);
  gst_caps_unref(caps);
  gst_element_release_request_pad(batch, pad);
  gst_object_unref(pad);
  gst_object_unref(batch);
}

struct Region {
  int x, y, width, height, id;
};

// The batches of `frames` (their regions of interest attached, for
// roi-meta) through the chain into one cudabatch of `batch_size` whose pad
// has `pad_properties` (sink_0::...); `upload_probe` watches the upload's
// output.
std::vector<Batch> run_regions(const std::string &caps, const std::vector<GstBuffer *> &frames,
                               guint batch_size, const std::string &pad_properties,
                               const std::function<void(const GstCudaPrepTensor *)> &inspect = {},
                               GstPadProbeCallback upload_probe = nullptr,
                               gpointer probe_data = nullptr, const std::string &direction = "") {
  const std::string description = "cudabatch name=b batch-size=" + std::to_string(batch_size) +
                                  " " + pad_properties + " ! appsink name=out sync=false " +
                                  chain("src", caps, "", direction) + " ! b.sink_0";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error ? error->message : "");
  if (pipeline == nullptr) return {};
  if (upload_probe != nullptr) {
    GstPad *src = gst_element_get_static_pad(by_name(pipeline, "src_up"), "src");
    gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, upload_probe, probe_data, nullptr);
    gst_object_unref(src);
  }
  EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (GstBuffer *frame : frames)
    EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, "src")), gst_buffer_ref(frame)),
              GST_FLOW_OK);
  gst_app_src_end_of_stream(GST_APP_SRC(by_name(pipeline, "src")));
  std::vector<Batch> batches = pull_batches(by_name(pipeline, "out"), inspect);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return batches;
}

void attach_regions(GstBuffer *frame, const std::vector<Region> &regions) {
  for (const Region &r : regions) {
    GstVideoRegionOfInterestMeta *meta =
        gst_buffer_add_video_region_of_interest_meta(frame, "object", r.x, r.y, r.width, r.height);
    meta->id = r.id;
  }
}

// `count` regions of a width x height frame, ids from `first_id`: odd and
// even origins, tiny and large ones, some reaching past the right or bottom
// edge (the element clips them).
std::vector<Region> random_regions(int count, int width, int height, int first_id,
                                   std::mt19937 &rng) {
  std::vector<Region> regions;
  for (int i = 0; i < count; ++i) {
    const int x = std::uniform_int_distribution<int>(0, width - 1)(rng);
    const int y = std::uniform_int_distribution<int>(0, height - 1)(rng);
    const int max_side = i % 4 == 0 ? 3 : width;
    const int w = std::uniform_int_distribution<int>(1, max_side)(rng);
    const int h = std::uniform_int_distribution<int>(1, i % 4 == 0 ? 3 : height)(rng);
    regions.push_back(Region{x, y, w, h, first_id + i});
  }
  return regions;
}

// The item a region should give: its rectangle clipped to the frame,
// through cudacrop and the same chain into cudatensorize.
Item cropped_reference(const std::string &caps, GstBuffer *frame, const Region &r, int width,
                       int height, const std::string &direction = "") {
  const int w = std::min(r.x + r.width, width) - r.x;
  const int h = std::min(r.y + r.height, height) - r.y;
  const std::string crop = "x=" + std::to_string(r.x) + " y=" + std::to_string(r.y) +
                           " width=" + std::to_string(w) + " height=" + std::to_string(h);
  std::vector<Item> items = single_stream_items(caps, {frame}, crop, direction);
  EXPECT_EQ(items.size(), 1u) << crop;
  return items.empty() ? Item{} : items[0];
}

void expect_same_geometry(const GstCudaPrepGeometry &actual, const GstCudaPrepGeometry &expected,
                          int id) {
  EXPECT_NEAR(actual.crop_x, expected.crop_x, 1e-9) << "region " << id;
  EXPECT_NEAR(actual.crop_y, expected.crop_y, 1e-9) << "region " << id;
  EXPECT_NEAR(actual.scale_x, expected.scale_x, 1e-12) << "region " << id;
  EXPECT_NEAR(actual.scale_y, expected.scale_y, 1e-12) << "region " << id;
  EXPECT_NEAR(actual.pad_x, expected.pad_x, 1e-9) << "region " << id;
  EXPECT_NEAR(actual.pad_y, expected.pad_y, 1e-9) << "region " << id;
}

// 20 regions of interest on one NV12 frame (and one wholly outside it)
// give 20 items, each the bytes and geometry of cudacrop of that region
// through the same letterboxing chain, with the meta's id.
TEST(BatchRegionsGpu, TwentyRoiMetasEqualCudacropAndTheSameChain) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 320, kHeight = 180;
  const std::string caps = caps_string("NV12", kWidth, kHeight);
  std::mt19937 rng(21);
  GstBuffer *frame = frame_at(caps, rng, 0);
  std::vector<Region> regions = random_regions(20, kWidth, kHeight, 100, rng);
  std::vector<Region> attached = regions;
  attached.push_back(Region{kWidth + 5, 10, 20, 20, 999});  // outside: no item
  attach_regions(frame, attached);
  const std::vector<Batch> batches =
      run_regions(caps, {frame}, 32, "sink_0::region-source=roi-meta");
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].filled, 20u);
  EXPECT_EQ(batches[0].pts, 0u);
  std::map<int, const Item *> by_id;
  for (const Item &item : batches[0].items) {
    EXPECT_TRUE(by_id.emplace(item.region, &item).second) << "region " << item.region << " twice";
    EXPECT_EQ(item.source, 0);
    EXPECT_EQ(item.pts, 0u);
  }
  for (const Region &r : regions) {
    ASSERT_EQ(by_id.count(r.id), 1u) << "region " << r.id;
    const Item expected = cropped_reference(caps, frame, r, kWidth, kHeight);
    const Item &actual = *by_id[r.id];
    EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX)
        << "region " << r.id << " <" << r.x << "," << r.y << "," << r.width << "," << r.height
        << "> differs from cudacrop + the chain";
    expect_same_geometry(actual.geometry, expected.geometry, r.id);
  }
  gst_buffer_unref(frame);
}

// The pad's chain turns its frames (video-direction=90r, which swaps the
// axes): each region item is its region turned and letterboxed, equal to
// cudacrop + the same turned chain, geometry included.
TEST(BatchRegionsGpu, RegionsFollowThePadsVideoDirection) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 320, kHeight = 180;
  const std::string caps = caps_string("NV12", kWidth, kHeight);
  std::mt19937 rng(22);
  GstBuffer *frame = frame_at(caps, rng, 0);
  const std::vector<Region> regions = {
      {10, 20, 120, 40, 1}, {200, 4, 30, 150, 2}, {0, 0, kWidth, kHeight, 3}, {57, 91, 9, 3, 4}};
  attach_regions(frame, regions);
  const std::vector<Batch> batches =
      run_regions(caps, {frame}, 8, "sink_0::region-source=roi-meta", {}, nullptr, nullptr, "90r");
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].filled, regions.size());
  std::map<int, const Item *> by_id;
  for (const Item &item : batches[0].items) by_id.emplace(item.region, &item);
  for (const Region &r : regions) {
    ASSERT_EQ(by_id.count(r.id), 1u) << "region " << r.id;
    const Item &actual = *by_id[r.id];
    const Item expected = cropped_reference(caps, frame, r, kWidth, kHeight, "90r");
    EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX)
        << "region " << r.id << " differs from cudacrop + the turned chain";
    expect_same_geometry(actual.geometry, expected.geometry, r.id);
    EXPECT_EQ(actual.geometry.orientation, expected.geometry.orientation) << "region " << r.id;
  }
  gst_buffer_unref(frame);
}

struct RegionMetaSeen {
  int frames = 0;
  cudaprep::PixelRect rect{};
};

GstPadProbeReturn record_region_meta(GstPad *, GstPadProbeInfo *info, gpointer data) {
  auto *seen = static_cast<RegionMetaSeen *>(data);
  const GstCudaPrepRegionMeta *meta =
      gst_buffer_get_cuda_prep_region_meta(GST_PAD_PROBE_INFO_BUFFER(info));
  if (meta != nullptr) {
    ++seen->frames;
    seen->rect = meta->region.rect;
  }
  return GST_PAD_PROBE_OK;
}

// Static regions on two RGBA frames: ids 0..5 in order on each frame, each
// equal to cudacrop + the chain; the upload copied only their bounding box.
TEST(BatchRegionsGpu, StaticRegionsEqualCudacropAndTheUploadCopiesTheirBoundingBox) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 200, kHeight = 120;
  const std::string caps = caps_string("RGBA", kWidth, kHeight);
  const std::vector<Region> regions = {{3, 5, 40, 30, 0}, {50, 9, 17, 60, 1}, {120, 40, 79, 71, 2},
                                       {7, 80, 1, 1, 3},  {60, 60, 33, 8, 4}, {11, 13, 90, 50, 5}};
  std::string property = "sink_0::region-source=regions sink_0::regions=\"<";
  for (size_t i = 0; i < regions.size(); ++i) {
    const Region &r = regions[i];
    property += (i ? ",<" : "<") + std::to_string(r.x) + "," + std::to_string(r.y) + "," +
                std::to_string(r.width) + "," + std::to_string(r.height) + ">";
  }
  property += ">\"";
  std::mt19937 rng(23);
  std::vector<GstBuffer *> frames = {frame_at(caps, rng, 0), frame_at(caps, rng, 33 * GST_MSECOND)};
  RegionMetaSeen seen;
  const std::vector<Batch> batches =
      run_regions(caps, frames, 16, property, {}, record_region_meta, &seen);
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].filled, 12u);
  for (size_t f = 0; f < frames.size(); ++f) {
    for (size_t i = 0; i < regions.size(); ++i) {
      const Item &actual = batches[0].items[f * regions.size() + i];
      EXPECT_EQ(actual.region, static_cast<int>(i));
      EXPECT_EQ(actual.pts, f * 33 * GST_MSECOND);
      const Item expected = cropped_reference(caps, frames[f], regions[i], kWidth, kHeight);
      EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX)
          << "frame " << f << " region " << i;
      expect_same_geometry(actual.geometry, expected.geometry, static_cast<int>(i));
    }
  }
  EXPECT_EQ(seen.frames, 2) << "both frames uploaded in part";
  EXPECT_EQ(seen.rect.x, 2);
  EXPECT_EQ(seen.rect.y, 4);
  EXPECT_EQ(seen.rect.x + seen.rect.width, 199);
  EXPECT_EQ(seen.rect.y + seen.rect.height, 111);
  for (GstBuffer *frame : frames) gst_buffer_unref(frame);
}

// region-source=tiles on a 4K NV12 frame (640x640 tiles, 20 % overlap, the
// whole frame added): 33 items equal, byte for byte and in geometry, those
// of the same rectangles (worked out by hand: columns 0, 512, ..., 3072 and
// 3200, rows 0, 512, 1024 and 1520, then the frame) as static regions. A
// box the detector draws on an item's tensor maps back through
// gst_cuda_prep_tensor_box_to_source() to the source exactly: a tile is
// scaled by 64/640 and centred 16 pixels right, the frame by 96/3840 and
// centred 5 pixels down.
TEST(BatchRegionsGpu, TilesEqualTheSameRectanglesAsStaticRegions) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 3840, kHeight = 2160;
  const std::string caps = caps_string("NV12", kWidth, kHeight);
  std::vector<Region> rects;
  for (int y : {0, 512, 1024, 1520})
    for (int x : {0, 512, 1024, 1536, 2048, 2560, 3072, 3200})
      rects.push_back(Region{x, y, 640, 640, static_cast<int>(rects.size())});
  rects.push_back(Region{0, 0, kWidth, kHeight, 32});
  std::string property = "sink_0::region-source=regions sink_0::regions=\"<";
  for (const Region &r : rects)
    property += (r.id ? ",<" : "<") + std::to_string(r.x) + "," + std::to_string(r.y) + "," +
                std::to_string(r.width) + "," + std::to_string(r.height) + ">";
  property += ">\"";
  std::mt19937 rng(37);
  GstBuffer *frame = frame_at(caps, rng, 0);
  int mapped = 0;
  const std::vector<Batch> tiled = run_regions(
      caps, {frame}, 33,
      "sink_0::region-source=tiles sink_0::tile-width=640 sink_0::tile-height=640 "
      "sink_0::tile-overlap=0.2 sink_0::tile-whole-frame=true",
      [&](const GstCudaPrepTensor *tensor) {
        ASSERT_EQ(tensor->batch_filled, rects.size());
        for (const Region &r : rects) {
          const bool frame_item = r.id == 32;
          // The box (20, 10)-(50, 40) of the item's tensor, in the source.
          const double expected[4] = {
              frame_item ? 800.0 : r.x + 40.0, frame_item ? 200.0 : r.y + 100.0,
              frame_item ? 2000.0 : r.x + 340.0, frame_item ? 1400.0 : r.y + 400.0};
          double source[4];
          ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, r.id, 20, 10, 50, 40, kWidth,
                                                         kHeight, &source[0], &source[1],
                                                         &source[2], &source[3]));
          for (int n = 0; n < 4; ++n)
            EXPECT_NEAR(source[n], expected[n], 1e-6) << "item " << r.id << " corner " << n;
          ++mapped;
        }
      });
  const std::vector<Batch> listed = run_regions(caps, {frame}, 33, property);
  ASSERT_EQ(tiled.size(), 1u);
  ASSERT_EQ(listed.size(), 1u);
  ASSERT_EQ(tiled[0].filled, rects.size());
  ASSERT_EQ(listed[0].filled, rects.size());
  for (const Region &r : rects) {
    const Item &actual = tiled[0].items[r.id], &expected = listed[0].items[r.id];
    EXPECT_EQ(actual.region, r.id);
    EXPECT_EQ(expected.region, r.id);
    EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX) << "tile " << r.id;
    expect_same_geometry(actual.geometry, expected.geometry, r.id);
    EXPECT_DOUBLE_EQ(actual.geometry.crop_x, r.x);
    EXPECT_DOUBLE_EQ(actual.geometry.crop_y, r.y);
  }
  EXPECT_EQ(mapped, 33);
  gst_buffer_unref(frame);
}

// 20 regions with batch-size 8 leave as 8, 8 and 4 items (the last at EOS),
// all of the frame's PTS; a second frame's regions fill the rest of the
// third batch. Every region once, in meta order, each equal to the item of
// a batch large enough to hold them all.
TEST(BatchRegionsGpu, RegionsSpillIntoTheNextBatches) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 160, kHeight = 90;
  const std::string caps = caps_string("I420", kWidth, kHeight);
  std::mt19937 rng(25);
  GstBuffer *first = frame_at(caps, rng, 0);
  GstBuffer *second = frame_at(caps, rng, 33 * GST_MSECOND);
  attach_regions(first, random_regions(20, kWidth, kHeight, 0, rng));
  attach_regions(second, random_regions(5, kWidth, kHeight, 20, rng));

  std::vector<Batch> batches = run_regions(caps, {first}, 8, "sink_0::region-source=roi-meta");
  ASSERT_EQ(batches.size(), 3u);
  const size_t counts[] = {8, 8, 4};
  int next_id = 0;
  for (size_t b = 0; b < 3; ++b) {
    EXPECT_EQ(batches[b].size, 8u);
    EXPECT_EQ(batches[b].filled, counts[b]) << "batch " << b;
    EXPECT_EQ(batches[b].pts, 0u) << "batch " << b << " holds the frame at 0";
    for (const Item &item : batches[b].items) {
      EXPECT_EQ(item.region, next_id++) << "in meta order, each once";
      EXPECT_EQ(item.pts, 0u);
    }
  }
  EXPECT_EQ(next_id, 20);

  const std::vector<Batch> whole =
      run_regions(caps, {first, second}, 32, "sink_0::region-source=roi-meta");
  ASSERT_EQ(whole.size(), 1u);
  ASSERT_EQ(whole[0].filled, 25u);
  batches = run_regions(caps, {first, second}, 8, "sink_0::region-source=roi-meta");
  ASSERT_EQ(batches.size(), 4u);
  const size_t spilled_counts[] = {8, 8, 8, 1};
  const GstClockTime batch_pts[] = {0, 0, 0, 33 * GST_MSECOND};
  size_t index = 0;
  for (size_t b = 0; b < 4; ++b) {
    EXPECT_EQ(batches[b].filled, spilled_counts[b]) << "batch " << b;
    EXPECT_EQ(batches[b].pts, batch_pts[b]) << "batch " << b << ": its first item's frame";
    for (const Item &item : batches[b].items) {
      const Item &expected = whole[0].items[index++];
      EXPECT_EQ(item.region, expected.region);
      EXPECT_EQ(item.pts, item.region < 20 ? 0 : 33 * GST_MSECOND);
      EXPECT_EQ(first_difference(item.bytes, expected.bytes), SIZE_MAX) << "region " << item.region;
    }
  }
  EXPECT_EQ(index, 25u);
  gst_buffer_unref(first);
  gst_buffer_unref(second);
}

// region-source=roi-meta: a frame with no region gives no item, and a
// stream of such frames gives no batch at all.
TEST(BatchRegionsGpu, AFrameWithNoRegionGivesNoItem) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  std::mt19937 rng(27);
  std::vector<GstBuffer *> frames;
  for (int f = 0; f < 3; ++f) frames.push_back(frame_at(caps, rng, f * 33 * GST_MSECOND));
  attach_regions(frames[0], {{0, 0, 10, 10, 1}, {5, 5, 20, 20, 2}});
  attach_regions(frames[2], {{30, 20, 30, 20, 3}});
  std::vector<Batch> batches = run_regions(caps, frames, 4, "sink_0::region-source=roi-meta");
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].filled, 3u);
  EXPECT_EQ(batches[0].items[0].pts, 0u);
  EXPECT_EQ(batches[0].items[1].pts, 0u);
  EXPECT_EQ(batches[0].items[2].pts, 66 * GST_MSECOND) << "the frame at 33 ms gave nothing";
  EXPECT_EQ(batches[0].items[2].region, 3);
  batches = run_regions(caps, {frames[1]}, 4, "sink_0::region-source=roi-meta");
  EXPECT_TRUE(batches.empty()) << "frames without regions: no batch at all";
  // roi-type: only the metas of that type.
  GstBuffer *faces = frame_at(caps, rng, 0);
  GstVideoRegionOfInterestMeta *face =
      gst_buffer_add_video_region_of_interest_meta(faces, "face", 1, 1, 8, 8);
  face->id = 7;
  attach_regions(faces, {{20, 20, 8, 8, 8}});  // roi_type "object"
  batches = run_regions(caps, {faces}, 4, "sink_0::region-source=roi-meta sink_0::roi-type=face");
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].filled, 1u);
  EXPECT_EQ(batches[0].items[0].region, 7);
  batches = run_regions(caps, {faces}, 4, "sink_0::region-source=roi-meta sink_0::roi-type=car");
  EXPECT_TRUE(batches.empty()) << "no region of that type: no batch";
  gst_buffer_unref(faces);
  for (GstBuffer *frame : frames) gst_buffer_unref(frame);
}

#ifdef CUDAPREP_HAVE_GST_ANALYTICS
// region-source=detections (GStreamer >= 1.24): a detector's results on the
// frame (GstAnalyticsODMtd) give the items the same rectangles give as ROI
// metas, byte for byte, geometry included, each item named by its result's
// id; roi-type and min-confidence keep only the cars of confidence >= 0.5
// (12 results: car/person alternating, confidence 0.9/0.3 by pairs).
TEST(BatchRegionsGpu, DetectionsEqualTheSameRectanglesAsRoiMetas) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 320, kHeight = 180;
  const std::string caps = caps_string("NV12", kWidth, kHeight);
  std::mt19937 rng(31);
  GstBuffer *detected = frame_at(caps, rng, 0);
  const std::vector<Region> rects = random_regions(12, kWidth, kHeight, 0, rng);
  GstAnalyticsRelationMeta *results = gst_buffer_add_analytics_relation_meta(detected);
  std::vector<Region> kept;
  for (size_t i = 0; i < rects.size(); ++i) {
    const bool car = i % 2 == 0, confident = (i / 2) % 2 == 0;
    GstAnalyticsODMtd od;
    ASSERT_TRUE(gst_analytics_relation_meta_add_od_mtd(
        results, g_quark_from_static_string(car ? "car" : "person"), rects[i].x, rects[i].y,
        rects[i].width, rects[i].height, confident ? 0.9f : 0.3f, &od));
    if (car && confident) {
      Region region = rects[i];
      region.id = static_cast<int>(gst_analytics_mtd_get_id(&od));
      kept.push_back(region);
    }
  }
  ASSERT_EQ(kept.size(), 3u);
  // The same pixels with the kept rectangles as ROI metas, ids alike.
  GstBuffer *with_rois = gst_buffer_new();
  ASSERT_TRUE(gst_buffer_copy_into(
      with_rois, detected,
      static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS |
                                      GST_BUFFER_COPY_DEEP | GST_BUFFER_COPY_MEMORY),
      0, -1));
  attach_regions(with_rois, kept);
  const std::vector<Batch> from_detections = run_regions(
      caps, {detected}, 8,
      "sink_0::region-source=detections sink_0::roi-type=car sink_0::min-confidence=0.5");
  const std::vector<Batch> from_rois =
      run_regions(caps, {with_rois}, 8, "sink_0::region-source=roi-meta");
  ASSERT_EQ(from_detections.size(), 1u);
  ASSERT_EQ(from_rois.size(), 1u);
  ASSERT_EQ(from_detections[0].filled, kept.size());
  ASSERT_EQ(from_rois[0].filled, kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    const Item &actual = from_detections[0].items[i], &expected = from_rois[0].items[i];
    EXPECT_EQ(actual.region, kept[i].id);
    EXPECT_EQ(expected.region, kept[i].id);
    EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX)
        << "detection " << kept[i].id << " differs from the same rectangle as a ROI meta";
    expect_same_geometry(actual.geometry, expected.geometry, kept[i].id);
  }
  gst_buffer_unref(with_rois);
  gst_buffer_unref(detected);
}
#endif

// A box drawn on the source frame inside a region, mapped into the region
// item's tensor pixels by the item's geometry (the forward definition) and
// back through gst_cuda_prep_tensor_box_to_source(), lands within half a
// pixel; the item's geometry is the crop and letterbox of its region.
TEST(BatchRegionsGpu, BoxRoundTripThroughARegionItem) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 320, kHeight = 180;
  const std::string caps = caps_string("RGBA", kWidth, kHeight);
  std::mt19937 rng(29);
  GstBuffer *frame = frame_at(caps, rng, 0);
  const Region region{41, 30, 150, 80, 5};  // wider than the 96x64 item: pad above and below
  attach_regions(frame, {region});
  int checked = 0;
  run_regions(caps, {frame}, 2, "sink_0::region-source=roi-meta",
              [&](const GstCudaPrepTensor *tensor) {
                ASSERT_EQ(tensor->batch_filled, 1u);
                const GstCudaPrepGeometry &g = tensor->items[0].geometry;
                EXPECT_DOUBLE_EQ(g.crop_x, 41.0);
                EXPECT_DOUBLE_EQ(g.crop_y, 30.0);
                EXPECT_DOUBLE_EQ(g.scale_x, 96.0 / 150.0);
                EXPECT_GT(g.pad_y, 0.0) << "letterboxed vertically";
                std::uniform_real_distribution<double> x(41, 191), y(30, 110);
                for (int i = 0; i < 200; ++i) {
                  const double x0 = x(rng), y0 = y(rng);
                  const double x1 = std::min(191.0, x0 + 20), y1 = std::min(110.0, y0 + 15);
                  double tx0, ty0, tx1, ty1, sx0, sy0, sx1, sy1;
                  gst_cuda_prep_geometry_to_output(&g, x0, y0, &tx0, &ty0);
                  gst_cuda_prep_geometry_to_output(&g, x1, y1, &tx1, &ty1);
                  ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(
                      tensor, 0, tx0, ty0, tx1, ty1, kWidth, kHeight, &sx0, &sy0, &sx1, &sy1));
                  EXPECT_NEAR(sx0, x0, 0.5);
                  EXPECT_NEAR(sy0, y0, 0.5);
                  EXPECT_NEAR(sx1, x1, 0.5);
                  EXPECT_NEAR(sy1, y1, 0.5);
                  ++checked;
                }
                // A box in the letterbox pad above the region maps to nothing.
                EXPECT_FALSE(gst_cuda_prep_tensor_box_to_source(tensor, 0, 10, 0, 20, g.pad_y - 1,
                                                                kWidth, kHeight, nullptr, nullptr,
                                                                nullptr, nullptr));
              });
  EXPECT_EQ(checked, 200);
  gst_buffer_unref(frame);
}

// A static region that does not fit the source frame is an error naming
// it and the frame's size.
TEST(BatchRegionsGpu, AStaticRegionPastTheFrameIsAnError) {
  CUDAPREP_REQUIRE_GPU();
  const std::string message = pipeline_error(
      "cudabatch name=b sink_0::region-source=regions sink_0::regions=\"<<60,0,10,10>>\" ! "
      "fakesink videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),width=32,height=32,"
      "format=RGB ! cudanormalize ! b.sink_0");
  EXPECT_NE(message.find("region 0 <60,0,10,10> does not fit the 64x48"), std::string::npos)
      << message;
}

// A cudacrop between the pad's cudaresize and cudanormalize folds into the
// pending resize; regions of the source cannot follow it: an error naming
// the alternatives. Whole frames take it (the crop of each frame).
TEST(BatchRegionsGpu, ACropAfterThePendingResizeIsAnErrorForRegions) {
  CUDAPREP_REQUIRE_GPU();
  const std::string message = pipeline_error(
      "cudabatch name=b sink_0::region-source=regions sink_0::regions=\"<<0,0,10,10>>\" ! "
      "fakesink videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),width=40,height=40,"
      "format=RGB ! cudacrop x=4 y=4 width=32 height=32 ! cudanormalize ! b.sink_0");
  EXPECT_NE(message.find("a cudacrop after the cudaresize keeps only part of the resized frame"),
            std::string::npos)
      << message;
  EXPECT_EQ(
      pipeline_error("cudabatch name=b batch-size=1 ! fakesink videotestsrc num-buffers=2 ! "
                     "video/x-raw,format=RGBA,width=64,height=48 ! cudaframeupload ! cudaresize ! "
                     "video/x-raw(memory:CUDAPitched),width=40,height=40,format=RGB ! "
                     "cudacrop x=4 y=4 width=32 height=32 ! cudanormalize ! b.sink_0"),
      "");
}

}  // namespace
