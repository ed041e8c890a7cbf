// cudaresize without a GPU: properties, caps maths (any size, the short-side
// rule, format conversion, fixation, passthrough, video-direction's swapped
// sizes and auto's tags) and clear errors at caps time. Its pixels on a GPU
// against the CPU reference: test_resize_pixels.cpp; passthrough, settings
// changed while frames flow, tags mid-stream and a crop before it:
// test_resize_live.cpp. The rows a downscale tells the upload to copy:
// base/test_region.cpp.
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "common/resize_checks.h"

namespace {

using namespace cudaprep::test;

const char *const kOutputFormats[] = {"RGB", "BGR", "RGBA", "BGRA", "RGBx", "BGRx", "GRAY8"};

// Whether `caps` allow the fixed caps `wanted` (which may leave fields open).
bool caps_has(GstCaps *caps, const std::string &wanted_text) {
  GstCaps *wanted = gst_caps_from_string(wanted_text.c_str());
  const bool result = gst_caps_can_intersect(wanted, caps);
  gst_caps_unref(wanted);
  return result;
}

std::string to_string(const GstCaps *caps) {
  gchar *text = gst_caps_to_string(caps);
  std::string result = text != nullptr ? text : "(null)";
  g_free(text);
  return result;
}

// --- Properties -------------------------------------------------------------

std::vector<int> pad_value_of(GstElement *resize) {
  GValue property = G_VALUE_INIT;
  g_object_get_property(G_OBJECT(resize), "pad-value", &property);
  std::vector<int> values;
  for (guint i = 0; i < gst_value_array_get_size(&property); ++i)
    values.push_back(g_value_get_int(gst_value_array_get_value(&property, i)));
  g_value_unset(&property);
  return values;
}

TEST(ResizeProperties, AreDocumentedWithRangesAndDefaults) {
  GstElement *resize = gst_element_factory_make("cudaresize", nullptr);
  ASSERT_NE(resize, nullptr) << "cudaresize is not registered";
  for (const char *name :
       {"method", "add-borders", "pad-value", "letterbox-align", "short-side", "multiple-of",
        "antialias", "antialias-intermediate", "float-intermediate", "video-direction"}) {
    GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(resize), name);
    ASSERT_NE(pspec, nullptr) << name;
    EXPECT_GT(strlen(g_param_spec_get_blurb(pspec)), 20u) << name;
  }
  auto property_string = [&](const char *name) {
    GValue property = G_VALUE_INIT;
    g_object_get_property(G_OBJECT(resize), name, &property);
    gchar *text = gst_value_serialize(&property);
    g_value_unset(&property);
    return text;
  };
  gchar *method = property_string("method");
  gchar *align = property_string("letterbox-align");
  gchar *intermediate = property_string("antialias-intermediate");
  EXPECT_STREQ(method, "bilinear");
  EXPECT_STREQ(align, "center");
  EXPECT_STREQ(intermediate, "float");
  EXPECT_EQ(pad_value_of(resize), std::vector<int>({0, 0, 0}));
  g_free(method);
  g_free(align);
  g_free(intermediate);

  gboolean add_borders = TRUE;
  gint short_side = -1, multiple_of = -1;
  g_object_get(resize, "add-borders", &add_borders, "short-side", &short_side, "multiple-of",
               &multiple_of, nullptr);
  EXPECT_FALSE(add_borders);
  EXPECT_EQ(short_side, 0);
  EXPECT_EQ(multiple_of, 0);
  for (const char *name : {"short-side", "multiple-of"}) {
    auto *spec = G_PARAM_SPEC_INT(g_object_class_find_property(G_OBJECT_GET_CLASS(resize), name));
    EXPECT_EQ(spec->minimum, 0) << name;
    EXPECT_EQ(spec->maximum, G_MAXINT) << name;
  }
  GEnumClass *methods = G_ENUM_CLASS(g_type_class_ref(
      G_PARAM_SPEC_VALUE_TYPE(g_object_class_find_property(G_OBJECT_GET_CLASS(resize), "method"))));
  for (const char *nick : {"nearest", "bilinear", "bicubic", "area"})
    EXPECT_NE(g_enum_get_value_by_nick(methods, nick), nullptr) << nick;
  g_type_class_unref(methods);
  GEnumClass *intermediates = G_ENUM_CLASS(g_type_class_ref(G_PARAM_SPEC_VALUE_TYPE(
      g_object_class_find_property(G_OBJECT_GET_CLASS(resize), "antialias-intermediate"))));
  for (const char *nick : {"float", "uint8"})
    EXPECT_NE(g_enum_get_value_by_nick(intermediates, nick), nullptr) << nick;
  g_type_class_unref(intermediates);
  gst_object_unref(resize);
}

TEST(ResizeProperties, PadValueTakesOneToFourChannelValues) {
  GstElement *resize = gst_element_factory_make("cudaresize", nullptr);
  gst_util_set_object_arg(G_OBJECT(resize), "pad-value", "<114,114,114>");
  EXPECT_EQ(pad_value_of(resize), std::vector<int>({114, 114, 114}));
  gst_util_set_object_arg(G_OBJECT(resize), "pad-value", "<7>");
  EXPECT_EQ(pad_value_of(resize), std::vector<int>({7}));
  gst_util_set_object_arg(G_OBJECT(resize), "pad-value", "<1,2,3,4>");
  EXPECT_EQ(pad_value_of(resize), std::vector<int>({1, 2, 3, 4}));
  gst_object_unref(resize);
}

// Five values, or a value outside 0..255, are kept as given (never silently
// replaced by the old value) and the element refuses to start, naming them.
TEST(ResizeProperties, PadValuesThatCannotWorkAreErrorsAtStart) {
  struct Case {
    const char *pad_value, *named;
  } const cases[] = {
      {"<1,2,3,4,5>", "pad-value takes 1 to 4 values"},
      {"<300>", "pad-value[0]=300 is outside 0..255"},
      {"<0,-1,0>", "pad-value[1]=-1 is outside 0..255"},
  };
  for (const Case &c : cases) {
    GstElement *resize = gst_element_factory_make("cudaresize", nullptr);
    gst_util_set_object_arg(G_OBJECT(resize), "pad-value", c.pad_value);
    GstStateChangeReturn ret = GST_STATE_CHANGE_SUCCESS;
    const std::string error =
        posted_error(resize, [&] { ret = gst_element_set_state(resize, GST_STATE_READY); });
    EXPECT_EQ(ret, GST_STATE_CHANGE_FAILURE) << c.pad_value;
    EXPECT_NE(error.find(c.named), std::string::npos) << error;
    gst_element_set_state(resize, GST_STATE_NULL);
    gst_object_unref(resize);
  }
}

// The 8-bit intermediate is a step between antialiased passes: without
// antialias it is refused at start, naming both properties.
TEST(ResizeProperties, Uint8IntermediateWithoutAntialiasIsAnErrorAtStart) {
  GstElement *resize = gst_element_factory_make("cudaresize", nullptr);
  gst_util_set_object_arg(G_OBJECT(resize), "antialias-intermediate", "uint8");
  GstStateChangeReturn ret = GST_STATE_CHANGE_SUCCESS;
  const std::string error =
      posted_error(resize, [&] { ret = gst_element_set_state(resize, GST_STATE_READY); });
  EXPECT_EQ(ret, GST_STATE_CHANGE_FAILURE);
  EXPECT_NE(error.find("antialias-intermediate=uint8 needs antialias=true"), std::string::npos)
      << error;
  gst_element_set_state(resize, GST_STATE_NULL);
  g_object_set(resize, "antialias", TRUE, nullptr);
  EXPECT_EQ(gst_element_set_state(resize, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  gst_element_set_state(resize, GST_STATE_NULL);
  gst_object_unref(resize);
}

// video-direction is GstVideoDirection's property, with videoflip's values
// and the identity as default; custom is refused at start.
TEST(ResizeProperties, VideoDirectionIsTheInterfacesProperty) {
  GstElement *resize = gst_element_factory_make("cudaresize", nullptr);
  ASSERT_NE(resize, nullptr);
  EXPECT_TRUE(GST_IS_VIDEO_DIRECTION(resize));
  GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(resize), "video-direction");
  ASSERT_NE(pspec, nullptr);
  EXPECT_EQ(G_PARAM_SPEC_VALUE_TYPE(pspec), GST_TYPE_VIDEO_ORIENTATION_METHOD);
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_AUTO;
  g_object_get(resize, "video-direction", &direction, nullptr);
  EXPECT_EQ(direction, GST_VIDEO_ORIENTATION_IDENTITY);
  gst_util_set_object_arg(G_OBJECT(resize), "video-direction", "ur-ll");
  g_object_get(resize, "video-direction", &direction, nullptr);
  EXPECT_EQ(direction, GST_VIDEO_ORIENTATION_UR_LL);
  gst_object_unref(resize);
  resize = gst_element_factory_make("cudaresize", nullptr);
  gst_util_set_object_arg(G_OBJECT(resize), "video-direction", "custom");
  GstStateChangeReturn ret = GST_STATE_CHANGE_SUCCESS;
  const std::string error =
      posted_error(resize, [&] { ret = gst_element_set_state(resize, GST_STATE_READY); });
  EXPECT_EQ(ret, GST_STATE_CHANGE_FAILURE);
  EXPECT_NE(error.find("video-direction=custom"), std::string::npos) << error;
  gst_element_set_state(resize, GST_STATE_NULL);
  gst_object_unref(resize);
}

// --- Caps -------------------------------------------------------------------

TEST(ResizeCaps, ShortSideRuleGivesDepthAnythingsSize) {
  GstElement *resize = make_resize("short-side=518 multiple-of=14");
  GstCaps *out = caps_downstream_of(resize, caps_string("NV12", 1920, 1080, true).c_str());
  ASSERT_FALSE(gst_caps_is_empty(out));
  for (guint i = 0; i < gst_caps_get_size(out); ++i) {
    gint width = 0, height = 0;
    const GstStructure *structure = gst_caps_get_structure(out, i);
    EXPECT_TRUE(gst_structure_get_int(structure, "width", &width) &&
                gst_structure_get_int(structure, "height", &height))
        << to_string(out);
    EXPECT_EQ(width, 924) << to_string(out);
    EXPECT_EQ(height, 518) << to_string(out);
  }
  EXPECT_TRUE(caps_has(out, caps_string("RGB", 924, 518, true))) << to_string(out);
  EXPECT_FALSE(caps_has(out, caps_string("RGB", 640, 640, true))) << to_string(out);
  gst_caps_unref(out);
  gst_object_unref(resize);
}

// The size is left to fixation, as videoscale leaves it: a fixed size
// offered first would win over one a resize further downstream names.
TEST(ResizeCaps, WithoutARuleAnySizeIsOfferedSameFormatFirst) {
  GstElement *resize = make_resize("");
  GstCaps *out = caps_downstream_of(resize, caps_string("RGBA", 1920, 1080, true).c_str());
  for (const auto &size : {std::pair{640, 640}, std::pair{1, 1}, std::pair{4000, 3}})
    EXPECT_TRUE(caps_has(out, caps_string("RGB", size.first, size.second, true)))
        << size.first << "x" << size.second << " not in " << to_string(out);
  gst_caps_unref(out);
  // The element's own offer (a caps query puts the upstream caps first).
  GstCaps *input = gst_caps_from_string(caps_string("RGBA", 1920, 1080, true).c_str());
  GstCaps *offer = GST_BASE_TRANSFORM_GET_CLASS(resize)->transform_caps(
      GST_BASE_TRANSFORM(resize), GST_PAD_SINK, input, nullptr);
  ASSERT_GT(gst_caps_get_size(offer), 0u);
  const GstStructure *first = gst_caps_get_structure(offer, 0);
  gint width = 0, height = 0;
  EXPECT_STREQ(gst_structure_get_string(first, "format"), "RGBA") << to_string(offer);
  EXPECT_FALSE(gst_structure_get_int(first, "width", &width)) << to_string(offer);
  EXPECT_FALSE(gst_structure_get_int(first, "height", &height)) << to_string(offer);
  gst_caps_unref(offer);
  gst_caps_unref(input);
  gst_object_unref(resize);
}

TEST(ResizeCaps, EveryOutputFormatIsOfferedForEveryInputFormat) {
  GstElement *resize = make_resize("");
  for (const char *input :
       {"RGBA", "BGRA", "RGBx", "BGRx", "RGB", "BGR", "GRAY8", "NV12", "I420", "YUY2"}) {
    GstCaps *out = caps_downstream_of(resize, caps_string(input, 320, 240, true).c_str());
    for (const char *output : kOutputFormats)
      EXPECT_TRUE(caps_has(out, caps_string(output, 300, 300, true)))
          << input << " -> " << output << " not in " << to_string(out);
    for (const char *not_output : {"NV12", "I420", "YUY2"})
      EXPECT_FALSE(caps_has(out, caps_string(not_output, 320, 240, true)))
          << not_output << " is not an output format: " << to_string(out);
    gst_caps_unref(out);
  }
  gst_object_unref(resize);
}

// What the element accepts upstream of a fixed downstream size: any input.
TEST(ResizeCaps, AFixedOutputAcceptsAnyInput) {
  GstElement *resize = make_resize("");
  GstCaps *downstream = gst_caps_from_string(caps_string("RGB", 640, 640, true).c_str());
  GstPadTemplate *templ = gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, downstream);
  GstPad *peer = gst_pad_new_from_template(templ, "downstream");
  GstPad *src = gst_element_get_static_pad(resize, "src");
  GstPad *sink = gst_element_get_static_pad(resize, "sink");
  ASSERT_EQ(gst_pad_link(src, peer), GST_PAD_LINK_OK);
  GstCaps *accepted = gst_pad_query_caps(sink, nullptr);
  for (const char *input : {"NV12", "YUY2", "RGBA", "GRAY8"})
    EXPECT_TRUE(caps_has(accepted, caps_string(input, 1920, 1080, true)))
        << input << " not in " << to_string(accepted);
  gst_caps_unref(accepted);
  gst_pad_unlink(src, peer);
  gst_object_unref(sink);
  gst_object_unref(src);
  gst_object_unref(peer);
  gst_object_unref(templ);
  gst_caps_unref(downstream);
  gst_object_unref(resize);
}

// The output caps the element settles on for `input` when downstream accepts
// `downstream` (NULL: anything), done as GstBaseTransform does it: offered
// caps, intersected with downstream's, then fixate_caps. No GPU needed.
std::string negotiated_output(GstElement *element, const std::string &input,
                              const char *downstream = nullptr) {
  GstCaps *offered = caps_downstream_of(element, input.c_str());
  if (downstream != nullptr) {
    GstCaps *peer = gst_caps_from_string(downstream);
    GstCaps *both = gst_caps_intersect_full(offered, peer, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(peer);
    gst_caps_unref(offered);
    offered = both;
  }
  if (gst_caps_is_empty(offered)) {
    gst_caps_unref(offered);
    return "EMPTY";
  }
  GstCaps *in_caps = gst_caps_from_string(input.c_str());
  GstCaps *fixed = GST_BASE_TRANSFORM_GET_CLASS(element)->fixate_caps(
      GST_BASE_TRANSFORM(element), GST_PAD_SINK, in_caps, offered);
  const std::string result = to_string(fixed);
  gst_caps_unref(fixed);
  gst_caps_unref(in_caps);
  return result;
}

bool caps_equal(const std::string &actual, const std::string &expected) {
  GstCaps *a = gst_caps_from_string(actual.c_str());
  GstCaps *b = gst_caps_from_string(expected.c_str());
  const bool equal = a != nullptr && b != nullptr && gst_caps_is_equal(a, b);
  if (a != nullptr) gst_caps_unref(a);
  if (b != nullptr) gst_caps_unref(b);
  return equal;
}

// Equal caps on both sides are what makes GstBaseTransform pass through.
TEST(ResizeNegotiation, OpenDownstreamKeepsFormatAndSize) {
  GstElement *resize = make_resize("add-borders=true");
  for (const std::string &input :
       {caps_string("RGBA", 320, 240, true),
        caps_string("BGR", 33, 17, true) + ",pixel-aspect-ratio=1/1,colorimetry=sRGB"}) {
    const std::string output = negotiated_output(resize, input);
    EXPECT_TRUE(caps_equal(output, input)) << input << " -> " << output;
  }
  gst_object_unref(resize);
}

// Output pixels are square whatever the input's: the resize works on pixel
// grids, and tensors have no pixel aspect ratio.
TEST(ResizeNegotiation, OutputPixelsAreLabelledSquare) {
  GstElement *resize = make_resize("");
  const std::string output =
      negotiated_output(resize, caps_string("RGBA", 720, 576, true) + ",pixel-aspect-ratio=16/15");
  EXPECT_TRUE(caps_equal(output, caps_string("RGBA", 720, 576, true) + ",pixel-aspect-ratio=1/1"))
      << output;
  gst_object_unref(resize);
}

TEST(ResizeNegotiation, DownstreamChoosesSizeAndFormat) {
  GstElement *resize = make_resize("add-borders=true");
  const std::string output = negotiated_output(resize, caps_string("NV12", 1920, 1080, true),
                                               caps_string("RGB", 640, 640, true).c_str());
  EXPECT_TRUE(caps_equal(output, caps_string("RGB", 640, 640, true))) << output;
  gst_object_unref(resize);
}

TEST(ResizeNegotiation, DownstreamFixingOnlyTheFormatKeepsTheSize) {
  GstElement *resize = make_resize("");
  const std::string output =
      negotiated_output(resize, caps_string("YUY2", 720, 576, true) + ",colorimetry=bt601",
                        "video/x-raw(memory:CUDAPitched),format=BGR");
  EXPECT_TRUE(caps_equal(output, caps_string("BGR", 720, 576, true))) << output;
  gst_object_unref(resize);
}

// A range downstream that leaves the input size out: the nearest size that
// keeps the aspect ratio, tried in videoscale's order (the nearest height
// with its width, then the nearest width with its height, else the pair
// nearer the ratio); the turned size for a 90 degree direction.
TEST(ResizeNegotiation, ARangeWithoutTheInputSizeKeepsTheAspectRatio) {
  struct RangeCase {
    const char *properties, *width, *height;
    int expected_width, expected_height;
  };
  const RangeCase cases[] = {
      {"", "[1,4000]", "[1,4000]", 1920, 1080},     // the input size is allowed
      {"", "[1,4000]", "[1,540]", 960, 540},        // the nearest height, its width
      {"", "[100,500]", "[100,300]", 500, 281},     // 533 too wide: the width's height
      {"", "{640,1280}", "{360,720}", 1280, 720},   // lists as ranges
      {"", "[100,500]", "[1000,3000]", 500, 1000},  // no size keeps it: 500/1000 is nearer
      {"video-direction=90r", "[1,4000]", "[1,960]", 540, 960},  // 1080x1920 turned
  };
  for (const RangeCase &c : cases) {
    SCOPED_TRACE(std::string(c.properties) + " width=" + c.width + " height=" + c.height);
    GstElement *resize = make_resize(c.properties);
    const std::string downstream =
        std::string("video/x-raw(memory:CUDAPitched),format=RGB,width=") + c.width +
        ",height=" + c.height;
    const std::string output =
        negotiated_output(resize, caps_string("RGB", 1920, 1080, true), downstream.c_str());
    EXPECT_TRUE(caps_equal(output, caps_string("RGB", c.expected_width, c.expected_height, true)))
        << output;
    gst_object_unref(resize);
  }
}

// Two resizes in a row, a capsfilter after each (`between`, `after`: its
// size fields, e.g. ",width=864,height=156"), for an RGB input.
struct TwoResizesCase {
  int width, height;
  const char *between, *after;
};

std::pair<int, int> size_of(const std::string &caps_text) {
  GstCaps *caps = gst_caps_from_string(caps_text.c_str());
  std::pair<int, int> size{0, 0};
  if (caps != nullptr && !gst_caps_is_empty(caps)) {
    const GstStructure *structure = gst_caps_get_structure(caps, 0);
    gst_structure_get_int(structure, "width", &size.first);
    gst_structure_get_int(structure, "height", &size.second);
  }
  if (caps != nullptr) gst_caps_unref(caps);
  return size;
}

// The output sizes videoscale's two resizes settle on, prerolled on the CPU:
// the reference. Square pixels throughout, as cudaresize's output is.
std::vector<std::pair<int, int>> videoscale_sizes(const TwoResizesCase &c) {
  const std::string square = "video/x-raw,format=RGB,pixel-aspect-ratio=1/1";
  const std::string description =
      "videotestsrc num-buffers=1 ! " + square + ",width=" + std::to_string(c.width) +
      ",height=" + std::to_string(c.height) + " ! videoscale name=first add-borders=true ! " +
      square + c.between + " ! videoscale name=second ! " + square + c.after + " ! fakesink";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << description;
  if (error != nullptr) g_error_free(error);
  std::vector<std::pair<int, int>> sizes;
  if (pipeline == nullptr) return sizes;
  gst_element_set_state(pipeline, GST_STATE_PAUSED);
  EXPECT_EQ(gst_element_get_state(pipeline, nullptr, nullptr, 10 * GST_SECOND),
            GST_STATE_CHANGE_SUCCESS)
      << description;
  for (const char *name : {"first", "second"}) {
    GstElement *scale = gst_bin_get_by_name(GST_BIN(pipeline), name);
    GstPad *src = gst_element_get_static_pad(scale, "src");
    GstCaps *caps = gst_pad_get_current_caps(src);
    sizes.push_back(caps != nullptr ? size_of(to_string(caps)) : std::pair{0, 0});
    if (caps != nullptr) gst_caps_unref(caps);
    gst_object_unref(src);
    gst_object_unref(scale);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return sizes;
}

// The output caps of the same chain of cudaresizes, each negotiated against
// its downstream in turn, the second for the first's output.
std::vector<std::string> cudaresize_outputs(const TwoResizesCase &c) {
  const std::string device = "video/x-raw(memory:CUDAPitched),format=RGB";
  // capsfilter elements: a bare caps last on the line would not parse.
  const std::string description =
      "cudaresize name=first add-borders=true ! capsfilter caps=\"" + device + c.between +
      "\" ! cudaresize name=second method=area ! capsfilter caps=\"" + device + c.after + "\"";
  GError *error = nullptr;
  GstElement *chain = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << description;
  if (error != nullptr) g_error_free(error);
  std::vector<std::string> outputs;
  if (chain == nullptr) return outputs;
  GstElement *first = gst_bin_get_by_name(GST_BIN(chain), "first");
  GstElement *second = gst_bin_get_by_name(GST_BIN(chain), "second");
  outputs.push_back(negotiated_with_peer(first, caps_string("RGB", c.width, c.height, true)));
  outputs.push_back(negotiated_with_peer(second, outputs.back()));
  gst_object_unref(second);
  gst_object_unref(first);
  gst_object_unref(chain);
  return outputs;
}

// An open output size stays open until a resize downstream names one:
// GstBaseTransform puts the size downstream asks for first in the caps
// query's answer and the first resize takes it, as videoscale does (which
// is the reference here): `cudaresize add-borders=true ! format=RGB !
// cudaresize ! 864x156` letterboxes to 864x156 in the first resize and the
// second passes through.
TEST(ResizeNegotiation, TwoResizesSettleWhereVideoscaleDoes) {
  const TwoResizesCase cases[] = {
      {1920, 1080, "", ",width=864,height=156"},
      {1920, 1080, "", ""},
      {1920, 1080, ",width=[100,500],height=[100,300]", ""},
      {1920, 1080, "", ",width=[100,500],height=[1000,3000]"},
      {1920, 1080, ",width=[1,100]", ",width=864,height=156"},
      {640, 480, ",width=[1,4000],height=[1,4000]", ",width=300,height=300"},
  };
  for (const TwoResizesCase &c : cases) {
    SCOPED_TRACE(std::to_string(c.width) + "x" + std::to_string(c.height) + " ! between" +
                 c.between + " ! after" + c.after);
    const std::vector<std::pair<int, int>> expected = videoscale_sizes(c);
    const std::vector<std::string> outputs = cudaresize_outputs(c);
    ASSERT_EQ(expected.size(), 2u);
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_EQ(size_of(outputs[0]), expected[0]) << outputs[0];
    EXPECT_EQ(size_of(outputs[1]), expected[1]) << outputs[1];
    // Equal caps on both sides of the second: it passes buffers through.
    if (expected[0] == expected[1]) {
      EXPECT_TRUE(caps_equal(outputs[1], outputs[0])) << outputs[1];
    }
  }
  // The chain, spelled out.
  const std::vector<std::string> outputs =
      cudaresize_outputs({1920, 1080, "", ",width=864,height=156"});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_TRUE(caps_equal(outputs[0], caps_string("RGB", 864, 156, true))) << outputs[0];
  EXPECT_TRUE(caps_equal(outputs[1], outputs[0])) << outputs[1];
}

TEST(ResizeNegotiation, ShortSideRuleFixesTheSizeAndYuvBecomesRgb) {
  GstElement *resize = make_resize("method=bicubic short-side=518 multiple-of=14");
  const std::string output = negotiated_output(resize, caps_string("NV12", 1920, 1080, true));
  EXPECT_TRUE(caps_equal(output, caps_string("RGB", 924, 518, true))) << output;
  // A capsfilter asking for another size cannot be met.
  EXPECT_EQ(negotiated_output(resize, caps_string("NV12", 1920, 1080, true),
                              caps_string("RGB", 640, 640, true).c_str()),
            "EMPTY");
  gst_object_unref(resize);
}

// A direction that turns by 90 degrees exchanges the sizes derived from the
// input: the kept size, the short-side rule's (applied to the turned
// frame); flips and 180 keep them. Both ways: an output size asks for the
// turned input size first.
TEST(ResizeNegotiation, TurningBy90DegreesSwapsTheDerivedSize) {
  for (const char *direction : {"90r", "90l", "ul-lr", "ur-ll"}) {
    SCOPED_TRACE(direction);
    GstElement *resize = make_resize(std::string("video-direction=") + direction);
    std::string output = negotiated_output(resize, caps_string("RGBA", 1920, 1080, true));
    EXPECT_TRUE(caps_equal(output, caps_string("RGBA", 1080, 1920, true))) << output;
    GstCaps *output_caps = gst_caps_from_string(caps_string("RGB", 640, 480, true).c_str());
    GstCaps *upstream = GST_BASE_TRANSFORM_GET_CLASS(resize)->transform_caps(
        GST_BASE_TRANSFORM(resize), GST_PAD_SRC, output_caps, nullptr);
    gst_caps_unref(output_caps);
    ASSERT_GT(gst_caps_get_size(upstream), 0u);
    gint width = 0, height = 0;
    const GstStructure *first = gst_caps_get_structure(upstream, 0);
    EXPECT_TRUE(gst_structure_get_int(first, "width", &width) && width == 480)
        << to_string(upstream);
    EXPECT_TRUE(gst_structure_get_int(first, "height", &height) && height == 640)
        << to_string(upstream);
    gst_caps_unref(upstream);
    gst_object_unref(resize);
    resize = make_resize(std::string("short-side=518 multiple-of=14 video-direction=") + direction);
    output = negotiated_output(resize, caps_string("NV12", 1920, 1080, true));
    EXPECT_TRUE(caps_equal(output, caps_string("RGB", 518, 924, true))) << output;
    gst_object_unref(resize);
  }
  for (const char *direction : {"identity", "180", "horiz", "vert"}) {
    GstElement *resize = make_resize(std::string("video-direction=") + direction);
    const std::string output = negotiated_output(resize, caps_string("RGBA", 1920, 1080, true));
    EXPECT_TRUE(caps_equal(output, caps_string("RGBA", 1920, 1080, true)))
        << direction << ": " << output;
    gst_object_unref(resize);
  }
}

// video-direction=auto takes the direction from image-orientation tags as
// videoflip does: a stream tag over a global one, a stream tag without
// orientation back to the global one, a global one without it the
// identity, a new stream forgets them; an explicit direction ignores tags.
TEST(ResizeNegotiation, AutoFollowsImageOrientationTags) {
  GstElement *resize = make_resize("video-direction=auto");
  const auto send = [&](GstEvent *event) {
    GST_BASE_TRANSFORM_GET_CLASS(resize)->sink_event(GST_BASE_TRANSFORM(resize), event);
  };
  const auto send_tags = [&](GstTagScope scope, const char *orientation) {
    GstTagList *tags = orientation != nullptr
                           ? gst_tag_list_new(GST_TAG_IMAGE_ORIENTATION, orientation, nullptr)
                           : gst_tag_list_new(GST_TAG_TITLE, "no orientation", nullptr);
    gst_tag_list_set_scope(tags, scope);
    send(gst_event_new_tag(tags));
  };
  const std::string input = caps_string("RGBA", 1920, 1080, true);
  const std::string kept = input, turned = caps_string("RGBA", 1080, 1920, true);
  const auto expect_output = [&](const std::string &expected, const char *step) {
    const std::string output = negotiated_output(resize, input);
    EXPECT_TRUE(caps_equal(output, expected)) << step << ": " << output;
  };
  send(gst_event_new_stream_start("first"));
  expect_output(kept, "no tags");
  send_tags(GST_TAG_SCOPE_GLOBAL, "rotate-90");
  expect_output(turned, "global rotate-90");
  send_tags(GST_TAG_SCOPE_STREAM, "flip-rotate-180");
  expect_output(kept, "stream flip-rotate-180 over global rotate-90");
  send_tags(GST_TAG_SCOPE_STREAM, nullptr);
  expect_output(turned, "stream tag without orientation: the global one again");
  send_tags(GST_TAG_SCOPE_GLOBAL, nullptr);
  expect_output(kept, "global tag without orientation");
  send_tags(GST_TAG_SCOPE_STREAM, "flip-rotate-270");
  expect_output(turned, "stream flip-rotate-270");
  send(gst_event_new_stream_start("first"));
  expect_output(turned, "the same stream again");
  send(gst_event_new_stream_start("second"));
  expect_output(kept, "a new stream");
  send_tags(GST_TAG_SCOPE_STREAM, "rotate-270");
  gst_util_set_object_arg(G_OBJECT(resize), "video-direction", "180");
  expect_output(kept, "an explicit direction");
  gst_object_unref(resize);
}

// --- Errors -----------------------------------------------------------------

// The caps event's way into the element (its sink_event), without starting
// it: the element's checks run as when upstream sends caps.
std::string caps_event_error(GstElement *element, const std::string &input, bool *accepted) {
  return posted_error(element, [&]() {
    GstCaps *caps = gst_caps_from_string(input.c_str());
    *accepted = GST_BASE_TRANSFORM_GET_CLASS(element)->sink_event(GST_BASE_TRANSFORM(element),
                                                                  gst_event_new_caps(caps));
    gst_caps_unref(caps);
  });
}

TEST(ResizeErrors, AnImpossibleShortSideIsNamedAtCapsTime) {
  GstElement *resize = make_resize("short-side=2000000 multiple-of=14");
  const std::string input = caps_string("RGBA", 1920, 1080, true);
  // The caps are let through (any size) so that the caps event, not a bare
  // not-negotiated upstream, reports the problem.
  bool accepted = true;
  const std::string error = caps_event_error(resize, input, &accepted);
  EXPECT_FALSE(accepted);
  EXPECT_NE(error.find("Impossible cudaresize settings"), std::string::npos) << error;
  EXPECT_NE(error.find("1920x1080"), std::string::npos) << error;
  EXPECT_NE(error.find("2000000"), std::string::npos) << error;
  gst_object_unref(resize);
}

// resize_params_error()'s reason reaches the user when the caps are set:
// here an output taller than one kernel launch covers.
TEST(ResizeErrors, KernelLimitsAreNamedAtCapsTime) {
  GstElement *resize = make_resize("add-borders=true");
  GstCaps *in_caps = gst_caps_from_string(caps_string("RGBA", 64, 64, true).c_str());
  GstCaps *out_caps = gst_caps_from_string(caps_string("RGB", 1, 600000, true).c_str());
  gboolean configured = TRUE;
  const std::string error = posted_error(resize, [&]() {
    configured = GST_BASE_TRANSFORM_GET_CLASS(resize)->set_caps(GST_BASE_TRANSFORM(resize), in_caps,
                                                                out_caps);
  });
  EXPECT_FALSE(configured);
  EXPECT_NE(error.find("64x64 RGBA to 1x600000 RGB"), std::string::npos) << error;
  EXPECT_NE(error.find("destination height 600000"), std::string::npos) << error;
  gst_caps_unref(out_caps);
  gst_caps_unref(in_caps);
  gst_object_unref(resize);
}

TEST(ResizeErrors, OutputCapsOtherThanTheRulesSizeAreRefused) {
  GstElement *resize = make_resize("short-side=518 multiple-of=14");
  GstCaps *in_caps = gst_caps_from_string(caps_string("NV12", 1920, 1080, true).c_str());
  GstCaps *out_caps = gst_caps_from_string(caps_string("RGB", 640, 640, true).c_str());
  gboolean configured = TRUE;
  const std::string error = posted_error(resize, [&]() {
    configured = GST_BASE_TRANSFORM_GET_CLASS(resize)->set_caps(GST_BASE_TRANSFORM(resize), in_caps,
                                                                out_caps);
  });
  EXPECT_FALSE(configured);
  EXPECT_NE(error.find("640x640 differ from the 924x518"), std::string::npos) << error;
  gst_caps_unref(out_caps);
  gst_caps_unref(in_caps);
  gst_object_unref(resize);
}

TEST(ResizeErrors, AnImpossibleRuleStopsAPipelineWithItsNumbers) {
  CUDAPREP_REQUIRE_GPU();
  const std::string error = pipeline_error(
      "videotestsrc num-buffers=2 ! video/x-raw,width=1920,height=1080 ! cudaframeupload ! "
      "cudaresize short-side=2000000 ! cudaframedownload ! fakesink");
  EXPECT_NE(error.find("Impossible cudaresize settings"), std::string::npos) << error;
  EXPECT_NE(error.find("2000000"), std::string::npos) << error;
}

}  // namespace
