// The differential composition test's generator (issue 23), without a
// GPU: the same seed gives the same pipeline, every generated pipeline
// keeps the encoded constraints, parses with gst_parse_launch, its elements
// take their settings (READY: settings errors are named there without a
// GPU) and its caps chain through each element as the generator says (caps
// queries need no GPU); 2,000 seeds cover every format, method, direction,
// crop count, terminal, region source and event kind. The composed
// reference: test_composed_reference.cpp; caps changes and flushes:
// test_generator_events.cpp.
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

TEST(Generator, SameSeedSamePipeline) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Pipeline a = generate(seed), b = generate(seed);
    EXPECT_EQ(a.description(), b.description()) << "seed " << seed;
    EXPECT_EQ(a.frame_count, b.frame_count) << "seed " << seed;
    ASSERT_EQ(a.events.size(), b.events.size()) << "seed " << seed;
    for (size_t i = 0; i < a.events.size(); ++i) {
      ASSERT_EQ(a.events[i].size(), b.events[i].size()) << "seed " << seed;
      for (size_t e = 0; e < a.events[i].size(); ++e) {
        EXPECT_EQ(a.events[i][e].kind, b.events[i][e].kind) << "seed " << seed;
        EXPECT_EQ(a.events[i][e].tag, b.events[i][e].tag) << "seed " << seed;
        EXPECT_EQ(a.events[i][e].caps.format, b.events[i][e].caps.format) << "seed " << seed;
        EXPECT_EQ(a.events[i][e].caps.width, b.events[i][e].caps.width) << "seed " << seed;
        EXPECT_EQ(a.events[i][e].caps.height, b.events[i][e].caps.height) << "seed " << seed;
      }
    }
  }
  // Pinned: a change of the generator changes what a reported seed means.
  EXPECT_EQ(generate(7).description(), generate(7).description());
  std::set<std::string> distinct;
  for (uint64_t seed = 0; seed < 300; ++seed) distinct.insert(generate(seed).description());
  EXPECT_GT(distinct.size(), 290u) << "seeds should give different pipelines";
}

TEST(Generator, EveryPipelineKeepsTheConstraints) {
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    const Pipeline pipeline = generate(seed);
    EXPECT_EQ(constraint_error(pipeline), "") << "seed " << seed << ": " << pipeline.description();
  }
}

TEST(Generator, TheConstraintCheckSeesBrokenPipelines) {
  Pipeline pipeline = generate(3);
  pipeline.input_format = PixelFormat::kNV12;
  pipeline.stages.clear();
  EXPECT_NE(constraint_error(pipeline).find("YUV input without a resize"), std::string::npos)
      << constraint_error(pipeline);

  Pipeline crop;
  crop.input_format = PixelFormat::kI420;
  crop.width = 8;
  crop.height = 8;
  Stage stage;
  stage.crop = CropStage{3, 3, 5, 5, PixelRect{3, 3, 5, 5}, PixelFormat::kI420, 8, 8};
  crop.stages.push_back(stage);
  const std::string error = constraint_error(crop);
  EXPECT_NE(error.find("effective rectangle is not the element's rounding"), std::string::npos)
      << error;
  crop.stages[0].crop.width = 6;
  EXPECT_NE(constraint_error(crop).find("does not fit 8x8"), std::string::npos);
}

// A quarter of the crops are copies: a download and an upload follow them
// in the description, and never where regions of interest travel.
TEST(Generator, SomeCropsAreCopiesThroughSystemMemory) {
  int crops = 0, copies = 0;
  const std::string round_trip = "cudaframedownload ! cudaframeupload ! ";
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    const Pipeline p = generate(seed);
    const std::string elements = p.elements();
    size_t from = 0;  // the crops appear in stage order
    for (const Stage &stage : p.stages) {
      if (stage.kind != Stage::Kind::kCrop) continue;
      ++crops;
      copies += stage.crop.copied;
      const std::string crop = "cudacrop region=\"<" + std::to_string(stage.crop.x) + "," +
                               std::to_string(stage.crop.y) + "," +
                               std::to_string(stage.crop.width) + "," +
                               std::to_string(stage.crop.height) + ">\" ! ";
      const size_t at = elements.find(crop, from);
      ASSERT_NE(at, std::string::npos) << elements;
      from = at + crop.size();
      EXPECT_EQ(elements.compare(from, round_trip.size(), round_trip) == 0, stage.crop.copied)
          << "seed " << seed << ": " << elements;
      if (stage.crop.copied) {
        EXPECT_NE(p.region_source(), RegionSource::kRoiMeta) << "seed " << seed;
      }
    }
  }
  EXPECT_GT(copies, crops / 6) << copies << " of " << crops;
  EXPECT_LT(copies, crops / 3) << copies << " of " << crops;

  Pipeline broken = generate(3);
  broken.terminal = Terminal::kBatch;
  broken.batch.source = RegionSource::kRoiMeta;
  for (Stage &stage : broken.stages) stage.crop.copied = stage.kind == Stage::Kind::kCrop;
  bool has_crop = false;
  for (const Stage &stage : broken.stages) has_crop = has_crop || stage.kind == Stage::Kind::kCrop;
  if (has_crop) {
    EXPECT_NE(constraint_error(broken).find("copied crop with region-source=roi-meta"),
              std::string::npos)
        << constraint_error(broken);
  }
}

TEST(Generator, TheConstraintCheckSeesBrokenBatches) {
  const Pipeline regions = first_generated([](const Pipeline &p) {
    return p.region_source() == RegionSource::kRegions && p.resize() != nullptr &&
           p.crop_count() > 0;
  });
  ASSERT_EQ(constraint_error(regions), "");
  // A crop moved after the resize: the resize cannot stay pending.
  Pipeline moved = regions;
  std::rotate(moved.stages.begin(), moved.stages.begin() + 1, moved.stages.end());
  EXPECT_TRUE(has(constraint_error(moved), "with a crop after the cudaresize"))
      << constraint_error(moved);
  // A region past the source frame, or none at all.
  Pipeline wide = regions;
  wide.batch.regions[0].width = wide.source_width - wide.batch.regions[0].x + 1;
  EXPECT_TRUE(has(constraint_error(wide), "does not fit the")) << constraint_error(wide);
  Pipeline none = regions;
  none.batch.regions.clear();
  EXPECT_TRUE(has(constraint_error(none), "0 static regions")) << constraint_error(none);
  // The source frame is what the resize receives.
  Pipeline source = regions;
  source.source_width += 1;
  EXPECT_TRUE(has(constraint_error(source), "is not what the chain's cudaresize receives"));
  Pipeline size = regions;
  size.batch.batch_size = kMaxBatch + 1;
  EXPECT_TRUE(has(constraint_error(size), "cudabatch batch size"));

  const Pipeline rois = first_generated([](const Pipeline &p) {
    if (p.region_source() != RegionSource::kRoiMeta) return false;
    for (const auto &frame : p.rois)
      if (frame.size() >= 2) return true;
    return false;
  });
  ASSERT_EQ(constraint_error(rois), "");
  Pipeline twice = rois;
  for (auto &frame : twice.rois)
    if (frame.size() >= 2) frame[1].id = frame[0].id;
  EXPECT_TRUE(has(constraint_error(twice), "twice")) << constraint_error(twice);
  Pipeline slots = rois;
  slots.rois.pop_back();
  EXPECT_TRUE(has(constraint_error(slots), "region of interest slots"));
  Pipeline frame_source = rois;
  frame_source.batch.source = RegionSource::kFrame;
  EXPECT_TRUE(has(constraint_error(frame_source), "without region-source=roi-meta"));
  Pipeline typed = regions;
  typed.batch.roi_type = "face";
  EXPECT_TRUE(has(constraint_error(typed), "roi-type face without region-source=roi-meta"));
  Pipeline tensorize = regions;
  tensorize.terminal = Terminal::kTensorize;
  EXPECT_TRUE(has(constraint_error(tensorize), "cudabatch settings without cudabatch"));
}

// A property as text: an enum by its nick, anything else serialised.
std::string property_string(gpointer object, const char *name) {
  GValue value = G_VALUE_INIT;
  g_object_get_property(G_OBJECT(object), name, &value);
  if (G_VALUE_HOLDS_ENUM(&value)) {
    GEnumClass *klass = G_ENUM_CLASS(g_type_class_ref(G_VALUE_TYPE(&value)));
    const GEnumValue *entry = g_enum_get_value(klass, g_value_get_enum(&value));
    std::string nick = entry != nullptr ? entry->value_nick : "?";
    g_type_class_unref(klass);
    g_value_unset(&value);
    return nick;
  }
  gchar *text = gst_value_serialize(&value);
  std::string result = text != nullptr ? text : "";
  g_free(text);
  g_value_unset(&value);
  return result;
}

// The elements of `bin` made by `factory`, in pipeline order (source to sink).
std::vector<GstElement *> elements_of(GstElement *bin, const char *factory) {
  std::vector<GstElement *> found;
  GstElement *src = gst_bin_get_by_name(GST_BIN(bin), "src");
  GstElement *element = src;
  while (element != nullptr) {
    GstElementFactory *made_by = gst_element_get_factory(element);
    if (made_by != nullptr && strcmp(GST_OBJECT_NAME(made_by), factory) == 0)
      found.push_back(element);
    GstPad *srcpad = gst_element_get_static_pad(element, "src");
    GstElement *next = nullptr;
    if (srcpad != nullptr) {
      GstPad *peer = gst_pad_get_peer(srcpad);
      if (peer != nullptr) {
        next = gst_pad_get_parent_element(peer);
        gst_object_unref(peer);
      }
      gst_object_unref(srcpad);
    }
    if (next != nullptr) gst_object_unref(next);  // the bin holds it
    element = next;
  }
  gst_object_unref(src);
  return found;
}

// Unlinks `element`'s sink pad from upstream, so that caps_downstream_of()
// can link its own source there (the bin is not run afterwards).
GstElement *detached(GstElement *element) {
  GstPad *sink = gst_element_get_static_pad(element, "sink");
  GstPad *peer = gst_pad_get_peer(sink);
  if (peer != nullptr) {
    gst_pad_unlink(peer, sink);
    gst_object_unref(peer);
  }
  gst_object_unref(sink);
  return element;
}

// Every generated description parses, names appsrc "src" and appsink
// "sink", and sets what the pipeline struct says; the elements with
// settings checks reach READY without an error (no GPU needed there); the
// caps each element offers downstream (a caps query, no GPU) have the sizes
// the struct records, and an open size fixates to the one it records.
TEST(Generator, EveryDescriptionParsesAndNegotiatesOnPaper) {
  int checked_crops = 0, checked_rules = 0, checked_open_sizes = 0, checked_batches = 0;
  for (uint64_t seed = 0; seed < kParseSeeds; ++seed) {
    const Pipeline pipeline = generate(seed);
    const std::string description = pipeline.description();
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + description);
    GError *error = nullptr;
    GstElement *bin = gst_parse_launch(description.c_str(), &error);
    ASSERT_NE(bin, nullptr) << (error ? error->message : "");
    ASSERT_EQ(error, nullptr) << error->message;
    GstElement *src = gst_bin_get_by_name(GST_BIN(bin), "src");
    GstElement *sink = gst_bin_get_by_name(GST_BIN(bin), "sink");
    ASSERT_NE(src, nullptr);
    ASSERT_NE(sink, nullptr);
    EXPECT_STREQ(GST_OBJECT_NAME(gst_element_get_factory(src)), "appsrc");
    // A flushing seek needs appsrc seekable.
    EXPECT_EQ(property_string(src, "stream-type"), pipeline.has_flush() ? "seekable" : "stream");
    EXPECT_STREQ(GST_OBJECT_NAME(gst_element_get_factory(sink)), "appsink");
    gst_object_unref(src);
    gst_object_unref(sink);

    // The input caps: valid, and YUV colorimetry as the struct says.
    GstVideoInfo info;
    GstCaps *input = gst_caps_from_string(pipeline.input_caps().c_str());
    ASSERT_TRUE(gst_video_info_from_caps(&info, input)) << pipeline.input_caps();
    gst_caps_unref(input);
    if (GST_VIDEO_INFO_IS_YUV(&info)) {
      GstVideoColorimetry colorimetry = info.colorimetry;
      if (pipeline.colorimetry_name.empty()) {
        GstVideoInfo defaults;
        gst_video_info_set_format(&defaults, GST_VIDEO_INFO_FORMAT(&info), pipeline.width,
                                  pipeline.height);
        colorimetry = defaults.colorimetry;
      }
      gdouble kr = 0, kb = 0;
      ASSERT_TRUE(gst_video_color_matrix_get_Kr_Kb(colorimetry.matrix, &kr, &kb));
      EXPECT_EQ(static_cast<float>(kr), pipeline.colorimetry.matrix.kr);
      EXPECT_EQ(static_cast<float>(kb), pipeline.colorimetry.matrix.kb);
      EXPECT_EQ(colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255,
                pipeline.colorimetry.range == ColorRange::kFull);
    }

    // Crops: the region read back, and the output caps of the frame each
    // receives (as device caps) are the crop's size.
    // (All found before any is detached below.)
    const std::vector<GstElement *> crops = elements_of(bin, "cudacrop");
    const std::vector<GstElement *> resizes = elements_of(bin, "cudaresize");
    const std::vector<GstElement *> normalizes = elements_of(bin, "cudanormalize");
    const std::vector<GstElement *> tensorizes = elements_of(bin, "cudatensorize");
    const std::vector<GstElement *> batches = elements_of(bin, "cudabatch");
    ASSERT_EQ(static_cast<int>(crops.size()), pipeline.crop_count());
    ASSERT_EQ(resizes.size(), pipeline.resize() != nullptr ? 1u : 0u);
    size_t crop_index = 0;
    for (const Stage &stage : pipeline.stages) {
      if (stage.kind != Stage::Kind::kCrop) continue;
      const CropStage &c = stage.crop;
      GstElement *element = crops[crop_index++];
      GValue region = G_VALUE_INIT;
      g_object_get_property(G_OBJECT(element), "region", &region);
      std::vector<int> values;
      for (guint i = 0; i < gst_value_array_get_size(&region); ++i)
        values.push_back(g_value_get_int(gst_value_array_get_value(&region, i)));
      g_value_unset(&region);
      EXPECT_EQ(values, (std::vector<int>{c.x, c.y, c.width, c.height}));
      GstElement *lone = gst_element_factory_make("cudacrop", nullptr);
      g_object_set(lone, "x", c.x, "y", c.y, "width", c.width, "height", c.height, nullptr);
      GstCaps *out = test::caps_downstream_of(
          lone, test::caps_string(format_name(c.in_format), c.in_width, c.in_height, true).c_str());
      EXPECT_EQ(caps_int(out, "width"), c.effective.width);
      EXPECT_EQ(caps_int(out, "height"), c.effective.height);
      gst_caps_unref(out);
      gst_object_unref(lone);
      ++checked_crops;
    }

    // The resize: its properties, and the short-side rule's size as the
    // element derives it.
    if (const ResizeStage *r = pipeline.resize()) {
      GstElement *element = resizes[0];
      EXPECT_EQ(property_string(element, "method"), method_name(r->method));
      EXPECT_EQ(property_string(element, "video-direction"), direction_name(r->direction));
      EXPECT_EQ(property_string(element, "antialias"), r->antialias ? "true" : "false");
      EXPECT_EQ(property_string(element, "add-borders"), r->add_borders ? "true" : "false");
      if (r->short_side > 0) {
        GstCaps *out = test::caps_downstream_of(
            detached(element),
            test::caps_string(format_name(r->in_format), r->in_width, r->in_height, true).c_str());
        EXPECT_EQ(caps_int(out, "width"), r->out_width);
        EXPECT_EQ(caps_int(out, "height"), r->out_height);
        gst_caps_unref(out);
        ++checked_rules;
      }
      if (r->size_open) {
        // Fixated against the rest of the pipeline, as it negotiates.
        GstCaps *out = gst_caps_from_string(
            test::negotiated_with_peer(element, test::caps_string(format_name(r->in_format),
                                                                  r->in_width, r->in_height, true))
                .c_str());
        EXPECT_EQ(caps_int(out, "width"), r->out_width);
        EXPECT_EQ(caps_int(out, "height"), r->out_height);
        EXPECT_STREQ(gst_structure_get_string(gst_caps_get_structure(out, 0), "format"),
                     format_name(r->out_format));
        gst_caps_unref(out);
        ++checked_open_sizes;
      }
    }

    // cudanormalize takes the frame it receives, and cudatensorize makes
    // the tensor the reference writes.
    ASSERT_EQ(normalizes.size(), 1u);
    const bool batch = pipeline.terminal == Terminal::kBatch;
    ASSERT_EQ(tensorizes.size(), batch ? 0u : 1u);
    ASSERT_EQ(batches.size(), batch ? 1u : 0u);
    GstCaps *planar = test::caps_downstream_of(
        detached(normalizes[0]),
        test::caps_string(format_name(pipeline.normalize.in_format), pipeline.tensor_width,
                          pipeline.tensor_height, true)
            .c_str());
    ASSERT_FALSE(gst_caps_is_empty(planar)) << "cudanormalize refuses its input";
    const TensorDesc desc = tensor_desc(pipeline);
    const TensorShape shape = tensor_shape(desc);
    if (batch) {
      // cudabatch's tensor is the planar frame's (caps need its pads
      // running): its settings as the struct says, read back.
      EXPECT_EQ(caps_int(planar, "width"), shape.width);
      EXPECT_EQ(caps_int(planar, "height"), shape.height);
      EXPECT_EQ(property_string(batches[0], "batch-size"), std::to_string(shape.batch));
      EXPECT_EQ(property_string(batches[0], "layout"),
                pipeline.batch.layout == TensorLayout::kNHWC ? "nhwc" : "nchw");
      GObject *pad = gst_child_proxy_get_child_by_name(GST_CHILD_PROXY(batches[0]), "sink_0");
      ASSERT_NE(pad, nullptr) << "no sink_0 on cudabatch";
      EXPECT_EQ(property_string(pad, "region-source"), region_source_nick(pipeline.batch.source));
      gchar *roi_type = nullptr;
      g_object_get(pad, "roi-type", &roi_type, nullptr);
      EXPECT_EQ(roi_type != nullptr ? std::string(roi_type) : std::string(),
                pipeline.batch.roi_type);
      GValue regions = G_VALUE_INIT;
      g_object_get_property(G_OBJECT(pad), "regions", &regions);
      std::vector<PixelRect> read;
      for (guint i = 0; i < gst_value_array_get_size(&regions); ++i) {
        const GValue *rect = gst_value_array_get_value(&regions, i);
        ASSERT_EQ(gst_value_array_get_size(rect), 4u);
        read.push_back(PixelRect{g_value_get_int(gst_value_array_get_value(rect, 0)),
                                 g_value_get_int(gst_value_array_get_value(rect, 1)),
                                 g_value_get_int(gst_value_array_get_value(rect, 2)),
                                 g_value_get_int(gst_value_array_get_value(rect, 3))});
      }
      ASSERT_EQ(read.size(), pipeline.batch.regions.size());
      for (size_t i = 0; i < read.size(); ++i) {
        EXPECT_EQ(read[i].x, pipeline.batch.regions[i].x);
        EXPECT_EQ(read[i].y, pipeline.batch.regions[i].y);
        EXPECT_EQ(read[i].width, pipeline.batch.regions[i].width);
        EXPECT_EQ(read[i].height, pipeline.batch.regions[i].height);
      }
      g_value_unset(&regions);
      g_free(roi_type);
      g_object_unref(pad);
      gst_caps_unref(planar);
      ++checked_batches;
    } else {
      gchar *planar_text = gst_caps_to_string(planar);
      GstCaps *tensor = test::caps_downstream_of(detached(tensorizes[0]), planar_text);
      g_free(planar_text);
      gst_caps_unref(planar);
      ASSERT_FALSE(gst_caps_is_empty(tensor)) << "cudatensorize refuses cudanormalize's frames";
      EXPECT_EQ(caps_int(tensor, "batch"), shape.batch);
      EXPECT_EQ(caps_int(tensor, "channels"), shape.channels);
      EXPECT_EQ(caps_int(tensor, "width"), shape.width);
      EXPECT_EQ(caps_int(tensor, "height"), shape.height);
      EXPECT_STREQ(gst_structure_get_string(gst_caps_get_structure(tensor, 0), "dtype"),
                   data_type_name(desc.dtype));
      EXPECT_STREQ(gst_structure_get_string(gst_caps_get_structure(tensor, 0), "layout"),
                   tensor_layout_name(desc.layout));
      gst_caps_unref(tensor);
    }

    // Settings errors are named at READY, without a GPU.
    std::vector<GstElement *> checked = normalizes;
    checked.insert(checked.end(), resizes.begin(), resizes.end());
    checked.insert(checked.end(), tensorizes.begin(), tensorizes.end());
    for (GstElement *element : checked) {
      const std::string posted =
          test::posted_error(element, [&]() { gst_element_set_state(element, GST_STATE_READY); });
      EXPECT_EQ(posted, "") << GST_OBJECT_NAME(element);
      gst_element_set_state(element, GST_STATE_NULL);
    }
    gst_object_unref(bin);
  }
  EXPECT_GT(checked_crops, 0);
  EXPECT_GT(checked_rules, 0);
  EXPECT_GT(checked_open_sizes, 0);
  EXPECT_GT(checked_batches, 0);
}

// 2,000 seeds reach every input format, resize method, direction, output
// format, crop count, event kind and the rarer settings.
TEST(Generator, TwoThousandSeedsCoverEverything) {
  std::map<std::string, int> seen;
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    const Pipeline p = generate(seed);
    ++seen[std::string("format ") + format_name(p.input_format)];
    ++seen["crops " + std::to_string(p.crop_count())];
    ++seen["frames " + std::to_string(p.frame_count)];
    ++seen["batch " + std::to_string(p.tensorize.batch_size)];
    ++seen[std::string("layout ") + tensor_layout_name(p.tensorize.layout)];
    ++seen[std::string("normalize ") + data_type_name(p.normalize.dtype)];
    ++seen[std::string("tensor ") + data_type_name(p.tensor_dtype())];
    ++seen[std::string("tensorize dtype ") +
           (p.tensorize.dtype == TensorDType::kAuto ? "auto" : "explicit")];
    ++seen[std::string("order ") + channel_order_name(p.normalize.order)];
    ++seen[std::string("fuse ") + (p.tensorize.fuse ? "on" : "off")];
    if (p.normalize.has_mean) ++seen["mean"];
    if (p.normalize.has_std) ++seen["std"];
    if (p.normalize.has_scale) ++seen["scale"];
    if (!p.colorimetry_name.empty() || p.input_format == PixelFormat::kNV12 ||
        p.input_format == PixelFormat::kI420 || p.input_format == PixelFormat::kYUY2)
      ++seen["colorimetry '" + p.colorimetry_name + "'"];
    bool resized = false;
    for (const Stage &stage : p.stages) {
      if (stage.kind == Stage::Kind::kCrop) {
        const CropStage &c = stage.crop;
        ++seen[resized ? "crop after resize" : "crop before resize"];
        if (c.effective.x != c.x || c.effective.y != c.y)
          ++seen[std::string("rounded crop ") + format_name(c.in_format)];
        continue;
      }
      resized = true;
      const ResizeStage &r = stage.resize;
      ++seen[std::string("method ") + method_name(r.method)];
      ++seen[std::string("direction ") + direction_name(r.direction)];
      ++seen[std::string("resize to ") + format_name(r.out_format)];
      ++seen[std::string("resize from ") + format_name(r.in_format)];
      if (r.antialias) ++seen[std::string("antialias ") + method_name(r.method)];
      if (r.intermediate == AntialiasIntermediate::kUint8) ++seen["antialias uint8"];
      if (r.add_borders) {
        ++seen["letterbox"];
        ++seen["pad values " + std::to_string(r.pad_values.size())];
        ++seen[r.align == LetterboxAlign::kTopLeft ? "align top-left" : "align center"];
      }
      if (r.short_side > 0) ++seen["short-side"];
      if (r.size_open) ++seen["open size"];
    }
    ++seen[resized ? "with resize" : "without resize"];
    for (const auto &after : p.events)
      for (const Event &event : after) {
        ++seen[std::string("event ") + event_kind_name(event.kind)];
        if (event.kind == EventKind::kTags)
          ++seen[event.tag == TagKind::kTitle ? "tag title" : "tag image-orientation"];
      }
    if (!p.events.back().empty()) ++seen["event before EOS"];
    ++seen[p.terminal == Terminal::kBatch ? "terminal cudabatch" : "terminal cudatensorize"];
    if (p.has_flush()) {
      const Batching plan = batching(p);
      ++seen[plan.flushed.empty() ? "flush with no partial batch" : "flush dropping items"];
      ++seen[p.terminal == Terminal::kBatch ? "flush into cudabatch" : "flush into cudatensorize"];
      if (!p.events.back().empty() && p.events.back().front().kind == EventKind::kFlush)
        ++seen["flush before EOS"];
    }
    for (int frame = 1; frame < p.frame_count; ++frame) {
      const Pipeline before = segment(p, frame - 1), after = segment(p, frame);
      if (before.input_format == after.input_format && before.width == after.width &&
          before.height == after.height && before.colorimetry_name == after.colorimetry_name)
        continue;
      ++seen[p.terminal == Terminal::kBatch ? "caps change into cudabatch"
                                            : "caps change into cudatensorize"];
      if (before.input_format != after.input_format) ++seen["caps change of format"];
      if (before.width == after.width && before.height == after.height)
        ++seen["caps change of format or colorimetry alone"];
      if (before.tensor_width != after.tensor_width || before.tensor_height != after.tensor_height)
        ++seen["caps change of the tensor's frame"];
      else
        ++seen["caps change keeping the tensor's frame"];
      for (size_t i = 0; i < p.stages.size(); ++i)
        if (p.stages[i].kind == Stage::Kind::kCrop &&
            (before.stages[i].crop.effective.x != after.stages[i].crop.effective.x ||
             before.stages[i].crop.effective.y != after.stages[i].crop.effective.y))
          ++seen["caps change of a crop's rounding"];
    }
    if (p.terminal != Terminal::kBatch) continue;
    ++seen[std::string("region-source ") + region_source_nick(p.batch.source)];
    ++seen[p.batch.layout_set ? "batch layout set" : "batch layout default"];
    if (!p.batch.roi_type.empty()) ++seen["roi-type " + p.batch.roi_type];
    if (p.region_source() == RegionSource::kFrame) continue;
    ++seen[p.resize_pending() ? "regions resized as pending" : "regions stretched"];
    if (p.resize() != nullptr && !p.resize_pending()) ++seen["regions behind a passthrough resize"];
    for (int frame = 0; frame < p.frame_count; ++frame) {
      const std::vector<ItemSpec> items = frame_items(p, frame);
      if (items.empty()) ++seen["frame without items"];
      if (static_cast<int>(items.size()) > p.batch.batch_size) ++seen["regions spill"];
      for (const ItemSpec &item : items)
        if (p.batch.source == RegionSource::kRegions &&
            (p.batch.regions[item.region_id].x != item.rect.x ||
             p.batch.regions[item.region_id].y != item.rect.y))
          ++seen["region rounded"];
      if (p.batch.source != RegionSource::kRoiMeta) continue;
      const Pipeline s = segment(p, frame);
      for (const RegionOfInterest &roi : p.rois[frame]) {
        PixelRect rect;
        if (!roi_in_source(s, roi, &rect))
          ++seen["roi removed"];
        else if (rect.width != roi.width || rect.height != roi.height)
          ++seen["roi clipped"];
        else
          ++seen["roi whole"];
      }
    }
  }
  std::vector<std::string> wanted;
  for (PixelFormat f :
       {PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx, PixelFormat::kBGRx,
        PixelFormat::kRGB, PixelFormat::kBGR, PixelFormat::kGRAY8, PixelFormat::kNV12,
        PixelFormat::kI420, PixelFormat::kYUY2}) {
    wanted.push_back(std::string("format ") + format_name(f));
    wanted.push_back(std::string("resize from ") + format_name(f));
  }
  for (PixelFormat f :
       {PixelFormat::kRGB, PixelFormat::kBGR, PixelFormat::kRGBA, PixelFormat::kBGRA,
        PixelFormat::kRGBx, PixelFormat::kBGRx, PixelFormat::kGRAY8})
    wanted.push_back(std::string("resize to ") + format_name(f));
  for (Interpolation m : {Interpolation::kNearest, Interpolation::kBilinear,
                          Interpolation::kBicubic, Interpolation::kArea})
    wanted.push_back(std::string("method ") + method_name(m));
  for (int o = 0; o <= static_cast<int>(Orientation::kAntiTranspose); ++o)
    wanted.push_back(std::string("direction ") + direction_name(static_cast<Orientation>(o)));
  for (int n = 0; n <= kMaxCrops; ++n) wanted.push_back("crops " + std::to_string(n));
  for (int n = 1; n <= kMaxFrames; ++n) wanted.push_back("frames " + std::to_string(n));
  for (int n = 1; n <= kMaxBatch; ++n) wanted.push_back("batch " + std::to_string(n));
  for (int n = 0; n <= 4; ++n) wanted.push_back("pad values " + std::to_string(n));
  for (int k = 0; k < kAllEventKinds; ++k)
    wanted.push_back(std::string("event ") + event_kind_name(static_cast<EventKind>(k)));
  for (const char *name : {"layout NCHW",
                           "layout NHWC",
                           "normalize float32",
                           "normalize float16",
                           "tensor float32",
                           "tensor float16",
                           "tensorize dtype auto",
                           "tensorize dtype explicit",
                           "order RGB",
                           "order BGR",
                           "order GRAY",
                           "fuse on",
                           "fuse off",
                           "mean",
                           "std",
                           "scale",
                           "colorimetry ''",
                           "colorimetry 'bt601'",
                           "colorimetry 'bt709'",
                           "colorimetry 'bt2020'",
                           "colorimetry '1:4:0:0'",
                           "colorimetry '1:3:0:0'",
                           "crop before resize",
                           "crop after resize",
                           "rounded crop NV12",
                           "rounded crop I420",
                           "rounded crop YUY2",
                           "antialias bilinear",
                           "antialias bicubic",
                           "antialias uint8",
                           "letterbox",
                           "align top-left",
                           "align center",
                           "short-side",
                           "open size",
                           "with resize",
                           "without resize",
                           "tag title",
                           "tag image-orientation",
                           "event before EOS",
                           "flush with no partial batch",
                           "flush dropping items",
                           "flush into cudabatch",
                           "flush into cudatensorize",
                           "flush before EOS",
                           "caps change into cudabatch",
                           "caps change into cudatensorize",
                           "caps change of format",
                           "caps change of format or colorimetry alone",
                           "caps change of the tensor's frame",
                           "caps change keeping the tensor's frame",
                           "caps change of a crop's rounding",
                           "terminal cudabatch",
                           "terminal cudatensorize",
                           "region-source frame",
                           "region-source regions",
                           "region-source roi-meta",
                           "batch layout set",
                           "batch layout default",
                           "roi-type face",
                           "regions resized as pending",
                           "regions stretched",
                           "regions behind a passthrough resize",
                           "frame without items",
                           "regions spill",
                           "region rounded",
                           "roi removed",
                           "roi clipped",
                           "roi whole"})
    wanted.push_back(name);
  for (const std::string &name : wanted) EXPECT_GT(seen[name], 0) << name << " never generated";
  EXPECT_EQ(seen.count("antialias nearest") + seen.count("antialias area"), 0u);
  std::string summary;
  for (const auto &[name, count] : seen) summary += name + "=" + std::to_string(count) + " ";
  std::printf("coverage over %llu seeds: %s\n", static_cast<unsigned long long>(kCoverageSeeds),
              summary.c_str());
}

}  // namespace
