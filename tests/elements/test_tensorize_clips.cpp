// cudatensorize's clips (clip-length > 0): which frames go where (the rule
// against its definition), the settings' errors and the caps without a
// GPU; on a GPU, clip tensors byte for byte equal to clips assembled from
// the same element's single-frame tensors (every kernel path: fused,
// planar, uint8), for T in {8, 16, 32}, both layouts, frame strides, clip
// strides that overlap and leave gaps, several clips per tensor, partial
// clips at EOS, and what a flush, a GAP and new caps do mid-clip.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "elements/cudatensorize/gstcudatensorizeclips.h"

namespace {

using cudaprep::test::bus_error;
using cudaprep::test::caps_downstream_of;
using cudaprep::test::caps_string;
using cudaprep::test::random_frame;
using cudaprep::test::tensor_bytes;
using cudaprep::test::video_info;

// The definition, enumerated: frame `index` is frame t of clip k when
// k * stride + t * frame_stride == index.
std::vector<GstCudaPrepClipSlot> slots_by_definition(const GstCudaPrepClipRule &rule,
                                                     guint64 index) {
  std::vector<GstCudaPrepClipSlot> slots;
  for (guint64 clip = 0; clip <= index; ++clip) {
    for (guint frame = 0; frame < rule.length; ++frame) {
      if (clip * rule.stride + static_cast<guint64>(frame) * rule.frame_stride == index)
        slots.push_back({clip, frame});
    }
  }
  return slots;
}

TEST(ClipRule, SlotsFollowTheDefinition) {
  std::mt19937 rng(36);
  int overlapping = 0, gapped = 0;
  std::vector<GstCudaPrepClipSlot> actual;
  for (int trial = 0; trial < 300; ++trial) {
    GstCudaPrepClipRule rule;
    rule.length = 1 + rng() % 12;
    rule.frame_stride = 1 + rng() % 4;
    rule.stride = 1 + rng() % (2 * rule.length * rule.frame_stride);
    rule.clips_per_tensor = 1 + rng() % 3;
    overlapping += rule.stride < rule.length * rule.frame_stride;
    gapped += rule.stride > rule.length * rule.frame_stride;
    for (guint64 index = 0; index < 80; ++index) {
      const auto expected = slots_by_definition(rule, index);
      gst_cuda_prep_clip_slots(rule, index, &actual);
      ASSERT_EQ(actual.size(), expected.size())
          << "T=" << rule.length << " frame stride " << rule.frame_stride << " stride "
          << rule.stride << " frame " << index;
      for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(actual[i].clip, expected[i].clip);
        EXPECT_EQ(actual[i].frame, expected[i].frame);
      }
    }
  }
  EXPECT_GT(overlapping, 50);
  EXPECT_GT(gapped, 50);
}

// Sets `element` to READY on its own bus and returns the error posted.
std::string ready_error(GstElement *element) {
  const std::string text = cudaprep::test::posted_error(
      element, [&]() { gst_element_set_state(element, GST_STATE_READY); });
  gst_element_set_state(element, GST_STATE_NULL);
  return text;
}

TEST(ClipSettings, WrongOnesAreErrorsNamingTheProperty) {
  struct Case {
    std::vector<std::pair<const char *, const char *>> properties;
    const char *expected;
  } const cases[] = {
      {{{"clip-length", "16"}},
       "clip-length=16 makes clips, which need layout=ncthw or ntchw (not nchw)"},
      {{{"clip-length", "16"}, {"layout", "nhwc"}}, "need layout=ncthw or ntchw (not nhwc)"},
      {{{"layout", "ncthw"}}, "layout=ncthw is a clip layout: set clip-length"},
      {{{"clip-length", "2000"}, {"layout", "ntchw"}}, "clip-length=2000 is outside 0..1024"},
      {{{"clip-length", "8"}, {"layout", "ntchw"}, {"clip-frame-stride", "0"}},
       "clip-frame-stride=0 is outside 1..1000"},
      {{{"clip-length", "8"}, {"layout", "ntchw"}, {"clip-stride", "100001"}},
       "clip-stride=100001 is outside 0..100000"},
      {{{"clip-length", "8"}, {"layout", "ncthw"}, {"clip-stride", "3"}}, ""},
  };
  for (const Case &c : cases) {
    GstElement *tensorize = gst_element_factory_make("cudatensorize", nullptr);
    for (const auto &[name, value] : c.properties)
      gst_util_set_object_arg(G_OBJECT(tensorize), name, value);
    const std::string error = ready_error(tensorize);
    if (c.expected[0] == '\0')
      EXPECT_EQ(error.find("clip"), std::string::npos) << error;
    else
      EXPECT_NE(error.find(c.expected), std::string::npos)
          << "got \"" << error << "\", expected \"" << c.expected << "\"";
    gst_object_unref(tensorize);
  }
}

TEST(ClipCaps, TheTensorSaysItsLayoutAndFrames) {
  GstElement *tensorize = gst_element_factory_make("cudatensorize", nullptr);
  gst_util_set_object_arg(G_OBJECT(tensorize), "clip-length", "16");
  gst_util_set_object_arg(G_OBJECT(tensorize), "layout", "ncthw");
  gst_util_set_object_arg(G_OBJECT(tensorize), "batch-size", "2");
  GstCaps *caps = caps_downstream_of(tensorize,
                                     "application/x-cudaprep-planar(memory:CUDAPitched),"
                                     "dtype=float32,channels=3,channel-order=RGB,width=224,"
                                     "height=224,framerate=30/1");
  ASSERT_FALSE(gst_caps_is_empty(caps));
  const GstStructure *tensor = gst_caps_get_structure(caps, 0);
  gint frames = 0, batch = 0;
  EXPECT_STREQ(gst_structure_get_string(tensor, "layout"), "NCTHW");
  EXPECT_TRUE(gst_structure_get_int(tensor, "frames", &frames));
  EXPECT_EQ(frames, 16);
  EXPECT_TRUE(gst_structure_get_int(tensor, "batch", &batch));
  EXPECT_EQ(batch, 2);
  gst_caps_unref(caps);
  gst_object_unref(tensorize);
}

// 64 clips of 256 frames of 3 x 224 x 224 float32 = 29 GiB: named with its
// frames when caps are set, before any memory is asked for.
TEST(ClipEventsGpu, AClipTensorTooLargeForABufferIsNamed) {
  CUDAPREP_REQUIRE_GPU();
  const std::string error = cudaprep::test::pipeline_error(
      "videotestsrc num-buffers=1 ! video/x-raw,width=224,height=224 ! cudaframeupload ! "
      "cudanormalize ! cudatensorize batch-size=64 clip-length=256 layout=ncthw ! fakesink");
  EXPECT_NE(error.find("batch-size=64 x 256 frame(s) x 3 channel(s) x 224x224 is too large"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("lower batch-size, clip-length or the frame size"), std::string::npos)
      << error;
}

// --- On the GPU ---------------------------------------------------------------

constexpr int kWidth = 24, kHeight = 16;

// The chain before cudatensorize, per kernel path: the fused kernel
// (cudaresize and cudanormalize leave their work to it), cudanormalize's
// planar frames (cudatensorize fuse=false), 8-bit video (uint8 tensors).
enum class Path { kFused, kPlanar, kVideo };

std::string chain(Path path) {
  const std::string resize =
      "cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),"
      "width=" +
      std::to_string(kWidth) + ",height=" + std::to_string(kHeight);
  if (path == Path::kVideo) return resize;
  return resize + " ! cudanormalize mean=<0.4,0.5,0.6> std=<0.2,0.3,0.25>";
}

struct ClipCase {
  int length, frame_stride, clip_stride, clips_per_tensor;
  const char *layout;
  Path path;
  int frames;  // pushed
};

std::string case_name(const ::testing::TestParamInfo<ClipCase> &info) {
  const ClipCase &c = info.param;
  const char *paths[] = {"fused", "planar", "video"};
  return "T" + std::to_string(c.length) + "_fs" + std::to_string(c.frame_stride) + "_s" +
         std::to_string(c.clip_stride) + "_n" + std::to_string(c.clips_per_tensor) + "_" +
         c.layout + "_" + paths[static_cast<int>(c.path)];
}

const std::string kInputCaps = caps_string("RGBA", 61, 37);

GstBuffer *input_frame(const GstVideoInfo &info, std::mt19937 &rng, int index) {
  GstBuffer *frame = random_frame(info, rng);
  GST_BUFFER_PTS(frame) = index * 40 * GST_MSECOND;
  GST_BUFFER_DURATION(frame) = 40 * GST_MSECOND;
  return frame;
}

// The output buffers of `tensorize` for `frames` random frames (seed 7),
// EOS after the last.
std::vector<GstBuffer *> run(const std::string &tensorize, Path path, int frames) {
  const std::string fuse = path == Path::kPlanar ? " fuse=false" : "";
  GstHarness *harness = gst_harness_new_parse((chain(path) + " ! " + tensorize + fuse).c_str());
  gst_harness_set_src_caps_str(harness, kInputCaps.c_str());
  const GstVideoInfo info = video_info(kInputCaps);
  std::mt19937 rng(7);
  for (int index = 0; index < frames; ++index)
    EXPECT_EQ(gst_harness_push(harness, input_frame(info, rng, index)), GST_FLOW_OK);
  EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_eos()));
  std::vector<GstBuffer *> out;
  while (GstBuffer *buffer = gst_harness_try_pull(harness)) out.push_back(buffer);
  gst_harness_teardown(harness);
  return out;
}

const GstCudaPrepTensor *tensor_of(GstBuffer *buffer) {
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
  return meta != nullptr && meta->num_tensors > 0 ? meta->tensors[0] : nullptr;
}

class ClipTensors : public ::testing::TestWithParam<ClipCase> {};

// Clip k (tensor k / N, item k % N) frame t is single-frame tensor
// k * stride + t * frame_stride; a clip cut short by EOS holds zeros after
// its last frame, a tensor short of clips zeros after its last clip.
TEST_P(ClipTensors, EqualClipsAssembledFromSingleFrameTensors) {
  CUDAPREP_REQUIRE_GPU();
  const ClipCase c = GetParam();
  std::vector<GstBuffer *> singles = run("cudatensorize", c.path, c.frames);
  ASSERT_EQ(singles.size(), static_cast<size_t>(c.frames));
  std::vector<std::vector<guint8>> frame_bytes;
  for (GstBuffer *single : singles) {
    frame_bytes.push_back(tensor_bytes(single));
    gst_buffer_unref(single);
  }
  const size_t element_bytes = c.path == Path::kVideo ? 1 : 4;
  const size_t plane_bytes = element_bytes * kWidth * kHeight;
  const size_t frame_size = 3 * plane_bytes;
  ASSERT_EQ(frame_bytes[0].size(), frame_size);

  const std::string line = "cudatensorize clip-length=" + std::to_string(c.length) +
                           " clip-frame-stride=" + std::to_string(c.frame_stride) +
                           " clip-stride=" + std::to_string(c.clip_stride) +
                           " batch-size=" + std::to_string(c.clips_per_tensor) +
                           " layout=" + c.layout;
  std::vector<GstBuffer *> tensors = run(line, c.path, c.frames);
  const bool channels_first = std::string(c.layout) == "ncthw";
  const int stride = c.clip_stride != 0 ? c.clip_stride : c.length * c.frame_stride;
  const int clips = (c.frames - 1) / stride + 1;  // every clip that begins
  const int n = c.clips_per_tensor, t_count = c.length;
  ASSERT_EQ(tensors.size(), static_cast<size_t>((clips + n - 1) / n)) << line;
  const size_t clip_size = frame_size * t_count;
  int partial_clips = 0;
  for (size_t index = 0; index < tensors.size(); ++index) {
    const GstCudaPrepTensor *tensor = tensor_of(tensors[index]);
    ASSERT_NE(tensor, nullptr);
    ASSERT_EQ(tensor->num_dims, 5u);
    const gsize expected_dims[5] = {
        static_cast<gsize>(n), channels_first ? 3u : static_cast<gsize>(t_count),
        channels_first ? static_cast<gsize>(t_count) : 3u, kHeight, kWidth};
    for (int axis = 0; axis < 5; ++axis) EXPECT_EQ(tensor->dims[axis], expected_dims[axis]);
    EXPECT_EQ(tensor->image_layout, channels_first ? GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCTHW
                                                   : GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NTCHW);
    ASSERT_EQ(tensor->clip_length, static_cast<gsize>(t_count));
    const std::vector<guint8> actual = tensor_bytes(tensors[index]);
    ASSERT_EQ(actual.size(), clip_size * n);
    std::vector<guint8> expected(actual.size(), 0);
    gsize begun = 0;
    for (int item = 0; item < n; ++item) {
      const int clip = static_cast<int>(index) * n + item;
      if (clip >= clips) break;
      ++begun;
      int filled = 0;
      for (int t = 0; t < t_count; ++t) {
        const int source = clip * stride + t * c.frame_stride;
        if (source >= c.frames) break;
        ++filled;
        for (int channel = 0; channel < 3; ++channel) {
          const size_t at =
              item * clip_size + (channels_first ? (channel * t_count + t) * plane_bytes
                                                 : (t * 3 + channel) * plane_bytes);
          std::copy_n(frame_bytes[source].begin() + channel * plane_bytes, plane_bytes,
                      expected.begin() + at);
        }
        EXPECT_EQ(tensor->frame_pts[item * t_count + t], source * 40 * GST_MSECOND);
      }
      partial_clips += filled < t_count;
      EXPECT_EQ(tensor->clip_filled[item], static_cast<gsize>(filled)) << "clip " << clip;
      EXPECT_EQ(tensor->items[item].pts, clip * stride * 40 * GST_MSECOND);
      gsize pts_count = 0;
      const GstClockTime *pts = gst_cuda_prep_tensor_get_clip_frame_pts(tensor, item, &pts_count);
      EXPECT_EQ(pts_count, static_cast<gsize>(filled));
      ASSERT_GT(pts_count, 0u);
      EXPECT_EQ(pts[0], tensor->items[item].pts);
    }
    EXPECT_EQ(tensor->batch_filled, begun);
    EXPECT_EQ(GST_BUFFER_PTS(tensors[index]), tensor->items[0].pts);
    const size_t first = cudaprep::test::first_difference(actual, expected);
    EXPECT_EQ(first, SIZE_MAX) << line << ": tensor " << index << " differs at byte " << first;
    gst_buffer_unref(tensors[index]);
  }
  // Every case ends on a clip that EOS cut short.
  EXPECT_GT(partial_clips, 0) << line;
}

INSTANTIATE_TEST_SUITE_P(Clips, ClipTensors,
                         ::testing::Values(
                             // Back to back, both layouts, every kernel path.
                             ClipCase{8, 1, 0, 1, "ncthw", Path::kFused, 21},
                             ClipCase{8, 1, 0, 1, "ntchw", Path::kFused, 21},
                             ClipCase{8, 1, 0, 2, "ncthw", Path::kPlanar, 29},
                             ClipCase{8, 1, 0, 2, "ntchw", Path::kVideo, 29},
                             // T = 16 and 32, half overlapping, sampled every 2nd frame.
                             ClipCase{16, 1, 8, 1, "ncthw", Path::kFused, 45},
                             ClipCase{16, 2, 16, 3, "ntchw", Path::kFused, 75},
                             ClipCase{32, 1, 16, 1, "ntchw", Path::kFused, 70},
                             ClipCase{32, 2, 0, 2, "ncthw", Path::kPlanar, 150},
                             // Sliding by one frame (each frame in 8 clips: one fused launch
                             // stores into all 8; 16 clips: two launches), and gaps between clips.
                             ClipCase{8, 1, 1, 4, "ncthw", Path::kVideo, 23},
                             ClipCase{8, 1, 1, 2, "ntchw", Path::kFused, 19},
                             ClipCase{32, 1, 2, 1, "ncthw", Path::kFused, 41},
                             ClipCase{8, 3, 30, 1, "ntchw", Path::kFused, 70}),
                         case_name);

// Frames pushed into a harness of `line`, PTS index * 40 ms.
void push_frames(GstHarness *harness, const GstVideoInfo &info, std::mt19937 &rng, int first,
                 int count) {
  for (int index = first; index < first + count; ++index)
    ASSERT_EQ(gst_harness_push(harness, input_frame(info, rng, index)), GST_FLOW_OK);
}

std::vector<GstClockTime> frame_pts_of(GstBuffer *buffer, int item) {
  const GstCudaPrepTensor *tensor = tensor_of(buffer);
  gsize count = 0;
  const GstClockTime *pts = gst_cuda_prep_tensor_get_clip_frame_pts(tensor, item, &count);
  return std::vector<GstClockTime>(pts, pts + count);
}

std::vector<GstClockTime> pts_of_frames(int first, int count) {
  std::vector<GstClockTime> pts;
  for (int index = first; index < first + count; ++index) pts.push_back(index * 40 * GST_MSECOND);
  return pts;
}

// A flush mid-clip drops the clip begun: the next clip starts at the first
// frame after it.
TEST(ClipEventsGpu, AFlushDropsTheClipBegun) {
  CUDAPREP_REQUIRE_GPU();
  GstHarness *harness = gst_harness_new_parse(
      (chain(Path::kFused) + " ! cudatensorize clip-length=4 layout=ntchw").c_str());
  gst_harness_set_src_caps_str(harness, kInputCaps.c_str());
  const GstVideoInfo info = video_info(kInputCaps);
  std::mt19937 rng(1);
  push_frames(harness, info, rng, 0, 3);
  ASSERT_TRUE(gst_harness_push_event(harness, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(harness, gst_event_new_flush_stop(TRUE)));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(harness, gst_event_new_segment(&segment)));
  push_frames(harness, info, rng, 10, 4);
  GstBuffer *clip = gst_harness_try_pull(harness);
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(frame_pts_of(clip, 0), pts_of_frames(10, 4));
  EXPECT_EQ(gst_harness_try_pull(harness), nullptr);
  gst_buffer_unref(clip);
  gst_harness_teardown(harness);
}

// A GAP adds no frame: the clip goes on with the frames after it, its PTS
// showing the hole, and the GAP travels on.
TEST(ClipEventsGpu, AGapAddsNoFrame) {
  CUDAPREP_REQUIRE_GPU();
  GstHarness *harness = gst_harness_new_parse(
      (chain(Path::kFused) + " ! cudatensorize clip-length=4 layout=ncthw").c_str());
  gst_harness_set_src_caps_str(harness, kInputCaps.c_str());
  const GstVideoInfo info = video_info(kInputCaps);
  std::mt19937 rng(2);
  push_frames(harness, info, rng, 0, 2);
  ASSERT_TRUE(
      gst_harness_push_event(harness, gst_event_new_gap(80 * GST_MSECOND, 200 * GST_MSECOND)));
  push_frames(harness, info, rng, 7, 2);
  GstBuffer *clip = gst_harness_try_pull(harness);
  ASSERT_NE(clip, nullptr);
  std::vector<GstClockTime> expected = pts_of_frames(0, 2);
  for (GstClockTime pts : pts_of_frames(7, 2)) expected.push_back(pts);
  EXPECT_EQ(frame_pts_of(clip, 0), expected);
  gst_buffer_unref(clip);
  bool gap_passed = false;
  while (GstEvent *event = gst_harness_try_pull_event(harness)) {
    gap_passed |= GST_EVENT_TYPE(event) == GST_EVENT_GAP;
    gst_event_unref(event);
  }
  EXPECT_TRUE(gap_passed);
  gst_harness_teardown(harness);
}

// New caps mid-clip send the clips begun on their way as they are, and
// the next clip starts with the first frame of the new caps: a clip never
// mixes two (here uint8 clips of 24x16, then of 20x12 frames).
TEST(ClipEventsGpu, NewCapsCloseTheClipsBegun) {
  CUDAPREP_REQUIRE_GPU();
  GstHarness *harness = gst_harness_new_parse(
      "cudaframeupload ! cudatensorize clip-length=4 clip-stride=2 layout=ntchw");
  const std::string first = caps_string("RGBA", 24, 16), second = caps_string("RGBA", 20, 12);
  gst_harness_set_src_caps_str(harness, first.c_str());
  std::mt19937 rng(3);
  push_frames(harness, video_info(first), rng, 0, 3);
  gst_harness_set_src_caps_str(harness, second.c_str());
  push_frames(harness, video_info(second), rng, 3, 4);
  // Clips 0 (frames 0-2) and 1 (frame 2) cut by the caps; then frames 3-6.
  const std::vector<std::vector<GstClockTime>> expected = {pts_of_frames(0, 3), pts_of_frames(2, 1),
                                                           pts_of_frames(3, 4)};
  const gsize widths[] = {24, 24, 20};
  for (size_t index = 0; index < expected.size(); ++index) {
    GstBuffer *clip = gst_harness_try_pull(harness);
    ASSERT_NE(clip, nullptr);
    EXPECT_EQ(frame_pts_of(clip, 0), expected[index]);
    EXPECT_EQ(tensor_of(clip)->dims[4], widths[index]);
    gst_buffer_unref(clip);
  }
  EXPECT_EQ(gst_harness_try_pull(harness), nullptr);
  gst_harness_teardown(harness);
}

// A new source size behind a cudaresize that keeps its output caps changes
// nothing at cudatensorize: the clips go on (each item's geometry is its
// first frame's).
TEST(ClipEventsGpu, ASourceSizeBehindTheResizeKeepsTheClipsGoing) {
  CUDAPREP_REQUIRE_GPU();
  GstHarness *harness = gst_harness_new_parse(
      (chain(Path::kFused) + " ! cudatensorize clip-length=4 clip-stride=2 layout=ntchw").c_str());
  gst_harness_set_src_caps_str(harness, kInputCaps.c_str());
  std::mt19937 rng(4);
  push_frames(harness, video_info(kInputCaps), rng, 0, 3);
  const std::string other = caps_string("RGBA", 50, 30);
  gst_harness_set_src_caps_str(harness, other.c_str());
  push_frames(harness, video_info(other), rng, 3, 4);
  for (const auto &pts : {pts_of_frames(0, 4), pts_of_frames(2, 4)}) {
    GstBuffer *clip = gst_harness_try_pull(harness);
    ASSERT_NE(clip, nullptr);
    EXPECT_EQ(frame_pts_of(clip, 0), pts);
    gst_buffer_unref(clip);
  }
  EXPECT_EQ(gst_harness_try_pull(harness), nullptr);
  gst_harness_teardown(harness);
}

// The output buffers of each cudatensorsink sink0, sink1, ... of
// `description`, pulled on a thread per sink until EOS.
std::vector<std::vector<GstBuffer *>> pull_every_sink(const std::string &description, int sinks) {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error != nullptr ? error->message : "") << "\n" << description;
  g_clear_error(&error);
  std::vector<std::vector<GstBuffer *>> out(sinks);
  if (pipeline == nullptr) return out;
  std::vector<GstElement *> elements;
  for (int i = 0; i < sinks; ++i)
    elements.push_back(
        gst_bin_get_by_name(GST_BIN(pipeline), ("sink" + std::to_string(i)).c_str()));
  EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  std::vector<std::thread> pullers;
  for (int i = 0; i < sinks; ++i) {
    pullers.emplace_back([&, i] {
      while (GstSample *sample = gst_cuda_prep_tensor_sink_try_pull_tensor(
                 GST_CUDA_PREP_TENSOR_SINK(elements[i]), 20 * GST_SECOND)) {
        out[i].push_back(gst_buffer_ref(gst_sample_get_buffer(sample)));
        gst_sample_unref(sample);
      }
    });
  }
  for (std::thread &puller : pullers) puller.join();
  EXPECT_EQ(bus_error(pipeline), "") << description;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  for (GstElement *element : elements) gst_object_unref(element);
  gst_object_unref(pipeline);
  return out;
}

// Eight live cameras, four at 30 and four at 15 frames/s, each into its
// own 8-frame clips (half overlapping) at once: every clip equal to the
// clip assembled from the same source's frames made one at a time
// (videotestsrc's ball moves with the frame count, so a source run again
// without is-live makes the same frames), each frame's PTS one frame
// interval after the one before.
TEST(ClipLiveGpu, EightLiveSourcesAt30And15FramesPerSecond) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kSources = 8, kFrames = 32, kLength = 8, kStride = 4;
  const auto source = [](int index, bool live) {
    const int fps = index % 2 == 0 ? 30 : 15;
    return "videotestsrc pattern=ball is-live=" + std::string(live ? "true" : "false") +
           " num-buffers=" + std::to_string(kFrames) +
           " foreground-color=" + std::to_string(0xff203040u + 0x1f0b07u * index) +
           " ! video/x-raw,format=RGBA,width=61,height=37,framerate=" + std::to_string(fps) +
           "/1 ! " + chain(Path::kFused);
  };
  const std::string sink = " ! cudatensorsink consumer=application max-buffers=0 name=sink";
  std::string live;
  for (int i = 0; i < kSources; ++i)
    live += source(i, true) + " ! cudatensorize clip-length=" + std::to_string(kLength) +
            " clip-stride=" + std::to_string(kStride) + " layout=ncthw" + sink + std::to_string(i) +
            " ";
  std::vector<std::vector<GstBuffer *>> clips = pull_every_sink(live, kSources);
  const size_t plane_bytes = 4 * kWidth * kHeight;
  for (int i = 0; i < kSources; ++i) {
    SCOPED_TRACE("source " + std::to_string(i));
    std::vector<std::vector<GstBuffer *>> singles =
        pull_every_sink(source(i, false) + " ! cudatensorize" + sink + "0", 1);
    ASSERT_EQ(singles[0].size(), static_cast<size_t>(kFrames));
    std::vector<std::vector<guint8>> frames;
    for (GstBuffer *single : singles[0]) {
      frames.push_back(tensor_bytes(single));
      gst_buffer_unref(single);
    }
    const int clip_count = (kFrames - 1) / kStride + 1;
    ASSERT_EQ(clips[i].size(), static_cast<size_t>(clip_count));
    const GstClockTime interval = GST_SECOND / (i % 2 == 0 ? 30 : 15);
    for (int clip = 0; clip < clip_count; ++clip) {
      GstBuffer *buffer = clips[i][clip];
      const int filled = std::min(kLength, kFrames - clip * kStride);
      const std::vector<GstClockTime> pts = frame_pts_of(buffer, 0);
      ASSERT_EQ(pts.size(), static_cast<size_t>(filled)) << "clip " << clip;
      // videotestsrc stamps frame n at n seconds / fps, rounded: 1 ns either way.
      for (int t = 1; t < filled; ++t)
        EXPECT_LE(std::llabs(GST_CLOCK_DIFF(pts[t - 1], pts[t]) -
                             static_cast<GstClockTimeDiff>(interval)),
                  1)
            << "clip " << clip;
      std::vector<guint8> expected(3 * kLength * plane_bytes, 0);
      for (int t = 0; t < filled; ++t)
        for (int channel = 0; channel < 3; ++channel)
          std::copy_n(frames[clip * kStride + t].begin() + channel * plane_bytes, plane_bytes,
                      expected.begin() + (channel * kLength + t) * plane_bytes);
      const std::vector<guint8> actual = tensor_bytes(buffer);
      EXPECT_EQ(cudaprep::test::first_difference(actual, expected), SIZE_MAX) << "clip " << clip;
      gst_buffer_unref(buffer);
    }
  }
}

}  // namespace
