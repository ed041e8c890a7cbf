// The region protocol between cudaframeupload and the elements behind it
// (gst/gstcudaprepmeta.h, GstCudaPrepRegionMeta), on a GPU (the
// announcement's own fields without one):
//  - crop-aware upload: cudacrop tells the upload its region and only that
//    region is copied; two crops behind a tee both get their pixels;
//  - row-sampled upload: a downscale that skips rows tells the upload, which
//    copies only the rows read, byte for byte what a whole-frame upload
//    gives; other resizes, and a whole-frame branch behind a tee, get whole
//    frames;
//  - live changes: a crop that moves or a resize method that changes while
//    playing takes effect from the next frame, and a frame uploaded for the
//    old region or rows is dropped, never shown with pixels never copied.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "base/gstcudaprepregion.h"
#include "common/cuda_test.h"
#include "common/gst_frames.h"

namespace {

using namespace cudaprep::test;

// --- The announcement (no GPU) -----------------------------------------------

// A region of the result (cudacrop's) says so through the allocation query,
// so that a pending resize upstream does not take it for its input's; a
// plain one (cudabatch's, cudaresize's rows) does not, and row patterns
// survive beside the mark.
TEST(RegionAnnouncement, ARegionOfTheResultIsMarkedSo) {
  GstCaps *caps = gst_caps_from_string("video/x-raw,format=RGBA,width=64,height=48");
  for (const gboolean of_result : {gboolean{FALSE}, gboolean{TRUE}}) {
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    GstCudaPrepRegion announced;
    announced.rect = cudaprep::PixelRect{0, 1, 64, 46};
    announced.rows = cudaprep::RowPattern{1, 46, 3, 0x1u};
    announced.of_result = of_result;
    gst_cuda_prep_query_add_region(query, &announced);
    GstCudaPrepRegion found;
    ASSERT_TRUE(gst_cuda_prep_query_find_region(query, 64, 48, &found));
    EXPECT_EQ(found.of_result, of_result);
    EXPECT_EQ(found.rect.y, 1);
    EXPECT_EQ(found.rect.height, 46);
    EXPECT_TRUE(found.rows == announced.rows);
    gst_query_unref(query);
  }
  gst_caps_unref(caps);
}

// --- Crop-aware upload -------------------------------------------------------

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
  EXPECT_EQ(region->region.rect.width, 64);
  EXPECT_EQ(region->region.rect.height, 32);

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

// --- Row-sampled upload ------------------------------------------------------

// What `resize_properties` make of `input` (system memory, `in_caps`) when
// the frame reaches cudaresize whole: uploaded by a cudaframeupload that
// nothing downstream tells which rows to copy. The reference for the
// row-sampled path, which must give the same bytes.
std::vector<guint8> resized_from_whole_frame(GstBuffer *input, const char *format, int width,
                                             int height, const std::string &resize_properties,
                                             const std::string &out_caps) {
  GstHarness *upload = gst_harness_new("cudaframeupload");
  gst_harness_set_src_caps_str(upload, caps_string(format, width, height).c_str());
  gst_harness_set_sink_caps_str(upload, caps_string(format, width, height, true).c_str());
  GstHarness *resize =
      gst_harness_new_parse(("cudaresize " + resize_properties + " ! cudaframedownload").c_str());
  gst_harness_set_src_caps_str(resize, caps_string(format, width, height, true).c_str());
  gst_harness_set_sink_caps_str(resize, out_caps.c_str());
  std::vector<guint8> bytes;
  if (gst_harness_push(upload, gst_buffer_ref(input)) == GST_FLOW_OK) {
    GstBuffer *whole = gst_harness_pull(upload);
    EXPECT_EQ(gst_buffer_get_cuda_prep_region_meta(whole), nullptr) << "not a whole frame";
    if (gst_harness_push(resize, whole) == GST_FLOW_OK) {
      GstBuffer *output = gst_harness_pull(resize);
      bytes = plane_bytes(output, video_info(out_caps), 0);
      gst_buffer_unref(output);
    }
  }
  gst_harness_teardown(resize);
  gst_harness_teardown(upload);
  return bytes;
}

struct RowsCase {
  const char *format;
  int width, height, out_width, out_height;
  const char *properties;
  int row_period;  // of the rows the upload copies; 0: the whole frame
};

void PrintTo(const RowsCase &c, std::ostream *os) {
  *os << c.format << " " << c.width << "x" << c.height << " -> " << c.out_width << "x"
      << c.out_height << " " << c.properties;
}

// Records the region meta of every frame leaving cudaframeupload.
GstPadProbeReturn record_row_period(GstPad *, GstPadProbeInfo *info, gpointer data) {
  const GstCudaPrepRegionMeta *region =
      gst_buffer_get_cuda_prep_region_meta(GST_PAD_PROBE_INFO_BUFFER(info));
  static_cast<std::vector<int> *>(data)->push_back(region != nullptr ? region->region.rows.period
                                                                     : 0);
  return GST_PAD_PROBE_OK;
}

class RowSampledUpload : public ::testing::TestWithParam<RowsCase> {};

// A downscale that skips rows (bilinear 3x and 6x, nearest) tells the
// upload, which copies only the rows read: the output is byte for byte the
// one of a whole-frame upload. Other resizes get whole frames.
TEST_P(RowSampledUpload, GivesTheBytesOfAWholeFrameUpload) {
  CUDAPREP_REQUIRE_GPU();
  const RowsCase c = GetParam();
  const std::string in_caps = caps_string(c.format, c.width, c.height);
  const std::string out_caps = caps_string("RGB", c.out_width, c.out_height);
  GstHarness *harness =
      gst_harness_new_parse((std::string("cudaframeupload name=upload ! cudaresize ") +
                             c.properties + " ! cudaframedownload")
                                .c_str());
  std::vector<int> row_periods;
  GstElement *upload = gst_bin_get_by_name(GST_BIN(harness->element), "upload");
  GstPad *upload_src = gst_element_get_static_pad(upload, "src");
  gst_pad_add_probe(upload_src, GST_PAD_PROBE_TYPE_BUFFER, record_row_period, &row_periods,
                    nullptr);
  gst_object_unref(upload_src);
  gst_object_unref(upload);
  gst_harness_set_src_caps_str(harness, in_caps.c_str());
  gst_harness_set_sink_caps_str(harness, out_caps.c_str());
  const GstVideoInfo in_info = video_info(in_caps), out_info = video_info(out_caps);
  std::mt19937 rng(c.width + c.out_height);
  for (int frame = 0; frame < 3; ++frame) {
    GstBuffer *input = random_frame(in_info, rng);
    const std::vector<guint8> expected =
        resized_from_whole_frame(input, c.format, c.width, c.height, c.properties, out_caps);
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
    GstBuffer *output = gst_harness_pull(harness);
    ASSERT_NE(output, nullptr);
    EXPECT_EQ(first_difference(plane_bytes(output, out_info, 0), expected), SIZE_MAX)
        << "frame " << frame;
    gst_buffer_unref(output);
  }
  EXPECT_EQ(row_periods, std::vector<int>(3, c.row_period));
  gst_harness_teardown(harness);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RowSampledUpload,
    ::testing::Values(RowsCase{"RGBA", 240, 180, 80, 60, "method=bilinear", 3},
                      RowsCase{"NV12", 240, 180, 80, 60, "method=bilinear", 3},
                      RowsCase{"I420", 240, 180, 80, 60, "method=bilinear", 3},
                      RowsCase{"NV12", 480, 360, 80, 60, "method=bilinear", 6},
                      RowsCase{"RGBA", 480, 360, 80, 80,
                               "method=bilinear add-borders=true pad-value=\"<114,114,114>\"", 6},
                      RowsCase{"RGB", 240, 180, 80, 60, "method=nearest", 3},
                      RowsCase{"YUY2", 240, 180, 80, 60, "method=bilinear", 3},
                      RowsCase{"RGBA", 240, 180, 100, 75, "method=bilinear", 0},
                      RowsCase{"RGBA", 240, 180, 80, 60, "method=bicubic", 0},
                      RowsCase{"NV12", 240, 180, 80, 60, "method=area", 0}),
    [](const ::testing::TestParamInfo<RowsCase> &info) {
      return std::to_string(info.index) + "_" + info.param.format;
    });

// The method changed on a live stream: the upload copies the new rows from
// the next frame on, and every frame equals a whole-frame upload's.
TEST(RowSampledUploadLive, MethodChangeCopiesTheNewRows) {
  CUDAPREP_REQUIRE_GPU();
  const std::string in_caps = caps_string("NV12", 240, 180);
  const std::string out_caps = caps_string("RGB", 80, 60);
  GstHarness *harness =
      gst_harness_new_parse("cudaframeupload ! cudaresize name=resize ! cudaframedownload");
  gst_harness_set_src_caps_str(harness, in_caps.c_str());
  gst_harness_set_sink_caps_str(harness, out_caps.c_str());
  GstElement *resize = gst_bin_get_by_name(GST_BIN(harness->element), "resize");
  const GstVideoInfo in_info = video_info(in_caps), out_info = video_info(out_caps);
  std::mt19937 rng(71);
  for (const char *method : {"bilinear", "nearest", "bicubic", "bilinear"}) {
    gst_util_set_object_arg(G_OBJECT(resize), "method", method);
    GstBuffer *input = random_frame(in_info, rng);
    const std::vector<guint8> expected = resized_from_whole_frame(
        input, "NV12", 240, 180, std::string("method=") + method, out_caps);
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
    GstBuffer *output = gst_harness_pull(harness);
    ASSERT_NE(output, nullptr) << method;
    EXPECT_EQ(first_difference(plane_bytes(output, out_info, 0), expected), SIZE_MAX) << method;
    gst_buffer_unref(output);
  }
  gst_object_unref(resize);
  gst_harness_teardown(harness);
}

// A frame uploaded for other rows (in flight when the method changed) is
// dropped by cudaresize, not resized from rows that were never copied.
TEST(RowSampledUploadLive, FrameUploadedForOtherRowsIsDropped) {
  CUDAPREP_REQUIRE_GPU();
  const int width = 240, height = 180;
  GstHarness *upload = gst_harness_new("cudaframeupload");
  // Bilinear 180 -> 60: rows 1, 4, 7, ... 178.
  GstStructure *rows = gst_structure_new("region", "x", G_TYPE_INT, 0, "y", G_TYPE_INT, 1, "width",
                                         G_TYPE_INT, width, "height", G_TYPE_INT, 178, "row-period",
                                         G_TYPE_INT, 3, "row-mask", G_TYPE_UINT, 1u, nullptr);
  gst_harness_add_propose_allocation_meta(upload, GST_CUDA_PREP_REGION_META_API_TYPE, rows);
  gst_structure_free(rows);
  gst_harness_set_src_caps_str(upload, caps_string("RGBA", width, height).c_str());
  gst_harness_set_sink_caps_str(upload, caps_string("RGBA", width, height, true).c_str());
  GstHarness *resize = gst_harness_new_parse("cudaresize name=resize method=nearest");
  gst_harness_set_src_caps_str(resize, caps_string("RGBA", width, height, true).c_str());
  gst_harness_set_sink_caps_str(resize, caps_string("RGB", 80, 60, true).c_str());
  const GstVideoInfo info = video_info(caps_string("RGBA", width, height));
  std::mt19937 rng(73);
  ASSERT_EQ(gst_harness_push(upload, random_frame(info, rng)), GST_FLOW_OK);
  GstBuffer *partial = gst_harness_pull(upload);
  ASSERT_NE(partial, nullptr);
  const GstCudaPrepRegionMeta *region = gst_buffer_get_cuda_prep_region_meta(partial);
  ASSERT_NE(region, nullptr) << "the upload did not mark the rows it copied";
  EXPECT_EQ(region->region.rows.period, 3);
  // Nearest 180 -> 60 reads rows 0, 3, 6, ...: none of them was copied.
  EXPECT_EQ(gst_harness_push(resize, partial), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_buffers_received(resize), 0u) << "resized rows that were never uploaded";
  GstElement *element = gst_bin_get_by_name(GST_BIN(resize->element), "resize");
  gst_util_set_object_arg(G_OBJECT(element), "method", "bilinear");
  gst_object_unref(element);
  ASSERT_EQ(gst_harness_push(upload, random_frame(info, rng)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_push(resize, gst_harness_pull(upload)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_buffers_received(resize), 1u);
  gst_harness_teardown(resize);
  gst_harness_teardown(upload);
}

// Behind a tee, a branch that reads whole frames keeps the upload from
// skipping rows: each branch gets its pixels.
TEST(RowSampledUploadLive, ABranchReadingWholeFramesGetsThemBehindATee) {
  CUDAPREP_REQUIRE_GPU();
  const std::string in_caps = caps_string("RGBA", 240, 180);
  const std::string out_caps = caps_string("RGB", 80, 60);
  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src format=time ! cudaframeupload ! tee name=t "
      "t. ! queue ! cudaresize method=bilinear ! cudaframedownload ! video/x-raw,format=RGB,"
      "width=80,height=60 ! appsink name=resized "
      "t. ! queue ! cudaframedownload ! appsink name=whole",
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *resized = gst_bin_get_by_name(GST_BIN(pipeline), "resized");
  GstElement *whole = gst_bin_get_by_name(GST_BIN(pipeline), "whole");
  GstCaps *caps = gst_caps_from_string(in_caps.c_str());
  g_object_set(src, "caps", caps, nullptr);
  gst_caps_unref(caps);
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  const GstVideoInfo in_info = video_info(in_caps), out_info = video_info(out_caps);
  std::mt19937 rng(79);
  for (int frame = 0; frame < 2; ++frame) {
    GstBuffer *input = random_frame(in_info, rng);
    GST_BUFFER_PTS(input) = frame * GST_MSECOND;
    const std::vector<guint8> input_bytes = plane_bytes(input, in_info, 0);
    const std::vector<guint8> expected =
        resized_from_whole_frame(input, "RGBA", 240, 180, "method=bilinear", out_caps);
    ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), input), GST_FLOW_OK);
    GstSample *whole_sample = gst_app_sink_try_pull_sample(GST_APP_SINK(whole), 10 * GST_SECOND);
    GstSample *resized_sample =
        gst_app_sink_try_pull_sample(GST_APP_SINK(resized), 10 * GST_SECOND);
    ASSERT_NE(whole_sample, nullptr);
    ASSERT_NE(resized_sample, nullptr);
    EXPECT_EQ(
        first_difference(plane_bytes(gst_sample_get_buffer(whole_sample), in_info, 0), input_bytes),
        SIZE_MAX)
        << "frame " << frame << ": the whole-frame branch lost rows";
    EXPECT_EQ(
        first_difference(plane_bytes(gst_sample_get_buffer(resized_sample), out_info, 0), expected),
        SIZE_MAX)
        << "frame " << frame;
    gst_sample_unref(whole_sample);
    gst_sample_unref(resized_sample);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(whole);
  gst_object_unref(resized);
  gst_object_unref(src);
  gst_object_unref(pipeline);
}

}  // namespace
