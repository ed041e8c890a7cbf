// cudacrop: caps maths, clear errors, and on a GPU exact cropped pixels both
// as zero-copy views and as compact copies.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "gstcudaprepformat.h"
#include "gstcudaprepmemory.h"
#include "gstcudaprepmeta.h"

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

// A rectangle of an RGBA frame, in pixels.
struct Region {
  int x, y, width, height;
};

// The first row of `cropped` (RGBA rows of region.width) that differs from
// `region` of the RGBA frame `full` of `frame_width`; -1 when all agree.
int first_wrong_row(const std::vector<guint8> &cropped, const std::vector<guint8> &full,
                    int frame_width, const Region &region) {
  const size_t row_bytes = region.width * 4u;
  if (cropped.size() != row_bytes * region.height) return 0;
  for (int row = 0; row < region.height; ++row)
    if (!std::equal(cropped.begin() + row * row_bytes, cropped.begin() + (row + 1) * row_bytes,
                    full.begin() + ((region.y + row) * frame_width + region.x) * 4)) {
      return row;
    }
  return -1;
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

TEST(CropCaps, ACropLargerThanTheFrameOffersNothing) {
  GstElement *crop = make_crop("left=40 right=40");
  GstCaps *out = caps_downstream_of(crop, caps_string("RGBA", 64, 64, true).c_str());
  EXPECT_TRUE(gst_caps_is_empty(out)) << gst_caps_to_string(out);
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

// cudaframeupload copies only the region cudacrop reads: the rows above it
// in the device frame are never written.
TEST(CropOutput, UploadCopiesOnlyTheRegionCropReads) {
  CUDAPREP_REQUIRE_GPU();
  const int width = 256, height = 64, top = 16, left = 32;
  GstHarness *harness = gst_harness_new_parse("cudaframeupload ! cudacrop left=32 top=16");
  gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_META_API_TYPE, nullptr);
  gst_harness_set_src_caps_str(harness, caps_string("GRAY8", width, height).c_str());
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, width, height);
  std::mt19937 rng(41);
  GstBuffer *input = random_frame(info, rng);
  gst_buffer_ref(input);
  ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer *view = gst_harness_pull(harness);
  ASSERT_NE(view, nullptr);
  GstMemory *memory = gst_buffer_peek_memory(view, 0);
  CUDA_ASSERT_OK(cudaEventSynchronize(gst_cuda_prep_memory_get_ready_event(memory)));
  std::vector<guint8> device(width * height);  // the whole frame: pitch 256, offset 0
  CUDA_ASSERT_OK(cudaMemcpy(device.data(), gst_cuda_prep_memory_get_device_pointer(memory),
                            device.size(), cudaMemcpyDeviceToHost));
  const std::vector<guint8> full = plane_bytes(input, info, 0);
  for (int row = top; row < height; ++row)
    ASSERT_TRUE(std::equal(full.begin() + row * width + left, full.begin() + (row + 1) * width,
                           device.begin() + row * width + left))
        << "region row " << row;
  size_t copied_outside = 0;
  for (int row = 0; row < top; ++row)
    for (int x = 0; x < width; ++x)
      copied_outside += device[row * width + x] == full[row * width + x];
  // Random bytes match stale memory by chance about once in 256.
  EXPECT_LT(copied_outside, static_cast<size_t>(top * width / 64))
      << "the rows above the crop were uploaded too";
  gst_buffer_unref(view);
  gst_buffer_unref(input);
  gst_harness_teardown(harness);
}

// Two crops of different regions behind a tee: each branch gets its own
// region right (the upload may not narrow its copy to one of them).
TEST(CropOutput, TwoCropsBehindATeeBothGetTheirPixels) {
  CUDAPREP_REQUIRE_GPU();
  const int width = 320, height = 96;
  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src format=time ! cudaframeupload ! tee name=t "
      "t. ! queue ! cudacrop x=0 y=0 width=64 height=32 ! cudaframedownload ! appsink name=a "
      "t. ! queue ! cudacrop x=200 y=50 width=100 height=40 ! cudaframedownload ! appsink name=b",
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *sinks[2] = {gst_bin_get_by_name(GST_BIN(pipeline), "a"),
                          gst_bin_get_by_name(GST_BIN(pipeline), "b")};
  GstCaps *caps = gst_caps_from_string(caps_string("RGBA", width, height).c_str());
  g_object_set(src, "caps", caps, nullptr);
  gst_caps_unref(caps);
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, width, height);
  std::mt19937 rng(43);
  const Region regions[2] = {{0, 0, 64, 32}, {200, 50, 100, 40}};
  for (int frame = 0; frame < 3; ++frame) {
    GstBuffer *input = random_frame(info, rng);
    GST_BUFFER_PTS(input) = frame * GST_SECOND / 30;
    const std::vector<guint8> full = plane_bytes(input, info, 0);
    ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), input), GST_FLOW_OK);
    for (int branch = 0; branch < 2; ++branch) {
      GstSample *sample =
          gst_app_sink_try_pull_sample(GST_APP_SINK(sinks[branch]), 10 * GST_SECOND);
      ASSERT_NE(sample, nullptr) << "branch " << branch;
      GstVideoInfo out_info;
      gst_video_info_from_caps(&out_info, gst_sample_get_caps(sample));
      const std::vector<guint8> cropped = plane_bytes(gst_sample_get_buffer(sample), out_info, 0);
      ASSERT_EQ(first_wrong_row(cropped, full, width, regions[branch]), -1)
          << "branch " << branch << " frame " << frame;
      gst_sample_unref(sample);
    }
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sinks[0]);
  gst_object_unref(sinks[1]);
  gst_object_unref(src);
  gst_object_unref(pipeline);
}

// The pixels of an RGBA view (GstVideoMeta offset and stride into device
// memory), row after row, once its ready event has completed.
std::vector<guint8> rgba_view_bytes(GstBuffer *view) {
  const GstVideoMeta *meta = gst_buffer_get_video_meta(view);
  GstMemory *memory = gst_buffer_peek_memory(view, 0);
  std::vector<guint8> bytes;
  if (meta == nullptr || gst_cuda_prep_memory_get_ready_event(memory) == nullptr) {
    ADD_FAILURE() << "not a written device frame with a GstVideoMeta";
    return bytes;
  }
  EXPECT_EQ(cudaEventSynchronize(gst_cuda_prep_memory_get_ready_event(memory)), cudaSuccess);
  bytes.resize(meta->width * 4 * meta->height);
  EXPECT_EQ(cudaMemcpy2D(bytes.data(), meta->width * 4,
                         gst_cuda_prep_memory_get_device_pointer(memory) + meta->offset[0],
                         meta->stride[0], meta->width * 4, meta->height, cudaMemcpyDeviceToHost),
            cudaSuccess);
  return bytes;
}

// Moving and resizing the crop on a live stream: the upload copies the new
// region from the next frame on, and every frame shows the region set.
TEST(CropOutput, RegionChangeOnALiveStreamCropsTheNewRegion) {
  CUDAPREP_REQUIRE_GPU();
  const int width = 320, height = 96;
  GstHarness *harness =
      gst_harness_new_parse("cudaframeupload ! cudacrop x=0 y=0 width=64 height=32");
  std::unique_ptr<GstHarness, decltype(&gst_harness_teardown)> teardown(harness,
                                                                        gst_harness_teardown);
  gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_META_API_TYPE, nullptr);
  gst_harness_set_src_caps_str(harness, caps_string("RGBA", width, height).c_str());
  GstElement *crop = gst_harness_find_element(harness, "cudacrop");
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, width, height);
  std::mt19937 rng(47);
  const Region regions[] = {
      {0, 0, 64, 32}, {200, 50, 64, 32}, {16, 8, 100, 40}, {16, 8, 100, 40}, {0, 0, 64, 32}};
  for (const auto &r : regions) {
    g_object_set(crop, "x", r.x, "y", r.y, "width", r.width, "height", r.height, nullptr);
    GstBuffer *input = random_frame(info, rng);
    const std::vector<guint8> full = plane_bytes(input, info, 0);
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
    GstBuffer *view = gst_harness_pull(harness);
    ASSERT_NE(view, nullptr) << "no frame for region " << r.x << "," << r.y;
    const std::vector<guint8> cropped = rgba_view_bytes(view);
    ASSERT_EQ(cropped.size(), static_cast<size_t>(r.width * 4 * r.height))
        << "region " << r.x << "," << r.y;
    ASSERT_EQ(first_wrong_row(cropped, full, width, r), -1)
        << "region " << r.x << "," << r.y << " " << r.width << "x" << r.height;
    gst_buffer_unref(view);
  }
  gst_object_unref(crop);
}

// The same across a queue, with frames in flight while the crop moves: each
// frame that comes out is exactly its region (those uploaded for an earlier
// region may be dropped), and every frame pushed after the last move comes.
TEST(CropOutput, RegionChangeWithFramesInFlightNeverShowsStalePixels) {
  CUDAPREP_REQUIRE_GPU();
  const int width = 320, height = 96, frames_per_region = 6;
  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src format=time ! cudaframeupload ! queue ! cudacrop name=crop x=0 y=0 "
      "width=64 height=32 ! cudaframedownload ! appsink name=sink sync=false",
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  std::unique_ptr<GstElement, void (*)(GstElement *)> stop(pipeline, [](GstElement *element) {
    gst_element_set_state(element, GST_STATE_NULL);
    gst_object_unref(element);
  });
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *crop = gst_bin_get_by_name(GST_BIN(pipeline), "crop");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  GstCaps *caps = gst_caps_from_string(caps_string("RGBA", width, height).c_str());
  g_object_set(src, "caps", caps, nullptr);
  gst_caps_unref(caps);
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, width, height);
  std::mt19937 rng(59);
  // Sizes differ, so an output's size tells which region it is.
  const Region regions[] = {{0, 0, 64, 32}, {200, 50, 66, 34}, {16, 8, 100, 40}, {250, 0, 70, 96}};
  const int n_regions = 4, n_frames = n_regions * frames_per_region;
  std::vector<std::vector<guint8>> inputs;
  for (int frame = 0; frame < n_frames; ++frame) {
    if (frame % frames_per_region == 0) {
      const auto &r = regions[frame / frames_per_region];
      g_object_set(crop, "x", r.x, "y", r.y, "width", r.width, "height", r.height, nullptr);
    }
    GstBuffer *input = random_frame(info, rng);
    GST_BUFFER_PTS(input) = frame * GST_MSECOND;  // the frame's index, read back at the sink
    inputs.push_back(plane_bytes(input, info, 0));
    ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), input), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  int received_after_last_move = 0;
  while (GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND)) {
    const int frame = static_cast<int>(GST_BUFFER_PTS(gst_sample_get_buffer(sample)) / GST_MSECOND);
    GstVideoInfo out_info;
    gst_video_info_from_caps(&out_info, gst_sample_get_caps(sample));
    const auto *r = std::find_if(std::begin(regions), std::end(regions), [&](const auto &region) {
      return region.width == GST_VIDEO_INFO_WIDTH(&out_info) &&
             region.height == GST_VIDEO_INFO_HEIGHT(&out_info);
    });
    ASSERT_NE(r, std::end(regions)) << "frame " << frame << ": a size no region has";
    ASSERT_GE(frame, 0);
    ASSERT_LT(frame, n_frames);
    const std::vector<guint8> cropped = plane_bytes(gst_sample_get_buffer(sample), out_info, 0);
    ASSERT_EQ(first_wrong_row(cropped, inputs[frame], width, *r), -1)
        << "frame " << frame << " (region " << r->x << "," << r->y << ")";
    received_after_last_move += frame >= n_frames - frames_per_region;
    gst_sample_unref(sample);
  }
  EXPECT_EQ(received_after_last_move, frames_per_region);
  gst_object_unref(sink);
  gst_object_unref(crop);
  gst_object_unref(src);
}

// A frame uploaded for an earlier region (in flight when the crop moved)
// does not hold the new region's pixels: cudacrop drops it, without error.
TEST(CropOutput, FrameUploadedForAnotherRegionIsDropped) {
  CUDAPREP_REQUIRE_GPU();
  const int width = 320, height = 96;
  GstHarness *upload = gst_harness_new("cudaframeupload");
  std::unique_ptr<GstHarness, decltype(&gst_harness_teardown)> teardown_upload(
      upload, gst_harness_teardown);
  gst_harness_add_propose_allocation_meta(upload, GST_VIDEO_META_API_TYPE, nullptr);
  GstStructure *old_region =
      gst_structure_new("region", "x", G_TYPE_INT, 0, "y", G_TYPE_INT, 0, "width", G_TYPE_INT, 64,
                        "height", G_TYPE_INT, 32, nullptr);
  gst_harness_add_propose_allocation_meta(upload, GST_CUDA_PREP_REGION_META_API_TYPE, old_region);
  gst_structure_free(old_region);
  gst_harness_set_src_caps_str(upload, caps_string("RGBA", width, height).c_str());
  gst_harness_set_sink_caps_str(upload, caps_string("RGBA", width, height, true).c_str());
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, width, height);
  std::mt19937 rng(53);
  ASSERT_EQ(gst_harness_push(upload, random_frame(info, rng)), GST_FLOW_OK);
  GstBuffer *partial = gst_harness_pull(upload);
  ASSERT_NE(partial, nullptr);
  const GstCudaPrepRegionMeta *region = gst_buffer_get_cuda_prep_region_meta(partial);
  ASSERT_NE(region, nullptr) << "the upload did not mark the region it copied";
  EXPECT_EQ(region->width, 64);
  EXPECT_EQ(region->height, 32);

  GstHarness *crop = gst_harness_new_parse("cudacrop x=200 y=50 width=64 height=32");
  std::unique_ptr<GstHarness, decltype(&gst_harness_teardown)> teardown_crop(crop,
                                                                             gst_harness_teardown);
  gst_harness_add_propose_allocation_meta(crop, GST_VIDEO_META_API_TYPE, nullptr);
  gst_harness_set_src_caps_str(crop, caps_string("RGBA", width, height, true).c_str());
  EXPECT_EQ(gst_harness_push(crop, partial), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_buffers_received(crop), 0u) << "showed pixels that were never uploaded";
  // The region uploaded: passes.
  GstElement *crop_element = gst_harness_find_element(crop, "cudacrop");
  g_object_set(crop_element, "x", 0, "y", 0, nullptr);
  gst_object_unref(crop_element);
  ASSERT_EQ(gst_harness_push(upload, random_frame(info, rng)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_push(crop, gst_harness_pull(upload)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_buffers_received(crop), 1u);
}

TEST(CropOutput, IsACompactCopyOtherwise) {
  CUDAPREP_REQUIRE_GPU();
  check_crop_output(false);
}

}  // namespace
