// cudaresize while frames flow, after an upload: equal caps pass buffers
// through untouched (and a direction set between GstBaseTransform's checks
// leaves that frame through, without a GPU), settings changed from the
// application's thread and an image-orientation tag mid-stream apply at a
// frame boundary, and upload ! cudacrop ! cudaresize ! download equals the
// CPU reference of the crop, the geometry meta mapping into the crop
// window. Without a GPU the GPU tests skip.
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gst/cudaprep/gstcudaprepmemory.h>
#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "common/kernel_helpers.h"
#include "common/resize_checks.h"
#include "cudaprep/resize.h"
#include "reference/resize_ref.h"

namespace {

using namespace cudaprep::test;
using cudaprep::PixelFormat;
using cudaprep::PixelRect;
using cudaprep::ref::HostFrame;

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
  // GStreamer's default for these SD sizes.
  params.source_colorimetry = {cudaprep::ColorMatrix::kBT601, cudaprep::ColorRange::kLimited};
  const HostFrame expected =
      cudaprep::ref::resize_reference(window(source, c.left, c.top, crop_width, crop_height),
                                      PixelFormat::kRGB, out_width, out_height, params);
  const PixelRect whole{0, 0, out_width, out_height};
  const std::string mismatch =
      reference_mismatch(plane_bytes(output, out_info, 0), expected, whole);
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
