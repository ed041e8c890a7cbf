// cudaprepsrc against a real RTSP server in the test process
// (common/rtsp_server.h: gst-rtsp-server, live H.264 from x264enc, TCP):
// credentials that open the stream and never appear in a log line, a bus
// message or a statistic; a server that goes away and comes back (with
// another resolution) while a second camera goes on untouched; a stream
// that stalls without closing. No GPU: decoded by openh264dec (nvh264dec
// where a GPU is). With a GPU (RtspSourceGpu): 8 cameras through nvh264dec
// into one cudabatch, one of them killed and brought back.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gst/cudaprep/gstcudaprepsources.h>
#include "common/bus_log.h"
#include "common/cuda_test.h"
#include "common/rtsp_server.h"

namespace {

using cudaprep::test::BusEntry;
using cudaprep::test::BusLog;
using cudaprep::test::LogTap;
using cudaprep::test::PadCounter;
using cudaprep::test::RtspServer;
using cudaprep::test::stats_string;
using cudaprep::test::stats_uint64;

bool has_elements(const std::vector<const char *> &names, std::string *missing) {
  for (const char *name : names) {
    GstElementFactory *factory = gst_element_factory_find(name);
    if (!factory) {
      *missing = name;
      return false;
    }
    gst_object_unref(factory);
  }
  return true;
}

// A pipeline of cudaprepsrc -> fakesink pairs, built with the API (never a
// launch line: a launch line is logged as it is parsed, credentials and all).
struct Cameras {
  explicit Cameras(const std::vector<std::string> &uris) {
    pipeline = gst_pipeline_new("cameras");
    log = new BusLog(pipeline);
    for (size_t i = 0; i < uris.size(); ++i) {
      const std::string name = "cam" + std::to_string(i);
      GstElement *src = gst_element_factory_make("cudaprepsrc", name.c_str());
      GstElement *sink = gst_element_factory_make("fakesink", ("sink" + std::to_string(i)).c_str());
      // A stall only where a test makes one: the first frame of a GPU
      // machine's first decoder (nvh264dec creating its CUDA context) took
      // over 1.5 s there.
      g_object_set(src, "uri", uris[i].c_str(), "reconnect-interval", 100u,
                   "reconnect-interval-max", 400u, "stall-timeout", 5000u, nullptr);
      g_object_set(sink, "sync", FALSE, "async", FALSE, nullptr);
      gst_bin_add_many(GST_BIN(pipeline), src, sink, nullptr);
      EXPECT_TRUE(gst_element_link(src, sink));
      sources.push_back(src);
      GstPad *pad = gst_element_get_static_pad(sink, "sink");
      counters.push_back(new PadCounter(pad));
      gst_object_unref(pad);
    }
  }
  ~Cameras() {
    gst_element_set_state(pipeline, GST_STATE_NULL);
    for (PadCounter *counter : counters) delete counter;
    delete log;
    gst_object_unref(pipeline);
  }
  bool frames(size_t camera, int n, int timeout_ms) {
    return BusLog::wait_until([&] { return counters[camera]->buffers() >= n; }, timeout_ms);
  }
  size_t messages(const char *structure, const char *source) {
    size_t n = 0;
    for (const BusEntry &entry : log->entries())
      if (entry.structure == structure && entry.source == source) ++n;
    return n;
  }
  GstElement *pipeline;
  BusLog *log;
  std::vector<GstElement *> sources;
  std::vector<PadCounter *> counters;
};

class RtspSource : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string missing;
    // CI installs these (tools/setup-debian.sh): a missing one fails.
    ASSERT_TRUE(
        has_elements({"rtspsrc", "x264enc", "rtph264pay", "rtph264depay", "h264parse"}, &missing))
        << missing << " is missing: run tools/setup-debian.sh";
  }
};

// Every log line (all categories, LOG level) of a run, searched for
// `secrets`. Through a LogTap (common/bus_log.h): the RTSP server's threads
// log on after the capture's pipeline has stopped, while it goes away.
class LogCapture {
 public:
  explicit LogCapture(const std::vector<std::string> &secrets) : secrets_(secrets) {
    previous_ = gst_debug_get_default_threshold();
    gst_debug_set_default_threshold(GST_LEVEL_LOG);
    // (the test's own server prints every RTSP message at LOG, on stdout)
    gst_debug_set_threshold_for_name("rtspclient", GST_LEVEL_DEBUG);
  }
  ~LogCapture() {
    gst_debug_unset_threshold_for_name("rtspclient");
    gst_debug_set_default_threshold(previous_);
    // (tap_, the last member, is destroyed first: no call is left in on_log
    // when the members it uses go)
  }
  // Lines holding any of the secrets.
  std::vector<std::string> hits() {
    std::lock_guard<std::mutex> guard(lock_);
    return hits_;
  }
  size_t lines() const { return lines_.load(); }

 private:
  void on_log(GstDebugCategory *category, GstDebugLevel, const gchar *file, const gchar *function,
              gint line, GObject *object, GstDebugMessage *message) {
    ++lines_;
    const gchar *text = gst_debug_message_get(message);
    if (!text) return;
    for (const std::string &secret : secrets_) {
      if (!strstr(text, secret.c_str())) continue;
      std::lock_guard<std::mutex> guard(lock_);
      hits_.push_back(std::string(gst_debug_category_get_name(category)) + " " + file + ":" +
                      std::to_string(line) + " " + function + "(" +
                      (object && GST_IS_OBJECT(object) ? GST_OBJECT_NAME(object) : "") +
                      "): " + text);
    }
  }
  GstDebugLevel previous_;
  const std::vector<std::string> secrets_;
  std::mutex lock_;
  std::vector<std::string> hits_;
  std::atomic<size_t> lines_{0};
  LogTap tap_{[this](GstDebugCategory *category, GstDebugLevel level, const gchar *file,
                     const gchar *function, gint line, GObject *object, GstDebugMessage *message) {
    on_log(category, level, file, function, line, object, message);
  }};
};

// GStreamer's log functions are swapped here, before any test's thread
// logs, and never again (common/bus_log.h, LogTap).
class LogTapEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { LogTap::install(); }
};
[[maybe_unused]] ::testing::Environment *const log_tap_environment =
    ::testing::AddGlobalTestEnvironment(new LogTapEnvironment);

// The right credentials open the stream; wrong ones give a fault naming the
// source with its password masked; neither password, nor the encoded
// user:password of the Authorization header, is in any log line, bus
// message or statistic.
TEST_F(RtspSource, CredentialsOpenTheStreamAndAreNeverPrinted) {
  const std::string user = "operator", password = "Pa55w0rd-Secr3t", wrong = "Wr0ng-Gue55";
  RtspServer server;
  server.set_mount("/cam", {320, 240, user, password});
  ASSERT_TRUE(server.start());
  gchar *basic = g_base64_encode(reinterpret_cast<const guchar *>((user + ":" + password).c_str()),
                                 user.size() + 1 + password.size());
  const std::vector<std::string> secrets = {password, wrong, basic};
  g_free(basic);
  LogCapture capture(secrets);
  {
    Cameras cameras(
        {server.uri("/cam", user + ":" + password), server.uri("/cam", user + ":" + wrong)});
    ASSERT_NE(gst_element_set_state(cameras.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    EXPECT_TRUE(cameras.frames(0, 10, 10000)) << "no frames with the right credentials";
    EXPECT_TRUE(BusLog::wait_until(
        [&] { return cameras.messages("cudaprepsrc-fault", "cam1") >= 1; }, 10000));
    EXPECT_EQ(cameras.counters[1]->buffers(), 0);
    EXPECT_EQ(cameras.messages("cudaprepsrc-fault", "cam0"), 0u) << [&] {
      std::string faults;  // what cam0 reported, to tell why
      for (const BusEntry &entry : cameras.log->entries())
        if (entry.source == "cam0") faults += "\n  " + entry.text;
      return faults;
    }();
    // What an operator reads names the source, password masked.
    bool named = false;
    for (const BusEntry &entry : cameras.log->entries()) {
      for (const std::string &secret : secrets)
        EXPECT_EQ(entry.text.find(secret), std::string::npos) << entry.text;
      if (entry.type == GST_MESSAGE_WARNING && entry.source == "cam1")
        named |= entry.text.find("rtspt://operator:***@127.0.0.1") != std::string::npos;
    }
    EXPECT_TRUE(named) << "no warning names the failing source with its password masked";
    for (GstElement *src : cameras.sources) {
      GstStructure *stats = nullptr;
      g_object_get(src, "stats", &stats, nullptr);
      gchar *text = gst_structure_to_string(stats);
      for (const std::string &secret : secrets)
        EXPECT_EQ(std::string(text).find(secret), std::string::npos) << text;
      g_free(text);
      gst_structure_free(stats);
    }
    gst_element_set_state(cameras.pipeline, GST_STATE_NULL);
  }
  EXPECT_GT(capture.lines(), 1000u) << "the log capture saw almost nothing";
  for (const std::string &line : capture.hits()) ADD_FAILURE() << "logged: " << line;
}

// One server goes away: its camera faults and reconnects with back-off;
// the other camera, on another server, loses no time. The server comes back
// with another resolution: frames flow again, the new caps downstream.
TEST_F(RtspSource, ACameraReconnectsWhenItsServerReturnsAndTheOtherGoesOn) {
  RtspServer flaky, steady;
  flaky.set_mount("/cam", {320, 240, "", ""});
  steady.set_mount("/cam", {320, 240, "", ""});
  ASSERT_TRUE(flaky.start());
  ASSERT_TRUE(steady.start());
  Cameras cameras({flaky.uri("/cam"), steady.uri("/cam")});
  ASSERT_NE(gst_element_set_state(cameras.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(cameras.frames(0, 10, 10000));
  ASSERT_TRUE(cameras.frames(1, 10, 10000));
  EXPECT_TRUE(cudaprep::test::stats_bool(cameras.sources[0], "live"));

  flaky.stop();
  ASSERT_TRUE(
      BusLog::wait_until([&] { return cameras.messages("cudaprepsrc-fault", "cam0") >= 1; }, 5000))
      << "the server's disappearance was not noticed";
  // The other camera goes on while this one is down.
  const int steady_before = cameras.counters[1]->buffers();
  g_usleep(700 * 1000);
  EXPECT_GE(cameras.counters[1]->buffers(), steady_before + 10);
  // Between attempts, or in one (a refused connection fails at once).
  const std::string down_state = stats_string(cameras.sources[0], "state");
  EXPECT_TRUE(down_state == "reconnecting" || down_state == "connecting") << down_state;

  flaky.set_mount("/cam", {160, 120, "", ""});
  const int frames_before = cameras.counters[0]->buffers();
  const size_t connected_before = cameras.messages("cudaprepsrc-connected", "cam0");
  const gint64 back = g_get_monotonic_time();
  ASSERT_TRUE(flaky.start());
  ASSERT_TRUE(BusLog::wait_until(
      [&] { return cameras.messages("cudaprepsrc-connected", "cam0") > connected_before; }, 5000));
  const gint64 reconnect_ms = (g_get_monotonic_time() - back) / 1000;
  // Within the 2 s of the stream's return (back-off at most 400 ms).
  EXPECT_LT(reconnect_ms, 2000);
  std::printf("reconnected %lld ms after the server came back\n",
              static_cast<long long>(reconnect_ms));
  EXPECT_TRUE(cameras.frames(0, frames_before + 10, 5000));
  EXPECT_EQ(cameras.counters[0]->widths().front(), 320);
  EXPECT_EQ(cameras.counters[0]->widths().back(), 160);
  EXPECT_GE(stats_uint64(cameras.sources[0], "reconnects"), 1u);
  EXPECT_EQ(stats_string(cameras.sources[0], "state"), "streaming");
  EXPECT_EQ(cameras.messages("cudaprepsrc-fault", "cam1"), 0u);
  EXPECT_EQ(stats_uint64(cameras.sources[1], "reconnects"), 0u);
  EXPECT_EQ(cameras.log->count(GST_MESSAGE_ERROR), 0u);
  EXPECT_FALSE(cameras.counters[0]->eos());
}

// A stream that stops sending without closing (the server's valve shut):
// after stall-timeout the source counts as failed and reconnects, which
// opens a new session whose frames flow.
TEST_F(RtspSource, AStalledStreamIsDetectedAndReconnected) {
  RtspServer server;
  server.set_mount("/cam", {320, 240, "", ""});
  ASSERT_TRUE(server.start());
  Cameras cameras({server.uri("/cam")});
  g_object_set(cameras.sources[0], "stall-timeout", 500u, nullptr);
  ASSERT_NE(gst_element_set_state(cameras.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_TRUE(cameras.frames(0, 10, 10000));
  server.gate(true);
  const gint64 shut = g_get_monotonic_time();
  ASSERT_TRUE(
      BusLog::wait_until([&] { return cameras.messages("cudaprepsrc-fault", "cam0") >= 1; }, 5000));
  const gint64 detected_ms = (g_get_monotonic_time() - shut) / 1000;
  EXPECT_GE(detected_ms, 450);  // not before the timeout (the last frames were in flight)
  bool stall = false;
  for (const BusEntry &entry : cameras.log->entries())
    if (entry.structure == "cudaprepsrc-fault")
      stall |= entry.text.find("stall-timeout") != std::string::npos;
  EXPECT_TRUE(stall);
  const int before = cameras.counters[0]->buffers();
  EXPECT_TRUE(cameras.frames(0, before + 10, 5000)) << "no frames after the reconnect";
  EXPECT_EQ(cameras.log->count(GST_MESSAGE_ERROR), 0u);
}

// ------------------------------------------------------------------- GPU

// Items per source index of the batches leaving cudabatch.
struct ItemCounter {
  static constexpr int kSources = 8;
  std::array<std::atomic<int>, kSources> items{};
  static GstPadProbeReturn on_batch(GstPad *, GstPadProbeInfo *info, gpointer data) {
    auto *self = static_cast<ItemCounter *>(data);
    const GstCudaPrepTensorMeta *meta =
        gst_buffer_get_cuda_prep_tensor_meta(GST_PAD_PROBE_INFO_BUFFER(info));
    if (!meta) return GST_PAD_PROBE_OK;
    for (gsize i = 0; i < meta->tensors[0]->batch_filled; ++i) {
      const gint source = meta->tensors[0]->items[i].source_index;
      if (source >= 0 && source < kSources) ++self->items[source];
    }
    return GST_PAD_PROBE_OK;
  }
};

// The GPU case: 8 RTSP cameras (one server each) through nvh264dec
// (frames stay on the GPU) into one cudabatch of 8, added with
// gst_cuda_prep_batch_add_source(). Camera 0's server is killed: the other
// 7 go on, each batching what it decodes (none drops a frame: their queues
// never overflow); camera 0 reconnects within 2 s of its server's return.
TEST(RtspSourceGpu, EightCamerasThroughNvh264decOneKilledAndBack) {
  CUDAPREP_REQUIRE_GPU();
  std::string missing;
  if (!has_elements({"nvh264dec"}, &missing)) GTEST_SKIP() << "nvh264dec is not available";
  constexpr int kCameras = ItemCounter::kSources;
  std::vector<std::unique_ptr<RtspServer>> servers;
  for (int i = 0; i < kCameras; ++i) {
    servers.push_back(std::make_unique<RtspServer>());
    servers.back()->set_mount("/cam", {640, 360, "", ""});
    ASSERT_TRUE(servers.back()->start());
  }
  GstElement *pipeline = gst_parse_launch(
      "cudabatch name=b batch-size=8 ! fakesink name=out sync=false async=false", nullptr);
  ASSERT_TRUE(pipeline);
  BusLog log(pipeline);
  GstElement *batch = gst_bin_get_by_name(GST_BIN(pipeline), "b");
  GstElement *out = gst_bin_get_by_name(GST_BIN(pipeline), "out");
  GstPad *out_pad = gst_element_get_static_pad(out, "sink");
  ItemCounter counter;
  gst_pad_add_probe(out_pad, GST_PAD_PROBE_TYPE_BUFFER, &ItemCounter::on_batch, &counter, nullptr);
  std::vector<GstElement *> cameras;
  for (int i = 0; i < kCameras; ++i) {
    GError *error = nullptr;
    GstElement *camera = gst_cuda_prep_source_new(
        servers[i]->uri("/cam").c_str(),
        "cudaresize add-borders=true ! "
        "capsfilter caps=\"video/x-raw(memory:CUDAPitched),width=320,height=320,format=RGB\" ! "
        "cudanormalize",
        &error);
    ASSERT_TRUE(camera) << error->message;
    g_object_set(camera, "reconnect-interval", 100u, "reconnect-interval-max", 400u,
                 "stall-timeout", 1500u, "queue-size", 8u, nullptr);
    gst_object_ref_sink(camera);
    GstPad *pad = gst_cuda_prep_batch_add_source(batch, camera, &error);
    ASSERT_TRUE(pad) << error->message;
    EXPECT_EQ(std::string(GST_PAD_NAME(pad)), "sink_" + std::to_string(i));
    gst_object_unref(pad);
    cameras.push_back(camera);
  }
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  auto all_at_least = [&](int n) {
    for (int i = 0; i < kCameras; ++i)
      if (counter.items[i] < n) return false;
    return true;
  };
  ASSERT_TRUE(BusLog::wait_until([&] { return all_at_least(30); }, 20000));
  for (GstElement *camera : cameras) EXPECT_EQ(stats_string(camera, "decoder"), "nvh264dec");

  servers[0]->stop();
  ASSERT_TRUE(BusLog::wait_until(
      [&] { return log.count(GST_MESSAGE_ELEMENT, "cudaprepsrc-fault") >= 1; }, 5000));
  std::array<int, kCameras> before{};
  for (int i = 1; i < kCameras; ++i) before[i] = counter.items[i];
  g_usleep(2 * G_USEC_PER_SEC);
  for (int i = 1; i < kCameras; ++i) {
    // 2 s at 30/s: about 60 items each while camera 0 is away.
    EXPECT_GE(counter.items[i] - before[i], 45) << "camera " << i;
    EXPECT_EQ(stats_uint64(cameras[i], "dropped-queue-full"), 0u) << "camera " << i;
    EXPECT_EQ(stats_uint64(cameras[i], "reconnects"), 0u) << "camera " << i;
  }
  const int zero_before = counter.items[0];
  const gint64 back = g_get_monotonic_time();
  ASSERT_TRUE(servers[0]->start());
  ASSERT_TRUE(BusLog::wait_until([&] { return counter.items[0] >= zero_before + 10; }, 5000));
  const gint64 reconnect_ms = (g_get_monotonic_time() - back) / 1000;
  std::printf("camera 0 batched again %lld ms after its server came back\n",
              static_cast<long long>(reconnect_ms));
  EXPECT_LT(reconnect_ms, 2000);
  EXPECT_EQ(log.count(GST_MESSAGE_ERROR), 0u);

  gst_element_set_state(pipeline, GST_STATE_NULL);
  for (GstElement *camera : cameras) gst_object_unref(camera);
  gst_object_unref(out_pad);
  gst_object_unref(out);
  gst_object_unref(batch);
  gst_object_unref(pipeline);
}

}  // namespace
