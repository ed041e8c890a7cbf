// cudaframeupload and cudaframedownload: registration, properties, caps,
// errors without a GPU, and on a GPU bit-exact round trips, views, streams.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstring>

#include <algorithm>
#include <cstdarg>
#include <random>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include "base/gstcudaprepbasetransform.h"
#include "common/cuda_test.h"
#include "common/gpu_helpers.h"
#include "common/gst_frames.h"

namespace {

using namespace cudaprep::test;

const char *const kFormats[] = {"RGBA", "BGRA",  "RGBx", "BGRx", "RGB",
                                "BGR",  "GRAY8", "NV12", "I420", "YUY2"};

TEST(Registration, BothElementsExistWithDocumentedProperties) {
  for (const char *name : {"cudaframeupload", "cudaframedownload"}) {
    GstElement *element = gst_element_factory_make(name, nullptr);
    ASSERT_NE(element, nullptr) << name;
    for (const char *property : {"device-id", "stream-priority", "cuda-stream"}) {
      GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), property);
      ASSERT_NE(pspec, nullptr) << name << " lacks " << property;
      EXPECT_GT(strlen(g_param_spec_get_blurb(pspec)), 20u) << name << ":" << property;
    }
    gint device_id = 0, priority = 1;
    gpointer stream = &device_id;
    g_object_get(element, "device-id", &device_id, "stream-priority", &priority, "cuda-stream",
                 &stream, nullptr);
    EXPECT_EQ(device_id, -1);
    EXPECT_EQ(priority, 0);
    EXPECT_EQ(stream, nullptr);
    gst_object_unref(element);
  }
}

TEST(Caps, UploadTurnsSystemFramesIntoDeviceFrames) {
  GstCaps *downstream = caps_downstream_of("cudaframeupload", caps_string("NV12", 63, 31).c_str());
  GstCaps *expected = gst_caps_from_string(caps_string("NV12", 63, 31, true).c_str());
  EXPECT_TRUE(gst_caps_is_equal(downstream, expected)) << gst_caps_to_string(downstream);
  gst_caps_unref(expected);
  gst_caps_unref(downstream);

  GstElement *upload = gst_element_factory_make("cudaframeupload", nullptr);
  GstPad *sink = gst_element_get_static_pad(upload, "sink");
  GstCaps *unsupported = gst_caps_from_string(caps_string("v210", 64, 32).c_str());
  EXPECT_FALSE(gst_pad_query_accept_caps(sink, unsupported));
  gst_caps_unref(unsupported);
  gst_object_unref(sink);
  gst_object_unref(upload);
}

TEST(Caps, DownloadOffersSystemMemoryAndDevicePassthrough) {
  GstCaps *downstream =
      caps_downstream_of("cudaframedownload", caps_string("I420", 33, 17, true).c_str());
  GstCaps *system = gst_caps_from_string(caps_string("I420", 33, 17).c_str());
  GstCaps *device = gst_caps_from_string(caps_string("I420", 33, 17, true).c_str());
  EXPECT_TRUE(gst_caps_is_subset(system, downstream)) << gst_caps_to_string(downstream);
  EXPECT_TRUE(gst_caps_is_subset(device, downstream)) << gst_caps_to_string(downstream);

  GstElement *download = gst_element_factory_make("cudaframedownload", nullptr);
  GstPad *sink = gst_element_get_static_pad(download, "sink");
  EXPECT_FALSE(gst_pad_query_accept_caps(sink, system));  // input must be on the device
  gst_object_unref(sink);
  gst_object_unref(download);
  gst_caps_unref(device);
  gst_caps_unref(system);
  gst_caps_unref(downstream);
}

TEST(Errors, WithoutAGpuStartingFailsWithAClearError) {
  if (cudaprep::test::cuda_unavailable_reason().empty())
    GTEST_SKIP() << "a CUDA device is present: this test covers machines without one";
  const std::string error =
      pipeline_error("videotestsrc num-buffers=2 ! cudaframeupload ! cudaframedownload ! fakesink");
  EXPECT_NE(error.find("No usable CUDA device"), std::string::npos) << error;
}

// Under either name, any value: an error at start naming it, never a
// GLib warning and a run on device 0.
TEST(Errors, ADeviceIdThatDoesNotExistIsNamed) {
  CUDAPREP_REQUIRE_GPU();
  for (const char *property : {"device-id=1000", "device-id=5000", "cuda-device-id=5000"}) {
    const std::string description = std::string("videotestsrc num-buffers=2 ! cudaframeupload ") +
                                    property + " ! cudaframedownload ! fakesink";
    const std::string error = pipeline_error(description.c_str());
    const std::string value = strchr(property, '=') + 1;
    EXPECT_NE(error.find("device-id=" + value + ": CUDA device " + value + " does not exist"),
              std::string::npos)
        << error;
  }
}

// The device comes from a GstContext answered by the application: an answer
// naming a device that does not exist must reach the element.
TEST(Context, NeedContextIsAnsweredByTheApplication) {
  CUDAPREP_REQUIRE_GPU();
  int device_count = 0;
  CUDA_ASSERT_OK(cudaGetDeviceCount(&device_count));
  GstElement *pipeline = gst_parse_launch(
      "videotestsrc num-buffers=2 ! cudaframeupload ! cudaframedownload ! fakesink", nullptr);
  ASSERT_NE(pipeline, nullptr);
  GstBus *bus = gst_element_get_bus(pipeline);
  gst_bus_set_sync_handler(
      bus,
      [](GstBus *, GstMessage *message, gpointer data) -> GstBusSyncReply {
        const gchar *type = nullptr;
        if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_NEED_CONTEXT &&
            gst_message_parse_context_type(message, &type) &&
            g_strcmp0(type, "cudaprep.device") == 0) {
          GstContext *context = gst_context_new("cudaprep.device", TRUE);
          gst_structure_set(gst_context_writable_structure(context), "device-id", G_TYPE_INT,
                            GPOINTER_TO_INT(data), nullptr);
          gst_element_set_context(GST_ELEMENT(GST_MESSAGE_SRC(message)), context);
          gst_context_unref(context);
        }
        return GST_BUS_PASS;
      },
      GINT_TO_POINTER(device_count), nullptr);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, 10 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  ASSERT_NE(message, nullptr);
  ASSERT_EQ(GST_MESSAGE_TYPE(message), GST_MESSAGE_ERROR);
  GError *error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  EXPECT_NE(std::string(error->message).find("CUDA device " + std::to_string(device_count)),
            std::string::npos)
      << error->message;
  g_error_free(error);
  gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

struct RoundTripCase {
  const char *format;
  int width;
  int height;
};

class RoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

// upload ! download returns every visible byte unchanged.
TEST_P(RoundTrip, IsBitExact) {
  CUDAPREP_REQUIRE_GPU();
  const RoundTripCase param = GetParam();
  const std::string caps = caps_string(param.format, param.width, param.height);
  const GstVideoInfo info = video_info(caps);

  GstHarness *harness = gst_harness_new_parse("cudaframeupload ! cudaframedownload");
  gst_harness_set_src_caps_str(harness, caps.c_str());
  gst_harness_set_sink_caps_str(harness, caps.c_str());
  std::mt19937 rng(param.width * 131 + param.height);
  for (int frame = 0; frame < 3; ++frame) {
    GstBuffer *input = random_frame(info, rng);
    gst_buffer_ref(input);
    ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
    GstBuffer *output = gst_harness_pull(harness);
    ASSERT_NE(output, nullptr);
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane) {
      const std::vector<guint8> expected = plane_bytes(input, info, plane);
      const std::vector<guint8> actual = plane_bytes(output, info, plane);
      ASSERT_EQ(actual.size(), expected.size());
      const size_t first_mismatch = first_difference(actual, expected);
      EXPECT_EQ(first_mismatch, SIZE_MAX)
          << param.format << " " << param.width << "x" << param.height << " plane " << plane
          << " differs first at byte " << first_mismatch;
    }
    gst_buffer_unref(input);
    gst_buffer_unref(output);
  }
  gst_harness_teardown(harness);
}

std::vector<RoundTripCase> round_trip_cases() {
  std::vector<RoundTripCase> cases;
  // Odd sizes, 1-pixel frames, rows just over the 256-byte pitch alignment.
  const std::pair<int, int> sizes[] = {{1, 1},   {2, 2},     {3, 5},     {65, 33},
                                       {257, 3}, {640, 480}, {1279, 721}};
  for (const char *format : kFormats)
    for (const auto &size : sizes) cases.push_back({format, size.first, size.second});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, RoundTrip, ::testing::ValuesIn(round_trip_cases()),
                         [](const ::testing::TestParamInfo<RoundTripCase> &info) {
                           return std::string(info.param.format) + "_" +
                                  std::to_string(info.param.width) + "x" +
                                  std::to_string(info.param.height);
                         });

// The frame upload produces is pitched: stride is not width * bpp.
TEST(Upload, DeviceFramesArePitched) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGB", 101, 9);
  const GstVideoInfo info = video_info(caps);
  GstHarness *harness = gst_harness_new("cudaframeupload");
  gst_harness_set_src_caps_str(harness, caps.c_str());
  std::mt19937 rng(7);
  GstBuffer *input = random_frame(info, rng);
  gst_buffer_ref(input);
  ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer *output = gst_harness_pull(harness);
  ASSERT_NE(output, nullptr);
  GstVideoMeta *meta = gst_buffer_get_video_meta(output);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->stride[0], 512);  // 303 bytes of pixels, pitch rounded to 256
  GstMemory *memory = gst_buffer_peek_memory(output, 0);
  ASSERT_TRUE(gst_is_cuda_prep_memory(memory));

  // Read it back ourselves with the pitch, after the frame's ready event.
  cudaEvent_t ready = gst_cuda_prep_memory_get_ready_event(memory);
  ASSERT_NE(ready, nullptr);
  CUDA_ASSERT_OK(cudaEventSynchronize(ready));
  std::vector<guint8> readback(303 * 9);
  CUDA_ASSERT_OK(cudaMemcpy2D(readback.data(), 303,
                              gst_cuda_prep_memory_get_device_pointer(memory) + meta->offset[0],
                              meta->stride[0], 303, 9, cudaMemcpyDeviceToHost));
  EXPECT_EQ(readback, plane_bytes(input, info, 0));
  gst_buffer_unref(input);
  gst_buffer_unref(output);
  gst_harness_teardown(harness);
}

// A crop view (same memory, offsets moved) downloads as exactly the cropped
// pixels: the copy is 2D with the source pitch, so rows do not shear.
TEST(Download, CropViewsKeepTheirRows) {
  CUDAPREP_REQUIRE_GPU();
  const int width = 200, height = 60, left = 37, top = 11, crop_width = 101, crop_height = 23;
  const std::string full_caps = caps_string("RGBA", width, height);
  GstVideoInfo full_info, crop_info;
  GstCaps *gst_caps = gst_caps_from_string(full_caps.c_str());
  gst_video_info_from_caps(&full_info, gst_caps);
  gst_caps_unref(gst_caps);
  gst_video_info_set_format(&crop_info, GST_VIDEO_FORMAT_RGBA, crop_width, crop_height);

  GstHarness *upload = gst_harness_new("cudaframeupload");
  gst_harness_set_src_caps_str(upload, full_caps.c_str());
  std::mt19937 rng(11);
  GstBuffer *input = random_frame(full_info, rng);
  gst_buffer_ref(input);
  ASSERT_EQ(gst_harness_push(upload, input), GST_FLOW_OK);
  GstBuffer *device_frame = gst_harness_pull(upload);
  ASSERT_NE(device_frame, nullptr);
  GstVideoMeta *full_meta = gst_buffer_get_video_meta(device_frame);

  GstBuffer *view = gst_buffer_new();
  gst_buffer_append_memory(view, gst_memory_ref(gst_buffer_peek_memory(device_frame, 0)));
  gsize offsets[GST_VIDEO_MAX_PLANES] = {full_meta->offset[0] + top * full_meta->stride[0] +
                                         left * 4};
  gint strides[GST_VIDEO_MAX_PLANES] = {full_meta->stride[0]};
  gst_buffer_add_video_meta_full(view, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGBA, crop_width,
                                 crop_height, 1, offsets, strides);

  GstHarness *download = gst_harness_new("cudaframedownload");
  gst_harness_set_src_caps_str(download,
                               caps_string("RGBA", crop_width, crop_height, true).c_str());
  gst_harness_set_sink_caps_str(download, caps_string("RGBA", crop_width, crop_height).c_str());
  ASSERT_EQ(gst_harness_push(download, view), GST_FLOW_OK);
  GstBuffer *output = gst_harness_pull(download);
  ASSERT_NE(output, nullptr);

  const std::vector<guint8> full = plane_bytes(input, full_info, 0);
  const std::vector<guint8> cropped = plane_bytes(output, crop_info, 0);
  for (int row = 0; row < crop_height; ++row)
    for (int byte = 0; byte < crop_width * 4; ++byte)
      ASSERT_EQ(cropped[row * crop_width * 4 + byte],
                full[(top + row) * width * 4 + left * 4 + byte])
          << "row " << row << " byte " << byte;
  gst_buffer_unref(output);
  gst_buffer_unref(device_frame);
  gst_buffer_unref(input);
  gst_harness_teardown(download);
  gst_harness_teardown(upload);
}

// Upload offers upstream pinned frames and copies from them directly, holding
// each until the GPU has read it (the source's pool cannot reuse it early).
TEST(Upload, OffersPinnedFramesAndHoldsThemUntilCopied) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("NV12", 1280, 720);
  GstHarness *harness = gst_harness_new("cudaframeupload");
  gst_harness_set_src_caps_str(harness, caps.c_str());
  GstCaps *gst_caps = gst_caps_from_string(caps.c_str());
  GstVideoInfo info;
  gst_video_info_from_caps(&info, gst_caps);
  GstQuery *query = gst_query_new_allocation(gst_caps, TRUE);
  ASSERT_TRUE(gst_pad_peer_query(harness->srcpad, query));
  ASSERT_GT(gst_query_get_n_allocation_pools(query), 0u);
  GstBufferPool *pool = nullptr;
  gst_query_parse_nth_allocation_pool(query, 0, &pool, nullptr, nullptr, nullptr);
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
  GstBuffer *input = nullptr;
  ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &input, nullptr), GST_FLOW_OK);
  GstMapInfo map;
  ASSERT_TRUE(gst_buffer_map(input, &map, GST_MAP_WRITE));
  cudaPointerAttributes attributes;
  CUDA_ASSERT_OK(cudaPointerGetAttributes(&attributes, map.data));
  EXPECT_EQ(attributes.type, cudaMemoryTypeHost) << "the proposed pool is not pinned";
  std::mt19937 rng(23);
  for (gsize i = 0; i < map.size; ++i) map.data[i] = static_cast<guint8>(rng());
  gst_buffer_unmap(input, &map);

  gst_buffer_ref(input);
  ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  EXPECT_GT(GST_MINI_OBJECT_REFCOUNT_VALUE(input), 1) << "input not held while the GPU reads it";
  GstBuffer *output = gst_harness_pull(harness);
  ASSERT_NE(output, nullptr);
  GstMemory *memory = gst_buffer_peek_memory(output, 0);
  CUDA_ASSERT_OK(cudaEventSynchronize(gst_cuda_prep_memory_get_ready_event(memory)));
  GstVideoMeta *meta = gst_buffer_get_video_meta(output);
  std::vector<guint8> luma(1280 * 720);
  CUDA_ASSERT_OK(cudaMemcpy2D(luma.data(), 1280,
                              gst_cuda_prep_memory_get_device_pointer(memory) + meta->offset[0],
                              meta->stride[0], 1280, 720, cudaMemcpyDeviceToHost));
  EXPECT_EQ(luma, plane_bytes(input, info, 0));
  gst_buffer_unref(output);
  gst_harness_teardown(harness);  // stopping releases the held input
  EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(input), 1);
  gst_buffer_unref(input);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
  gst_query_unref(query);
  gst_caps_unref(gst_caps);
}

// No device allocation per frame once the pools are warm.
TEST(SteadyState, NoDeviceAllocationPerFrame) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("NV12", 1920, 1080);
  const GstVideoInfo info = video_info(caps);
  GstHarness *harness = gst_harness_new_parse("cudaframeupload ! cudaframedownload");
  gst_harness_set_src_caps_str(harness, caps.c_str());
  gst_harness_set_sink_caps_str(harness, caps.c_str());
  std::mt19937 rng(3);
  GstBuffer *frame = random_frame(info, rng);
  auto push_and_pull = [&](int count) {
    for (int i = 0; i < count; ++i) {
      ASSERT_EQ(gst_harness_push(harness, gst_buffer_copy(frame)), GST_FLOW_OK);
      gst_buffer_unref(gst_harness_pull(harness));
    }
  };
  push_and_pull(10);
  const guint64 warm = gst_cuda_prep_memory_get_allocation_count();
  push_and_pull(300);
  EXPECT_EQ(gst_cuda_prep_memory_get_allocation_count(), warm)
      << "device memory was allocated in the steady state";
  gst_buffer_unref(frame);
  gst_harness_teardown(harness);
}

// A started cudaframeupload harness whose properties were set before start
// (they are read when the element starts).
GstHarness *harness_with_properties(const char *first_property, ...) {
  GstElement *upload = gst_element_factory_make("cudaframeupload", nullptr);
  va_list properties;
  va_start(properties, first_property);
  g_object_set_valist(G_OBJECT(upload), first_property, properties);
  va_end(properties);
  GstHarness *harness = gst_harness_new_with_element(upload, "sink", "src");
  gst_object_unref(upload);
  return harness;
}

TEST(Streams, PriorityIsClampedToTheDeviceRange) {
  CUDAPREP_REQUIRE_GPU();
  int least = 0, greatest = 0;
  CUDA_ASSERT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  for (int requested : {-100, 100, greatest, least}) {
    GstHarness *harness = harness_with_properties("stream-priority", requested, nullptr);
    // The property gives only an application's stream, never the element's own.
    gpointer property = &least;
    g_object_get(harness->element, "cuda-stream", &property, nullptr);
    EXPECT_EQ(property, nullptr);
    cudaStream_t stream =
        gst_cuda_prep_base_transform_get_stream(GST_CUDA_PREP_BASE_TRANSFORM(harness->element));
    ASSERT_NE(stream, nullptr);
    int priority = 1234;
    CUDA_ASSERT_OK(cudaStreamGetPriority(stream, &priority));
    EXPECT_EQ(priority, std::clamp(requested, greatest, least)) << "requested " << requested;
    gst_harness_teardown(harness);
  }
}

// A stream of another device is refused at start, naming both devices and
// the fix.
TEST(Streams, AStreamOfAnotherDeviceIsNamedAtStart) {
  CUDAPREP_REQUIRE_GPU();
  int device_count = 0;
  CUDA_ASSERT_OK(cudaGetDeviceCount(&device_count));
  if (device_count < 2) GTEST_SKIP() << "needs 2 or more GPUs; this machine has " << device_count;
  cudaStream_t other_device_stream = nullptr;
  CUDA_ASSERT_OK(cudaSetDevice(1));
  CUDA_ASSERT_OK(cudaStreamCreateWithFlags(&other_device_stream, cudaStreamNonBlocking));
  CUDA_ASSERT_OK(cudaSetDevice(0));
  GstElement *upload = gst_element_factory_make("cudaframeupload", nullptr);
  g_object_set(upload, "device-id", 0, "cuda-stream", other_device_stream, nullptr);
  GstStateChangeReturn ret = GST_STATE_CHANGE_SUCCESS;
  const std::string error = cudaprep::test::posted_error(
      upload, [&] { ret = gst_element_set_state(upload, GST_STATE_PAUSED); });
  EXPECT_EQ(ret, GST_STATE_CHANGE_FAILURE);
  EXPECT_NE(error.find("belongs to CUDA device 1 but the element runs on device 0; set "
                       "device-id to 1"),
            std::string::npos)
      << error;
  gst_element_set_state(upload, GST_STATE_NULL);
  gst_object_unref(upload);
  CUDA_ASSERT_OK(cudaStreamDestroy(other_device_stream));
}

// The application's stream: the element's copy is queued behind the
// application's own work on it, and the element never destroys it.
TEST(Streams, RunsOnAnExternalPriorityStream) {
  CUDAPREP_REQUIRE_GPU();
  int least = 0, greatest = 0;
  CUDA_ASSERT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t app_stream = nullptr;
  CUDA_ASSERT_OK(cudaStreamCreateWithPriority(&app_stream, cudaStreamNonBlocking, greatest));

  const std::string caps = caps_string("RGBA", 320, 240);
  const GstVideoInfo info = video_info(caps);
  GstHarness *harness = harness_with_properties("cuda-stream", app_stream, nullptr);
  gst_harness_set_src_caps_str(harness, caps.c_str());

  // The application keeps its stream busy for 300 ms.
  CUDA_ASSERT_OK(cudaprep::test::spin(300'000'000, app_stream));
  std::mt19937 rng(5);
  GstBuffer *input = random_frame(info, rng);
  gst_buffer_ref(input);
  ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer *output = gst_harness_pull(harness);
  ASSERT_NE(output, nullptr);
  GstMemory *memory = gst_buffer_peek_memory(output, 0);
  cudaEvent_t ready = gst_cuda_prep_memory_get_ready_event(memory);
  ASSERT_NE(ready, nullptr);
  // Queued behind the spin: not done yet. On its own stream it would be.
  EXPECT_EQ(cudaEventQuery(ready), cudaErrorNotReady);
  gpointer stream_in_use = nullptr;
  g_object_get(harness->element, "cuda-stream", &stream_in_use, nullptr);
  EXPECT_EQ(stream_in_use, app_stream) << "reading cuda-stream gives the application's stream";

  CUDA_ASSERT_OK(cudaStreamSynchronize(app_stream));
  CUDA_ASSERT_OK(cudaEventQuery(ready));
  GstVideoMeta *meta = gst_buffer_get_video_meta(output);
  std::vector<guint8> readback(320 * 4 * 240);
  CUDA_ASSERT_OK(cudaMemcpy2D(readback.data(), 320 * 4,
                              gst_cuda_prep_memory_get_device_pointer(memory) + meta->offset[0],
                              meta->stride[0], 320 * 4, 240, cudaMemcpyDeviceToHost));
  EXPECT_EQ(readback, plane_bytes(input, info, 0));
  gst_buffer_unref(output);
  gst_buffer_unref(input);
  gst_harness_teardown(harness);

  int priority = 0;
  CUDA_ASSERT_OK(cudaStreamGetPriority(app_stream, &priority));  // still alive
  EXPECT_EQ(priority, greatest);
  CUDA_ASSERT_OK(cudaStreamDestroy(app_stream));
}

}  // namespace
