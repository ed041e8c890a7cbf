// cudaprepsrc in pipelines as users write them (gst_parse_launch, sinks
// with their defaults), against a real RTSP server in the process
// (common/rtsp_server.h), decoded on the CPU (openh264dec; the GPU runner
// has the same cases with nvh264dec in the README's own lines,
// tests/docs): frames reach an async sink, the application's EOS ends a
// live pipeline, UDP and TCP, several mounts of one server, the RTSP
// settings reach rtspsrc, timeouts counted from the first frame, a chain
// that cannot work is an ERROR, and NULL returns within a second from every
// source state.
#include <gio/gio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/bus_log.h"
#include "common/rtsp_server.h"
#include "common/silent_server.h"

namespace {

using cudaprep::test::BusEntry;
using cudaprep::test::BusLog;
using cudaprep::test::PadCounter;
using cudaprep::test::RtspServer;
using cudaprep::test::SilentServer;
using cudaprep::test::stats_string;
using cudaprep::test::stats_uint64;

constexpr int kNullBudgetMs = 1000;

// A pipeline from a launch description, with its bus log and a counter on
// each named sink.
class Launched {
 public:
  explicit Launched(const std::string &description) {
    GError *error = nullptr;
    pipeline_ = gst_parse_launch(description.c_str(), &error);
    if (error != nullptr) {
      ADD_FAILURE() << "gst_parse_launch(" << description << "): " << error->message;
      g_clear_error(&error);
    }
    if (pipeline_ != nullptr) log_ = std::make_unique<BusLog>(pipeline_);
  }
  ~Launched() {
    if (pipeline_ == nullptr) return;
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    counters_.clear();
    log_.reset();
    gst_object_unref(pipeline_);
  }
  Launched(const Launched &) = delete;
  Launched &operator=(const Launched &) = delete;

  bool ok() const { return pipeline_ != nullptr; }
  GstElement *pipeline() const { return pipeline_; }
  BusLog &log() { return *log_; }

  // The element named `name` (a reference the pipeline keeps).
  GstElement *element(const char *name) {
    GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline_), name);
    EXPECT_NE(element, nullptr) << "no element " << name;
    if (element != nullptr) gst_object_unref(element);  // (the pipeline holds it)
    return element;
  }
  PadCounter &count(const char *sink_name) {
    GstPad *pad = gst_element_get_static_pad(element(sink_name), "sink");
    counters_.push_back(std::make_unique<PadCounter>(pad));
    gst_object_unref(pad);
    return *counters_.back();
  }
  bool play() {
    return gst_element_set_state(pipeline_, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
  }
  // Milliseconds gst_element_set_state(NULL) took.
  double stop_ms() {
    const auto start = std::chrono::steady_clock::now();
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  }
  size_t messages(const char *structure) {
    size_t n = 0;
    for (const auto &entry : log_->entries()) n += entry.structure == structure;
    return n;
  }
  std::string errors() {
    std::string text;
    for (const auto &entry : log_->entries())
      if (entry.type == GST_MESSAGE_ERROR) text += entry.text + "\n";
    return text;
  }

 private:
  GstElement *pipeline_ = nullptr;
  std::unique_ptr<BusLog> log_;
  std::vector<std::unique_ptr<PadCounter>> counters_;
};

// The first element of `type_name` inside `bin`, at any depth (a reference).
GstElement *find_by_type(GstBin *bin, const char *type_name) {
  GstIterator *it = gst_bin_iterate_recurse(bin);
  GValue item = G_VALUE_INIT;
  GstElement *found = nullptr;
  while (found == nullptr && gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    GstElement *element = GST_ELEMENT(g_value_get_object(&item));
    if (g_str_equal(G_OBJECT_TYPE_NAME(element), type_name))
      found = GST_ELEMENT(gst_object_ref(element));
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
  return found;
}

class RtspLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char *name : {"rtspsrc", "x264enc", "rtph264pay", "openh264dec"}) {
      GstElementFactory *factory = gst_element_factory_find(name);
      // CI installs these (tools/setup-debian.sh): a missing one fails.
      ASSERT_NE(factory, nullptr) << name << " is missing: run tools/setup-debian.sh";
      gst_object_unref(factory);
    }
    for (int i = 0; i < 4; ++i) server_.set_mount("/cam" + std::to_string(i), {});
    ASSERT_TRUE(server_.start());
  }
  // rtsp:// (UDP first, TCP fallback) or rtspt:// (TCP only).
  std::string uri(int mount, bool tcp = false) const {
    return std::string(tcp ? "rtspt" : "rtsp") + "://127.0.0.1:" + std::to_string(server_.port()) +
           "/cam" + std::to_string(mount);
  }
  // A camera decoded on the CPU, fast to give up and come back.
  static std::string source(const std::string &uri, const std::string &extra = "") {
    return "cudaprepsrc uri=" + uri +
           " prefer-gpu-decoder=false reconnect-interval=100 reconnect-interval-max=400 " + extra;
  }
  RtspServer server_;
};

// A sink with its defaults (sync, async) behind a live cudaprepsrc: the
// pipeline must bring it to PLAYING (the bin once answered NO_PREROLL to
// PAUSED -> PLAYING as well, and such sinks prerolled one frame and waited).
TEST_F(RtspLaunch, FramesReachAnAsyncSinkOverUdpAndTcp) {
  for (bool tcp : {false, true}) {
    SCOPED_TRACE(tcp ? "rtspt:// (TCP)" : "rtsp:// (UDP)");
    Launched launched(source(uri(0, tcp), "name=cam") + " ! fakesink name=sink");
    ASSERT_TRUE(launched.ok());
    PadCounter &sink = launched.count("sink");
    ASSERT_TRUE(launched.play());
    EXPECT_TRUE(BusLog::wait_until([&] { return sink.buffers() >= 15; }, 10000))
        << sink.buffers() << " frames; state " << stats_string(launched.element("cam"), "state")
        << "; errors: " << launched.errors();
    EXPECT_EQ(launched.messages("cudaprepsrc-fault"), 0u);
  }
}

// Four mounts of one server, four cameras of one pipeline, the transport
// left to rtspsrc (UDP) or TCP only by protocols=tcp on an rtsp:// URI.
TEST_F(RtspLaunch, FourMountsOfOneServer) {
  for (const char *protocols : {"udp+udp-mcast+tcp", "tcp"}) {
    SCOPED_TRACE(protocols);
    std::string description;
    for (int i = 0; i < 4; ++i)
      description += source(uri(i), std::string("protocols=") + protocols) +
                     " ! fakesink name=sink" + std::to_string(i) + " ";
    Launched launched(description);
    ASSERT_TRUE(launched.ok());
    std::vector<PadCounter *> sinks;
    for (int i = 0; i < 4; ++i)
      sinks.push_back(&launched.count(("sink" + std::to_string(i)).c_str()));
    ASSERT_TRUE(launched.play());
    for (int i = 0; i < 4; ++i)
      EXPECT_TRUE(BusLog::wait_until([&] { return sinks[i]->buffers() >= 10; }, 10000))
          << "camera " << i << ": " << sinks[i]->buffers() << " frames";
    EXPECT_EQ(launched.messages("cudaprepsrc-fault"), 0u) << launched.errors();
  }
}

// prefer-gpu-decoder both ways: true takes nvh264dec where nvcodec has it
// (a GPU), false a CPU decoder although nvh264dec outranks it.
TEST_F(RtspLaunch, PreferGpuDecoderChoosesBothWays) {
  GstElementFactory *nvh264dec = gst_element_factory_find("nvh264dec");
  const std::string gpu_decoder = nvh264dec ? "nvh264dec" : "openh264dec";
  if (nvh264dec) gst_object_unref(nvh264dec);
  for (bool prefer : {true, false}) {
    SCOPED_TRACE(prefer ? "prefer-gpu-decoder=true" : "prefer-gpu-decoder=false");
    Launched launched("cudaprepsrc name=cam uri=" + uri(0) + " prefer-gpu-decoder=" +
                      (prefer ? "true" : "false") + " ! fakesink name=sink");
    ASSERT_TRUE(launched.ok());
    PadCounter &sink = launched.count("sink");
    ASSERT_TRUE(launched.play());
    ASSERT_TRUE(BusLog::wait_until([&] { return sink.buffers() >= 3; }, 10000))
        << launched.errors();
    EXPECT_EQ(stats_string(launched.element("cam"), "decoder"),
              prefer ? gpu_decoder : "openh264dec");
  }
}

// gst-launch-1.0 -e sends EOS to the pipeline on SIGINT: a live source must
// end (not take its decoder's EOS for a fault and reconnect), and EOS reach
// the sink.
TEST_F(RtspLaunch, ApplicationEosEndsALivePipeline) {
  Launched launched(source(uri(0), "name=cam") + " ! fakesink name=sink");
  ASSERT_TRUE(launched.ok());
  PadCounter &sink = launched.count("sink");
  ASSERT_TRUE(launched.play());
  ASSERT_TRUE(BusLog::wait_until([&] { return sink.buffers() >= 5; }, 10000));
  ASSERT_TRUE(gst_element_send_event(launched.pipeline(), gst_event_new_eos()));
  EXPECT_TRUE(launched.log().wait_for(GST_MESSAGE_EOS, nullptr, 1, 2000))
      << "no EOS on the bus 2 s after the application's EOS";
  EXPECT_TRUE(sink.eos());
  EXPECT_EQ(stats_string(launched.element("cam"), "state"), "ended");
  EXPECT_EQ(launched.messages("cudaprepsrc-fault"), 0u);
  EXPECT_LT(launched.stop_ms(), kNullBudgetMs);
}

// latency, drop-on-latency and protocols are rtspsrc's, set through
// uridecodebin's source-setup; the defaults suit analytics.
TEST_F(RtspLaunch, RtspSettingsReachRtspsrc) {
  struct Case {
    std::string extra;
    guint latency;
    gboolean drop;
    guint protocols;
  };
  for (const Case &c : {Case{"", 200, TRUE, 0x7},
                        Case{"latency=350 drop-on-latency=false protocols=tcp", 350, FALSE, 0x4}}) {
    SCOPED_TRACE(c.extra);
    Launched launched(source(uri(1), "name=cam " + c.extra) + " ! fakesink name=sink");
    ASSERT_TRUE(launched.ok());
    PadCounter &sink = launched.count("sink");
    ASSERT_TRUE(launched.play());
    ASSERT_TRUE(BusLog::wait_until([&] { return sink.buffers() >= 3; }, 10000));
    GstElement *rtspsrc = find_by_type(GST_BIN(launched.element("cam")), "GstRTSPSrc");
    ASSERT_NE(rtspsrc, nullptr);
    guint latency = 0, protocols = 0;
    gboolean drop = !c.drop;
    g_object_get(rtspsrc, "latency", &latency, "drop-on-latency", &drop, "protocols", &protocols,
                 nullptr);
    EXPECT_EQ(latency, c.latency);
    EXPECT_EQ(drop, c.drop);
    EXPECT_EQ(protocols, c.protocols);
    gst_object_unref(rtspsrc);
  }
}

// A decoder whose first frame takes `delay_ms` (nvh264dec creating its CUDA
// context took over 1.5 s on a GPU machine): its sink pad's first buffer
// waits, in each decoder cudaprepsrc builds.
void slow_first_frame(GstElement *pipeline, int delay_ms) {
  g_signal_connect(pipeline, "deep-element-added",
                   G_CALLBACK(+[](GstBin *, GstBin *, GstElement *element, gpointer delay) {
                     GstElementFactory *factory = gst_element_get_factory(element);
                     const gchar *klass = factory ? gst_element_factory_get_metadata(
                                                        factory, GST_ELEMENT_METADATA_KLASS)
                                                  : nullptr;
                     if (!klass || !strstr(klass, "Decoder") || !strstr(klass, "Video")) return;
                     GstPad *pad = gst_element_get_static_pad(element, "sink");
                     gst_pad_add_probe(
                         pad, GST_PAD_PROBE_TYPE_BUFFER,
                         +[](GstPad *, GstPadProbeInfo *, gpointer delay) {
                           g_usleep(GPOINTER_TO_INT(delay) * 1000);
                           return GST_PAD_PROBE_REMOVE;
                         },
                         delay, nullptr);
                     gst_object_unref(pad);
                   }),
                   GINT_TO_POINTER(delay_ms));
}

// stall-timeout counts from a connection's first frame: a decoder slower
// to start than it is no stall.
TEST_F(RtspLaunch, StallTimeoutCountsFromTheFirstFrame) {
  Launched launched(source(uri(2), "name=cam stall-timeout=300") + " ! fakesink name=sink");
  ASSERT_TRUE(launched.ok());
  slow_first_frame(launched.pipeline(), 1000);
  PadCounter &sink = launched.count("sink");
  ASSERT_TRUE(launched.play());
  EXPECT_TRUE(BusLog::wait_until([&] { return sink.buffers() >= 10; }, 10000))
      << sink.buffers()
      << " frames; last error: " << stats_string(launched.element("cam"), "last-error");
  EXPECT_EQ(launched.messages("cudaprepsrc-fault"), 0u)
      << stats_string(launched.element("cam"), "last-error");
}

// connect-timeout bounds a connection that never gives a frame (a server
// that accepts and never answers).
TEST_F(RtspLaunch, ConnectTimeoutBoundsASilentServer) {
  SilentServer silent;
  Launched launched(source(silent.uri(), "name=cam connect-timeout=500") + " ! fakesink");
  ASSERT_TRUE(launched.ok());
  ASSERT_TRUE(launched.play());
  EXPECT_TRUE(
      BusLog::wait_until([&] { return launched.messages("cudaprepsrc-fault") >= 2; }, 5000));
  EXPECT_NE(stats_string(launched.element("cam"), "last-error").find("connect-timeout"),
            std::string::npos);
  EXPECT_LT(launched.stop_ms(), kNullBudgetMs);
}

// A chain that cannot take the camera's frames (its caps filter asks for a
// format the decoder does not make) is no camera fault: after a few
// restarts it is the pipeline's ERROR, not a reconnect for ever.
TEST_F(RtspLaunch, AChainThatCannotWorkIsAnError) {
  Launched launched(
      source(uri(3), "name=cam chain=\"capsfilter caps=video/x-raw,format=GRAY16_LE\"") +
      " ! fakesink");
  ASSERT_TRUE(launched.ok());
  ASSERT_TRUE(launched.play());
  ASSERT_TRUE(launched.log().wait_for(GST_MESSAGE_ERROR, nullptr, 1, 10000))
      << launched.messages("cudaprepsrc-fault") << " faults, no ERROR";
  // The first ERROR is the source's own (docs/faults.md).
  const std::vector<BusEntry> entries = launched.log().entries();
  const auto first = std::find_if(entries.begin(), entries.end(), [](const BusEntry &entry) {
    return entry.type == GST_MESSAGE_ERROR;
  });
  ASSERT_NE(first, entries.end());
  EXPECT_EQ(first->source, "cam") << first->text;
  EXPECT_NE(first->text.find("The chain of source rtsp://"), std::string::npos)
      << launched.errors();
  EXPECT_NE(first->text.find("failed 4 times in a row, each time after a reconnect"),
            std::string::npos)
      << first->text;
  EXPECT_EQ(stats_string(launched.element("cam"), "state"), "failed");
  EXPECT_EQ(launched.messages("cudaprepsrc-fault"), 4u);  // 3 restarts, then the error
  EXPECT_LT(launched.stop_ms(), kNullBudgetMs);
}

// NULL returns within a second whatever the source is doing.
TEST_F(RtspLaunch, NullWithinASecondFromEverySourceState) {
  SilentServer silent;
  struct Case {
    const char *state;
    std::string description;
    std::function<bool(Launched &)> reached;
  };
  auto state_is = [](const char *state) {
    return [state](Launched &launched) {
      return stats_string(launched.element("cam"), "state") == state;
    };
  };
  const std::string sink = " ! fakesink name=sink";
  const std::vector<Case> cases = {
      {"connecting (a server that never answers)", source(silent.uri(), "name=cam") + sink,
       state_is("connecting")},
      {"streaming", source(uri(0), "name=cam") + sink,
       [](Launched &launched) { return stats_uint64(launched.element("cam"), "frames-out") > 3; }},
      {"reconnecting (nothing listens)",
       source("rtsp://127.0.0.1:1/cam", "name=cam reconnect-interval=60000") + sink,
       state_is("reconnecting")},
      {"failed (reconnect-attempts=0)",
       source("rtsp://127.0.0.1:1/cam", "name=cam reconnect-attempts=0") + sink,
       state_is("failed")},
      {"streaming into a sink that waits (sync, 1 h late)",
       source(uri(1), "name=cam") + " ! fakesink name=sink ts-offset=3600000000000",
       [](Launched &launched) { return stats_uint64(launched.element("cam"), "frames-in") > 3; }},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.state);
    Launched launched(c.description);
    ASSERT_TRUE(launched.ok());
    ASSERT_TRUE(launched.play());
    ASSERT_TRUE(BusLog::wait_until([&] { return c.reached(launched); }, 10000))
        << "state " << stats_string(launched.element("cam"), "state");
    EXPECT_LT(launched.stop_ms(), kNullBudgetMs);
  }
}

}  // namespace
