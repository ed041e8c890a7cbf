// cudaprepsrc and the add/remove API (gstcudaprepsources.h). Without a
// GPU: a file decoded on the CPU (openh264dec, or nvh264dec where a GPU
// is), its faults turned into warnings and reconnects with back-off, EOS
// that ends only its own pad, statistics, settings errors, and sources
// added to and removed from a playing aggregator. The RTSP cases
// (credentials, server restarts, stalls) are in test_rtsp_source.cpp.
// With a GPU (SourceGpu, skipped without one): nvh264dec chosen and its
// frames batched in place by cudabatch, 32 sources added to one batch
// while it plays, 100 add/remove cycles on a playing cudabatch with host
// and device memory flat.
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gst/cudaprep/gstcudaprepsources.h>
#include "../../bench/memory_use.h"
#include "common/bus_log.h"
#include "common/cuda_test.h"
#include "common/test_data.h"

namespace {

using cudaprep::test::BusEntry;
using cudaprep::test::BusLog;
using cudaprep::test::PadCounter;
using cudaprep::test::stats_string;
using cudaprep::test::stats_uint64;
using cudaprep::test::test_data_uri;

const char *kStream = "smpte-640x360.h264";

// The frames GStreamer's own uridecodebin decodes from `uri`: the reference.
int reference_frame_count(const std::string &uri) {
  GstElement *pipeline = gst_parse_launch(
      ("uridecodebin uri=" + uri + " ! fakesink name=sink sync=false").c_str(), nullptr);
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad(sink, "sink");
  int frames = -1;
  {
    PadCounter counter(pad);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(
        bus, 10 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS) frames = counter.buffers();
    if (message) gst_message_unref(message);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
  }
  gst_object_unref(pad);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return frames;
}

// A launched pipeline with its bus log, stopped and freed at the end.
struct Pipeline {
  explicit Pipeline(const std::string &description) {
    GError *error = nullptr;
    element = gst_parse_launch(description.c_str(), &error);
    EXPECT_TRUE(element) << description << ": " << (error ? error->message : "");
    g_clear_error(&error);
    log = new BusLog(element);
  }
  ~Pipeline() {
    gst_element_set_state(element, GST_STATE_NULL);
    delete log;
    gst_object_unref(element);
  }
  GstElement *get(const char *name) {
    GstElement *child = gst_bin_get_by_name(GST_BIN(element), name);
    gst_object_unref(child);  // the pipeline holds it
    return child;
  }
  GstPad *sink_pad(const char *name) {
    GstPad *pad = gst_element_get_static_pad(get(name), "sink");
    gst_object_unref(pad);
    return pad;
  }
  GstElement *element;
  BusLog *log;
};

bool has_h264_decoder() {
  GList *decoders =
      gst_element_factory_list_get_elements(GST_ELEMENT_FACTORY_TYPE_DECODER, GST_RANK_MARGINAL);
  GstCaps *caps = gst_caps_from_string("video/x-h264");
  GList *h264 = gst_element_factory_list_filter(decoders, caps, GST_PAD_SINK, FALSE);
  const bool found = h264 != nullptr;
  gst_plugin_feature_list_free(h264);
  gst_plugin_feature_list_free(decoders);
  gst_caps_unref(caps);
  return found;
}

class Source : public ::testing::Test {
 protected:
  void SetUp() override {
    // CI installs one (openh264dec, gstreamer1.0-plugins-bad): without it
    // these tests cannot run, which is a failure, not a skip.
    ASSERT_TRUE(has_h264_decoder())
        << "no H.264 decoder: install gstreamer1.0-plugins-bad (openh264dec)";
  }
};

TEST_F(Source, AFileIsDecodedWholeAndItsEosEndsTheStream) {
  const std::string uri = test_data_uri(kStream);
  const int expected = reference_frame_count(uri);
  ASSERT_GT(expected, 0);
  Pipeline p("cudaprepsrc name=src uri=" + uri + " queue-size=8 ! fakesink name=sink sync=false");
  PadCounter counter(p.sink_pad("sink"));
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(p.log->wait_for(GST_MESSAGE_EOS, nullptr, 1, 10000));
  EXPECT_EQ(counter.buffers(), expected);
  GstElement *src = p.get("src");
  EXPECT_EQ(stats_uint64(src, "frames-in"), static_cast<guint64>(expected));
  EXPECT_EQ(stats_uint64(src, "frames-out"), static_cast<guint64>(expected));
  EXPECT_EQ(stats_uint64(src, "dropped-queue-full"), 0u);
  EXPECT_EQ(stats_uint64(src, "reconnects"), 0u);
  EXPECT_EQ(stats_uint64(src, "caps-changes"), 1u);
  EXPECT_EQ(stats_string(src, "state"), "ended");
  EXPECT_FALSE(stats_string(src, "decoder").empty());
  EXPECT_TRUE(p.log->wait_for(GST_MESSAGE_ELEMENT, "cudaprepsrc-ended", 1, 2000));
  EXPECT_EQ(p.log->count(GST_MESSAGE_ELEMENT, "cudaprepsrc-connected"), 1u);
  EXPECT_EQ(p.log->count(GST_MESSAGE_ERROR), 0u);
  EXPECT_EQ(p.log->count(GST_MESSAGE_WARNING), 0u);
}

// A live aggregator fed by the file source and a live test source: the
// file's EOS ends its pad, the other goes on and the pipeline keeps playing.
TEST_F(Source, EosOfOneSourceDoesNotEndThePipeline) {
  Pipeline p(
      "compositor name=mix ! video/x-raw,width=320,height=240 ! fakesink name=sink "
      "sync=false  cudaprepsrc name=src uri=" +
      test_data_uri(kStream) +
      " ! videoconvert ! mix.  videotestsrc is-live=true ! "
      "video/x-raw,width=320,height=240,framerate=30/1 ! mix.");
  PadCounter counter(p.sink_pad("sink"));
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(p.log->wait_for(GST_MESSAGE_ELEMENT, "cudaprepsrc-ended", 1, 10000));
  const int at_end = counter.buffers();
  EXPECT_TRUE(BusLog::wait_until([&] { return counter.buffers() >= at_end + 10; }, 5000))
      << "the pipeline stopped with the file's EOS";
  EXPECT_EQ(p.log->count(GST_MESSAGE_EOS), 0u);
  EXPECT_EQ(p.log->count(GST_MESSAGE_ERROR), 0u);
  EXPECT_FALSE(counter.eos());
}

// A source whose decoder fails (here: its file is missing) posts a warning
// and a cudaprepsrc-fault per attempt, waits reconnect-interval doubling up
// to reconnect-interval-max between attempts, and after reconnect-attempts
// gives up: its pad sends EOS; no ERROR reaches the pipeline.
TEST_F(Source, FaultsAreWarningsAndReconnectWithBackOffThenGiveUp) {
  Pipeline p(
      "cudaprepsrc name=src uri=file:///nonexistent/camera-7.h264 "
      "reconnect-interval=40 reconnect-interval-max=160 reconnect-attempts=4 ! "
      "fakesink name=sink async=false");
  PadCounter counter(p.sink_pad("sink"));
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(p.log->wait_for(GST_MESSAGE_ELEMENT, "cudaprepsrc-failed", 1, 10000));
  ASSERT_TRUE(BusLog::wait_until([&] { return counter.eos(); }, 2000));
  // The back-off as defined: interval * 2^(k-1), at most the maximum.
  const std::vector<gint64> retries = {40, 80, 160, 160, -1};
  std::vector<BusEntry> faults;
  for (const BusEntry &entry : p.log->entries())
    if (entry.structure == "cudaprepsrc-fault") faults.push_back(entry);
  ASSERT_EQ(faults.size(), retries.size());
  for (size_t i = 0; i < faults.size(); ++i) {
    guint attempt = 0;
    gint64 retry = 0;
    ASSERT_TRUE(gst_structure_get_uint(faults[i].fields, "attempt", &attempt));
    ASSERT_TRUE(gst_structure_get_int64(faults[i].fields, "retry-in-ms", &retry));
    EXPECT_EQ(attempt, i + 1);
    EXPECT_EQ(retry, retries[i]);
    EXPECT_EQ(std::string(gst_structure_get_string(faults[i].fields, "source")), "src");
    if (i == 0) continue;
    // Each attempt comes no earlier than its back-off (and not far later:
    // 1 s of slack for a loaded machine).
    const gint64 gap_ms = (faults[i].time_us - faults[i - 1].time_us) / 1000;
    EXPECT_GE(gap_ms, retries[i - 1]) << "attempt " << i + 1;
    EXPECT_LT(gap_ms, retries[i - 1] + 1000) << "attempt " << i + 1;
  }
  EXPECT_EQ(p.log->count(GST_MESSAGE_ERROR), 0u);
  EXPECT_EQ(p.log->count(GST_MESSAGE_WARNING), 5u);  // 4 reconnecting, 1 giving up
  GstElement *src = p.get("src");
  EXPECT_EQ(stats_string(src, "state"), "failed");
  EXPECT_EQ(stats_uint64(src, "reconnects"), 4u);
  EXPECT_NE(stats_string(src, "last-error").find("camera-7.h264"), std::string::npos)
      << stats_string(src, "last-error");
  EXPECT_EQ(counter.buffers(), 0);
}

// on-eos=reconnect: a file's EOS is a fault like a server that closes;
// the file plays again, and its pad never sends EOS.
TEST_F(Source, OnEosReconnectPlaysTheStreamAgain) {
  const std::string uri = test_data_uri(kStream);
  const int expected = reference_frame_count(uri);
  Pipeline p("cudaprepsrc name=src on-eos=reconnect reconnect-interval=20 queue-size=8 uri=" + uri +
             " ! fakesink name=sink sync=false");
  PadCounter counter(p.sink_pad("sink"));
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstElement *src = p.get("src");
  ASSERT_TRUE(BusLog::wait_until([&] { return stats_uint64(src, "reconnects") >= 2; }, 10000));
  ASSERT_TRUE(BusLog::wait_until([&] { return counter.buffers() > 2 * expected; }, 10000));
  EXPECT_FALSE(counter.eos());
  EXPECT_EQ(p.log->count(GST_MESSAGE_EOS), 0u);
  EXPECT_EQ(p.log->count(GST_MESSAGE_ELEMENT, "cudaprepsrc-ended"), 0u);
  for (const BusEntry &entry : p.log->entries()) {
    if (entry.structure == "cudaprepsrc-fault") {
      EXPECT_STREQ(gst_structure_get_string(entry.fields, "reason"), "the stream ended (EOS)");
    }
  }
}

// A fault in the chain (identity error-after=5 fails its 5th frame, once
// per start): the stable part is flushed and the source reconnects; the
// file then plays whole and its EOS ends it.
TEST_F(Source, AFaultInTheChainIsFlushedAndTheSourceGoesOn) {
  const std::string uri = test_data_uri(kStream);
  const int expected = reference_frame_count(uri);
  Pipeline p("cudaprepsrc name=src reconnect-interval=20 uri=" + uri +
             " chain=\"identity error-after=5\" ! fakesink name=sink sync=false");
  PadCounter counter(p.sink_pad("sink"));
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(p.log->wait_for(GST_MESSAGE_EOS, nullptr, 1, 10000));
  EXPECT_EQ(counter.buffers(), 4 + expected) << "4 frames before the fault, then the whole file";
  EXPECT_EQ(p.log->count(GST_MESSAGE_ELEMENT, "cudaprepsrc-fault"), 1u);
  EXPECT_EQ(p.log->count(GST_MESSAGE_ERROR), 0u);
  EXPECT_EQ(p.log->count(GST_MESSAGE_EOS), 1u);
  GstElement *src = p.get("src");
  EXPECT_EQ(stats_uint64(src, "reconnects"), 1u);
  EXPECT_EQ(stats_string(src, "state"), "ended");
  EXPECT_NE(stats_string(src, "last-error").find("identity"), std::string::npos)
      << stats_string(src, "last-error");
}

TEST_F(Source, ReconnectAttemptsZeroGivesUpAtTheFirstFault) {
  Pipeline p(
      "cudaprepsrc name=src uri=file:///nonexistent/x.h264 reconnect-attempts=0 ! "
      "fakesink name=sink async=false");
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(p.log->wait_for(GST_MESSAGE_ELEMENT, "cudaprepsrc-failed", 1, 5000));
  EXPECT_EQ(p.log->count(GST_MESSAGE_ELEMENT, "cudaprepsrc-fault"), 1u);
  EXPECT_EQ(stats_uint64(p.get("src"), "reconnects"), 0u);
}

// stats-interval posts the statistics while the source plays; the counts
// never go back and the last one holds every frame.
TEST_F(Source, StatisticsArePostedOnAnInterval) {
  const std::string uri = test_data_uri(kStream);
  const int expected = reference_frame_count(uri);
  Pipeline p("cudaprepsrc name=src stats-interval=50 uri=" + uri +
             " ! fakesink name=sink sync=true");
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(p.log->wait_for(GST_MESSAGE_EOS, nullptr, 1, 10000));
  // (30 frames at 30/s: about a second, so about 20 messages at 50 ms)
  ASSERT_TRUE(p.log->wait_for(GST_MESSAGE_ELEMENT, "cudaprepsrc-stats", 5, 2000));
  guint64 previous = 0;
  for (const BusEntry &entry : p.log->entries()) {
    if (entry.structure != "cudaprepsrc-stats") continue;
    guint64 frames_in = 0;
    ASSERT_TRUE(gst_structure_get_uint64(entry.fields, "frames-in", &frames_in));
    EXPECT_GE(frames_in, previous);
    EXPECT_LE(frames_in, static_cast<guint64>(expected));
    previous = frames_in;
  }
  EXPECT_TRUE(BusLog::wait_until(
      [&] {
        const std::vector<BusEntry> entries = p.log->entries();
        guint64 last = 0;
        for (const BusEntry &entry : entries)
          if (entry.structure == "cudaprepsrc-stats")
            gst_structure_get_uint64(entry.fields, "frames-out", &last);
        return last == static_cast<guint64>(expected);
      },
      2000));
}

TEST_F(Source, SettingsThatCannotWorkAreErrorsNamingThem) {
  struct Case {
    std::string properties, expected;
  };
  const std::vector<Case> cases = {
      {"", "cudaprepsrc needs a uri"},
      {"uri=nosuchscheme://op:Hunter22@cam/live",
       "uri=nosuchscheme://op:***@cam/live: no installed"},
      {"uri=" + test_data_uri(kStream) + " chain=\"nosuchelement99\"", "chain=\"nosuchelement99\""},
  };
  for (const Case &c : cases) {
    Pipeline p("cudaprepsrc name=src " + c.properties + " ! fakesink");
    EXPECT_EQ(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    bool named = false;
    for (const BusEntry &entry : p.log->entries()) {
      if (entry.type != GST_MESSAGE_ERROR) continue;
      named |= entry.text.find(c.expected) != std::string::npos;
      EXPECT_EQ(entry.text.find("Hunter22"), std::string::npos) << entry.text;
    }
    EXPECT_TRUE(named) << c.properties << ": no error naming " << c.expected;
  }
}

// The chain sits between the queue and the src pad and survives reconnects.
TEST_F(Source, TheChainShapesWhatLeaves) {
  Pipeline p(
      "cudaprepsrc name=src uri=" + test_data_uri(kStream) +
      " chain=\"videoconvert ! videoscale ! capsfilter caps=video/x-raw,width=160,height=90\" ! "
      "fakesink name=sink sync=false");
  PadCounter counter(p.sink_pad("sink"));
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(p.log->wait_for(GST_MESSAGE_EOS, nullptr, 1, 10000));
  EXPECT_EQ(counter.widths(), std::vector<int>{160});
  EXPECT_EQ(static_cast<guint64>(counter.buffers()), stats_uint64(p.get("src"), "frames-out"));
  EXPECT_GT(counter.buffers(), 0);
}

TEST(SourceProperties, EveryPropertyHasABlurbAndTheUriReadsBackMasked) {
  GstElement *src = gst_element_factory_make("cudaprepsrc", nullptr);
  ASSERT_TRUE(src);
  guint n = 0;
  GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(src), &n);
  for (guint i = 0; i < n; ++i) {
    const gchar *blurb = g_param_spec_get_blurb(specs[i]);
    EXPECT_TRUE(blurb && strlen(blurb) > 10) << g_param_spec_get_name(specs[i]);
  }
  g_free(specs);
  g_object_set(src, "uri", "rtsp://admin:Hunter22@10.1.2.3/ch1", "user-pw", "Other99", nullptr);
  gchar *uri = nullptr;
  g_object_get(src, "uri", &uri, nullptr);
  EXPECT_STREQ(uri, "rtsp://admin:***@10.1.2.3/ch1");
  g_free(uri);
  GParamSpec *pw = g_object_class_find_property(G_OBJECT_GET_CLASS(src), "user-pw");
  EXPECT_FALSE(pw->flags & G_PARAM_READABLE);
  gst_object_unref(src);
}

// Sources added to a playing aggregator and removed again while a live
// source goes on: compositor stands in for cudabatch (same request pads,
// same GstAggregator), so this runs without a GPU.
TEST_F(Source, AddAndRemoveWhilePlaying) {
  Pipeline p(
      "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! "
      "compositor name=mix ! fakesink name=sink sync=false");
  PadCounter counter(p.sink_pad("sink"));
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstElement *mix = p.get("mix");
  const int children = GST_BIN(p.element)->numchildren;
  for (int cycle = 0; cycle < 5; ++cycle) {
    GError *error = nullptr;
    GstElement *source =
        gst_cuda_prep_source_new(test_data_uri(kStream).c_str(), "videoconvert", &error);
    ASSERT_TRUE(source) << error->message;
    g_object_set(source, "queue-size", 8u, nullptr);
    gst_object_ref_sink(source);
    GstPad *pad = gst_cuda_prep_batch_add_source(mix, source, &error);
    ASSERT_TRUE(pad) << error->message;
    EXPECT_EQ(mix->numsinkpads, 2u);
    EXPECT_TRUE(BusLog::wait_until([&] { return stats_uint64(source, "frames-out") >= 10; }, 10000))
        << "cycle " << cycle;
    const int before = counter.buffers();
    ASSERT_TRUE(gst_cuda_prep_batch_remove_source(mix, source, &error)) << error->message;
    EXPECT_EQ(mix->numsinkpads, 1u) << "cycle " << cycle;
    EXPECT_EQ(GST_BIN(p.element)->numchildren, children) << "cycle " << cycle;
    EXPECT_EQ(GST_OBJECT_PARENT(source), nullptr);
    EXPECT_EQ(GST_STATE(source), GST_STATE_NULL);
    EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(source), 1) << "a reference left behind";
    gst_object_unref(pad);
    gst_object_unref(source);
    // The pipeline goes on.
    EXPECT_TRUE(BusLog::wait_until([&] { return counter.buffers() >= before + 5; }, 5000));
  }
  for (const BusEntry &entry : p.log->entries())
    EXPECT_TRUE(entry.type != GST_MESSAGE_ERROR && entry.type != GST_MESSAGE_WARNING)
        << entry.source << ": " << entry.text;
  EXPECT_EQ(p.log->count(GST_MESSAGE_EOS), 0u);
}

TEST_F(Source, AddAndRemoveRefuseWhatCannotWork) {
  Pipeline p("videotestsrc is-live=true ! compositor name=mix ! fakesink name=sink");
  const int children = GST_BIN(p.element)->numchildren;
  GstElement *sink = p.get("sink");
  GError *error = nullptr;
  GstElement *source = gst_cuda_prep_source_new(test_data_uri(kStream).c_str(), nullptr, &error);
  ASSERT_TRUE(source);
  EXPECT_EQ(gst_cuda_prep_batch_add_source(sink, source, &error), nullptr);
  ASSERT_TRUE(error);
  EXPECT_NE(std::string(error->message).find("no new sink_%u pad"), std::string::npos)
      << error->message;
  g_clear_error(&error);
  GstElement *loose = gst_cuda_prep_source_new(test_data_uri(kStream).c_str(), nullptr, nullptr);
  gst_object_ref_sink(loose);
  EXPECT_FALSE(gst_cuda_prep_batch_remove_source(p.get("mix"), loose, &error));
  ASSERT_TRUE(error);
  EXPECT_NE(std::string(error->message).find("does not feed mix"), std::string::npos)
      << error->message;
  g_clear_error(&error);
  gst_object_unref(loose);
  EXPECT_EQ(GST_BIN(p.element)->numchildren, children);  // nothing left behind
}

// ------------------------------------------------------------------- GPU

bool has_factory(const char *name) {
  GstElementFactory *factory = gst_element_factory_find(name);
  if (factory) gst_object_unref(factory);
  return factory != nullptr;
}

#define REQUIRE_NVH264DEC()                                                                \
  do {                                                                                     \
    CUDAPREP_REQUIRE_GPU();                                                                \
    if (!has_factory("nvh264dec")) GTEST_SKIP() << "nvh264dec is not available (nvcodec)"; \
  } while (0)

const char *kBatchChain =
    "cudaresize ! video/x-raw(memory:CUDAPitched),width=224,height=224,format=RGB ! "
    "cudanormalize";

// Items of every batch pulled from `sink` until EOS (or 20 s without a
// batch), per source index.
std::map<int, int> items_per_source(GstElement *sink, int *batches) {
  std::map<int, int> items;
  *batches = 0;
  while (GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND)) {
    const GstCudaPrepTensorMeta *meta =
        gst_buffer_get_cuda_prep_tensor_meta(gst_sample_get_buffer(sample));
    if (meta)
      for (gsize i = 0; i < meta->tensors[0]->batch_filled; ++i)
        ++items[meta->tensors[0]->items[i].source_index];
    ++*batches;
    gst_sample_unref(sample);
  }
  return items;
}

// cudaprepsrc picks nvh264dec (frames in memory:CUDAMemory), and its chain
// into cudabatch batches every decoded frame.
TEST(SourceGpu, NvcodecDecodesAndCudabatchTakesEveryFrame) {
  REQUIRE_NVH264DEC();
  const std::string uri = test_data_uri(kStream);
  const int expected = reference_frame_count(uri);
  Pipeline p(
      "cudabatch name=b batch-size=4 ! appsink name=out sync=false "
      "cudaprepsrc name=src uri=" +
      uri + " chain=\"" + kBatchChain +
      "\" ! b.sink_0 "
      "cudaprepsrc name=raw uri=" +
      uri + " ! fakesink name=rawsink sync=false");
  PadCounter raw(p.sink_pad("rawsink"));
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  int batches = 0;
  const std::map<int, int> items = items_per_source(p.get("out"), &batches);
  EXPECT_EQ(items.at(0), expected);
  EXPECT_EQ(stats_string(p.get("src"), "decoder"), "nvh264dec");
  GstCaps *caps = gst_pad_get_current_caps(p.sink_pad("rawsink"));
  ASSERT_TRUE(caps);
  EXPECT_TRUE(gst_caps_features_contains(gst_caps_get_features(caps, 0), "memory:CUDAMemory"))
      << "nvh264dec's frames left the GPU";
  gst_caps_unref(caps);
  EXPECT_EQ(p.log->count(GST_MESSAGE_ERROR), 0u);
  EXPECT_EQ(p.log->count(GST_MESSAGE_WARNING), 0u);
}

// 32 sources added with gst_cuda_prep_batch_add_source() to a playing
// cudabatch of 32: every frame of every source is batched, under its index.
TEST(SourceGpu, ThirtyTwoSourcesAddedToAPlayingBatch) {
  REQUIRE_NVH264DEC();
  const std::string uri = test_data_uri(kStream);
  const int expected = reference_frame_count(uri);
  Pipeline p("cudabatch name=b batch-size=32 ! appsink name=out sync=false");
  // The batch needs a source before it can start: the first one.
  GstElement *batch = p.get("b");
  std::vector<GstPad *> pads;
  for (int i = 0; i < 32; ++i) {
    GError *error = nullptr;
    GstElement *source = gst_cuda_prep_source_new(uri.c_str(), kBatchChain, &error);
    ASSERT_TRUE(source) << error->message;
    GstPad *pad = gst_cuda_prep_batch_add_source(batch, source, &error);
    ASSERT_TRUE(pad) << error->message;
    pads.push_back(pad);
    if (i == 0) {
      ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    }
  }
  int batches = 0;
  const std::map<int, int> items = items_per_source(p.get("out"), &batches);
  ASSERT_EQ(items.size(), 32u);
  for (const auto &[source, count] : items) EXPECT_EQ(count, expected) << "source " << source;
  for (GstPad *pad : pads) gst_object_unref(pad);
  EXPECT_EQ(p.log->count(GST_MESSAGE_ERROR), 0u);
}

// 100 cycles of adding a source (nvh264dec and its chain) to a playing
// cudabatch fed by a live camera, letting it batch frames, and removing it:
// nothing is left behind (pads, children, the batch's statistics) and,
// from cycle 10 (decoder, pools and CUDA context warm) to cycle 100, host
// resident memory grows by at most 10 MB and device memory in use by at
// most 16 MB. One leaked decoder of this 640x360 stream holds several MB
// of surfaces, one leaked source bin about 100 KB: 90 of either exceed the
// bounds.
TEST(SourceGpu, HundredAddRemoveCyclesKeepHostAndDeviceMemoryFlat) {
  REQUIRE_NVH264DEC();
  const std::string uri = test_data_uri(kStream);
  Pipeline p(std::string("videotestsrc is-live=true ! video/x-raw,width=320,height=240,"
                         "framerate=30/1 ! cudaframeupload ! ") +
             kBatchChain +
             " ! b.sink_0 cudabatch name=b batch-size=4 latency-budget=20000000 ! "
             "appsink name=out sync=false drop=true max-buffers=4");
  ASSERT_NE(gst_element_set_state(p.element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstElement *batch = p.get("b");
  const int children = GST_BIN(p.element)->numchildren;
  constexpr double kHostBoundMb = 10, kDeviceBoundMb = 16;
  MemoryUse at_10, at_100;
  for (int cycle = 1; cycle <= 100; ++cycle) {
    GError *error = nullptr;
    GstElement *source = gst_cuda_prep_source_new(uri.c_str(), kBatchChain, &error);
    ASSERT_TRUE(source) << error->message;
    gst_object_ref_sink(source);
    GstPad *pad = gst_cuda_prep_batch_add_source(batch, source, &error);
    ASSERT_TRUE(pad) << error->message;
    ASSERT_TRUE(BusLog::wait_until([&] { return stats_uint64(source, "frames-out") >= 5; }, 10000))
        << "cycle " << cycle << ": the added source batched nothing";
    ASSERT_TRUE(gst_cuda_prep_batch_remove_source(batch, source, &error)) << error->message;
    ASSERT_EQ(batch->numsinkpads, 1u) << "cycle " << cycle;
    ASSERT_EQ(GST_BIN(p.element)->numchildren, children) << "cycle " << cycle;
    EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(source), 1) << "cycle " << cycle << ": a reference left";
    gst_object_unref(pad);
    gst_object_unref(source);
    if (cycle == 10) at_10 = memory_use();
    if (cycle == 100) at_100 = memory_use();
  }
  GstStructure *stats = nullptr;
  g_object_get(batch, "stats", &stats, nullptr);
  ASSERT_TRUE(stats);
  EXPECT_EQ(gst_value_array_get_size(gst_structure_get_value(stats, "sources")), 1u)
      << "statistics of removed pads left in the batch's";
  gst_structure_free(stats);
  std::printf(
      "100 add/remove cycles: host RSS %.1f -> %.1f MB, device %.1f -> %.1f MB "
      "(cycle 10 -> 100)\n",
      at_10.host_mb, at_100.host_mb, at_10.device_mb, at_100.device_mb);
  EXPECT_LE(at_100.host_mb - at_10.host_mb, kHostBoundMb);
  EXPECT_LE(at_100.device_mb - at_10.device_mb, kDeviceBoundMb);
  EXPECT_GT(at_10.device_mb, 0) << "cudaMemGetInfo gave nothing";
  EXPECT_EQ(p.log->count(GST_MESSAGE_ERROR), 0u);
}

}  // namespace
