// Long-run properties of the foundation: start/stop cycles without growth,
// renegotiation mid-stream, and several pipelines on one GPU at once.
#include <gst/app/gstappsink.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "cudaprep/image.h"
#include "common/cuda_test.h"
#include "common/gst_frames.h"

namespace {

using namespace cudaprep::test;

size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t total_pages = 0, resident_pages = 0;
  statm >> total_pages >> resident_pages;
  return resident_pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

size_t device_free_bytes() {
  size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  return free_bytes;
}

// Runs the pipeline to EOS and back to NULL; false on an error.
bool run_to_eos(GstElement *pipeline) {
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) return false;
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, 10 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  const bool eos = message != nullptr && GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS;
  if (message != nullptr) gst_message_unref(message);
  gst_object_unref(bus);
  return gst_element_set_state(pipeline, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS && eos;
}

// Every element's GType carries the project's prefix (nvcodec registers
// GstCuda* types in the same process-wide namespace), while an unnamed
// element is still named after its factory, counted per factory as
// GStreamer counts per type: cudaresize0, cudaresize1 (not cudaprepresize0).
TEST(Names, TypesCarryThePrefixAndDefaultNamesFollowTheFactory) {
  for (const char *factory :
       {"cudaframeupload", "cudaframedownload", "cudacrop", "cudaresize", "cudanormalize",
        "cudatensorize", "cudabatch", "cudapreprocess", "cudatensorsink", "cudaprepsrc"}) {
    GstElement *first = gst_element_factory_make(factory, nullptr);
    GstElement *second = gst_element_factory_make(factory, nullptr);
    GstElement *named = gst_element_factory_make(factory, "mine");
    ASSERT_NE(nullptr, first) << factory;
    ASSERT_NE(nullptr, second) << factory;
    ASSERT_NE(nullptr, named) << factory;
    EXPECT_EQ(0, std::string(G_OBJECT_TYPE_NAME(first)).rfind("GstCudaPrep", 0))
        << factory << ": " << G_OBJECT_TYPE_NAME(first);
    const std::string first_name = GST_ELEMENT_NAME(first);
    ASSERT_EQ(0u, first_name.rfind(factory, 0)) << first_name;
    const std::string count = first_name.substr(std::string(factory).size());
    ASSERT_FALSE(count.empty()) << first_name;
    ASSERT_TRUE(std::all_of(count.begin(), count.end(), ::isdigit)) << first_name;
    EXPECT_EQ(factory + std::to_string(std::stoi(count) + 1), GST_ELEMENT_NAME(second));
    EXPECT_STREQ("mine", GST_ELEMENT_NAME(named));
    gst_object_unref(gst_object_ref_sink(first));
    gst_object_unref(gst_object_ref_sink(second));
    gst_object_unref(gst_object_ref_sink(named));
  }
}

// Runs `description` to EOS and back to NULL a thousand times: neither host
// nor device memory grows after the first hundred cycles.
void expect_a_thousand_cycles_without_growth(const char *description) {
  GstElement *pipeline = gst_parse_launch(description, nullptr);
  ASSERT_NE(pipeline, nullptr);
  constexpr int kWarmup = 100, kCycles = 1000;
  size_t host_after_warmup = 0, device_after_warmup = 0;
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    ASSERT_TRUE(run_to_eos(pipeline)) << "cycle " << cycle;
    if (cycle == kWarmup) {
      host_after_warmup = resident_bytes();
      device_after_warmup = device_free_bytes();
    }
  }
  const long host_growth =
      static_cast<long>(resident_bytes()) - static_cast<long>(host_after_warmup);
  const long device_growth =
      static_cast<long>(device_after_warmup) - static_cast<long>(device_free_bytes());
  std::printf("after %d cycles: host resident %+ld bytes, device in use %+ld bytes\n",
              kCycles - kWarmup, host_growth, device_growth);
  // One leaked 320x240 NV12 frame per cycle would be 100 MB here.
  EXPECT_LT(host_growth, 2 << 20);
  EXPECT_LE(device_growth, 0);
  gst_object_unref(pipeline);
}

TEST(Lifecycle, AThousandStartStopCyclesDoNotGrowMemory) {
  CUDAPREP_REQUIRE_GPU();
  expect_a_thousand_cycles_without_growth(
      "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=320,height=240 ! "
      "cudaframeupload ! cudacrop left=2 top=2 ! cudaframedownload ! fakesink");
}

// Clips that overlap (two tensors open at once) and end short at EOS.
TEST(Lifecycle, AThousandCyclesOfOverlappingClipsDoNotGrowMemory) {
  CUDAPREP_REQUIRE_GPU();
  expect_a_thousand_cycles_without_growth(
      "videotestsrc num-buffers=7 ! video/x-raw,format=NV12,width=320,height=240 ! "
      "cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),width=64,height=64 ! "
      "cudanormalize ! cudatensorize clip-length=4 clip-stride=2 layout=ncthw ! fakesink");
}

// Two sources' overlapping clips in one cudabatch tensor, one source ending
// mid-clip, the tensors leaving as they are at EOS.
TEST(Lifecycle, AThousandCyclesOfTwoSourcesClipsInOneBatchDoNotGrowMemory) {
  CUDAPREP_REQUIRE_GPU();
  const std::string chain =
      "video/x-raw,format=NV12,width=320,height=240 ! cudaframeupload ! cudaresize ! "
      "video/x-raw(memory:CUDAPitched),width=64,height=64 ! cudanormalize";
  expect_a_thousand_cycles_without_growth(
      (std::string("cudabatch name=b batch-size=2 clip-length=4 clip-stride=2 layout=ntchw ! "
                   "fakesink videotestsrc num-buffers=7 ! ") +
       chain + " ! b.sink_0 videotestsrc num-buffers=3 ! " + chain + " ! b.sink_1")
          .c_str());
}

// Frames change size and format mid-stream, as cameras do: every frame
// still comes back bit-exact.
TEST(Renegotiation, SizeAndFormatChangesMidStream) {
  CUDAPREP_REQUIRE_GPU();
  GstHarness *harness = gst_harness_new_parse("cudaframeupload ! cudaframedownload");
  std::mt19937 rng(17);
  const struct {
    const char *format;
    int width, height;
  } steps[] = {{"NV12", 64, 48}, {"RGBA", 321, 241}, {"I420", 1920, 1080}, {"NV12", 64, 48}};
  for (const auto &step : steps) {
    const std::string caps = caps_string(step.format, step.width, step.height);
    gst_harness_set_src_caps_str(harness, caps.c_str());
    gst_harness_set_sink_caps_str(harness, caps.c_str());
    const GstVideoInfo info = video_info(caps);
    for (int frame = 0; frame < 3; ++frame) {
      GstBuffer *input = random_frame(info, rng);
      gst_buffer_ref(input);
      ASSERT_EQ(gst_harness_push(harness, input), GST_FLOW_OK) << caps;
      GstBuffer *output = gst_harness_pull(harness);
      ASSERT_NE(output, nullptr);
      for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane)
        ASSERT_EQ(plane_bytes(output, info, plane), plane_bytes(input, info, plane))
            << caps << " plane " << plane;
      gst_buffer_unref(output);
      gst_buffer_unref(input);
    }
  }
  gst_harness_teardown(harness);
}

// Eight pipelines in one process, each element on its own stream, pushing
// from eight threads: every frame comes back as it went in.
TEST(Concurrency, EightPipelinesOnOneGpu) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kPipelines = 8, kFrames = 40;
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int index = 0; index < kPipelines; ++index) {
    threads.emplace_back([index, &mismatches, &failures] {
      const char *formats[] = {"NV12", "RGBA", "I420", "YUY2"};
      const std::string caps = caps_string(formats[index % 4], 640 + index * 2, 360 + index);
      GstHarness *harness =
          gst_harness_new_parse("cudaframeupload ! cudacrop left=4 right=4 ! cudaframedownload");
      const std::string out_caps = caps_string(formats[index % 4], 632 + index * 2, 360 + index);
      gst_harness_set_src_caps_str(harness, caps.c_str());
      gst_harness_set_sink_caps_str(harness, out_caps.c_str());
      GstVideoInfo in_info, out_info;
      GstCaps *gst_caps = gst_caps_from_string(caps.c_str());
      gst_video_info_from_caps(&in_info, gst_caps);
      gst_caps_unref(gst_caps);
      gst_caps = gst_caps_from_string(out_caps.c_str());
      gst_video_info_from_caps(&out_info, gst_caps);
      gst_caps_unref(gst_caps);
      cudaprep::PixelFormat format = cudaprep::PixelFormat::kRGBA;
      if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&in_info), &format)) ++failures;
      std::mt19937 rng(index);
      for (int frame = 0; frame < kFrames; ++frame) {
        GstBuffer *input = random_frame(in_info, rng);
        gst_buffer_ref(input);
        if (gst_harness_push(harness, input) != GST_FLOW_OK) {
          ++failures;
          gst_buffer_unref(input);
          break;
        }
        GstBuffer *output = gst_harness_pull(harness);
        if (output == nullptr) {  // ASSERT_NE for this thread: fail, stop, tear down
          ADD_FAILURE() << formats[index % 4] << " pipeline " << index << " frame " << frame
                        << ": no output";
          ++failures;
          gst_buffer_unref(input);
          break;
        }
        // Every plane: the crop moves each row right by what 4 pixels take in
        // that plane (4 bytes in NV12's UV plane, 2 in I420's U and V).
        bool mismatch = false;
        for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&in_info) && !mismatch; ++plane) {
          const std::vector<guint8> full = plane_bytes(input, in_info, plane);
          const std::vector<guint8> cropped = plane_bytes(output, out_info, plane);
          const int rows = cudaprep::plane_height(format, static_cast<int>(plane),
                                                  GST_VIDEO_INFO_HEIGHT(&in_info));
          const size_t in_row = full.size() / rows;
          const size_t out_row = cropped.size() / rows;
          const size_t shift = (in_row - out_row) / 2;
          mismatch = out_row >= in_row || cropped.size() != out_row * rows;
          for (int row = 0; row < rows && !mismatch; ++row)
            mismatch =
                !std::equal(cropped.begin() + row * out_row, cropped.begin() + (row + 1) * out_row,
                            full.begin() + row * in_row + shift);
        }
        if (mismatch) ++mismatches;
        gst_buffer_unref(output);
        gst_buffer_unref(input);
      }
      gst_harness_teardown(harness);
    });
  }
  for (auto &thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

// What a chain gives, item by item (a tensor's batch items, or video
// frames), to compare two runs, and how each tensor was filled.
struct ChainItem {
  GstClockTime pts;
  std::string shape;  // the tensor's dims and dtype, or the frame's caps
  std::vector<guint8> bytes;
};

struct ChainTensor {
  std::string shape;
  gsize batch_size, filled;
};

struct ChainOutputs {
  std::vector<ChainItem> items;
  std::vector<ChainTensor> tensors;
};

std::string tensor_shape(const GstCudaPrepTensor *tensor) {
  std::string shape = std::to_string(tensor->data_type);
  for (gsize axis = 0; axis < tensor->num_dims; ++axis)
    shape += " " + std::to_string(tensor->dims[axis]);
  return shape;
}

// Takes every buffer the harness holds. A tensor says its own shape; a
// video frame's is the harness' current caps, so this runs after each push
// (the chains that give video are synchronous).
void take_outputs(GstHarness *harness, ChainOutputs *outputs) {
  while (GstBuffer *buffer = gst_harness_try_pull(harness)) {
    if (GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer)) {
      const GstCudaPrepTensor *tensor = meta->tensors[0];
      const std::string shape = tensor_shape(tensor);
      const std::vector<guint8> bytes = tensor_bytes(buffer);
      const size_t item_bytes = bytes.size() / tensor->batch_size;
      for (gsize i = 0; i < tensor->batch_filled; ++i)
        outputs->items.push_back(
            ChainItem{tensor->items[i].pts, shape,
                      std::vector<guint8>(bytes.begin() + i * item_bytes,
                                          bytes.begin() + (i + 1) * item_bytes)});
      outputs->tensors.push_back(ChainTensor{shape, tensor->batch_size, tensor->batch_filled});
    } else {
      GstCaps *caps = gst_pad_get_current_caps(harness->sinkpad);
      gchar *caps_text = gst_caps_to_string(caps);
      ChainItem item{GST_BUFFER_PTS(buffer), caps_text, {}};
      g_free(caps_text);
      GstVideoInfo info;
      EXPECT_TRUE(gst_video_info_from_caps(&info, caps));
      gst_caps_unref(caps);
      for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane) {
        const std::vector<guint8> bytes = plane_bytes(buffer, info, plane);
        item.bytes.insert(item.bytes.end(), bytes.begin(), bytes.end());
      }
      outputs->items.push_back(std::move(item));
    }
    gst_buffer_unref(buffer);
  }
}

// Sends EOS and takes the rest (an aggregator pushes from its own thread:
// EOS comes after its last buffer).
void take_outputs_until_eos(GstHarness *harness, ChainOutputs *outputs) {
  EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_eos()));
  while (GstEvent *event = gst_harness_pull_event(harness)) {
    const bool eos = GST_EVENT_TYPE(event) == GST_EVENT_EOS;
    gst_event_unref(event);
    if (eos) break;
  }
  take_outputs(harness, outputs);
}

// Issue 23: a camera changes size and format mid-stream, and every element
// follows at the frame the caps change: one running chain gives, item for
// item, what a fresh chain gives of each caps' frames alone (pools
// replaced, crops recomputed, no frame lost, none read with the old
// settings), and its batches fill across the change unless the tensor
// changes (then the batch begun under the old caps leaves partly filled).
class EveryElementFollowsACameraChange : public ::testing::TestWithParam<const char *> {};

TEST_P(EveryElementFollowsACameraChange, AsAFreshChainDoes) {
  CUDAPREP_REQUIRE_GPU();
  const char *chain = GetParam();
  GstHarness *running = gst_harness_new_parse(chain);
  std::mt19937 rng(29);
  const struct {
    const char *format;
    int width, height;
  } steps[] = {{"NV12", 320, 240}, {"RGBA", 641, 479}, {"I420", 96, 200}, {"NV12", 320, 240}};
  // The fresh chains run first, and compile every kernel the caps need
  // (kernel_runtime.h): with a cold kernel cache, a compile while the
  // running batch holds frames would pass its latency budget and leave a
  // partial batch, as a live camera change does once.
  struct Step {
    std::string caps;
    std::vector<GstBuffer *> frames;
  };
  std::vector<Step> inputs;
  std::vector<ChainItem> expected;
  GstClockTime pts = 0;
  for (const auto &step : steps) {
    Step input{caps_string(step.format, step.width, step.height), {}};
    GstHarness *fresh = gst_harness_new_parse(chain);
    gst_harness_set_src_caps_str(fresh, input.caps.c_str());
    const GstVideoInfo info = video_info(input.caps);
    for (int frame = 0; frame < 2; ++frame, pts += 33 * GST_MSECOND) {
      GstBuffer *buffer = random_frame(info, rng);
      GST_BUFFER_PTS(buffer) = pts;
      input.frames.push_back(gst_buffer_copy(buffer));
      ASSERT_EQ(gst_harness_push(fresh, buffer), GST_FLOW_OK) << input.caps;
    }
    ChainOutputs alone;
    take_outputs_until_eos(fresh, &alone);
    ASSERT_EQ(alone.items.size(), 2u) << input.caps;
    for (ChainItem &item : alone.items) expected.push_back(std::move(item));
    gst_harness_teardown(fresh);
    inputs.push_back(std::move(input));
  }
  ChainOutputs actual;
  for (Step &input : inputs) {
    gst_harness_set_src_caps_str(running, input.caps.c_str());
    for (GstBuffer *buffer : input.frames) {
      ASSERT_EQ(gst_harness_push(running, buffer), GST_FLOW_OK) << input.caps;
      take_outputs(running, &actual);
    }
  }
  take_outputs_until_eos(running, &actual);
  ASSERT_EQ(actual.items.size(), expected.size()) << "every frame once";
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual.items[i].pts, expected[i].pts) << "item " << i;
    EXPECT_EQ(actual.items[i].shape, expected[i].shape) << "item " << i;
    EXPECT_EQ(first_difference(actual.items[i].bytes, expected[i].bytes), SIZE_MAX) << "item " << i;
  }
  for (size_t t = 0; t + 1 < actual.tensors.size(); ++t) {
    const ChainTensor &tensor = actual.tensors[t];
    if (tensor.shape == actual.tensors[t + 1].shape)
      EXPECT_EQ(tensor.filled, tensor.batch_size)
          << "tensor " << t << " left partly filled though the next has the same shape";
    else
      EXPECT_GT(tensor.filled, 0u) << "tensor " << t;
  }
  gst_harness_teardown(running);
}

INSTANTIATE_TEST_SUITE_P(
    Renegotiation, EveryElementFollowsACameraChange,
    ::testing::Values(
        // upload, resize, normalize, tensorize (fused)
        "cudaframeupload ! cudaresize method=bilinear add-borders=true ! "
        "video/x-raw(memory:CUDAPitched),width=64,height=48,format=RGB ! "
        "cudanormalize ! cudatensorize",
        // a crop view, an antialiased resize, a partial temporal batch
        "cudaframeupload ! cudacrop region=\"<2,2,60,40>\" ! cudaresize method=bicubic "
        "antialias=true ! video/x-raw(memory:CUDAPitched),width=32,height=24,format=BGR ! "
        "cudanormalize ! cudatensorize batch-size=3",
        // the tensor's own size follows the camera (short-side), unfused
        "cudaframeupload ! cudaresize short-side=20 ! cudanormalize dtype=float16 ! "
        "cudatensorize batch-size=3 fuse=false",
        // turned, and batched by cudabatch
        "cudaframeupload ! cudaresize video-direction=90r ! "
        "video/x-raw(memory:CUDAPitched),width=24,height=32,format=RGB ! cudanormalize ! "
        "cudabatch batch-size=3",
        // a crop copied out to system memory
        "cudaframeupload ! cudacrop region=\"<3,1,57,41>\" ! cudaframedownload"));

// One pipeline per GPU (device-id), all at once: each runs on its own
// device and gives correct frames.
TEST(Concurrency, OnePipelinePerGpu) {
  CUDAPREP_REQUIRE_GPU();
  int device_count = 0;
  CUDA_ASSERT_OK(cudaGetDeviceCount(&device_count));
  if (device_count < 2) GTEST_SKIP() << "needs 2 or more GPUs; this machine has " << device_count;
  std::atomic<int> mismatches{0}, wrong_devices{0};
  std::vector<std::thread> threads;
  for (int device = 0; device < device_count; ++device) {
    threads.emplace_back([device, &mismatches, &wrong_devices] {
      gchar *description = g_strdup_printf(
          "cudaframeupload device-id=%d ! cudacrop left=2 right=2 device-id=%d", device, device);
      GstHarness *harness = gst_harness_new_parse(description);
      g_free(description);
      gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_META_API_TYPE, nullptr);
      const std::string caps = caps_string("RGBA", 1280, 720);
      gst_harness_set_src_caps_str(harness, caps.c_str());
      const GstVideoInfo info = video_info(caps);
      std::mt19937 rng(device);
      for (int frame = 0; frame < 20; ++frame) {
        GstBuffer *input = random_frame(info, rng);
        gst_buffer_ref(input);
        if (gst_harness_push(harness, input) != GST_FLOW_OK) {
          ++mismatches;
          gst_buffer_unref(input);
          break;
        }
        GstBuffer *output = gst_harness_pull(harness);
        GstMemory *memory = gst_buffer_peek_memory(output, 0);
        if (gst_cuda_prep_memory_get_device_id(memory) != device) ++wrong_devices;
        cudaPointerAttributes attributes;
        if (cudaPointerGetAttributes(
                &attributes, gst_cuda_prep_memory_get_device_pointer(memory)) != cudaSuccess ||
            attributes.device != device)
          ++wrong_devices;
        GstVideoMeta *meta = gst_buffer_get_video_meta(output);
        std::vector<guint8> readback(1276 * 4 * 720);
        cudaSetDevice(device);
        if (cudaEventSynchronize(gst_cuda_prep_memory_get_ready_event(memory)) != cudaSuccess ||
            cudaMemcpy2D(readback.data(), 1276 * 4,
                         gst_cuda_prep_memory_get_device_pointer(memory) + meta->offset[0],
                         meta->stride[0], 1276 * 4, 720, cudaMemcpyDeviceToHost) != cudaSuccess) {
          ++mismatches;
        } else {
          const std::vector<guint8> full = plane_bytes(input, info, 0);
          for (int row = 0; row < 720; ++row)
            if (!std::equal(readback.begin() + row * 1276 * 4,
                            readback.begin() + (row + 1) * 1276 * 4,
                            full.begin() + row * 1280 * 4 + 8)) {
              ++mismatches;
              break;
            }
        }
        gst_buffer_unref(output);
        gst_buffer_unref(input);
      }
      gst_harness_teardown(harness);
    });
  }
  for (auto &thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(wrong_devices.load(), 0);
}

// Every element on device `device`, fed from the test thread through appsrc
// and run by the pipeline's own streaming threads (a queue before each
// element): what a device-id >= 1 pipeline meets in an application, where
// those threads start on device 0. Returns the tensors' bytes and the
// downloaded crops' bytes, and checks every tensor lives on `device`.
struct DeviceRun {
  std::vector<std::vector<guint8>> tensors, crops;
  std::string error;
};

DeviceRun run_on_device(int device, bool fuse, const std::vector<GstBuffer *> &frames,
                        const std::string &caps) {
  gchar *description = g_strdup_printf(
      "appsrc name=src format=time caps=\"%s\" ! queue ! cudaframeupload device-id=%d ! queue ! "
      "cudacrop left=8 right=8 top=4 device-id=%d ! tee name=t ! queue ! "
      "cudaresize device-id=%d ! video/x-raw(memory:CUDAPitched),width=96,height=64,format=RGB ! "
      "queue ! cudanormalize device-id=%d ! queue ! cudatensorize device-id=%d fuse=%s "
      "batch-size=2 ! cudatensorsink name=tensors consumer=application max-buffers=0  "
      "t. ! queue ! cudaframedownload device-id=%d ! appsink name=crops sync=false",
      caps.c_str(), device, device, device, device, device, fuse ? "true" : "false", device);
  DeviceRun run;
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(description, &parse_error);
  g_free(description);
  if (pipeline == nullptr) {
    run.error = parse_error->message;
    g_error_free(parse_error);
    return run;
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *tensors = gst_bin_get_by_name(GST_BIN(pipeline), "tensors");
  GstElement *crops = gst_bin_get_by_name(GST_BIN(pipeline), "crops");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  for (size_t i = 0; i < frames.size(); ++i) {
    GstBuffer *frame = gst_buffer_copy(frames[i]);
    GST_BUFFER_PTS(frame) = i * 33 * GST_MSECOND;
    g_signal_emit_by_name(src, "push-buffer", frame, nullptr);
    gst_buffer_unref(frame);
  }
  g_signal_emit_by_name(src, "end-of-stream", nullptr);
  while (GstSample *sample =
             gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(tensors))) {
    const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
    cudaPointerAttributes attributes;
    if (tensor->device_id != device ||
        cudaPointerGetAttributes(&attributes, tensor->data) != cudaSuccess ||
        attributes.device != device)
      run.error = "a tensor is not on device " + std::to_string(device);
    run.tensors.push_back(tensor_bytes(gst_sample_get_buffer(sample)));
    gst_sample_unref(sample);
  }
  while (GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(crops), GST_SECOND)) {
    GstMapInfo map;
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    if (gst_buffer_map(buffer, &map, GST_MAP_READ)) {
      run.crops.emplace_back(map.data, map.data + map.size);
      gst_buffer_unmap(buffer, &map);
    }
    gst_sample_unref(sample);
  }
  GstBus *bus = gst_element_get_bus(pipeline);
  if (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError *error = nullptr;
    gst_message_parse_error(message, &error, nullptr);
    run.error = error->message;
    g_error_free(error);
    gst_message_unref(message);
  }
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(crops);
  gst_object_unref(tensors);
  gst_object_unref(src);
  gst_object_unref(pipeline);
  return run;
}

// device-id=1 from real streaming threads, for every element, fused and
// element by element: the same bytes as on device 0, every tensor on
// device 1.
TEST(Concurrency, EveryElementOnDeviceOneFromStreamingThreads) {
  CUDAPREP_REQUIRE_GPU();
  int device_count = 0;
  CUDA_ASSERT_OK(cudaGetDeviceCount(&device_count));
  if (device_count < 2) GTEST_SKIP() << "needs 2 or more GPUs; this machine has " << device_count;
  const std::string caps = caps_string("NV12", 320, 240);
  const GstVideoInfo info = video_info(caps);
  std::mt19937 rng(11);
  std::vector<GstBuffer *> frames;
  for (int i = 0; i < 9; ++i) frames.push_back(random_frame(info, rng));
  for (bool fuse : {true, false}) {
    const DeviceRun on_zero = run_on_device(0, fuse, frames, caps);
    const DeviceRun on_one = run_on_device(1, fuse, frames, caps);
    EXPECT_EQ(on_zero.error, "") << "fuse=" << fuse;
    EXPECT_EQ(on_one.error, "") << "fuse=" << fuse;
    EXPECT_EQ(on_one.tensors.size(), 5u) << "fuse=" << fuse;
    EXPECT_EQ(on_one.crops.size(), frames.size()) << "fuse=" << fuse;
    EXPECT_TRUE(on_one.tensors == on_zero.tensors) << "fuse=" << fuse;
    EXPECT_TRUE(on_one.crops == on_zero.crops) << "fuse=" << fuse;
  }
  for (GstBuffer *frame : frames) gst_buffer_unref(frame);
}

}  // namespace
