// The differential composition test's generator and composed reference
// (issue 23), without a GPU: the same seed gives the same pipeline, every
// generated pipeline keeps the encoded constraints, parses with
// gst_parse_launch, its elements take their settings (READY: settings
// errors are named there without a GPU) and its caps chain through each
// element as the generator says (caps queries need no GPU), for every caps
// change's segment too; 2,000 seeds cover every format, method, direction,
// crop count, terminal, region source and event kind; the composed
// reference on small cases computed by hand, regions of interest through
// the crops against a pixel mask, region items as the chain behind one more
// crop, and the tensors a caps change splits.
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
#include "composition/reference.h"
#include "reference/normalize_ref.h"

namespace {

using namespace cudaprep;
using namespace cudaprep::composition;

constexpr uint64_t kCoverageSeeds = 2000;
// Parsing and the caps checks cost a few milliseconds a pipeline.
constexpr uint64_t kParseSeeds = 2000;

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

// The first generated pipeline for which `wanted` holds.
template <typename Predicate>
Pipeline first_generated(Predicate wanted) {
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    Pipeline p = generate(seed);
    if (wanted(p)) return p;
  }
  ADD_FAILURE() << "no seed below " << kCoverageSeeds << " gives the pipeline wanted";
  return generate(0);
}

bool has(const std::string &error, const char *part) {
  return error.find(part) != std::string::npos;
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

// The caps change event of `p` (the first), or nullptr.
Event *first_caps_change(Pipeline *p) {
  for (auto &after : p->events)
    for (Event &event : after)
      if (event.kind == EventKind::kCapsChange) return &event;
  return nullptr;
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

// The first structure's int field, -1 when absent or not fixed.
int caps_int(GstCaps *caps, const char *field) {
  int value = -1;
  if (caps == nullptr || gst_caps_is_empty(caps)) return -1;
  if (!gst_structure_get_int(gst_caps_get_structure(caps, 0), field, &value)) return -1;
  return value;
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

// A pipeline written by hand: `input` then the stages.
Pipeline hand_pipeline(PixelFormat format, int width, int height) {
  Pipeline p;
  p.input_format = format;
  p.width = width;
  p.height = height;
  p.tensor_width = width;
  p.tensor_height = height;
  p.normalize.in_format = format;
  p.normalize.has_scale = true;
  p.normalize.scale = 1.0;  // the tensor holds the bytes themselves
  p.events.assign(1, {});
  p.source_format = format;
  p.source_width = width;
  p.source_height = height;
  return p;
}

void add_crop(Pipeline *p, PixelRect rect) {
  Stage stage;
  stage.crop.x = rect.x;
  stage.crop.y = rect.y;
  stage.crop.width = rect.width;
  stage.crop.height = rect.height;
  stage.crop.effective = rect;
  stage.crop.in_format = p->normalize.in_format;
  stage.crop.in_width = p->tensor_width;
  stage.crop.in_height = p->tensor_height;
  p->stages.push_back(stage);
  p->tensor_width = rect.width;
  p->tensor_height = rect.height;
  if (p->resize() == nullptr) {  // the source frame is cudanormalize's
    p->source_width = rect.width;
    p->source_height = rect.height;
  }
}

// Appends the resize `stage` (its input recorded by resize_stage()): the
// source frame becomes what it receives.
void add_resize(Pipeline *p, const Stage &stage) {
  p->stages.push_back(stage);
  p->source_format = stage.resize.in_format;
  p->source_width = stage.resize.in_width;
  p->source_height = stage.resize.in_height;
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

Stage resize_stage(const Pipeline &p, Interpolation method, int out_width, int out_height,
                   PixelFormat out_format) {
  Stage stage;
  stage.kind = Stage::Kind::kResize;
  stage.resize.method = method;
  stage.resize.in_format = p.normalize.in_format;
  stage.resize.in_width = p.tensor_width;
  stage.resize.in_height = p.tensor_height;
  stage.resize.out_format = out_format;
  stage.resize.out_width = out_width;
  stage.resize.out_height = out_height;
  return stage;
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

}  // namespace

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
