// cudacrop: caps maths, clear errors, and on a GPU exact cropped pixels both
// as zero-copy views and as compact copies. What cudacrop tells the upload
// (its region) and live region changes: base/test_region.cpp.
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "base/gstcudaprepbasetransform.h"
#include "common/cuda_test.h"
#include "common/gst_frames.h"

namespace {

using namespace cudaprep::test;

GstElement *make_crop(const char *properties) {
  GstElement *crop = gst_element_factory_make("cudacrop", nullptr);
  gchar **pairs = g_strsplit(properties, " ", -1);
  for (gchar **pair = pairs; *pair != nullptr && **pair != '\0'; ++pair) {
    gchar **key_value = g_strsplit(*pair, "=", 2);
    g_object_set(crop, key_value[0], atoi(key_value[1]), nullptr);
    g_strfreev(key_value);
  }
  g_strfreev(pairs);
  return crop;
}

TEST(CropCaps, EdgesShrinkTheFrame) {
  GstElement *crop = make_crop("left=10 right=20 top=5 bottom=7");
  GstCaps *out = caps_downstream_of(crop, caps_string("RGBA", 640, 480, true).c_str());
  GstCaps *expected = gst_caps_from_string(caps_string("RGBA", 610, 468, true).c_str());
  EXPECT_TRUE(gst_caps_is_equal(out, expected)) << gst_caps_to_string(out);
  gst_caps_unref(expected);
  gst_caps_unref(out);
  gst_object_unref(crop);
}

TEST(CropCaps, RegionGivesItsOwnSize) {
  GstElement *crop = make_crop("x=700 y=300 width=512 height=512");
  GstCaps *out = caps_downstream_of(crop, caps_string("NV12", 1920, 1080, true).c_str());
  GstCaps *expected = gst_caps_from_string(caps_string("NV12", 512, 512, true).c_str());
  EXPECT_TRUE(gst_caps_is_equal(out, expected)) << gst_caps_to_string(out);
  gst_caps_unref(expected);
  gst_caps_unref(out);
  gst_object_unref(crop);
}

// What the crop's sink pad offers upstream when downstream fixes only part
// of the output (a capsfilter with width=630): the input size the crop needs
// comes first, fields downstream left open stay open, and nothing logs a
// CRITICAL. videocrop negotiates this way; a negotiating source then picks
// the first structure.
GstCaps *caps_upstream_of(GstElement *crop, const char *downstream) {
  GstCaps *downstream_caps = gst_caps_from_string(downstream);
  GstPadTemplate *templ =
      gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, downstream_caps);
  GstPad *peer = gst_pad_new_from_template(templ, "peer");
  GstPad *src = gst_element_get_static_pad(crop, "src");
  GstPad *sink = gst_element_get_static_pad(crop, "sink");
  GstCaps *result = gst_caps_new_empty();
  if (gst_pad_link(src, peer) == GST_PAD_LINK_OK) {
    gst_caps_unref(result);
    result = gst_pad_query_caps(sink, nullptr);
    gst_pad_unlink(src, peer);
  }
  gst_object_unref(sink);
  gst_object_unref(src);
  gst_object_unref(peer);
  gst_object_unref(templ);
  gst_caps_unref(downstream_caps);
  return result;
}

TEST(CropCaps, UpstreamOfAFixedWidthAsksForTheWiderFrameFirst) {
  LogCounter logs;
  GstElement *crop = make_crop("left=10");
  GstCaps *in = caps_upstream_of(
      crop, "video/x-raw(memory:CUDAPitched),format=RGBA,width=630,framerate=30/1");
  ASSERT_FALSE(gst_caps_is_empty(in));
  const GstStructure *first = gst_caps_get_structure(in, 0);
  gint width = 0;
  EXPECT_TRUE(gst_structure_get_int(first, "width", &width)) << gst_caps_to_string(in);
  EXPECT_EQ(width, 640);
  const GValue *height = gst_structure_get_value(first, "height");
  EXPECT_TRUE(height == nullptr || GST_VALUE_HOLDS_INT_RANGE(height)) << gst_caps_to_string(in);
  gst_caps_unref(in);
  gst_object_unref(crop);
  EXPECT_EQ(logs.criticals(), 0);
}

TEST(CropCaps, UpstreamOfARegionIsAnyFrameReachingItsFarCorner) {
  LogCounter logs;
  GstElement *crop = make_crop("x=5 y=6 width=100 height=50");
  GstCaps *in = caps_upstream_of(
      crop, "video/x-raw(memory:CUDAPitched),format=RGBA,width=100,height=50,framerate=30/1");
  ASSERT_FALSE(gst_caps_is_empty(in));
  const GstStructure *first = gst_caps_get_structure(in, 0);
  const GValue *width = gst_structure_get_value(first, "width");
  const GValue *height = gst_structure_get_value(first, "height");
  ASSERT_TRUE(GST_VALUE_HOLDS_INT_RANGE(width) && GST_VALUE_HOLDS_INT_RANGE(height))
      << gst_caps_to_string(in);
  EXPECT_EQ(gst_value_get_int_range_min(width), 105);
  EXPECT_EQ(gst_value_get_int_range_min(height), 56);
  gst_caps_unref(in);
  gst_object_unref(crop);
  EXPECT_EQ(logs.criticals(), 0);
}

// `region` sets the four region fields in one step and reads back as set.
TEST(CropProperties, RegionSetsXYWidthHeightAtOnce) {
  GstElement *crop = make_crop("");
  gst_util_set_object_arg(G_OBJECT(crop), "region", "<700,300,512,256>");
  gint x = 0, y = 0, width = 0, height = 0;
  g_object_get(crop, "x", &x, "y", &y, "width", &width, "height", &height, nullptr);
  EXPECT_EQ(x, 700);
  EXPECT_EQ(y, 300);
  EXPECT_EQ(width, 512);
  EXPECT_EQ(height, 256);
  GValue region = G_VALUE_INIT;
  g_value_init(&region, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(crop), "region", &region);
  gchar *text = gst_value_serialize(&region);
  EXPECT_STREQ(text, "< (int)700, (int)300, (int)512, (int)256 >");
  g_free(text);
  g_value_unset(&region);
  GstCaps *out = caps_downstream_of(crop, caps_string("RGBA", 1920, 1080, true).c_str());
  GstCaps *expected = gst_caps_from_string(caps_string("RGBA", 512, 256, true).c_str());
  EXPECT_TRUE(gst_caps_is_equal(out, expected)) << gst_caps_to_string(out);
  gst_caps_unref(expected);
  gst_caps_unref(out);
  gst_object_unref(crop);
}

// No size of its own, but any: the line links and the frame's caps reach
// the crop, which names the crop (AFrameTheCropCannotFitIsAcceptedThenNamed).
TEST(CropCaps, ACropLargerThanTheFrameOffersNoSizeOfItsOwn) {
  GstElement *crop = make_crop("left=40 right=40");
  const std::string input = caps_string("RGBA", 64, 64, true);
  GstCaps *out = caps_downstream_of(crop, input.c_str());
  EXPECT_TRUE(offers_input_or_any_size(out, input)) << gst_caps_to_string(out);
  gst_caps_unref(out);
  gst_object_unref(crop);
}

// A frame the crop leaves no pixels of passes accept-caps, as the caps
// query offers it, so that its caps reach the crop and the crop names the
// fault first (GstBaseTransform's accept-caps refused it: upstream then
// failed to negotiate and its source's "Internal data stream error" was all
// a user saw).
TEST(CropCaps, AFrameTheCropCannotFitIsAcceptedThenNamed) {
  GstElement *crop = make_crop("left=335 right=336");
  const std::string input = caps_string("RGBA", 671, 48, true);
  GstCaps *caps = gst_caps_from_string(input.c_str());
  GstPad *sink = gst_element_get_static_pad(crop, "sink");
  EXPECT_TRUE(gst_pad_query_accept_caps(sink, caps));
  bool accepted = true;
  const std::string error = posted_error(crop, [&]() {
    accepted = GST_BASE_TRANSFORM_GET_CLASS(crop)->sink_event(GST_BASE_TRANSFORM(crop),
                                                              gst_event_new_caps(caps));
  });
  EXPECT_FALSE(accepted);
  EXPECT_NE(error.find("Impossible crop: crop left=335 right=336 top=0 bottom=0 removes the whole "
                       "671x48 input frame"),
            std::string::npos)
      << error;
  // Formats the crop cannot read are still refused.
  GstCaps *unreadable = gst_caps_from_string(caps_string("v210", 671, 48, true).c_str());
  EXPECT_FALSE(gst_pad_query_accept_caps(sink, unreadable));
  gst_caps_unref(unreadable);
  gst_object_unref(sink);
  gst_caps_unref(caps);
  gst_object_unref(crop);
}

// The application moves the crop to another size while caps of the old
// size are being set (the crop marks itself stale and renegotiates), then
// back to a crop of the old size before the next frame: the renegotiation
// gives the same caps, which GStreamer does not set again, and the crop
// takes its rectangle at the next frame (was: every frame dropped until
// the next change of size). Calls the element's functions in that order;
// no GPU needed.
TEST(CropLiveProperties, BackToTheCapsSizeBeforeTheNextFrameDropsNothing) {
  GstElement *crop = gst_element_factory_make("cudacrop", nullptr);
  gst_util_set_object_arg(G_OBJECT(crop), "region", "<0,0,40,30>");
  auto *trans = GST_BASE_TRANSFORM(crop);
  GstCaps *in = gst_caps_from_string(caps_string("RGBA", 64, 48, true).c_str());
  GstCaps *out = gst_caps_from_string(caps_string("RGBA", 40, 30, true).c_str());
  ASSERT_TRUE(GST_BASE_TRANSFORM_GET_CLASS(trans)->set_caps(trans, in, out));
  // Caps of the old size arrive after the application set a larger crop.
  gst_util_set_object_arg(G_OBJECT(crop), "region", "<4,4,48,36>");
  ASSERT_TRUE(GST_BASE_TRANSFORM_GET_CLASS(trans)->set_caps(trans, in, out));
  // ...and it moves back to a crop of the caps' size before the next frame.
  gst_util_set_object_arg(G_OBJECT(crop), "region", "<8,6,40,30>");
  GstBuffer *frame = gst_buffer_new();
  EXPECT_NE(GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(crop)->plan_output(
                GST_CUDA_PREP_BASE_TRANSFORM(crop), frame),
            GST_CUDA_PREP_OUTPUT_DROP);
  // While the crop is of another size than its caps, frames are dropped.
  gst_util_set_object_arg(G_OBJECT(crop), "region", "<4,4,48,36>");
  ASSERT_TRUE(GST_BASE_TRANSFORM_GET_CLASS(trans)->set_caps(trans, in, out));
  EXPECT_EQ(GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(crop)->plan_output(
                GST_CUDA_PREP_BASE_TRANSFORM(crop), frame),
            GST_CUDA_PREP_OUTPUT_DROP);
  gst_buffer_unref(frame);
  gst_caps_unref(in);
  gst_caps_unref(out);
  gst_object_unref(crop);
}

TEST(CropProperties, AreDocumentedWithRangesAndDefaults) {
  GstElement *crop = gst_element_factory_make("cudacrop", nullptr);
  for (const char *name : {"left", "right", "top", "bottom", "x", "y", "width", "height"}) {
    GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(crop), name);
    ASSERT_NE(pspec, nullptr) << name;
    EXPECT_GT(strlen(g_param_spec_get_blurb(pspec)), 20u) << name;
    auto *int_spec = G_PARAM_SPEC_INT(pspec);
    EXPECT_EQ(int_spec->minimum, 0) << name;
    EXPECT_EQ(int_spec->default_value, 0) << name;
  }
  gst_object_unref(crop);
}

TEST(CropErrors, ImpossibleCropIsNamed) {
  CUDAPREP_REQUIRE_GPU();
  const std::string error = pipeline_error(
      "videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! cudaframeupload ! "
      "cudacrop x=10 y=10 width=60 height=20 ! fakesink");
  EXPECT_NE(error.find("Impossible crop"), std::string::npos) << error;
  EXPECT_NE(error.find("does not fit the 64x48"), std::string::npos) << error;
}

struct CropCase {
  const char *format;
  int width, height;
  int left, top, crop_width, crop_height;
};

// The crop origin with the chroma rounding the element documents: left and
// top down to even for NV12/I420, left for YUY2.
void rounded_origin(const GstVideoInfo &info, const CropCase &c, int *left, int *top) {
  cudaprep::PixelFormat format;
  gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&info), &format);
  *left = c.left;
  *top = c.top;
  if (cudaprep::is_chroma_subsampled(format)) {
    *left &= ~1;
    if (format != cudaprep::PixelFormat::kYUY2) *top &= ~1;
  }
}

// The reference: plane bytes of the crop, taken from the full frame.
std::vector<guint8> reference_crop(GstBuffer *frame, const GstVideoInfo &info, const CropCase &c,
                                   guint plane) {
  cudaprep::PixelFormat format;
  gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&info), &format);
  int left, top;
  rounded_origin(info, c, &left, &top);
  const cudaprep::PlaneLayout layout = cudaprep::format_info(format).planes[plane];
  const std::vector<guint8> full = plane_bytes(frame, info, plane);
  const size_t full_row = cudaprep::plane_row_bytes(format, plane, c.width);
  const size_t crop_row = cudaprep::plane_row_bytes(format, plane, c.crop_width);
  const int rows = cudaprep::plane_height(format, plane, c.crop_height);
  std::vector<guint8> cropped;
  for (int row = 0; row < rows; ++row) {
    const size_t start = (top / layout.height_divisor + row) * full_row +
                         (left / layout.pixels_per_unit) * layout.unit_bytes;
    cropped.insert(cropped.end(), full.begin() + start, full.begin() + start + crop_row);
  }
  return cropped;
}

class CropPixels : public ::testing::TestWithParam<CropCase> {};

// upload ! cudacrop ! download: the view is read with its pitch, rows intact.
TEST_P(CropPixels, DownloadedCropEqualsTheReference) {
  CUDAPREP_REQUIRE_GPU();
  const CropCase c = GetParam();
  const std::string in_caps = caps_string(c.format, c.width, c.height);
  const std::string out_caps = caps_string(c.format, c.crop_width, c.crop_height);
  GstVideoInfo in_info, out_info;
  GstCaps *caps = gst_caps_from_string(in_caps.c_str());
  gst_video_info_from_caps(&in_info, caps);
  gst_caps_unref(caps);
  caps = gst_caps_from_string(out_caps.c_str());
  gst_video_info_from_caps(&out_info, caps);
  gst_caps_unref(caps);

  gchar *description =
      g_strdup_printf("cudaframeupload ! cudacrop x=%d y=%d width=%d height=%d ! cudaframedownload",
                      c.left, c.top, c.crop_width, c.crop_height);
  GstHarness *harness = gst_harness_new_parse(description);
  g_free(description);
  gst_harness_set_src_caps_str(harness, in_caps.c_str());
  gst_harness_set_sink_caps_str(harness, out_caps.c_str());
  std::mt19937 rng(c.width + c.left * 7);
  GstBuffer *input = random_frame(in_info, rng);
  gst_buffer_ref(input);
  ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer *output = gst_harness_pull(harness);
  ASSERT_NE(output, nullptr);
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&out_info); ++plane) {
    const std::vector<guint8> expected = reference_crop(input, in_info, c, plane);
    const std::vector<guint8> actual = plane_bytes(output, out_info, plane);
    ASSERT_EQ(actual.size(), expected.size());
    const size_t first_mismatch = first_difference(actual, expected);
    EXPECT_EQ(first_mismatch, SIZE_MAX)
        << c.format << " plane " << plane << " first differs at byte " << first_mismatch;
  }
  GstCudaPrepGeometryMeta *geometry = gst_buffer_get_cuda_prep_geometry_meta(output);
  ASSERT_NE(geometry, nullptr) << "download kept no geometry";
  int left, top;
  rounded_origin(in_info, c, &left, &top);
  EXPECT_EQ(geometry->geometry.crop_x, left);
  EXPECT_EQ(geometry->geometry.crop_y, top);
  EXPECT_EQ(geometry->geometry.scale_x, 1.0);
  gst_buffer_unref(output);
  gst_buffer_unref(input);
  gst_harness_teardown(harness);
}

INSTANTIATE_TEST_SUITE_P(Formats, CropPixels,
                         ::testing::Values(CropCase{"RGBA", 200, 60, 37, 11, 101, 23},
                                           CropCase{"BGRx", 64, 64, 1, 1, 1, 1},
                                           CropCase{"RGB", 257, 33, 3, 5, 250, 27},
                                           CropCase{"BGR", 9, 9, 8, 8, 1, 1},
                                           CropCase{"GRAY8", 1920, 1080, 700, 300, 512, 512},
                                           CropCase{"NV12", 1920, 1080, 701, 301, 512, 512},
                                           CropCase{"NV12", 65, 33, 3, 3, 31, 17},
                                           CropCase{"I420", 99, 51, 13, 7, 41, 21},
                                           CropCase{"YUY2", 640, 480, 33, 17, 301, 203}),
                         [](const ::testing::TestParamInfo<CropCase> &info) {
                           return std::string(info.param.format) + "_" +
                                  std::to_string(info.param.width) + "x" +
                                  std::to_string(info.param.height) + "_at_" +
                                  std::to_string(info.param.left) + "_" +
                                  std::to_string(info.param.top);
                         });

// A crop of a crop (issue 23): the second crop reads the first one's view,
// in the view's own pixels, while the upload copied only the first crop's
// region. Every frame arrives, each equal to the one crop the two compose.
TEST(CropComposition, ACropOfACropKeepsEveryFrameAndItsPixels) {
  CUDAPREP_REQUIRE_GPU();
  for (const char *format : {"RGBA", "NV12"}) {
    const CropCase first{format, 640, 360, 120, 60, 300, 200};
    const CropCase second{format, 300, 200, 10, 20, 64, 48};
    const CropCase composed{format, 640, 360, 130, 80, 64, 48};
    const std::string in_caps = caps_string(first.format, first.width, first.height);
    const std::string out_caps = caps_string(first.format, second.crop_width, second.crop_height);
    const GstVideoInfo in_info = video_info(in_caps), out_info = video_info(out_caps);
    gchar *description = g_strdup_printf(
        "cudaframeupload ! cudacrop x=%d y=%d width=%d height=%d ! "
        "cudacrop x=%d y=%d width=%d height=%d ! cudaframedownload",
        first.left, first.top, first.crop_width, first.crop_height, second.left, second.top,
        second.crop_width, second.crop_height);
    GstHarness *harness = gst_harness_new_parse(description);
    g_free(description);
    gst_harness_set_src_caps_str(harness, in_caps.c_str());
    gst_harness_set_sink_caps_str(harness, out_caps.c_str());
    std::mt19937 rng(23);
    for (int frame = 0; frame < 5; ++frame) {
      GstBuffer *input = random_frame(in_info, rng);
      gst_buffer_ref(input);
      ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
      GstBuffer *output = gst_harness_try_pull(harness);
      ASSERT_NE(output, nullptr) << first.format << ": frame " << frame << " was lost";
      for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&out_info); ++plane) {
        const std::vector<guint8> expected = reference_crop(input, in_info, composed, plane);
        EXPECT_EQ(first_difference(plane_bytes(output, out_info, plane), expected), SIZE_MAX)
            << first.format << " frame " << frame << " plane " << plane;
      }
      double source_x, source_y;
      gst_cuda_prep_geometry_to_source(&gst_buffer_get_cuda_prep_geometry_meta(output)->geometry, 0,
                                       0, &source_x, &source_y);
      EXPECT_EQ(source_x, composed.left);
      EXPECT_EQ(source_y, composed.top);
      gst_buffer_unref(output);
      gst_buffer_unref(input);
    }
    gst_harness_teardown(harness);
  }
}

// The output is a view (offsets into the input memory) when downstream
// reads GstVideoMeta, and a compact frame when it does not.
void check_crop_output(bool downstream_reads_video_meta) {
  const int width = 300, height = 40, left = 50, top = 10, crop_width = 100, crop_height = 20;
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, width, height);
  gchar *description =
      g_strdup_printf("cudaframeupload ! cudacrop left=%d top=%d right=%d bottom=%d", left, top,
                      width - left - crop_width, height - top - crop_height);
  GstHarness *harness = gst_harness_new_parse(description);
  g_free(description);
  if (downstream_reads_video_meta)
    gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_META_API_TYPE, nullptr);
  gst_harness_set_src_caps_str(harness, caps_string("RGBA", width, height).c_str());
  std::mt19937 rng(99);
  GstBuffer *input = random_frame(info, rng);
  gst_buffer_ref(input);
  ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer *output = gst_harness_pull(harness);
  ASSERT_NE(output, nullptr);
  GstVideoMeta *meta = gst_buffer_get_video_meta(output);
  ASSERT_NE(meta, nullptr);
  GstMemory *memory = gst_buffer_peek_memory(output, 0);
  const gsize pitch = 1280;  // the input's pitch: 1200 bytes rounded up to 256
  if (downstream_reads_video_meta) {
    EXPECT_EQ(meta->offset[0], top * pitch + left * 4u) << "not a view of the input";
    EXPECT_EQ(static_cast<gsize>(meta->stride[0]), pitch);
  } else {
    EXPECT_EQ(meta->offset[0], 0u) << "not a compact copy";
    EXPECT_EQ(meta->stride[0], 512);  // 400 bytes rounded to 256
  }
  cudaEvent_t ready = gst_cuda_prep_memory_get_ready_event(memory);
  ASSERT_NE(ready, nullptr);
  CUDA_ASSERT_OK(cudaEventSynchronize(ready));
  std::vector<guint8> readback(crop_width * 4 * crop_height);
  CUDA_ASSERT_OK(cudaMemcpy2D(readback.data(), crop_width * 4,
                              gst_cuda_prep_memory_get_device_pointer(memory) + meta->offset[0],
                              meta->stride[0], crop_width * 4, crop_height,
                              cudaMemcpyDeviceToHost));
  const std::vector<guint8> full = plane_bytes(input, info, 0);
  for (int row = 0; row < crop_height; ++row)
    for (int byte = 0; byte < crop_width * 4; ++byte)
      ASSERT_EQ(readback[row * crop_width * 4 + byte],
                full[(top + row) * width * 4 + left * 4 + byte])
          << "row " << row << " byte " << byte;
  gst_buffer_unref(output);
  gst_buffer_unref(input);
  gst_harness_teardown(harness);
}

TEST(CropOutput, IsAZeroCopyViewWhenDownstreamReadsVideoMeta) {
  CUDAPREP_REQUIRE_GPU();
  check_crop_output(true);
}

// Views are the upstream frames themselves: the upload's pool gets each
// frame back whole (layout restored) and allocates nothing per frame.
TEST(CropOutput, ViewsAllocateNothingPerFrame) {
  CUDAPREP_REQUIRE_GPU();
  GstHarness *harness = gst_harness_new_parse("cudaframeupload ! cudacrop left=64 top=8");
  gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_META_API_TYPE, nullptr);
  const std::string caps = caps_string("NV12", 640, 360);
  gst_harness_set_src_caps_str(harness, caps.c_str());
  const GstVideoInfo info = video_info(caps);
  std::mt19937 rng(5);
  GstBuffer *frame = random_frame(info, rng);
  guint64 warm = 0;
  for (int i = 0; i < 210; ++i) {
    if (i == 10) warm = gst_cuda_prep_memory_get_allocation_count();
    ASSERT_EQ(gst_harness_push(harness, gst_buffer_copy(frame)), GST_FLOW_OK);
    GstBuffer *view = gst_harness_pull(harness);
    ASSERT_NE(view, nullptr);
    const GstVideoMeta *meta = gst_buffer_get_video_meta(view);
    // Luma: 8 rows of a 768-byte pitch plus 64 bytes; chroma: 4 rows plus 64.
    EXPECT_EQ(meta->offset[0], 8u * 768 + 64) << "frame " << i;
    EXPECT_EQ(meta->offset[1], 768u * 360 + 4 * 768 + 64) << "frame " << i;
    EXPECT_EQ(meta->width, 576u);
    gst_buffer_unref(view);
  }
  EXPECT_EQ(gst_cuda_prep_memory_get_allocation_count(), warm)
      << "device frames were allocated in the steady state";
  gst_buffer_unref(frame);
  gst_harness_teardown(harness);
}

TEST(CropOutput, IsACompactCopyOtherwise) {
  CUDAPREP_REQUIRE_GPU();
  check_crop_output(false);
}

}  // namespace
