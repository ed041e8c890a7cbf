// cudaresize: properties, caps maths (any size, the short-side rule, format
// conversion, fixation, passthrough, video-direction's swapped sizes and
// auto's tags) and clear errors at caps time, all without a GPU; on a GPU,
// upload ! cudaresize ! download and
// upload ! cudacrop ! cudaresize ! download against the CPU reference
// (cudaprep::ref) within +-1 per value, letterbox borders exact, and the
// geometry meta mapping tensor points back to the source frame. The rows a
// downscale tells the upload to copy: base/test_region.cpp.
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "cudaprep/resize.h"
#include "base/gstcudaprepregion.h"
#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "common/kernel_helpers.h"
#include "reference/color_ref.h"
#include "reference/resize_ref.h"

namespace {

using namespace cudaprep::test;
using cudaprep::PixelFormat;
using cudaprep::PixelRect;
using cudaprep::ref::HostFrame;

const char *const kOutputFormats[] = {"RGB", "BGR", "RGBA", "BGRA", "RGBx", "BGRx", "GRAY8"};

// A cudaresize configured as on a gst-launch line, e.g. "short-side=518".
GstElement *make_resize(const std::string &properties) {
  GError *error = nullptr;
  GstElement *element = gst_parse_launch(("cudaresize " + properties).c_str(), &error);
  EXPECT_EQ(error, nullptr) << properties << ": " << (error != nullptr ? error->message : "");
  if (error != nullptr) g_error_free(error);
  return element;
}

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

// --- On the GPU: pixels against the CPU reference ----------------------------

GstVideoInfo video_info(const std::string &caps_text) {
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string(caps_text.c_str());
  EXPECT_TRUE(gst_video_info_from_caps(&info, caps)) << caps_text;
  gst_caps_unref(caps);
  return info;
}

PixelFormat pixel_format(const GstVideoInfo &info) {
  PixelFormat format = PixelFormat::kRGBA;
  EXPECT_TRUE(gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&info), &format));
  return format;
}

// The visible pixels of a system-memory frame as a compact HostFrame.
HostFrame host_frame(GstBuffer *buffer, const GstVideoInfo &info) {
  HostFrame frame(pixel_format(info), GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane)
    frame.planes[plane] = plane_bytes(buffer, info, plane);
  return frame;
}

// Compares a downloaded RGB-family/GRAY8 frame with the reference: within
// +-1 inside `image` (the resampled rectangle), exact in the borders.
// Returns a description of the first bad value, empty if none.
std::string compare(const std::vector<guint8> &actual, const HostFrame &expected,
                    const PixelRect &image) {
  const size_t row_bytes = cudaprep::plane_row_bytes(expected.format, 0, expected.width);
  const int bytes_per_pixel = static_cast<int>(row_bytes / expected.width);
  if (actual.size() != row_bytes * expected.height)
    return "output has " + std::to_string(actual.size()) + " bytes, expected " +
           std::to_string(row_bytes * expected.height);
  int worst = 0;
  for (int y = 0; y < expected.height; ++y) {
    for (size_t byte = 0; byte < row_bytes; ++byte) {
      const int x = static_cast<int>(byte) / bytes_per_pixel;
      const bool inside =
          x >= image.x && x < image.x + image.width && y >= image.y && y < image.y + image.height;
      const int got = actual[y * row_bytes + byte];
      const int want = expected.row(0, y)[byte];
      worst = std::max(worst, std::abs(got - want));
      if (std::abs(got - want) > (inside ? 1 : 0)) {
        std::ostringstream message;
        message << "first bad value at pixel (" << x << ", " << y << ") channel "
                << byte % bytes_per_pixel << (inside ? " (image)" : " (border)") << ": got " << got
                << ", reference " << want;
        return message.str();
      }
    }
  }
  return {};
}

struct ResizeCase {
  const char *name;
  const char *input_format;
  int width, height;
  const char *colorimetry;  // caps colorimetry; nullptr leaves it unset
  cudaprep::Colorimetry expected_colorimetry;
  const char *output_format;
  int out_width, out_height;
  const char *properties;  // cudaresize's
  cudaprep::Interpolation method;
  PixelRect image;      // where the source lands; 0x0 = the whole output
  uint8_t pad_rgba[4];  // the pad value the properties mean, as R,G,B,A
  cudaprep::Orientation orientation = cudaprep::Orientation::kIdentity;  // video-direction's
  bool antialias = false;                                                // antialias's
  cudaprep::AntialiasIntermediate antialias_intermediate =               // antialias-intermediate's
      cudaprep::AntialiasIntermediate::kFloat;
};

// gtest names a failing case by this (its byte dump would read padding).
void PrintTo(const ResizeCase &c, std::ostream *os) {
  *os << c.name << " " << c.input_format << " " << c.width << "x" << c.height << " -> "
      << c.output_format << " " << c.out_width << "x" << c.out_height << " (" << c.properties
      << ")";
}

constexpr cudaprep::Colorimetry kBt601Limited{cudaprep::ColorMatrix::kBT601,
                                              cudaprep::ColorRange::kLimited};
constexpr cudaprep::Colorimetry kBt709Limited{cudaprep::ColorMatrix::kBT709,
                                              cudaprep::ColorRange::kLimited};
constexpr cudaprep::Colorimetry kBt709Full{cudaprep::ColorMatrix::kBT709,
                                           cudaprep::ColorRange::kFull};
constexpr cudaprep::Colorimetry kBt601Full{cudaprep::ColorMatrix::kBT601,
                                           cudaprep::ColorRange::kFull};
constexpr cudaprep::Colorimetry kBt2020Limited{cudaprep::ColorMatrix::kBT2020,
                                               cudaprep::ColorRange::kLimited};
constexpr cudaprep::Colorimetry kBt2020Full{cudaprep::ColorMatrix::kBT2020,
                                            cudaprep::ColorRange::kFull};

std::string input_caps(const ResizeCase &c) {
  std::string caps = caps_string(c.input_format, c.width, c.height);
  if (c.colorimetry != nullptr) caps += std::string(",colorimetry=") + c.colorimetry;
  return caps;
}

// The whole output when the case gives no rectangle.
PixelRect image_rect(const ResizeCase &c) {
  return c.image.width > 0 ? c.image : PixelRect{0, 0, c.out_width, c.out_height};
}

HostFrame reference(const HostFrame &source, const ResizeCase &c) {
  cudaprep::ResizeParams params;
  params.interpolation = c.method;
  params.source_colorimetry = c.expected_colorimetry;
  params.dst_rect = image_rect(c);
  params.orientation = c.orientation;
  params.antialias = c.antialias;
  params.antialias_intermediate = c.antialias_intermediate;
  std::memcpy(params.pad_value, c.pad_rgba, 4);
  const GstVideoInfo out_info = video_info(caps_string(c.output_format, c.out_width, c.out_height));
  return cudaprep::ref::resize_reference(source, pixel_format(out_info), c.out_width, c.out_height,
                                         params);
}

// Where the point (u, v) of a source_width x source_height window turned by
// `orientation` lies in the window, in continuous coordinates: the
// reference's pixel map (ref::oriented_source_pixel) extended to real
// pixel coordinates (it is affine), at pixel centres.
std::pair<double, double> unturned_point(cudaprep::Orientation orientation, int source_width,
                                         int source_height, double u, double v) {
  int x00, y00, x10, y10, x01, y01;
  cudaprep::ref::oriented_source_pixel(orientation, source_width, source_height, 0, 0, &x00, &y00);
  cudaprep::ref::oriented_source_pixel(orientation, source_width, source_height, 1, 0, &x10, &y10);
  cudaprep::ref::oriented_source_pixel(orientation, source_width, source_height, 0, 1, &x01, &y01);
  const double x = u - 0.5, y = v - 0.5;
  return {x00 + (x10 - x00) * x + (x01 - x00) * y + 0.5,
          y00 + (y10 - y00) * x + (y01 - y00) * y + 0.5};
}

// Checks that the geometry meta maps tensor points back to where the test
// computes them: corners and centre of the image rectangle land on the
// source window [left, left + source_width) x [top, top + source_height),
// turned by `orientation`.
void expect_geometry(GstBuffer *output, const PixelRect &image, double left, double top,
                     int source_width, int source_height, const std::string &what,
                     cudaprep::Orientation orientation = cudaprep::Orientation::kIdentity) {
  GstCudaPrepGeometryMeta *meta = gst_buffer_get_cuda_prep_geometry_meta(output);
  ASSERT_NE(meta, nullptr) << what << ": output has no geometry meta";
  const bool swapped = cudaprep::swaps_axes(orientation);
  const int turned_width = swapped ? source_height : source_width;
  const int turned_height = swapped ? source_width : source_height;
  for (const auto &[fx, fy] :
       {std::pair{0.0, 0.0}, std::pair{1.0, 1.0}, std::pair{0.5, 0.5}, std::pair{0.25, 0.75}}) {
    double source_x = 0, source_y = 0;
    gst_cuda_prep_geometry_to_source(&meta->geometry, image.x + fx * image.width,
                                     image.y + fy * image.height, &source_x, &source_y);
    const auto [expected_x, expected_y] = unturned_point(orientation, source_width, source_height,
                                                         fx * turned_width, fy * turned_height);
    EXPECT_NEAR(source_x, left + expected_x, 0.5) << what << " at fraction " << fx;
    EXPECT_NEAR(source_y, top + expected_y, 0.5) << what << " at fraction " << fy;
  }
}

class ResizePixels : public ::testing::TestWithParam<ResizeCase> {};

TEST_P(ResizePixels, MatchTheCpuReference) {
  CUDAPREP_REQUIRE_GPU();
  const ResizeCase c = GetParam();
  const GstVideoInfo in_info = video_info(input_caps(c));
  const std::string out_caps = caps_string(c.output_format, c.out_width, c.out_height);
  const GstVideoInfo out_info = video_info(out_caps);
  const std::string description =
      std::string("cudaframeupload ! cudaresize ") + c.properties + " ! cudaframedownload";
  GstHarness *harness = gst_harness_new_parse(description.c_str());
  gst_harness_set_src_caps_str(harness, input_caps(c).c_str());
  gst_harness_set_sink_caps_str(harness, out_caps.c_str());
  std::mt19937 rng(c.width * 7919 + c.out_width);
  for (int frame = 0; frame < 2; ++frame) {
    GstBuffer *input = random_frame(in_info, rng);
    const HostFrame expected = reference(host_frame(input, in_info), c);
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK) << c.name;
    GstBuffer *output = gst_harness_pull(harness);
    ASSERT_NE(output, nullptr) << c.name;
    const std::string mismatch = compare(plane_bytes(output, out_info, 0), expected, image_rect(c));
    EXPECT_TRUE(mismatch.empty()) << c.name << " (" << input_caps(c) << " -> " << out_caps << ", "
                                  << c.properties << ", frame " << frame << "): " << mismatch;
    expect_geometry(output, image_rect(c), 0, 0, c.width, c.height, c.name, c.orientation);
    gst_buffer_unref(output);
  }
  gst_harness_teardown(harness);
}

std::vector<ResizeCase> resize_cases() {
  using cudaprep::Interpolation;
  std::vector<ResizeCase> cases;
  const std::pair<const char *, Interpolation> methods[] = {
      {"method=nearest", Interpolation::kNearest},
      {"method=bilinear", Interpolation::kBilinear},
      {"method=bicubic", Interpolation::kBicubic},
      {"method=area", Interpolation::kArea}};
  // Every method, shrinking and enlarging, from RGB-family, grey and YUV
  // sources (BT.709 limited caps), to several output formats.
  struct Source {
    const char *format;
    const char *colorimetry;
    cudaprep::Colorimetry expected;
    const char *output;
  } const sources[] = {{"RGBA", nullptr, {}, "RGB"},
                       {"BGRx", nullptr, {}, "BGRA"},
                       {"RGB", nullptr, {}, "BGR"},
                       {"GRAY8", nullptr, {}, "RGBx"},
                       {"NV12", "bt709", kBt709Limited, "RGB"},
                       {"I420", "bt709", kBt709Limited, "BGR"},
                       {"YUY2", "bt709", kBt709Limited, "GRAY8"}};
  for (const auto &[properties, method] : methods)
    for (const Source &source : sources) {
      cases.push_back({"shrink",
                       source.format,
                       333,
                       201,
                       source.colorimetry,
                       source.expected,
                       source.output,
                       160,
                       96,
                       properties,
                       method,
                       {},
                       {0, 0, 0, 255}});
      cases.push_back({"enlarge",
                       source.format,
                       47,
                       31,
                       source.colorimetry,
                       source.expected,
                       source.output,
                       101,
                       77,
                       properties,
                       method,
                       {},
                       {0, 0, 0, 255}});
    }
  // Colorimetry from the caps: unset (GStreamer: BT.601 for SD, BT.709 for
  // HD, limited range), explicit BT.601, full-range BT.709.
  cases.push_back({"unset_sd",
                   "NV12",
                   640,
                   480,
                   nullptr,
                   kBt601Limited,
                   "RGB",
                   320,
                   240,
                   "",
                   Interpolation::kBilinear,
                   {},
                   {0, 0, 0, 255}});
  cases.push_back({"unset_hd",
                   "I420",
                   1280,
                   720,
                   nullptr,
                   kBt709Limited,
                   "RGB",
                   320,
                   180,
                   "method=area",
                   Interpolation::kArea,
                   {},
                   {0, 0, 0, 255}});
  cases.push_back({"bt601",
                   "YUY2",
                   1280,
                   720,
                   "bt601",
                   kBt601Limited,
                   "RGBA",
                   300,
                   200,
                   "",
                   Interpolation::kBilinear,
                   {},
                   {0, 0, 0, 255}});
  cases.push_back({"bt709_full",
                   "NV12",
                   640,
                   360,
                   "1:3:5:1",
                   kBt709Full,
                   "BGRx",
                   200,
                   100,
                   "",
                   Interpolation::kBilinear,
                   {},
                   {0, 0, 0, 255}});
  // BT.2020 and BT.601 full range from 8-bit NV12; 10/12/16-bit 4:2:0 as
  // NVDEC writes it (HEVC Main10: P010, BT.2020), limited and full range.
  struct ColourCase {
    const char *name, *format, *colorimetry;
    cudaprep::Colorimetry expected;
    const char *properties;
    Interpolation method;
  } const colour_cases[] = {
      {"bt2020", "NV12", "bt2020", kBt2020Limited, "", Interpolation::kBilinear},
      {"bt601_full", "NV12", "1:4:0:0", kBt601Full, "", Interpolation::kBilinear},
      {"p010_bt2020", "P010_10LE", "bt2020", kBt2020Limited, "", Interpolation::kBilinear},
      {"p010_bt2020_full", "P010_10LE", "1:6:0:0", kBt2020Full, "method=area",
       Interpolation::kArea},
      {"p010_bt709", "P010_10LE", "bt709", kBt709Limited, "method=bicubic",
       Interpolation::kBicubic},
      {"p012_bt601_full", "P012_LE", "1:4:0:0", kBt601Full, "", Interpolation::kBilinear},
      {"p016_bt2020", "P016_LE", "bt2020", kBt2020Limited, "method=nearest",
       Interpolation::kNearest}};
  for (const ColourCase &colour : colour_cases)
    cases.push_back({colour.name,
                     colour.format,
                     322,
                     182,
                     colour.colorimetry,
                     colour.expected,
                     "RGB",
                     160,
                     90,
                     colour.properties,
                     colour.method,
                     {},
                     {0, 0, 0, 255}});
  // Letterbox: Ultralytics' rectangles worked out by hand; borders exact.
  cases.push_back({"letterbox_yolo",
                   "RGBA",
                   1920,
                   1080,
                   nullptr,
                   {},
                   "RGB",
                   640,
                   640,
                   "add-borders=true pad-value=<114,114,114>",
                   Interpolation::kBilinear,
                   {0, 140, 640, 360},
                   {114, 114, 114, 255}});
  cases.push_back({"letterbox_top_left",
                   "NV12",
                   1920,
                   1080,
                   "bt709",
                   kBt709Limited,
                   "RGB",
                   640,
                   640,
                   "add-borders=true letterbox-align=top-left pad-value=<114,114,114>",
                   Interpolation::kBilinear,
                   {0, 0, 640, 360},
                   {114, 114, 114, 255}});
  cases.push_back({"letterbox_rgb_pad",
                   "NV12",
                   640,
                   480,
                   nullptr,
                   kBt601Limited,
                   "BGR",
                   320,
                   320,
                   "method=nearest add-borders=true pad-value=<1,2,3>",
                   Interpolation::kNearest,
                   {0, 40, 320, 240},
                   {1, 2, 3, 255}});
  cases.push_back({"letterbox_portrait_alpha",
                   "GRAY8",
                   100,
                   200,
                   nullptr,
                   {},
                   "RGBA",
                   64,
                   64,
                   "method=bicubic add-borders=true pad-value=<10,20,30,40>",
                   Interpolation::kBicubic,
                   {16, 0, 32, 64},
                   {10, 20, 30, 40}});
  cases.push_back({"letterbox_grey_pad",
                   "I420",
                   300,
                   100,
                   nullptr,
                   kBt601Limited,
                   "BGRx",
                   90,
                   90,
                   "method=area add-borders=true pad-value=<50>",
                   Interpolation::kArea,
                   {0, 30, 90, 30},
                   {50, 50, 50, 255}});
  cases.push_back({"letterbox_grey_out",
                   "RGBx",
                   160,
                   90,
                   nullptr,
                   {},
                   "GRAY8",
                   64,
                   64,
                   "add-borders=true pad-value=<200,100,50>",
                   Interpolation::kBilinear,
                   {0, 14, 64, 36},
                   {200, 100, 50, 255}});
  // Depth-Anything: size derived from the input, no capsfilter needed for it.
  cases.push_back({"depth_anything",
                   "NV12",
                   1920,
                   1080,
                   "bt709",
                   kBt709Limited,
                   "RGB",
                   924,
                   518,
                   "method=bicubic short-side=518 multiple-of=14",
                   Interpolation::kBicubic,
                   {},
                   {0, 0, 0, 255}});
  // Every video-direction, shrinking a YUV and an RGB frame into the turned
  // size; equal caps turned (never passed through); a turned letterbox; the
  // short-side rule on the turned frame.
  const char *const directions[] = {"identity", "90r",  "180",   "90l",
                                    "horiz",    "vert", "ul-lr", "ur-ll"};
  static std::vector<std::string> direction_properties;  // the cases keep pointers
  direction_properties.reserve(3 * 8);
  struct TurnedSource {
    const char *name, *format;
    int width, height;
    const char *colorimetry;
    cudaprep::Colorimetry expected;
    const char *output;
    int out_width, out_height;  // before turning
    const char *method_name;
    Interpolation method;
  } const turned_sources[] = {
      {"turned", "NV12", 334, 200, "bt709", kBt709Limited, "RGB", 160, 96, "bicubic",
       Interpolation::kBicubic},
      {"turned", "RGBA", 47, 31, nullptr, {}, "BGRx", 30, 20, "area", Interpolation::kArea},
      {"turned_same_caps",
       "RGBA",
       48,
       48,
       nullptr,
       {},
       "RGBA",
       48,
       48,
       "nearest",
       Interpolation::kNearest},
  };
  for (int d = 0; d < 8; ++d) {
    const auto orientation = static_cast<cudaprep::Orientation>(d);
    const bool swapped = cudaprep::swaps_axes(orientation);
    for (const TurnedSource &source : turned_sources) {
      // The identity passes equal caps through (ResizePassthrough).
      if (d == 0 && source.width == source.out_width && source.height == source.out_height)
        continue;
      direction_properties.push_back(std::string("method=") + source.method_name +
                                     " video-direction=" + directions[d]);
      ResizeCase turned{source.name,
                        source.format,
                        source.width,
                        source.height,
                        source.colorimetry,
                        source.expected,
                        source.output,
                        swapped ? source.out_height : source.out_width,
                        swapped ? source.out_width : source.out_height,
                        direction_properties.back().c_str(),
                        source.method,
                        {},
                        {0, 0, 0, 255}};
      turned.orientation = orientation;
      cases.push_back(turned);
    }
  }
  ResizeCase letterbox{"turned_letterbox",
                       "NV12",
                       320,
                       180,
                       "bt709",
                       kBt709Limited,
                       "RGB",
                       96,
                       96,
                       "video-direction=90l add-borders=true pad-value=<114>",
                       Interpolation::kBilinear,
                       {21, 0, 54, 96},
                       {114, 114, 114, 255}};
  letterbox.orientation = cudaprep::Orientation::kRotate270;
  cases.push_back(letterbox);
  ResizeCase rule{"turned_short_side",
                  "NV12",
                  1920,
                  1080,
                  "bt709",
                  kBt709Limited,
                  "RGB",
                  518,
                  924,
                  "method=bicubic short-side=518 multiple-of=14 video-direction=ur-ll",
                  Interpolation::kBicubic,
                  {},
                  {0, 0, 0, 255}};
  rule.orientation = cudaprep::Orientation::kAntiTranspose;
  cases.push_back(rule);
  // Antialiased, both intermediates: torchvision's Resize(256) of a 1080p
  // frame (short-side rule), from RGB (PIL's input) and NV12, and an
  // enlargement along one axis only.
  struct Antialiased {
    const char *name, *format;
    int width, height;
    const char *colorimetry;
    cudaprep::Colorimetry expected;
    int out_width, out_height;
    const char *properties;
    Interpolation method;
    cudaprep::AntialiasIntermediate intermediate;
  } const antialiased[] = {
      {"antialias_uint8",
       "RGB",
       1920,
       1080,
       nullptr,
       {},
       455,
       256,
       "method=bicubic short-side=256 antialias=true antialias-intermediate=uint8",
       Interpolation::kBicubic,
       cudaprep::AntialiasIntermediate::kUint8},
      {"antialias_uint8", "NV12", 1920, 1080, "bt709", kBt709Limited, 455, 256,
       "method=bilinear short-side=256 antialias=true antialias-intermediate=uint8",
       Interpolation::kBilinear, cudaprep::AntialiasIntermediate::kUint8},
      {"antialias_uint8_one_axis",
       "RGBA",
       200,
       61,
       nullptr,
       {},
       67,
       90,
       "method=bicubic antialias=true antialias-intermediate=uint8",
       Interpolation::kBicubic,
       cudaprep::AntialiasIntermediate::kUint8},
      {"antialias_float",
       "RGB",
       1920,
       1080,
       nullptr,
       {},
       455,
       256,
       "method=bicubic short-side=256 antialias=true",
       Interpolation::kBicubic,
       cudaprep::AntialiasIntermediate::kFloat},
  };
  for (const Antialiased &a : antialiased) {
    ResizeCase c{a.name,     a.format, a.width,       a.height,     a.colorimetry,
                 a.expected, "RGB",    a.out_width,   a.out_height, a.properties,
                 a.method,   {},       {0, 0, 0, 255}};
    c.antialias = true;
    c.antialias_intermediate = a.intermediate;
    cases.push_back(c);
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<ResizeCase> &info) {
  const ResizeCase &c = info.param;
  std::string name =
      std::to_string(info.index) + "_" + c.name + "_" + c.input_format + "_to_" + c.output_format;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, ResizePixels, ::testing::ValuesIn(resize_cases()), case_name);

// The application turning the frame (90r) between GstBaseTransform's
// renegotiation check and the frame's output buffer used to turn
// passthrough off from its own thread, leaving that frame with neither
// passthrough nor a pool: the push returned not-negotiated (2 runs in 8 of
// ChangesFromTheApplicationThreadApplyAtAFrameBoundary). Now that frame
// passes through as the identity its caps say, and the next one turns
// passthrough off on the streaming thread before the check, which gives
// the pool. Calls the element's functions in that order; no GPU needed.
TEST(ResizePassthrough, ADirectionSetBetweenTheChecksLeavesTheFrameThrough) {
  GstElement *resize = make_resize("");
  ASSERT_NE(resize, nullptr);
  auto *trans = GST_BASE_TRANSFORM(resize);
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS(trans);
  GstCaps *caps = gst_caps_from_string(caps_string("RGBA", 40, 30, true).c_str());
  gst_base_transform_set_passthrough(trans, TRUE);  // as GStreamer does for equal caps
  ASSERT_TRUE(klass->set_caps(trans, caps, caps));
  gst_util_set_object_arg(G_OBJECT(resize), "video-direction", "90r");  // the application
  GstBuffer *input = gst_buffer_new();
  GstBuffer *output = nullptr;
  EXPECT_EQ(klass->prepare_output_buffer(trans, input, &output), GST_FLOW_OK);
  EXPECT_EQ(output, input);
  EXPECT_TRUE(gst_base_transform_is_passthrough(trans));
  // The next frame.
  klass->before_transform(trans, input);
  EXPECT_FALSE(gst_base_transform_is_passthrough(trans));
  EXPECT_TRUE(gst_pad_check_reconfigure(GST_BASE_TRANSFORM_SRC_PAD(trans)));
  gst_buffer_unref(input);
  gst_caps_unref(caps);
  gst_object_unref(resize);
}

// Setting a direction while frames pass through between equal caps turns
// the next frame (passthrough ends without new caps); back to the identity,
// frames are copied unchanged.
TEST(ResizePassthrough, ADirectionSetWhilePlayingTurnsTheNextFrame) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  const GstVideoInfo info = video_info(caps);
  GstHarness *harness =
      gst_harness_new_parse("cudaframeupload ! cudaresize name=resize ! cudaframedownload");
  GstElement *resize = gst_bin_get_by_name(GST_BIN(harness->element), "resize");
  ASSERT_NE(resize, nullptr);
  gst_harness_set_src_caps_str(harness, caps.c_str());
  gst_harness_set_sink_caps_str(harness, caps.c_str());
  std::mt19937 rng(4);
  for (const char *direction : {"identity", "180", "horiz", "identity"}) {
    SCOPED_TRACE(direction);
    gst_util_set_object_arg(G_OBJECT(resize), "video-direction", direction);
    GstVideoOrientationMethod method = GST_VIDEO_ORIENTATION_IDENTITY;
    g_object_get(resize, "video-direction", &method, nullptr);
    GstBuffer *input = random_frame(info, rng);
    const HostFrame turned =
        cudaprep::ref::orient(host_frame(input, info), static_cast<cudaprep::Orientation>(method));
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
    GstBuffer *output = gst_harness_pull(harness);
    ASSERT_NE(output, nullptr);
    EXPECT_EQ(plane_bytes(output, info, 0), turned.planes[0]);
    gst_buffer_unref(output);
  }
  gst_object_unref(resize);
  gst_harness_teardown(harness);
}

// Issue 23: the application moves and resizes the crop and turns the
// frame from its own thread while frames flow. Every frame that comes out
// is wholly one setting's frame: its caps and pixels are those of one
// (region, direction) pair, never a region with the other direction's size
// or a turn stretched into the old caps. A frame in flight when its region
// changes may be dropped (with a reason); at most one per change.
TEST(ResizeLiveProperties, ChangesFromTheApplicationThreadApplyAtAFrameBoundary) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  const GstVideoInfo info = video_info(caps);
  GstHarness *harness = gst_harness_new_parse(
      "cudaframeupload ! cudacrop name=crop region=\"<0,0,40,30>\" ! "
      "cudaresize name=resize ! cudaframedownload");
  GstElement *crop = gst_bin_get_by_name(GST_BIN(harness->element), "crop");
  GstElement *resize = gst_bin_get_by_name(GST_BIN(harness->element), "resize");
  gst_harness_set_src_caps_str(harness, caps.c_str());
  gst_harness_set_sink_caps_str(harness, "video/x-raw,format=RGBA");
  const char *regions[] = {"<0,0,40,30>", "<8,6,40,30>", "<4,4,48,36>"};
  const PixelRect rects[] = {{0, 0, 40, 30}, {8, 6, 40, 30}, {4, 4, 48, 36}};
  const char *directions[] = {"identity", "90r"};

  std::atomic<bool> done{false};
  std::atomic<int> changes{0};
  std::thread application([&] {
    std::mt19937 pick(11);
    while (!done) {
      if (pick() % 2 == 0)
        gst_util_set_object_arg(G_OBJECT(crop), "region", regions[pick() % 3]);
      else
        gst_util_set_object_arg(G_OBJECT(resize), "video-direction", directions[pick() % 2]);
      ++changes;
      g_usleep(300 + pick() % 700);
    }
  });
  // Stops the application thread however the test ends (a failed ASSERT
  // returns early; a thread left running would abort the whole suite).
  struct StopOnExit {
    std::atomic<bool> &done;
    std::thread &thread;
    ~StopOnExit() {
      done = true;
      if (thread.joinable()) thread.join();
    }
  } stop_on_exit{done, application};
  constexpr int kFrames = 400;
  std::mt19937 rng(12);
  int matched = 0, outputs = 0;
  for (int frame = 0; frame < kFrames; ++frame) {
    GstBuffer *input = random_frame(info, rng);
    const HostFrame source = host_frame(input, info);
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK) << "frame " << frame;
    GstBuffer *output = gst_harness_try_pull(harness);
    if (output == nullptr) continue;  // dropped: counted below
    ++outputs;
    GstCaps *out_caps = gst_pad_get_current_caps(harness->sinkpad);
    GstVideoInfo out_info;
    ASSERT_TRUE(gst_video_info_from_caps(&out_info, out_caps));
    gst_caps_unref(out_caps);
    const std::vector<guint8> bytes = plane_bytes(output, out_info, 0);
    gst_buffer_unref(output);
    int equal = 0;
    for (const PixelRect &rect : rects) {
      HostFrame cropped(PixelFormat::kRGBA, rect.width, rect.height);
      for (int y = 0; y < rect.height; ++y)
        std::memcpy(cropped.row(0, y), source.row(0, rect.y + y) + 4 * rect.x, 4 * rect.width);
      for (auto orientation : {cudaprep::Orientation::kIdentity, cudaprep::Orientation::kRotate90})
        equal += cudaprep::ref::orient(cropped, orientation).planes[0] == bytes;
    }
    EXPECT_EQ(equal, 1) << "frame " << frame << " (" << GST_VIDEO_INFO_WIDTH(&out_info) << "x"
                        << GST_VIDEO_INFO_HEIGHT(&out_info)
                        << ") is not the frame of one region and direction";
    matched += equal == 1;
  }
  done = true;
  application.join();
  std::printf("%d frames, %d changes, %d out, %d of them one setting's frame\n", kFrames,
              changes.load(), outputs, matched);
  EXPECT_GE(outputs, kFrames - changes.load()) << "more frames dropped than changes made";
  EXPECT_GT(changes.load(), 20) << "the application thread hardly ran";
  gst_object_unref(crop);
  gst_object_unref(resize);
  gst_harness_teardown(harness);
}

// Issue 23: an image-orientation tag mid-stream, with video-direction=auto
// behind a downscale whose rows the upload samples: the turn reads other
// rows, so the upload is asked again what to copy; every frame arrives,
// each equal to the reference of its direction (was: every frame after the
// tag dropped as "uploaded for the rows of earlier settings").
TEST(ResizeTags, AnOrientationTagMidStreamLosesNoFrame) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 96, 96);
  const GstVideoInfo info = video_info(caps);
  const std::string out_caps = caps_string("RGBA", 32, 32, true);
  const std::string description =
      "cudaframeupload ! cudaresize method=nearest video-direction=auto ! " + out_caps +
      " ! cudaframedownload";
  GstHarness *harness = gst_harness_new_parse(description.c_str());
  gst_harness_set_src_caps_str(harness, caps.c_str());
  gst_harness_set_sink_caps_str(harness, caps_string("RGBA", 32, 32).c_str());
  const GstVideoInfo out_info = video_info(caps_string("RGBA", 32, 32));
  std::mt19937 rng(9);
  for (int frame = 0; frame < 6; ++frame) {
    if (frame == 3) {
      GstTagList *tags = gst_tag_list_new(GST_TAG_IMAGE_ORIENTATION, "rotate-90", nullptr);
      ASSERT_TRUE(gst_harness_push_event(harness, gst_event_new_tag(tags)));
    }
    GstBuffer *input = random_frame(info, rng);
    cudaprep::ResizeParams params;
    params.interpolation = cudaprep::Interpolation::kNearest;
    params.orientation =
        frame < 3 ? cudaprep::Orientation::kIdentity : cudaprep::Orientation::kRotate90;
    const HostFrame expected = cudaprep::ref::resize_reference(
        host_frame(input, info), cudaprep::PixelFormat::kRGBA, 32, 32, params);
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
    GstBuffer *output = gst_harness_try_pull(harness);
    ASSERT_NE(output, nullptr) << "frame " << frame << " was lost";
    EXPECT_EQ(first_difference(plane_bytes(output, out_info, 0), expected.planes[0]), SIZE_MAX)
        << "frame " << frame;
    gst_buffer_unref(output);
  }
  gst_harness_teardown(harness);
}

// What a pad saw of the device frame going through it.
struct FrameSeen {
  int buffers = 0;
  GstBuffer *buffer = nullptr;  // compared, never dereferenced after the probe
  GstMemory *memory = nullptr;
  guint8 *device_pointer = nullptr;
  guint pending_reads = 0;
  guint64 allocations = 0;  // device allocations of every cudaprep allocator so far
};

GstPadProbeReturn record_frame(GstPad *, GstPadProbeInfo *info, gpointer data) {
  FrameSeen *seen = static_cast<FrameSeen *>(data);
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  ++seen->buffers;
  seen->buffer = buffer;
  seen->memory = gst_buffer_n_memory(buffer) > 0 ? gst_buffer_peek_memory(buffer, 0) : nullptr;
  if (seen->memory != nullptr && gst_is_cuda_prep_memory(seen->memory)) {
    seen->device_pointer = gst_cuda_prep_memory_get_device_pointer(seen->memory);
    seen->pending_reads = gst_cuda_prep_memory_get_pending_reads(seen->memory);
  }
  seen->allocations = gst_cuda_prep_memory_get_allocation_count();
  return GST_PAD_PROBE_OK;
}

// Equal caps on both sides: buffers pass through untouched. What shows that
// cudaresize ran no kernel on them: the buffer leaving it is the one that
// entered (same memory and device pointer: no frame of its own was written),
// it allocated no device memory, and no stream of its own read the frame (a
// kernel's read, even one writing in place, adds a pending read to the
// memory). The ready event is one per memory, re-recorded by each write, so
// it is not compared: it cannot tell an in-place write.
TEST(ResizePassthrough, EqualCapsPassBuffersThrough) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  const GstVideoInfo info = video_info(caps);
  GstHarness *harness = gst_harness_new_parse(
      "cudaframeupload ! cudaresize name=resize add-borders=true ! cudaframedownload");
  GstElement *resize = gst_bin_get_by_name(GST_BIN(harness->element), "resize");
  ASSERT_NE(resize, nullptr);
  FrameSeen in, out;
  for (auto [pad_name, seen] : {std::pair<const char *, FrameSeen *>{"sink", &in}, {"src", &out}}) {
    GstPad *pad = gst_element_get_static_pad(resize, pad_name);
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, record_frame, seen, nullptr);
    gst_object_unref(pad);
  }
  gst_harness_set_src_caps_str(harness, caps.c_str());
  gst_harness_set_sink_caps_str(harness, caps.c_str());
  std::mt19937 rng(1);
  GstBuffer *input = random_frame(info, rng);
  const std::vector<guint8> expected = plane_bytes(input, info, 0);
  ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer *output = gst_harness_pull(harness);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(plane_bytes(output, info, 0), expected);
  EXPECT_TRUE(gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(resize)));

  ASSERT_EQ(in.buffers, 1);
  ASSERT_EQ(out.buffers, 1);
  ASSERT_NE(in.memory, nullptr);
  ASSERT_TRUE(gst_is_cuda_prep_memory(in.memory)) << "cudaresize did not get a device frame";
  EXPECT_EQ(out.buffer, in.buffer) << "cudaresize pushed a buffer of its own";
  EXPECT_EQ(out.memory, in.memory);
  EXPECT_EQ(out.device_pointer, in.device_pointer);
  EXPECT_EQ(out.pending_reads, in.pending_reads) << "a stream of cudaresize read the frame";
  EXPECT_EQ(out.allocations, in.allocations) << "cudaresize allocated device memory";
  gst_object_unref(resize);
  gst_buffer_unref(output);
  gst_harness_teardown(harness);
}

struct CropResizeCase {
  const char *format;
  int width, height;
  int left, top, right, bottom;  // even: no chroma rounding
  const char *method;
  cudaprep::Interpolation interpolation;
};

// Without it gtest prints a case's raw bytes, struct padding included (which
// valgrind rightly reports as uninitialised).
void PrintTo(const CropResizeCase &c, std::ostream *os) {
  *os << c.format << " " << c.width << "x" << c.height << " crop left " << c.left << " top "
      << c.top << " right " << c.right << " bottom " << c.bottom << " " << c.method;
}

class CropThenResize : public ::testing::TestWithParam<CropResizeCase> {};

// cudacrop hands cudaresize a zero-copy view (offsets into the uploaded
// frame); the result equals cropping then resizing on the CPU, and the
// geometry meta maps tensor points into the crop window of the source.
TEST_P(CropThenResize, EqualsTheReferenceOfTheCrop) {
  CUDAPREP_REQUIRE_GPU();
  const CropResizeCase c = GetParam();
  const int crop_width = c.width - c.left - c.right, crop_height = c.height - c.top - c.bottom;
  const int out_width = 224, out_height = 160;
  const std::string in_caps = caps_string(c.format, c.width, c.height);
  const std::string out_caps = caps_string("RGB", out_width, out_height);
  const GstVideoInfo in_info = video_info(in_caps), out_info = video_info(out_caps);
  gchar *description = g_strdup_printf(
      "cudaframeupload ! cudacrop left=%d top=%d right=%d bottom=%d ! cudaresize name=resize "
      "method=%s ! cudaframedownload",
      c.left, c.top, c.right, c.bottom, c.method);
  GstHarness *harness = gst_harness_new_parse(description);
  g_free(description);

  // What reaches cudaresize: a view whose plane 0 starts inside the frame.
  struct SeenView {
    gsize offset = 0;
    gint stride = 0;
    guint width = 0;
  } seen;
  GstElement *resize = gst_bin_get_by_name(GST_BIN(harness->element), "resize");
  ASSERT_NE(resize, nullptr);
  GstPad *resize_sink = gst_element_get_static_pad(resize, "sink");
  gst_pad_add_probe(
      resize_sink, GST_PAD_PROBE_TYPE_BUFFER,
      [](GstPad *, GstPadProbeInfo *info, gpointer data) {
        GstVideoMeta *meta = gst_buffer_get_video_meta(GST_PAD_PROBE_INFO_BUFFER(info));
        if (meta != nullptr)
          *static_cast<SeenView *>(data) = {meta->offset[0], meta->stride[0], meta->width};
        return GST_PAD_PROBE_OK;
      },
      &seen, nullptr);
  gst_object_unref(resize_sink);
  gst_object_unref(resize);

  gst_harness_set_src_caps_str(harness, in_caps.c_str());
  gst_harness_set_sink_caps_str(harness, out_caps.c_str());
  std::mt19937 rng(c.left * 31 + c.top);
  GstBuffer *input = random_frame(in_info, rng);
  const HostFrame source = host_frame(input, in_info);
  ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer *output = gst_harness_pull(harness);
  ASSERT_NE(output, nullptr);

  const cudaprep::PlaneLayout luma = cudaprep::format_info(source.format).planes[0];
  EXPECT_EQ(seen.width, static_cast<guint>(crop_width));
  EXPECT_EQ(seen.offset, static_cast<gsize>(c.top) * seen.stride +
                             static_cast<gsize>(c.left / luma.pixels_per_unit) * luma.unit_bytes)
      << "cudaresize did not get a zero-copy view of the crop";

  cudaprep::ResizeParams params;
  params.interpolation = c.interpolation;
  params.source_colorimetry = kBt601Limited;  // GStreamer's default for these SD sizes
  const HostFrame expected =
      cudaprep::ref::resize_reference(window(source, c.left, c.top, crop_width, crop_height),
                                      PixelFormat::kRGB, out_width, out_height, params);
  const PixelRect whole{0, 0, out_width, out_height};
  const std::string mismatch = compare(plane_bytes(output, out_info, 0), expected, whole);
  EXPECT_TRUE(mismatch.empty()) << c.format << " crop l" << c.left << " t" << c.top << " r"
                                << c.right << " b" << c.bottom << " " << c.method << ": "
                                << mismatch;
  expect_geometry(output, whole, c.left, c.top, crop_width, crop_height, "crop then resize");
  gst_buffer_unref(output);
  gst_harness_teardown(harness);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CropThenResize,
    ::testing::Values(CropResizeCase{"RGBA", 640, 480, 100, 50, 37, 21, "bilinear",
                                     cudaprep::Interpolation::kBilinear},
                      CropResizeCase{"RGB", 321, 243, 11, 7, 0, 100, "area",
                                     cudaprep::Interpolation::kArea},
                      CropResizeCase{"NV12", 640, 480, 120, 60, 200, 20, "bicubic",
                                     cudaprep::Interpolation::kBicubic},
                      CropResizeCase{"I420", 352, 288, 32, 16, 0, 0, "nearest",
                                     cudaprep::Interpolation::kNearest},
                      CropResizeCase{"YUY2", 400, 300, 50, 33, 50, 3, "bilinear",
                                     cudaprep::Interpolation::kBilinear}),
    [](const ::testing::TestParamInfo<CropResizeCase> &info) {
      return std::to_string(info.index) + "_" + info.param.format + "_" + info.param.method;
    });

}  // namespace
