// cudabatch's clips (clip-length > 0): every item of the tensor a clip of T
// frames of one source.
//  - CPU: the clip properties (ranges, defaults, the clip layouts) and the
//    settings that cannot make clips, named at start.
//  - GPU: clips of one and of eight sources (each of its own size and
//    format) equal clips assembled by the rule from each source's
//    single-frame tensors (the same chain into cudatensorize batch-size=1),
//    byte for byte, with their fill counts, frame PTS, source and first PTS,
//    whatever slot each took: T in {8, 16, 32}, both layouts, frame strides,
//    clips back to back, overlapping and with gaps, N in {1, 2, 4, 8},
//    partial clips at EOS. A GAP, a flush and EOS on one source mid-clip;
//    eight live cameras at 30 and 15 frames/s; the clip of a live source
//    that stops mid-clip leaves after its latency budget.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/clip_tensors.h"
#include "common/cuda_test.h"
#include "common/gst_frames.h"

namespace {

using namespace cudaprep::test;

// The size of each frame of a clip.
constexpr int kWidth = 48, kHeight = 32;

// Source `index`'s caps: four formats and sizes in turn.
std::string source_caps(int index) {
  const char *formats[] = {"NV12", "RGBA", "I420", "YUY2"};
  const int widths[] = {160, 128, 100, 90}, heights[] = {90, 128, 60, 70};
  return caps_string(formats[index % 4], widths[index % 4], heights[index % 4]);
}

// Every source's chain after its raw frames: upload, letterboxed resize to
// the clip's frame, normalisation (left pending for the element after it).
std::string chain() {
  return "cudaframeupload ! cudaresize method=bilinear add-borders=true ! "
         "video/x-raw(memory:CUDAPitched),width=" +
         std::to_string(kWidth) + ",height=" + std::to_string(kHeight) +
         ",format=RGB ! cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\"";
}

// An appsrc `name` of `caps` frames into chain(); a live one stamps frames
// as they are pushed.
std::string appsrc_chain(const std::string &name, const std::string &caps, bool live = false) {
  return "appsrc name=" + name + " format=time caps=\"" + caps + "\"" +
         (live ? " is-live=true do-timestamp=true min-latency=0" : "") + " ! " + chain();
}

struct StopPipeline {
  void operator()(GstElement *pipeline) const {
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
};
using Pipeline = std::unique_ptr<GstElement, StopPipeline>;

struct BufferUnref {
  void operator()(GstBuffer *buffer) const { gst_buffer_unref(buffer); }
};
using Frame = std::unique_ptr<GstBuffer, BufferUnref>;

// `description` parsed and set PLAYING; empty (and a test failure) if not.
Pipeline play(const std::string &description) {
  GError *error = nullptr;
  Pipeline pipeline(gst_parse_launch(description.c_str(), &error));
  EXPECT_EQ(error, nullptr) << (error != nullptr ? error->message : "") << "\n" << description;
  g_clear_error(&error);
  if (pipeline == nullptr) return pipeline;
  // (Not waiting for the state: a pipeline of appsrcs prerolls only on
  // the frames the test pushes next.)
  if (gst_element_set_state(pipeline.get(), GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    ADD_FAILURE() << "the pipeline did not start:\n" << description;
    pipeline.reset();
  }
  return pipeline;
}

GstElement *by_name(GstElement *pipeline, const std::string &name) {
  GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline), name.c_str());
  gst_object_unref(element);  // the pipeline keeps it
  return element;
}

GstAppSrc *appsrc(GstElement *pipeline, int source) {
  return GST_APP_SRC(by_name(pipeline, "src" + std::to_string(source)));
}

// The tensors of `pipeline`'s appsink "out" until EOS, copied to the host.
std::vector<std::vector<guint8>> pull_tensor_bytes(GstElement *pipeline) {
  std::vector<std::vector<guint8>> tensors;
  GstAppSink *sink = GST_APP_SINK(by_name(pipeline, "out"));
  while (GstSample *sample = gst_app_sink_try_pull_sample(sink, 10 * GST_SECOND)) {
    tensors.push_back(tensor_bytes(gst_sample_get_buffer(sample)));
    gst_sample_unref(sample);
  }
  return tensors;
}

// A source's frames as pushed, and each one's single-frame tensor.
struct SourceFrames {
  std::string caps;
  std::vector<Frame> frames;
  std::vector<GstClockTime> pts;
  std::vector<std::vector<guint8>> singles;
};

// PTS of frames [first, first + count) at 40 ms a frame, then (for a hole
// in the stream) of [resume, resume + more).
std::vector<GstClockTime> pts_range(int first, int count, int resume = 0, int more = 0) {
  std::vector<GstClockTime> pts;
  for (int index = first; index < first + count; ++index) pts.push_back(index * 40 * GST_MSECOND);
  for (int index = resume; index < resume + more; ++index) pts.push_back(index * 40 * GST_MSECOND);
  return pts;
}

// Random frames of `caps` with these PTS, and their single-frame tensors:
// each frame through the same chain into cudatensorize batch-size=1.
SourceFrames make_source(const std::string &caps, const std::vector<GstClockTime> &pts,
                         std::mt19937 &rng) {
  SourceFrames source{caps, {}, pts, {}};
  for (GstClockTime stamp : pts) {
    GstBuffer *frame = random_frame(video_info(caps), rng);
    GST_BUFFER_PTS(frame) = stamp;
    GST_BUFFER_DURATION(frame) = 40 * GST_MSECOND;
    source.frames.emplace_back(frame);
  }
  Pipeline pipeline(play(appsrc_chain("src0", caps) +
                         " ! cudatensorize batch-size=1 ! appsink name=out sync=false"));
  if (pipeline == nullptr) return source;
  for (const Frame &frame : source.frames)
    EXPECT_EQ(gst_app_src_push_buffer(appsrc(pipeline.get(), 0), gst_buffer_ref(frame.get())),
              GST_FLOW_OK);
  gst_app_src_end_of_stream(appsrc(pipeline.get(), 0));
  source.singles = pull_tensor_bytes(pipeline.get());
  EXPECT_EQ(source.singles.size(), pts.size()) << "single-frame tensors of " << caps;
  return source;
}

// Pushes frames [first, first + count) of `source` into appsrc src<index>.
void push(GstElement *pipeline, int index, const SourceFrames &source, int first, int count) {
  for (int f = first; f < first + count; ++f)
    ASSERT_EQ(
        gst_app_src_push_buffer(appsrc(pipeline, index), gst_buffer_ref(source.frames[f].get())),
        GST_FLOW_OK);
}

// Every frame of every source, one frame of each source a round, then EOS.
void push_all_and_end(GstElement *pipeline, const std::vector<SourceFrames> &sources) {
  size_t rounds = 0;
  for (const SourceFrames &source : sources) rounds = std::max(rounds, source.frames.size());
  for (size_t f = 0; f < rounds; ++f)
    for (size_t i = 0; i < sources.size(); ++i)
      if (f < sources[i].frames.size())
        push(pipeline, static_cast<int>(i), sources[i], static_cast<int>(f), 1);
  for (size_t i = 0; i < sources.size(); ++i)
    gst_app_src_end_of_stream(appsrc(pipeline, static_cast<int>(i)));
}

// The cudabatch "b" of `settings` into appsink "out", fed by one appsrc
// chain src<i> per source.
std::string batch_line(const ClipSettings &settings, const std::vector<SourceFrames> &sources) {
  std::string line = "cudabatch name=b " + settings.properties() + " ! appsink name=out sync=false";
  for (size_t i = 0; i < sources.size(); ++i)
    line += " " + appsrc_chain("src" + std::to_string(i), sources[i].caps) + " ! b.sink_" +
            std::to_string(i);
  return line;
}

// The clip tensors `sink` receives until EOS (at most `max`, each within
// `timeout`), each checked against `settings` (read_clip_tensor()).
std::vector<ClipTensor> pull_clip_tensors(GstElement *sink, const ClipSettings &settings,
                                          size_t max = SIZE_MAX,
                                          GstClockTime timeout = 10 * GST_SECOND) {
  std::vector<ClipTensor> tensors;
  while (tensors.size() < max) {
    GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), timeout);
    if (sample == nullptr) break;
    SCOPED_TRACE("tensor " + std::to_string(tensors.size()));
    ClipTensor tensor;
    const bool read = read_clip_tensor(sample, settings, &tensor);
    gst_sample_unref(sample);
    if (!read) break;
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

// Each source's expected clips (frame indices into its frames).
using ExpectedClips = std::vector<std::vector<std::vector<int>>>;

// Every clip of `tensors` is one of `expected`, found by its source and
// first PTS (the slot it took is the element's choice), equal to it in
// bytes and frame PTS; each expected clip comes once, a source's clips in
// the order they began, in ceil(clips / N) tensors, each stamped with its
// first clip's PTS. `emptied` clips (a flush's) hold no frame and zeros.
void expect_clips(const std::vector<ClipTensor> &tensors, const std::vector<SourceFrames> &sources,
                  const ExpectedClips &expected, const ClipSettings &settings, int emptied = 0) {
  std::map<std::pair<int, GstClockTime>, int> by_start;
  size_t total = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    for (size_t k = 0; k < expected[i].size(); ++k, ++total)
      by_start[{static_cast<int>(i), sources[i].pts[expected[i][k].front()]}] = static_cast<int>(k);
  std::set<std::pair<int, int>> seen;
  std::vector<int> last(sources.size(), -1);
  int emptied_seen = 0;
  for (size_t index = 0; index < tensors.size(); ++index) {
    const std::vector<Clip> &clips = tensors[index].clips;
    if (!clips.empty() && !clips[0].frame_pts.empty()) {
      EXPECT_EQ(tensors[index].pts, clips[0].pts) << "tensor " << index << ": its first clip's PTS";
    }
    for (size_t slot = 0; slot < clips.size(); ++slot) {
      const Clip &clip = clips[slot];
      const std::string what = "tensor " + std::to_string(index) + " slot " + std::to_string(slot) +
                               " (source " + std::to_string(clip.source) + ", first PTS " +
                               std::to_string(clip.pts) + ")";
      if (clip.frame_pts.empty()) {
        ++emptied_seen;
        expect_clip_bytes(clip, {}, {}, settings, what + ", emptied,");
        continue;
      }
      EXPECT_EQ(clip.pts, clip.frame_pts[0]) << what << ": its item's PTS is its first frame's";
      const auto found = by_start.find({clip.source, clip.frame_pts[0]});
      if (found == by_start.end()) {
        ADD_FAILURE() << what << ": no clip of that source begins at that frame";
        continue;
      }
      const int k = found->second;
      EXPECT_TRUE(seen.insert({clip.source, k}).second) << what << ": its clip " << k << " twice";
      EXPECT_GT(k, last[clip.source]) << what << ": its clip " << k << " after clip "
                                      << last[clip.source] << " of the same source";
      last[clip.source] = k;
      const std::vector<int> &frames = expected[clip.source][k];
      std::vector<GstClockTime> pts;
      for (int f : frames) pts.push_back(sources[clip.source].pts[f]);
      EXPECT_EQ(clip.frame_pts, pts) << what << " = its clip " << k;
      expect_clip_bytes(clip, sources[clip.source].singles, frames, settings,
                        what + " = its clip " + std::to_string(k));
    }
  }
  EXPECT_EQ(seen.size(), total) << "every clip of every source, once";
  EXPECT_EQ(emptied_seen, emptied) << "clips emptied by a flush";
  const size_t n = settings.clips_per_tensor;
  EXPECT_EQ(tensors.size(), (total + emptied + n - 1) / n) << "tensors of " << n << " clips";
}

// --- Without a GPU ------------------------------------------------------------

std::string enum_nick(GObject *object, const char *property) {
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), property);
  GValue value = G_VALUE_INIT;
  g_value_init(&value, spec->value_type);
  g_object_get_property(object, property, &value);
  auto *klass = static_cast<GEnumClass *>(g_type_class_ref(spec->value_type));
  const GEnumValue *entry = g_enum_get_value(klass, g_value_get_enum(&value));
  const std::string nick = entry != nullptr ? entry->value_nick : "";
  g_type_class_unref(klass);
  g_value_unset(&value);
  return nick;
}

TEST(BatchClipsCpu, ClipPropertiesTheirRangesDefaultsAndLayouts) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  ASSERT_NE(batch, nullptr);
  struct Range {
    const char *name;
    guint minimum, maximum, fallback;
  } const ranges[] = {{"clip-length", 0, 1024, 0},
                      {"clip-frame-stride", 1, 1000, 1},
                      {"clip-stride", 0, 100000, 0}};
  for (const Range &range : ranges) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(batch), range.name);
    ASSERT_NE(spec, nullptr) << "cudabatch has no property " << range.name;
    ASSERT_TRUE(G_IS_PARAM_SPEC_UINT(spec)) << range.name << " is a guint";
    EXPECT_EQ(G_PARAM_SPEC_UINT(spec)->minimum, range.minimum) << range.name;
    EXPECT_EQ(G_PARAM_SPEC_UINT(spec)->maximum, range.maximum) << range.name;
    EXPECT_EQ(G_PARAM_SPEC_UINT(spec)->default_value, range.fallback) << range.name;
    EXPECT_TRUE(spec->flags & GST_PARAM_MUTABLE_READY) << range.name;
    guint value = 77;
    g_object_get(batch, range.name, &value, nullptr);
    EXPECT_EQ(value, range.fallback) << range.name;
  }
  gst_util_set_object_arg(G_OBJECT(batch), "clip-length", "16");
  guint length = 0;
  g_object_get(batch, "clip-length", &length, nullptr);
  EXPECT_EQ(length, 16u);
  GParamSpec *layout = g_object_class_find_property(G_OBJECT_GET_CLASS(batch), "layout");
  ASSERT_NE(layout, nullptr);
  EXPECT_STREQ(g_type_name(layout->value_type), "GstCudaPrepClipOrTensorLayout")
      << "cudatensorize's layout enum";
  EXPECT_EQ(enum_nick(G_OBJECT(batch), "layout"), "nchw") << "the default";
  for (const char *nick : {"ntchw", "ncthw", "nhwc", "nchw"}) {
    gst_util_set_object_arg(G_OBJECT(batch), "layout", nick);
    EXPECT_EQ(enum_nick(G_OBJECT(batch), "layout"), nick);
  }
  gst_object_unref(batch);
}

// Settings that cannot make clips stop the element at READY -> PAUSED
// with an error naming the property (and the pad) to change; the last
// case can (without a GPU it stops for want of one, not for clips).
TEST(BatchClipsCpu, SettingsThatCannotMakeClipsAreNamedAtStart) {
  using Properties = std::vector<std::pair<const char *, const char *>>;
  struct Case {
    Properties element, pad;
    std::vector<const char *> expected;  // in the message; none: no error about clips
  } const cases[] = {
      {{{"clip-length", "16"}}, {}, {"clip-length=16", "layout=ncthw or ntchw"}},
      {{{"layout", "ncthw"}}, {}, {"layout=ncthw", "clip-length"}},
      {{{"clip-length", "8"}, {"layout", "ntchw"}},
       {{"region-source", "roi-meta"}},
       {"sink_0", "clip"}},
      {{{"clip-length", "8"}, {"layout", "ntchw"}},
       {{"region-source", "regions"}, {"regions", "<<0,0,4,4>>"}},
       {"sink_0", "clip"}},
      {{{"clip-length", "8"}, {"layout", "ncthw"}},
       {{"region-source", "tiles"}},
       {"sink_0", "clip"}},
      {{{"clip-length", "8"}, {"layout", "ncthw"}, {"source-policy", "latest"}},
       {},
       {"source-policy=latest"}},
      {{{"clip-length", "8"}, {"layout", "ncthw"}, {"max-source-frames", "2"}},
       {},
       {"max-source-frames"}},
      {{{"clip-length", "8"}, {"layout", "ncthw"}, {"clip-stride", "3"}}, {}, {}},
  };
  for (const Case &c : cases) {
    GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
    GstPad *pad = gst_element_request_pad_simple(batch, "sink_%u");
    ASSERT_NE(pad, nullptr);
    std::string settings;
    for (const auto &[name, value] : c.element) {
      gst_util_set_object_arg(G_OBJECT(batch), name, value);
      settings += std::string(name) + "=" + value + " ";
    }
    for (const auto &[name, value] : c.pad) {
      gst_util_set_object_arg(G_OBJECT(pad), name, value);
      settings += std::string("sink_0::") + name + "=" + value + " ";
    }
    GstStateChangeReturn result = GST_STATE_CHANGE_SUCCESS;
    const std::string message =
        posted_error(batch, [&] { result = gst_element_set_state(batch, GST_STATE_PAUSED); });
    if (c.expected.empty()) {
      EXPECT_EQ(message.find("clip"), std::string::npos) << settings << ": " << message;
      EXPECT_EQ(message.find("layout"), std::string::npos) << settings << ": " << message;
    } else {
      EXPECT_EQ(result, GST_STATE_CHANGE_FAILURE) << settings;
    }
    for (const char *part : c.expected)
      EXPECT_NE(message.find(part), std::string::npos)
          << settings << ": got \"" << message << "\", expected it to name \"" << part << "\"";
    gst_element_set_state(batch, GST_STATE_NULL);
    gst_element_release_request_pad(batch, pad);
    gst_object_unref(pad);
    gst_object_unref(batch);
  }
}

// --- On the GPU ---------------------------------------------------------------

struct BatchClipCase {
  ClipSettings settings;
  int sources;
  int frames;  // of source 0; source i has 5 * i more
};

std::string case_name(const ::testing::TestParamInfo<BatchClipCase> &info) {
  const ClipSettings &s = info.param.settings;
  return "T" + std::to_string(s.length) + "_fs" + std::to_string(s.frame_stride) + "_s" +
         std::to_string(s.clip_stride) + "_n" + std::to_string(s.clips_per_tensor) + "_" +
         s.layout + "_" + std::to_string(info.param.sources) + "sources";
}

class BatchClips : public ::testing::TestWithParam<BatchClipCase> {};

// Sources of their own sizes and formats, frames PTS i * 40 ms, each ending
// at another point of its clips: every clip equals the clip assembled by
// the rule from that source's single-frame tensors.
TEST_P(BatchClips, EqualClipsAssembledFromEachSourcesSingleFrameTensors) {
  CUDAPREP_REQUIRE_GPU();
  const BatchClipCase c = GetParam();
  std::mt19937 rng(11);
  std::vector<SourceFrames> sources;
  ExpectedClips expected;
  int partial = 0;
  for (int i = 0; i < c.sources; ++i) {
    const int count = c.frames + 5 * i;
    sources.push_back(make_source(source_caps(i), pts_range(0, count), rng));
    ASSERT_EQ(sources.back().singles.size(), static_cast<size_t>(count));
    expected.push_back(clips_by_rule(c.settings, 0, count));
    for (const auto &clip : expected.back()) partial += clip.size() < size_t(c.settings.length);
  }
  EXPECT_GT(partial, 0) << "the case cuts no clip short at EOS";
  Pipeline pipeline(play(batch_line(c.settings, sources)));
  ASSERT_NE(pipeline, nullptr);
  push_all_and_end(pipeline.get(), sources);
  const std::vector<ClipTensor> tensors =
      pull_clip_tensors(by_name(pipeline.get(), "out"), c.settings);
  expect_clips(tensors, sources, expected, c.settings);
  EXPECT_EQ(bus_error(pipeline.get()), "");
}

INSTANTIATE_TEST_SUITE_P(
    Clips, BatchClips,
    ::testing::Values(
        // One source: back to back, both layouts; T = 32 every 2nd frame;
        // sliding by 2 frames; gaps between clips.
        BatchClipCase{{8, 1, 0, 1, "ncthw"}, 1, 21}, BatchClipCase{{8, 1, 0, 2, "ntchw"}, 1, 29},
        BatchClipCase{{32, 2, 0, 1, "ncthw"}, 1, 100}, BatchClipCase{{32, 1, 2, 8, "ntchw"}, 1, 41},
        BatchClipCase{{8, 1, 12, 2, "ncthw"}, 1, 40},
        // Eight sources (the four formats and sizes twice): back to back,
        // overlapping by half and by all but one frame, with gaps.
        BatchClipCase{{8, 1, 0, 4, "ncthw"}, 8, 19}, BatchClipCase{{8, 2, 8, 8, "ntchw"}, 8, 27},
        BatchClipCase{{16, 1, 8, 2, "ncthw"}, 8, 37}, BatchClipCase{{16, 2, 0, 4, "ntchw"}, 8, 45},
        BatchClipCase{{16, 1, 1, 8, "ncthw"}, 8, 20}, BatchClipCase{{32, 1, 16, 2, "ntchw"}, 8, 70},
        BatchClipCase{{8, 3, 30, 4, "ntchw"}, 8, 70}),
    case_name);

// Two sources (NV12 and RGBA) of frames with these PTS.
std::vector<SourceFrames> two_sources(const std::vector<GstClockTime> &pts0,
                                      const std::vector<GstClockTime> &pts1, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<SourceFrames> sources;
  sources.push_back(make_source(source_caps(0), pts0, rng));
  sources.push_back(make_source(source_caps(1), pts1, rng));
  return sources;
}

// A GAP adds no frame: source 1's clip goes on with the frames after it,
// its frame PTS showing the hole; no error.
TEST(BatchClipEventsGpu, AGapMidClipLeavesAHoleInTheFramePts) {
  CUDAPREP_REQUIRE_GPU();
  const ClipSettings settings{4, 1, 0, 2, "ncthw"};
  const std::vector<SourceFrames> sources = two_sources(pts_range(0, 8), pts_range(0, 2, 7, 2), 12);
  ASSERT_EQ(sources[1].singles.size(), 4u);
  Pipeline pipeline(play(batch_line(settings, sources)));
  ASSERT_NE(pipeline, nullptr);
  push(pipeline.get(), 0, sources[0], 0, 8);
  push(pipeline.get(), 1, sources[1], 0, 2);
  // appsrc queues serialized events in order with its buffers.
  ASSERT_TRUE(gst_element_send_event(GST_ELEMENT(appsrc(pipeline.get(), 1)),
                                     gst_event_new_gap(80 * GST_MSECOND, 200 * GST_MSECOND)));
  push(pipeline.get(), 1, sources[1], 2, 2);
  for (int i = 0; i < 2; ++i) gst_app_src_end_of_stream(appsrc(pipeline.get(), i));
  const std::vector<ClipTensor> tensors =
      pull_clip_tensors(by_name(pipeline.get(), "out"), settings);
  // Source 1's one clip: PTS 0, 40, 280, 320 ms.
  expect_clips(tensors, sources, {clips_by_rule(settings, 0, 8), {{0, 1, 2, 3}}}, settings);
  EXPECT_EQ(bus_error(pipeline.get()), "") << "the gap posted an error";
}

// Flushes pad `pad_name` of `batch` alone, as a seek of that source's own
// chain does, and starts a new segment on it.
void flush_one_pad(GstElement *batch, const char *pad_name) {
  GstPad *pad = gst_element_get_static_pad(batch, pad_name);
  ASSERT_NE(pad, nullptr);
  GstPad *upstream = gst_pad_get_peer(pad);
  gst_object_unref(pad);
  ASSERT_NE(upstream, nullptr);
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  EXPECT_TRUE(gst_pad_push_event(upstream, gst_event_new_flush_start()));
  EXPECT_TRUE(gst_pad_push_event(upstream, gst_event_new_flush_stop(TRUE)));
  EXPECT_TRUE(gst_pad_push_event(upstream, gst_event_new_segment(&segment)));
  gst_object_unref(upstream);
}

// Counts the frames pad `pad_name` of `batch` takes into `count`.
void count_consumed(GstElement *batch, const char *pad_name, std::atomic<int> *count) {
  GstPad *pad = gst_element_get_static_pad(batch, pad_name);
  ASSERT_NE(pad, nullptr);
  g_object_set(pad, "emit-signals", TRUE, nullptr);
  g_signal_connect(pad, "buffer-consumed",
                   G_CALLBACK(+[](GstAggregatorPad *, GstBuffer *, gpointer counter) {
                     ++*static_cast<std::atomic<int> *>(counter);
                   }),
                   count);
  gst_object_unref(pad);
}

// A flush of source 1 mid-clip empties its open clip (fill 0, zeros), and
// its frames count from 0 again: its next clip begins at the first frame
// after the flush. Source 0's clips are whole and equal.
TEST(BatchClipEventsGpu, AFlushEmptiesOnlyThatSourcesOpenClip) {
  CUDAPREP_REQUIRE_GPU();
  const ClipSettings settings{4, 1, 0, 2, "ntchw"};
  const std::vector<SourceFrames> sources =
      two_sources(pts_range(0, 8), pts_range(0, 2, 10, 6), 13);
  std::atomic<int> consumed[2] = {0, 0};
  Pipeline pipeline(play(batch_line(settings, sources)));
  ASSERT_NE(pipeline, nullptr);
  GstElement *batch = by_name(pipeline.get(), "b");
  count_consumed(batch, "sink_0", &consumed[0]);
  count_consumed(batch, "sink_1", &consumed[1]);
  // Source 0 a frame ahead: without a frame waiting on each pad, a
  // non-live aggregator takes none.
  push(pipeline.get(), 0, sources[0], 0, 3);
  push(pipeline.get(), 1, sources[1], 0, 2);
  for (int waited = 0; consumed[1] < 2 && waited < 500; ++waited) g_usleep(10000);
  ASSERT_EQ(consumed[1], 2) << "source 1's clip did not take its first two frames";
  flush_one_pad(batch, "sink_1");
  push(pipeline.get(), 1, sources[1], 2, 6);
  push(pipeline.get(), 0, sources[0], 3, 5);
  for (int i = 0; i < 2; ++i) gst_app_src_end_of_stream(appsrc(pipeline.get(), i));
  const std::vector<ClipTensor> tensors =
      pull_clip_tensors(by_name(pipeline.get(), "out"), settings);
  // Source 1 after the flush: frames 2-5 and 6-7 (PTS 400 ms on).
  expect_clips(tensors, sources, {clips_by_rule(settings, 0, 8), clips_by_rule(settings, 2, 6)},
               settings, 1);
  EXPECT_EQ(bus_error(pipeline.get()), "") << "the flush posted an error";
}

// Source 1 ends after 2 frames: its clip leaves with them (in the tensor
// it shares with source 0's first clip) while source 0 goes on; at source
// 0's EOS the rest leaves, then EOS.
TEST(BatchClipEventsGpu, EosOnOneSourceSendsItsClipWhileTheOtherGoesOn) {
  CUDAPREP_REQUIRE_GPU();
  const ClipSettings settings{4, 1, 0, 2, "ncthw"};
  const std::vector<SourceFrames> sources = two_sources(pts_range(0, 10), pts_range(0, 2), 14);
  Pipeline pipeline(play(batch_line(settings, sources)));
  ASSERT_NE(pipeline, nullptr);
  GstElement *sink = by_name(pipeline.get(), "out");
  push(pipeline.get(), 1, sources[1], 0, 2);
  gst_app_src_end_of_stream(appsrc(pipeline.get(), 1));
  push(pipeline.get(), 0, sources[0], 0, 4);
  std::vector<ClipTensor> tensors = pull_clip_tensors(sink, settings, 1, 5 * GST_SECOND);
  ASSERT_EQ(tensors.size(), 1u) << "source 1's clip, ended by its EOS, did not leave while "
                                   "source 0 went on";
  bool cut_clip = false;
  for (const Clip &clip : tensors[0].clips)
    cut_clip |= clip.source == 1 && clip.frame_pts.size() == 2;
  EXPECT_TRUE(cut_clip) << "the first tensor lacks source 1's clip of 2 frames";
  push(pipeline.get(), 0, sources[0], 4, 6);
  gst_app_src_end_of_stream(appsrc(pipeline.get(), 0));
  for (ClipTensor &tensor : pull_clip_tensors(sink, settings)) tensors.push_back(std::move(tensor));
  EXPECT_TRUE(gst_app_sink_is_eos(GST_APP_SINK(sink)));
  expect_clips(tensors, sources, {clips_by_rule(settings, 0, 10), {{0, 1}}}, settings);
  EXPECT_EQ(bus_error(pipeline.get()), "");
}

// Eight live cameras, four at 30 and four at 15 frames/s, into clips of 8
// frames taken every 2nd frame, overlapping by half, 4 per tensor: each
// clip holds frames of one camera, spaced 2 frame intervals, equal to the
// clip assembled from the same camera's frames made one at a time
// (videotestsrc's ball moves with the frame's time, so a camera run again
// without is-live makes the same frames).
TEST(BatchClipLiveGpu, EightLiveCamerasAt30And15FramesPerSecond) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kCameras = 8, kFrames = 32;
  const ClipSettings settings{8, 2, 8, 4, "ncthw"};
  const auto fps = [](int camera) { return camera < 4 ? 30 : 15; };
  const auto camera = [&](int i, bool live) {
    const char *motions[] = {"wavy", "sweep", "hsweep"};
    const char *formats[] = {"RGBA", "I420", "NV12", "YUY2"};
    return "videotestsrc pattern=ball motion=" + std::string(motions[i % 3]) +
           " is-live=" + (live ? "true" : "false") + " num-buffers=" + std::to_string(kFrames) +
           " foreground-color=" + std::to_string(0xff203040u + 0x1f0b07u * i) +
           " ! video/x-raw,format=" + formats[i % 4] + ",width=" + std::to_string(64 + 8 * i) +
           ",height=" + std::to_string(48 + 4 * i) + ",framerate=" + std::to_string(fps(i)) +
           "/1 ! " + chain();
  };
  // A budget far past any clip's last frame: every clip leaves whole (or at EOS).
  std::string line = "cudabatch name=b latency-budget=1000000000 " + settings.properties() +
                     " ! appsink name=out sync=false";
  for (int i = 0; i < kCameras; ++i)
    line += " " + camera(i, true) + " ! b.sink_" + std::to_string(i);
  std::vector<ClipTensor> tensors;
  {
    Pipeline pipeline(play(line));
    ASSERT_NE(pipeline, nullptr);
    tensors =
        pull_clip_tensors(by_name(pipeline.get(), "out"), settings, SIZE_MAX, 20 * GST_SECOND);
    EXPECT_EQ(bus_error(pipeline.get()), "");
  }
  std::vector<std::vector<const Clip *>> by_camera(kCameras);
  for (const ClipTensor &tensor : tensors)
    for (const Clip &clip : tensor.clips) {
      ASSERT_GE(clip.source, 0);
      ASSERT_LT(clip.source, kCameras);
      by_camera[clip.source].push_back(&clip);
    }
  const std::vector<std::vector<int>> expected = clips_by_rule(settings, 0, kFrames);
  for (int i = 0; i < kCameras; ++i) {
    SCOPED_TRACE("camera " + std::to_string(i) + " at " + std::to_string(fps(i)) + " frames/s");
    Pipeline single(
        play(camera(i, false) + " ! cudatensorize batch-size=1 ! appsink name=out sync=false"));
    ASSERT_NE(single, nullptr);
    const std::vector<std::vector<guint8>> singles = pull_tensor_bytes(single.get());
    ASSERT_EQ(singles.size(), static_cast<size_t>(kFrames));
    ASSERT_EQ(by_camera[i].size(), expected.size()) << "its clips, in the order they began";
    ASSERT_FALSE(by_camera[i][0]->frame_pts.empty());
    const GstClockTime first = by_camera[i][0]->frame_pts[0];
    for (size_t k = 0; k < expected.size(); ++k) {
      const Clip &clip = *by_camera[i][k];
      ASSERT_EQ(clip.frame_pts.size(), expected[k].size()) << "clip " << k;
      EXPECT_EQ(clip.pts, clip.frame_pts[0]) << "clip " << k;
      // Frame n at n seconds / fps, rounded down: 1 ns either way.
      for (size_t t = 0; t < expected[k].size(); ++t) {
        const GstClockTimeDiff offset = static_cast<GstClockTimeDiff>(
            gst_util_uint64_scale_int(expected[k][t], GST_SECOND, fps(i)));
        EXPECT_LE(std::llabs(GST_CLOCK_DIFF(first, clip.frame_pts[t]) - offset), 1)
            << "clip " << k << " frame " << t << " is not frame " << expected[k][t];
      }
      expect_clip_bytes(clip, singles, expected[k], settings, "clip " + std::to_string(k));
    }
  }
}

// Two live sources at 30 frames/s, clips of 16, latency-budget 100 ms:
// source 0 sends 5 frames and stops (no EOS). Its clip is due (15 frame
// intervals + the budget) 600 ms after its first frame arrived: it leaves
// with 5 frames then (not before its last frame would have come, within 1
// s of slack after), while source 1's clips go on whole.
TEST(BatchClipLiveGpu, TheClipOfASourceThatStopsLeavesAfterItsLatencyBudget) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kFrames1 = 100;
  const ClipSettings settings{16, 1, 0, 2, "ntchw"};
  const std::string caps = caps_string("RGBA", 64, 48);  // 30/1
  const std::string line = "cudabatch name=b latency-budget=100000000 " + settings.properties() +
                           " ! appsink name=out sync=false " + appsrc_chain("src0", caps, true) +
                           " ! b.sink_0 " + appsrc_chain("src1", caps, true) + " ! b.sink_1";
  std::atomic<gint64> first_arrival_us{0}, eos_us{0};
  Pipeline pipeline(play(line));
  ASSERT_NE(pipeline, nullptr);
  GstPad *sink_0 = gst_element_get_static_pad(by_name(pipeline.get(), "b"), "sink_0");
  ASSERT_NE(sink_0, nullptr);
  gst_pad_add_probe(
      sink_0, GST_PAD_PROBE_TYPE_BUFFER,
      +[](GstPad *, GstPadProbeInfo *, gpointer arrival) -> GstPadProbeReturn {
        gint64 none = 0;
        static_cast<std::atomic<gint64> *>(arrival)->compare_exchange_strong(
            none, g_get_monotonic_time());
        return GST_PAD_PROBE_OK;
      },
      &first_arrival_us, nullptr);
  gst_object_unref(sink_0);
  // A little faster than 30 frames/s: source 1's clips end on their 16th
  // frame, before they are due.
  std::thread pusher([&] {
    std::mt19937 rng(15);
    const GstVideoInfo info = video_info(caps);
    for (int f = 0; f < kFrames1; ++f) {
      if (f < 5) {
        EXPECT_EQ(gst_app_src_push_buffer(appsrc(pipeline.get(), 0), random_frame(info, rng)),
                  GST_FLOW_OK);
      }
      EXPECT_EQ(gst_app_src_push_buffer(appsrc(pipeline.get(), 1), random_frame(info, rng)),
                GST_FLOW_OK);
      g_usleep(25000);
    }
    eos_us = g_get_monotonic_time();
    for (int i = 0; i < 2; ++i) gst_app_src_end_of_stream(appsrc(pipeline.get(), i));
  });
  const std::vector<ClipTensor> tensors =
      pull_clip_tensors(by_name(pipeline.get(), "out"), settings, SIZE_MAX, 10 * GST_SECOND);
  pusher.join();
  EXPECT_EQ(bus_error(pipeline.get()), "");
  std::vector<size_t> fills[2];
  for (const ClipTensor &tensor : tensors)
    for (const Clip &clip : tensor.clips) {
      ASSERT_TRUE(clip.source == 0 || clip.source == 1) << clip.source;
      fills[clip.source].push_back(clip.frame_pts.size());
      if (clip.source != 0) continue;
      const gint64 after_us = tensor.arrived_us - first_arrival_us;
      std::printf("source 0's clip of %zu frames left %.1f ms after its first frame (due at 600)\n",
                  clip.frame_pts.size(), after_us / 1000.0);
      EXPECT_GE(after_us, 500000) << "source 0's clip left before its 16th frame would have come";
      EXPECT_LE(after_us, 1600000) << "source 0's clip left long after it was due (600 ms)";
      EXPECT_LT(tensor.arrived_us, eos_us) << "source 0's clip waited for EOS";
    }
  EXPECT_EQ(fills[0], std::vector<size_t>{5}) << "source 0: one clip of the 5 frames it sent";
  EXPECT_EQ(fills[1], (std::vector<size_t>{16, 16, 16, 16, 16, 16, 4}))
      << "source 1: 100 frames, whole clips but the one EOS cut";
}

}  // namespace
