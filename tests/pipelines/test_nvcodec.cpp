// nvcodec's decoders into cudaprep: GstCudaMemory read in place, one CUDA
// context, 10-bit frames. GPU tests decode the streams in tests/data
// (made with x264enc and x265enc) with nvh264dec / nvh265dec; the caps and
// error tests run without a GPU.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include "base/gstcudaprepnvcodec.h"
#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "common/launch_line.h"
#include "common/test_data.h"
#include "reference/resize_ref.h"

namespace {

using namespace cudaprep;
using namespace cudaprep::test;

#define REQUIRE_ELEMENT(factory)                                                             \
  do {                                                                                       \
    GstElementFactory *found = gst_element_factory_find(factory);                            \
    if (found == nullptr) GTEST_SKIP() << factory " is not available (nvcodec needs a GPU)"; \
    gst_object_unref(found);                                                                 \
  } while (0)

// What a run saw: the tensors, and the decoder's frames.
struct DecodeRun {
  std::vector<std::vector<guint8>> tensors;
  int decoded_frames = 0;
  int frames_in_primary_context = 0;         // GstCudaMemory of cudaprep's context
  std::set<guintptr> decoded_pointers;       // device pointers the decoder wrote
  std::set<guintptr> pointers_at_tensorize;  // device frames cudatensorize read
  std::string error;
};

GstPadProbeReturn on_decoded(GstPad *, GstPadProbeInfo *info, gpointer data) {
  auto *run = static_cast<DecodeRun *>(data);
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  ++run->decoded_frames;
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  if (!gst_is_cuda_memory(memory)) return GST_PAD_PROBE_OK;
  gchar *error = nullptr;
  gpointer primary = gst_cuda_prep_nvcodec_primary_context_handle(0, &error);
  g_free(error);
  if (primary != nullptr &&
      gst_cuda_context_get_handle(GST_CUDA_MEMORY_CAST(memory)->context) == primary)
    ++run->frames_in_primary_context;
  GstMapInfo map;
  if (gst_memory_map(memory, &map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
    run->decoded_pointers.insert(reinterpret_cast<guintptr>(map.data));
    gst_memory_unmap(memory, &map);
  }
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn on_tensorize_input(GstPad *, GstPadProbeInfo *info, gpointer data) {
  GstMemory *memory = gst_buffer_peek_memory(GST_PAD_PROBE_INFO_BUFFER(info), 0);
  if (gst_is_cuda_prep_memory(memory))
    static_cast<DecodeRun *>(data)->pointers_at_tensorize.insert(
        reinterpret_cast<guintptr>(gst_cuda_prep_memory_get_device_pointer(memory)));
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn on_tensor(GstPad *, GstPadProbeInfo *info, gpointer data) {
  static_cast<DecodeRun *>(data)->tensors.push_back(tensor_bytes(GST_PAD_PROBE_INFO_BUFFER(info)));
  return GST_PAD_PROBE_OK;
}

void probe(GstElement *pipeline, const char *name, const char *pad_name,
           GstPadProbeCallback callback, DecodeRun *run) {
  GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline), name);
  ASSERT_NE(element, nullptr) << name;
  GstPad *pad = gst_element_get_static_pad(element, pad_name);
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, callback, run, nullptr);
  gst_object_unref(pad);
  gst_object_unref(element);
}

// Runs `description` (elements named dec, tensorize, out) to EOS.
DecodeRun run_pipeline(const std::string &description) {
  DecodeRun run;
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &parse_error);
  if (pipeline == nullptr) {
    run.error = std::string("parse: ") + parse_error->message;
    g_error_free(parse_error);
    return run;
  }
  probe(pipeline, "dec", "src", on_decoded, &run);
  probe(pipeline, "tensorize", "sink", on_tensorize_input, &run);
  probe(pipeline, "out", "sink", on_tensor, &run);
  const FirstError first = play_until_first_error(pipeline, 30000);
  if (first.timed_out) run.error = "no EOS within 30 s";
  if (!first.message.empty())
    run.error = first.source + ": " + first.message + " (" + first.debug + ")";
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return run;
}

const char *kTensorTail =
    " ! video/x-raw(memory:CUDAPitched),width=320,height=320,format=RGB ! cudanormalize "
    "mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\" ! cudatensorize name=tensorize";

std::string h264_head() {
  return "filesrc location=" + test_data_path("smpte-640x360.h264") +
         " ! h264parse ! nvh264dec name=dec";
}

// The W1 chain from nvh264dec's device frames, entering through cudaresize
// or through cudaframeupload, fused or not, gives the very bytes of the
// system-memory path (the decoder downloads, cudaframeupload uploads); the
// decoder's frames live in cudaprep's (primary) context and the fused
// kernel reads the decoder's own memory: no copy.
TEST(NvcodecGpu, H264InPlaceEqualsTheSystemMemoryPath) {
  CUDAPREP_REQUIRE_GPU();
  REQUIRE_ELEMENT("nvh264dec");
  const std::string resize = " ! cudaresize add-borders=true pad-value=\"<114,114,114>\"";
  const DecodeRun reference = run_pipeline(h264_head() + " ! video/x-raw ! cudaframeupload" +
                                           resize + kTensorTail + " ! fakesink name=out");
  ASSERT_EQ(reference.error, "");
  ASSERT_GT(reference.tensors.size(), 10u);
  EXPECT_TRUE(reference.decoded_pointers.empty()) << "the reference path must be system memory";

  for (const std::string entry : {"", " ! cudaframeupload"})
    for (const bool fuse : {true, false}) {
      const std::string what =
          std::string("nvh264dec") + entry + " ! cudaresize, fuse=" + (fuse ? "true" : "false");
      const DecodeRun run =
          run_pipeline(h264_head() + entry + resize + kTensorTail +
                       (fuse ? " fuse=true" : " fuse=false") + " ! fakesink name=out");
      ASSERT_EQ(run.error, "") << what;
      ASSERT_EQ(run.tensors.size(), reference.tensors.size()) << what;
      for (size_t i = 0; i < run.tensors.size(); ++i)
        ASSERT_EQ(first_difference(run.tensors[i], reference.tensors[i]), SIZE_MAX)
            << what << ": tensor " << i << " differs from the system-memory path";
      EXPECT_EQ(run.frames_in_primary_context, run.decoded_frames)
          << what << ": the decoder did not take cudaprep's context";
      EXPECT_FALSE(run.decoded_pointers.empty()) << what;
      if (fuse) {
        // Every frame cudatensorize's fused kernel read is a decoder frame.
        ASSERT_FALSE(run.pointers_at_tensorize.empty()) << what;
        for (const guintptr pointer : run.pointers_at_tensorize)
          EXPECT_EQ(run.decoded_pointers.count(pointer), 1u)
              << what << ": cudatensorize read a copy, not the decoder's memory";
      }
    }
}

// Issue 23: every nvh264dec frame read in place is borrowed memory on
// cudaprep's allocator; after N decoded frames and the pipeline's teardown
// the allocator holds the references it held before (each frame used to
// leak one).
TEST(NvcodecGpu, DecodedFramesLeaveNoReferenceBehind) {
  CUDAPREP_REQUIRE_GPU();
  REQUIRE_ELEMENT("nvh264dec");
  GstAllocator *allocator = gst_cuda_prep_allocator_get(0);
  const guint refs_before = GST_OBJECT_REFCOUNT_VALUE(allocator);
  const DecodeRun run = run_pipeline(h264_head() + " ! cudaresize add-borders=true" + kTensorTail +
                                     " fuse=true ! fakesink name=out");
  ASSERT_EQ(run.error, "");
  ASSERT_GT(run.decoded_frames, 10);
  EXPECT_EQ(static_cast<int>(run.tensors.size()), run.decoded_frames);
  gst_cuda_prep_memory_release_borrowed();
  EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(allocator), refs_before)
      << "after " << run.decoded_frames << " decoded frames";
  gst_object_unref(allocator);
}

// A 10-bit HEVC Main10 stream (BT.2020): nvh265dec's P010 device frames,
// fused into a float tensor, keep 10 bits: within one 10-bit step (1/4 on
// the 8-bit scale) of a CPU reference computed in double from the same
// decoded P010 frames downloaded by the decoder.
TEST(NvcodecGpu, HevcMain10KeepsTenBits) {
  CUDAPREP_REQUIRE_GPU();
  REQUIRE_ELEMENT("nvh265dec");
  const std::string head = "filesrc location=" + test_data_path("ball-320x240-main10.h265") +
                           " ! h265parse ! nvh265dec name=dec";
  // The decoded frames in system memory, and their caps.
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(
      (head + " ! video/x-raw,format=P010_10LE ! appsink name=frames sync=false").c_str(),
      &parse_error);
  ASSERT_NE(pipeline, nullptr) << parse_error->message;
  GstElement *appsink = gst_bin_get_by_name(GST_BIN(pipeline), "frames");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::vector<ref::HostFrame> frames;
  GstVideoInfo info;
  // A decoder error ends the loop (no sample within 10 s) instead of hanging.
  while (GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(appsink), 10 * GST_SECOND)) {
    ASSERT_TRUE(gst_video_info_from_caps(&info, gst_sample_get_caps(sample)));
    GstVideoFrame video_frame;
    ASSERT_TRUE(
        gst_video_frame_map(&video_frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ));
    ref::HostFrame frame(PixelFormat::kP010, info.width, info.height);
    for (int plane = 0; plane < 2; ++plane)
      for (int y = 0; y < plane_height(PixelFormat::kP010, plane, info.height); ++y)
        memcpy(frame.row(plane, y),
               static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&video_frame, plane)) +
                   y * GST_VIDEO_FRAME_PLANE_STRIDE(&video_frame, plane),
               plane_row_bytes(PixelFormat::kP010, plane, info.width));
    gst_video_frame_unmap(&video_frame);
    gst_sample_unref(sample);
    frames.push_back(std::move(frame));
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(appsink);
  gst_object_unref(pipeline);
  ASSERT_GT(frames.size(), 5u);
  ASSERT_EQ(info.colorimetry.matrix, GST_VIDEO_COLOR_MATRIX_BT2020) << "the stream is BT.2020";
  const Colorimetry colorimetry{ColorMatrix::kBT2020,
                                info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255
                                    ? ColorRange::kFull
                                    : ColorRange::kLimited};

  const int width = 160, height = 120;
  const DecodeRun run = run_pipeline(
      head +
      " ! cudaresize ! video/x-raw(memory:CUDAPitched),width=160,height=120,format=RGB ! "
      "cudanormalize ! cudatensorize name=tensorize ! fakesink name=out");
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.tensors.size(), frames.size());
  EXPECT_EQ(run.frames_in_primary_context, run.decoded_frames);
  int beyond_8_bits = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const ref::RgbaImage source{frames[i].width, frames[i].height,
                                ref::decode_to_rgba(frames[i], colorimetry)};
    const ref::RgbaImage expected = ref::resample(source, width, height, Interpolation::kBilinear);
    const auto *tensor = reinterpret_cast<const float *>(run.tensors[i].data());
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          const ref::RgbaPixel &pixel = expected.at(x, y);
          const double value = std::clamp(c == 0   ? pixel.r
                                          : c == 1 ? pixel.g
                                                   : pixel.b,
                                          0.0, 255.0);
          const double actual = tensor[(c * height + y) * width + x] * 255.0;
          ASSERT_NEAR(actual, value, 0.25)
              << "frame " << i << " channel " << c << " at (" << x << ", " << y << ")";
          if (std::fabs(actual - std::nearbyint(actual)) > 0.05) ++beyond_8_bits;
        }
  }
  EXPECT_GT(beyond_8_bits, 100) << "the tensor holds only 8-bit values: the 10 bits were rounded";
}

// ---------------------------------------------------------------------------
// Without a GPU.

TEST(NvcodecCaps, CudaMemoryInputNegotiatesAsDeviceFrames) {
  for (const char *factory : {"cudaresize", "cudaframeupload", "cudacrop"})
    for (const char *format : {"NV12", "P010_10LE"}) {
      const std::string upstream = std::string("video/x-raw(memory:CUDAMemory),format=") + format +
                                   ",width=320,height=240,framerate=30/1";
      GstCaps *caps = caps_downstream_of(factory, upstream.c_str());
      ASSERT_NE(caps, nullptr);
      EXPECT_FALSE(gst_caps_is_empty(caps)) << factory << " refuses " << upstream;
      for (guint i = 0; i < gst_caps_get_size(caps); ++i)
        EXPECT_TRUE(gst_caps_features_contains(gst_caps_get_features(caps, i),
                                               GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED))
            << factory << " offers " << gst_caps_to_string(caps);
      gst_caps_unref(caps);
    }
}

TEST(NvcodecCaps, DecodersSeeCudaMemoryAndP010Accepted) {
  GstElement *resize = gst_element_factory_make("cudaresize", nullptr);
  ASSERT_NE(resize, nullptr);
  GstPad *sink = gst_element_get_static_pad(resize, "sink");
  // What nvh265dec offers for Main10.
  GstCaps *decoder = gst_caps_from_string(
      "video/x-raw(memory:CUDAMemory),format=P010_10LE,width=3840,height=2160,framerate=30/1,"
      "colorimetry=bt2020");
  EXPECT_TRUE(gst_pad_query_accept_caps(sink, decoder));
  GstCaps *allowed = gst_pad_query_caps(sink, nullptr);
  EXPECT_TRUE(gst_caps_can_intersect(allowed, decoder)) << gst_caps_to_string(allowed);
  gst_caps_unref(allowed);
  gst_caps_unref(decoder);
  gst_object_unref(sink);
  gst_object_unref(resize);
}

// nvcodec's caps with memory that is not GstCudaMemory (here system
// memory): an element error that says what is wrong, never a crash. Without
// a GPU the pipeline fails at start, naming the missing device.
TEST(NvcodecCaps, WrongMemoryUnderCudaMemoryCapsIsAClearError) {
  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src format=time caps=video/x-raw(memory:CUDAMemory),format=NV12,width=64,"
      "height=64,framerate=30/1 ! cudaresize ! "
      "video/x-raw(memory:CUDAPitched),format=RGB,width=32,height=32 ! fakesink",
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, 64 * 64 * 3 / 2, nullptr);
  GST_BUFFER_PTS(buffer) = 0;
  gst_app_src_push_buffer(GST_APP_SRC(src), buffer);
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, 10 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  ASSERT_NE(message, nullptr);
  ASSERT_EQ(GST_MESSAGE_TYPE(message), GST_MESSAGE_ERROR);
  GError *error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  const std::string text = error->message;
  g_error_free(error);
  EXPECT_TRUE(text.find("must be one GstCudaMemory") != std::string::npos ||
              text.find("No usable CUDA device") != std::string::npos)
      << text;
  gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(pipeline);
}

}  // namespace
