// Flushes and EOS as GStreamer users expect them, on a GPU: a flush in the
// middle of a batch drops the partial batch and later frames come out with
// their own PTS; EOS in the middle of a batch pushes it with its real count;
// over a run of frames every PTS appears once in the tensors' per-item PTS;
// a flush through upload ! crop ! download keeps the frames correct.
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include "common/cuda_test.h"
#include "common/gst_frames.h"

namespace {

using cudaprep::test::caps_string;
using cudaprep::test::plane_bytes;
using cudaprep::test::random_frame;

constexpr GstClockTime kFrameDuration = 33 * GST_MSECOND;

GstClockTime pts_of(int index) {
  return index * kFrameDuration;
}

// A harness around `launch_line`, fed system-memory frames of `caps`.
struct HarnessRun {
  GstHarness *harness;
  GstVideoInfo info;
  std::mt19937 rng{7};

  HarnessRun(const char *launch_line, const std::string &caps) {
    harness = gst_harness_new_parse(launch_line);
    gst_harness_set_src_caps_str(harness, caps.c_str());
    GstCaps *parsed = gst_caps_from_string(caps.c_str());
    gst_video_info_from_caps(&info, parsed);
    gst_caps_unref(parsed);
  }
  ~HarnessRun() { gst_harness_teardown(harness); }

  // Pushes frame `index` (PTS index * 33 ms) and returns it (a reference).
  GstBuffer *push(int index) {
    GstBuffer *frame = random_frame(info, rng);
    GST_BUFFER_PTS(frame) = pts_of(index);
    GST_BUFFER_DURATION(frame) = kFrameDuration;
    gst_buffer_ref(frame);
    EXPECT_EQ(gst_harness_push(harness, frame), GST_FLOW_OK) << "frame " << index;
    return frame;
  }
  void push_frames(int first, int count) {
    for (int index = first; index < first + count; ++index) gst_buffer_unref(push(index));
  }

  // FLUSH_START, FLUSH_STOP and a new segment, as a flushing seek sends them.
  void flush() {
    EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_flush_start()));
    EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_flush_stop(TRUE)));
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_segment(&segment)));
  }

  // Every output buffer waiting in the harness.
  std::vector<GstBuffer *> take_outputs() {
    std::vector<GstBuffer *> outputs;
    while (GstBuffer *buffer = gst_harness_try_pull(harness)) outputs.push_back(buffer);
    return outputs;
  }
};

// The PTS of the frames a tensor holds (its filled items), in order.
std::vector<GstClockTime> item_pts(GstBuffer *tensor_buffer) {
  std::vector<GstClockTime> pts;
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(tensor_buffer);
  EXPECT_NE(meta, nullptr);
  if (meta == nullptr) return pts;
  const GstCudaPrepTensor *tensor = meta->tensors[0];
  for (gsize i = 0; i < tensor->batch_filled; ++i) pts.push_back(tensor->items[i].pts);
  return pts;
}

std::vector<GstClockTime> pts_range(int first, int count) {
  std::vector<GstClockTime> pts;
  for (int index = first; index < first + count; ++index) pts.push_back(pts_of(index));
  return pts;
}

void unref_all(std::vector<GstBuffer *> &buffers) {
  for (GstBuffer *buffer : buffers) gst_buffer_unref(buffer);
  buffers.clear();
}

const char *const kTensorChain = "cudaframeupload ! cudanormalize ! cudatensorize batch-size=4";

TEST(FlushMidBatch, DropsThePartialBatchAndLaterFramesKeepTheirPts) {
  CUDAPREP_REQUIRE_GPU();
  HarnessRun run(kTensorChain, caps_string("RGBA", 16, 8));
  run.push_frames(0, 6);  // one batch of 0..3, then 4 and 5 pending
  std::vector<GstBuffer *> outputs = run.take_outputs();
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(item_pts(outputs[0]), pts_range(0, 4));
  unref_all(outputs);

  run.flush();
  EXPECT_TRUE(run.take_outputs().empty()) << "the flushed partial batch must not be pushed";
  run.push_frames(10, 8);
  outputs = run.take_outputs();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(item_pts(outputs[0]), pts_range(10, 4));
  EXPECT_EQ(item_pts(outputs[1]), pts_range(14, 4));
  EXPECT_EQ(GST_BUFFER_PTS(outputs[0]), pts_of(10));
  EXPECT_EQ(GST_BUFFER_PTS(outputs[1]), pts_of(14));
  unref_all(outputs);

  // EOS after the flush: nothing is left over from before it.
  EXPECT_TRUE(gst_harness_push_event(run.harness, gst_event_new_eos()));
  EXPECT_TRUE(run.take_outputs().empty());
}

TEST(EosMidBatch, PushesThePartialBatchWithItsRealCount) {
  CUDAPREP_REQUIRE_GPU();
  HarnessRun run(kTensorChain, caps_string("RGBA", 16, 8));
  run.push_frames(0, 6);
  EXPECT_TRUE(gst_harness_push_event(run.harness, gst_event_new_eos()));
  std::vector<GstBuffer *> outputs = run.take_outputs();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(item_pts(outputs[0]), pts_range(0, 4));
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(outputs[1]);
  ASSERT_NE(meta, nullptr);
  const GstCudaPrepTensor *partial = meta->tensors[0];
  EXPECT_EQ(partial->batch_size, 4u);
  EXPECT_EQ(partial->batch_filled, 2u);
  EXPECT_EQ(item_pts(outputs[1]), pts_range(4, 2));
  EXPECT_EQ(partial->items[2].pts, GST_CLOCK_TIME_NONE);
  EXPECT_EQ(partial->items[3].pts, GST_CLOCK_TIME_NONE);
  EXPECT_EQ(GST_BUFFER_PTS(outputs[1]), pts_of(4));
  EXPECT_EQ(GST_BUFFER_DURATION(outputs[1]), 2 * kFrameDuration);
  unref_all(outputs);
}

// 23 frames in batches of 4: six tensors, the last of 3, and every frame's
// PTS exactly once, in order.
TEST(Batching, EveryPtsAppearsExactlyOnce) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kFrames = 23;
  HarnessRun run(kTensorChain, caps_string("BGRx", 16, 8));
  run.push_frames(0, kFrames);
  EXPECT_TRUE(gst_harness_push_event(run.harness, gst_event_new_eos()));
  std::vector<GstBuffer *> outputs = run.take_outputs();
  EXPECT_EQ(outputs.size(), 6u);
  std::vector<GstClockTime> seen;
  for (GstBuffer *tensor : outputs) {
    const std::vector<GstClockTime> pts = item_pts(tensor);
    seen.insert(seen.end(), pts.begin(), pts.end());
  }
  EXPECT_EQ(seen, pts_range(0, kFrames));
  unref_all(outputs);
}

// batch-size, layout and dtype changed while a batch is half full: the
// batch begun under the old settings leaves whole as it was (its own shape,
// its real count), then batches follow the new settings; every PTS once.
// compute-sanitizer memcheck runs this (tests/sanitize-gpu.sh): nothing is
// written outside a buffer.
TEST(ReconfigureMidBatch, SendsThePartialBatchFirstAndLosesNoFrame) {
  CUDAPREP_REQUIRE_GPU();
  HarnessRun run("cudaframeupload ! cudanormalize ! cudatensorize name=t batch-size=4",
                 caps_string("RGBA", 16, 8));
  run.push_frames(0, 6);
  GstElement *tensorize = gst_harness_find_element(run.harness, "cudatensorize");
  gst_util_set_object_arg(G_OBJECT(tensorize), "batch-size", "2");
  gst_util_set_object_arg(G_OBJECT(tensorize), "layout", "nhwc");
  gst_util_set_object_arg(G_OBJECT(tensorize), "dtype", "float16");
  gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(tensorize));
  gst_object_unref(tensorize);
  run.push_frames(6, 5);
  EXPECT_TRUE(gst_harness_push_event(run.harness, gst_event_new_eos()));
  std::vector<GstBuffer *> outputs = run.take_outputs();
  // 4 | 2 of 4 (before) | 2 2 | 1 of 2 (EOS).
  ASSERT_EQ(outputs.size(), 5u);
  const gsize expected_size[] = {4, 4, 2, 2, 2}, expected_filled[] = {4, 2, 2, 2, 1};
  std::vector<GstClockTime> seen;
  for (size_t i = 0; i < outputs.size(); ++i) {
    GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(outputs[i]);
    ASSERT_NE(meta, nullptr);
    const GstCudaPrepTensor *tensor = meta->tensors[0];
    EXPECT_EQ(tensor->batch_size, expected_size[i]) << "tensor " << i;
    EXPECT_EQ(tensor->batch_filled, expected_filled[i]) << "tensor " << i;
    const bool before = i < 2;
    EXPECT_EQ(tensor->image_layout, before ? GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW
                                           : GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NHWC);
    EXPECT_EQ(tensor->data_type, before ? GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT32
                                        : GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16);
    // The buffer holds the whole tensor its meta describes.
    EXPECT_GE(gst_buffer_get_size(outputs[i]), tensor->batch_size * tensor->strides[0]);
    const std::vector<GstClockTime> pts = item_pts(outputs[i]);
    seen.insert(seen.end(), pts.begin(), pts.end());
  }
  EXPECT_EQ(seen, pts_range(0, 11));
  unref_all(outputs);
}

// The crop of `frame`'s RGBA bytes: rows top..top+height, columns left..left+width.
std::vector<guint8> cropped_rgba(GstBuffer *frame, const GstVideoInfo &info, int left, int top,
                                 int width, int height) {
  const std::vector<guint8> bytes = plane_bytes(frame, info, 0);
  const int row_bytes = GST_VIDEO_INFO_WIDTH(&info) * 4;
  std::vector<guint8> crop;
  for (int row = top; row < top + height; ++row)
    crop.insert(crop.end(), bytes.begin() + row * row_bytes + left * 4,
                bytes.begin() + row * row_bytes + (left + width) * 4);
  return crop;
}

TEST(FlushThroughCrop, FramesAfterTheFlushAreCroppedCorrectly) {
  CUDAPREP_REQUIRE_GPU();
  HarnessRun run("cudaframeupload ! cudacrop left=3 right=5 top=2 bottom=4 ! cudaframedownload",
                 caps_string("RGBA", 32, 16));
  GstVideoInfo out_info;
  gst_video_info_set_format(&out_info, GST_VIDEO_FORMAT_RGBA, 24, 10);

  auto check_run = [&](int first, int count) {
    std::vector<GstBuffer *> inputs;
    for (int index = first; index < first + count; ++index) inputs.push_back(run.push(index));
    std::vector<GstBuffer *> outputs = run.take_outputs();
    ASSERT_EQ(outputs.size(), inputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      EXPECT_EQ(GST_BUFFER_PTS(outputs[i]), pts_of(first + static_cast<int>(i)));
      EXPECT_EQ(plane_bytes(outputs[i], out_info, 0),
                cropped_rgba(inputs[i], run.info, 3, 2, 24, 10))
          << "frame " << first + i;
    }
    unref_all(outputs);
    unref_all(inputs);
  };
  check_run(0, 3);
  run.flush();
  EXPECT_TRUE(run.take_outputs().empty());
  check_run(100, 3);
}

}  // namespace
