// cudatensorsink at its edges: the location pattern, who takes the tensors
// (consumer), pull/try-pull through flushes, pauses, stops and EOS, the eos
// signal and callbacks, wait-on-eos, drop/max-buffers, file errors.
//
// Everything that needs no tensor runs without a GPU (the sink is fed tensor
// caps by appsrc, then EOS, flushes or a system-memory buffer); what needs a
// tensor (device memory from cudatensorize) skips without one.
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepmeta-private.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "common/cuda_test.h"
#include "common/gst_frames.h"

namespace {

using cudaprep::test::caps_string;
using cudaprep::test::posted_error;
using cudaprep::test::random_frame;
using cudaprep::test::video_info;
using Clock = std::chrono::steady_clock;

const char kTensorCaps[] =
    "other/x-cudaprep-tensor(memory:CUDAPitched),dtype=float32,layout=NCHW,batch=1,channels=3,"
    "channel-order=RGB,width=8,height=4";

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A pipeline parsed from a description naming its sink "sink" (and its
// appsrc, if any, "src"); set to NULL and released at the end.
struct Pipeline {
  GstElement *pipeline = nullptr;
  GstElement *src = nullptr;
  GstElement *sink = nullptr;
  GstBus *bus = nullptr;

  explicit Pipeline(const std::string &description) {
    GError *error = nullptr;
    pipeline = gst_parse_launch(description.c_str(), &error);
    EXPECT_NE(pipeline, nullptr) << description << ": " << (error ? error->message : "");
    if (error != nullptr) g_error_free(error);
    if (pipeline == nullptr) return;
    src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    bus = gst_element_get_bus(pipeline);
  }
  ~Pipeline() {
    if (pipeline == nullptr) return;
    stop();
    if (src != nullptr) gst_object_unref(src);
    if (sink != nullptr) gst_object_unref(sink);
    gst_object_unref(bus);
    gst_object_unref(pipeline);
  }
  void stop() { gst_element_set_state(pipeline, GST_STATE_NULL); }
  GstCudaPrepTensorSink *tensor_sink() const { return GST_CUDA_PREP_TENSOR_SINK(sink); }
  bool set_state(GstState state) {
    return gst_element_set_state(pipeline, state) != GST_STATE_CHANGE_FAILURE;
  }
  // The first EOS or ERROR within `timeout`: "eos", "error: <message>" or
  // "" if none.
  std::string wait_end(GstClockTime timeout) {
    GstMessage *message = gst_bus_timed_pop_filtered(
        bus, timeout, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (message == nullptr) return "";
    std::string text = "eos";
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error(message, &error, &debug);
      text = std::string("error: ") + error->message + " (" + (debug ? debug : "") + ")";
      g_error_free(error);
      g_free(debug);
    }
    gst_message_unref(message);
    return text;
  }
  void push(GstBuffer *buffer, int index) {
    GST_BUFFER_PTS(buffer) = index * 10 * GST_MSECOND;
    GST_BUFFER_DURATION(buffer) = 10 * GST_MSECOND;
    EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), buffer), GST_FLOW_OK);
  }
  void end() { EXPECT_EQ(gst_app_src_end_of_stream(GST_APP_SRC(src)), GST_FLOW_OK); }
  void send_flush() {
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    EXPECT_TRUE(gst_pad_send_event(pad, gst_event_new_flush_start()));
    EXPECT_TRUE(gst_pad_send_event(pad, gst_event_new_flush_stop(TRUE)));
    gst_object_unref(pad);
  }
};

// A pipeline feeding the sink tensor caps only: no tensor ever comes, so it
// needs no GPU. async=false: it reaches PLAYING without a preroll buffer.
std::string caps_only_pipeline(const std::string &sink_properties = "") {
  return std::string("appsrc name=src format=time caps=\"") + kTensorCaps +
         "\" ! cudatensorsink name=sink async=false " + sink_properties;
}

// pull (timeout NONE) or try-pull in a thread of its own. If it is still
// waiting when the test ends, `pipeline` is stopped (which must release it)
// before the join, so that a broken sink fails the test instead of hanging.
class Puller {
 public:
  Puller(GstElement *pipeline, GstCudaPrepTensorSink *sink,
         GstClockTime timeout = GST_CLOCK_TIME_NONE)
      : pipeline_(pipeline), thread_([this, sink, timeout] {
          GstSample *sample = timeout == GST_CLOCK_TIME_NONE
                                  ? gst_cuda_prep_tensor_sink_pull_tensor(sink)
                                  : gst_cuda_prep_tensor_sink_try_pull_tensor(sink, timeout);
          sample_.store(sample);
          done_.store(true);
        }) {}
  ~Puller() {
    if (!done_.load()) gst_element_set_state(pipeline_, GST_STATE_NULL);
    thread_.join();
    if (sample_.load() != nullptr) gst_sample_unref(sample_.load());
  }
  // Whether the pull returned within `seconds`.
  bool wait(double seconds) {
    const auto start = Clock::now();
    while (!done_.load() && seconds_since(start) < seconds)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return done_.load();
  }
  GstSample *sample() const { return sample_.load(); }

 private:
  GstElement *pipeline_;
  std::atomic<bool> done_{false};
  std::atomic<GstSample *> sample_{nullptr};
  std::thread thread_;
};

// --- properties and the location pattern (no GPU) ---------------------------

TEST(TensorSink, EveryPropertyHasABlurbARangeAndADefault) {
  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  ASSERT_NE(sink, nullptr);
  guint count = 0;
  GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(sink), &count);
  for (guint i = 0; i < count; ++i) {
    const gchar *blurb = g_param_spec_get_blurb(specs[i]);
    EXPECT_TRUE(blurb != nullptr && strlen(blurb) > 10) << specs[i]->name;
  }
  g_free(specs);

  GParamSpec *consumer = g_object_class_find_property(G_OBJECT_GET_CLASS(sink), "consumer");
  ASSERT_NE(consumer, nullptr);
  GEnumClass *values = G_PARAM_SPEC_ENUM(consumer)->enum_class;
  EXPECT_STREQ(g_enum_get_value(values, G_PARAM_SPEC_ENUM(consumer)->default_value)->value_nick,
               "auto");
  EXPECT_NE(g_enum_get_value_by_nick(values, "application"), nullptr);
  EXPECT_EQ(values->n_values, 2u);
  GParamSpec *wait = g_object_class_find_property(G_OBJECT_GET_CLASS(sink), "wait-on-eos");
  ASSERT_NE(wait, nullptr);
  EXPECT_TRUE(G_PARAM_SPEC_BOOLEAN(wait)->default_value);
  GParamSpec *max_buffers = g_object_class_find_property(G_OBJECT_GET_CLASS(sink), "max-buffers");
  EXPECT_EQ(G_PARAM_SPEC_UINT(max_buffers)->minimum, 0u);
  EXPECT_EQ(G_PARAM_SPEC_UINT(max_buffers)->maximum, G_MAXUINT);
  EXPECT_EQ(G_PARAM_SPEC_UINT(max_buffers)->default_value, 1u);
  GParamSpec *location = g_object_class_find_property(G_OBJECT_GET_CLASS(sink), "location");
  EXPECT_EQ(G_PARAM_SPEC_STRING(location)->default_value, nullptr);

  for (const char *signal : {"new-tensor", "eos", "pull-tensor", "try-pull-tensor"})
    EXPECT_NE(g_signal_lookup(signal, G_OBJECT_TYPE(sink)), 0u) << signal;
  gst_object_unref(sink);
}

// Starts a lone sink with `location` (READY -> PAUSED calls start()): the
// error it posts, empty if none; `started` says whether the change worked.
std::string start_error(const char *location, bool *started) {
  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  g_object_set(sink, "location", location, nullptr);
  GstStateChangeReturn ret = GST_STATE_CHANGE_FAILURE;
  const std::string error =
      posted_error(sink, [&] { ret = gst_element_set_state(sink, GST_STATE_PAUSED); });
  *started = ret != GST_STATE_CHANGE_FAILURE;
  gst_element_set_state(sink, GST_STATE_NULL);
  gst_object_unref(sink);
  return error;
}

// A tensor is taken when it is ready, not on the clock: with sync=true a
// live batch waited for its running time plus the pipeline's latency (an
// RTSP jitter buffer's), and the cameras' queues overflowed (issue 32).
TEST(TensorSink, TakesTensorsWhenReadyNotOnTheClock) {
  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  ASSERT_NE(sink, nullptr);
  gboolean sync = TRUE;
  g_object_get(sink, "sync", &sync, nullptr);
  EXPECT_FALSE(sync);
  g_object_set(sink, "sync", TRUE, nullptr);
  g_object_get(sink, "sync", &sync, nullptr);
  EXPECT_TRUE(sync) << "sync=true paces tensors to the clock when asked";
  gst_object_unref(sink);
}

// Clip tensors' caps (issue 36): NCTHW and NTCHW with the frames field the
// tensor elements add; a layout the sink does not know is refused.
TEST(TensorSink, AcceptsClipCaps) {
  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  ASSERT_NE(sink, nullptr);
  GstPad *pad = gst_element_get_static_pad(sink, "sink");
  const std::string clip_caps = std::string(kTensorCaps) + ",frames=16";
  for (const char *layout : {"NCTHW", "NTCHW", "NCDHW"}) {
    std::string caps_text = clip_caps;
    caps_text.replace(caps_text.find("NCHW"), 4, layout);
    GstCaps *caps = gst_caps_from_string(caps_text.c_str());
    ASSERT_NE(caps, nullptr) << caps_text;
    EXPECT_EQ(gst_pad_query_accept_caps(pad, caps), std::string(layout) != "NCDHW") << caps_text;
    gst_caps_unref(caps);
  }
  gst_object_unref(pad);
  gst_object_unref(sink);
}

TEST(TensorSink, LocationTakesOneIntegerConversionOrNone) {
  gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  for (const char *name : {"t-%d.npy", "t-%05d.npy", "t-%u.npy", "t-%i.npy", "t-%3d.npy",
                           "t-%020u.npy", "t.npy", "100%%-%d.npy", "%%s-%d.npy"}) {
    const std::string location = std::string(dir) + "/" + name;
    bool started = false;
    const std::string error = start_error(location.c_str(), &started);
    EXPECT_TRUE(started) << location << ": " << error;
    EXPECT_EQ(error, "") << location;
  }
  g_rmdir(dir);
  g_free(dir);
}

TEST(TensorSink, LocationWithAnyOtherConversionIsRefusedAtStart) {
  // %s and %n read or write process memory when given to printf.
  for (const char *location :
       {"/tmp/%s%s%s.npy", "/tmp/t-%n.npy", "/tmp/%d-%d.npy", "/tmp/t-%ld.npy", "/tmp/t-%x.npy",
        "/tmp/t-%.3d.npy", "/tmp/t-%", "/tmp/t-%05", "/tmp/t-%021d.npy", "/tmp/t-%-5d.npy",
        "/tmp/t-%5$d.npy", "/tmp/t-%p.npy", "/tmp/t-%c.npy", "/tmp/%99999999999d.npy"}) {
    bool started = true;
    const std::string error = start_error(location, &started);
    EXPECT_FALSE(started) << location;
    EXPECT_NE(error.find(std::string("Invalid location \"") + location + "\""), std::string::npos)
        << location << ": " << error;
    // The message says what is accepted (or that there are two).
    EXPECT_TRUE(error.find("%d, %i or %u") != std::string::npos ||
                error.find("above 20") != std::string::npos)
        << error;
  }
}

TEST(TensorSink, LocationInAMissingDirectoryIsAnErrorAtStartNamingTheFile) {
  bool started = true;
  const std::string error = start_error("/nonexistent-cudaprep-dir/sub/t-%05d.npy", &started);
  EXPECT_FALSE(started);
  EXPECT_NE(error.find("\"/nonexistent-cudaprep-dir/sub/t-00000.npy\""), std::string::npos)
      << error;
  EXPECT_NE(error.find("\"/nonexistent-cudaprep-dir/sub\" does not exist"), std::string::npos)
      << error;
}

TEST(TensorSink, EmptyLocationMeansNoFiles) {
  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  g_object_set(sink, "location", "", nullptr);
  gchar *location = nullptr;
  g_object_get(sink, "location", &location, nullptr);
  EXPECT_EQ(location, nullptr);
  g_free(location);
  EXPECT_NE(gst_element_set_state(sink, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  gst_element_set_state(sink, GST_STATE_NULL);
  gst_object_unref(sink);
}

// Started, the sink keeps its valid pattern and warns about the new one.
TEST(TensorSink, InvalidLocationWhileStartedIsRefusedWithAWarning) {
  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  g_object_set(sink, "location", "/tmp/t-%05d.npy", nullptr);
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(sink, bus);
  ASSERT_NE(gst_element_set_state(sink, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  g_object_set(sink, "location", "/tmp/%s.npy", nullptr);
  gchar *location = nullptr;
  g_object_get(sink, "location", &location, nullptr);
  EXPECT_STREQ(location, "/tmp/t-%05d.npy");
  g_free(location);
  GstMessage *warning = gst_bus_pop_filtered(bus, GST_MESSAGE_WARNING);
  ASSERT_NE(warning, nullptr);
  GError *error = nullptr;
  gst_message_parse_warning(warning, &error, nullptr);
  EXPECT_NE(std::string(error->message).find("/tmp/%s.npy"), std::string::npos) << error->message;
  g_error_free(error);
  gst_message_unref(warning);
  gst_element_set_state(sink, GST_STATE_NULL);
  gst_element_set_bus(sink, nullptr);
  gst_object_unref(bus);
  gst_object_unref(sink);
}

// --- pulls, flushes, pauses, EOS (no GPU: no tensor ever comes) -------------

// The sink asks for what it can hold up front: max-buffers + 3 (queue, one
// waiting for room, one being written, one the application holds); nothing
// for an unlimited queue.
TEST(TensorSink, AllocationAnswerAsksForWhatTheSinkHolds) {
  for (guint max_buffers : {1u, 4u, 0u}) {
    GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
    ASSERT_NE(sink, nullptr);
    g_object_set(sink, "max-buffers", max_buffers, nullptr);
    // PAUSED activates the pad (serialized queries are refused while flushing).
    ASSERT_NE(gst_element_set_state(sink, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    GstCaps *caps = gst_pad_get_pad_template_caps(pad);
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    ASSERT_TRUE(gst_pad_query(pad, query)) << max_buffers;
    if (max_buffers == 0) {
      EXPECT_EQ(gst_query_get_n_allocation_pools(query), 0u);
    } else {
      ASSERT_EQ(gst_query_get_n_allocation_pools(query), 1u);
      guint min = 0, max = 0;
      gst_query_parse_nth_allocation_pool(query, 0, nullptr, nullptr, &min, &max);
      EXPECT_EQ(min, max_buffers + 3);
      EXPECT_EQ(max, 0u) << "the sink must not cap the pool: an application may hold more";
    }
    gst_query_unref(query);
    gst_caps_unref(caps);
    gst_object_unref(pad);
    ASSERT_EQ(gst_element_set_state(sink, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    gst_object_unref(sink);
  }
}

TEST(TensorSink, PullBeforeStartReturnsNullAtOnce) {
  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  const auto start = Clock::now();
  EXPECT_EQ(
      gst_cuda_prep_tensor_sink_try_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink), 5 * GST_SECOND),
      nullptr);
  EXPECT_EQ(gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink)), nullptr);
  EXPECT_LT(seconds_since(start), 1.0);
  gst_object_unref(sink);
}

TEST(TensorSink, TryPullTimesOut) {
  Pipeline run(caps_only_pipeline());
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  for (GstClockTime timeout : {GstClockTime(0), GstClockTime(150 * GST_MSECOND)}) {
    const auto start = Clock::now();
    EXPECT_EQ(gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), timeout), nullptr);
    const double elapsed = seconds_since(start);
    EXPECT_GE(elapsed, static_cast<double>(timeout) / GST_SECOND - 0.005);
    EXPECT_LT(elapsed, static_cast<double>(timeout) / GST_SECOND + 2.0);
  }
  // The action signal does the same.
  GstSample *sample = reinterpret_cast<GstSample *>(0x1);
  g_signal_emit_by_name(run.sink, "try-pull-tensor", GstClockTime(10 * GST_MSECOND), &sample);
  EXPECT_EQ(sample, nullptr);
}

// Several threads blocked in pull all get NULL when a flush starts (each
// condition is broadcast: no waiter is left asleep).
TEST(TensorSink, PullsBlockedWhenAFlushStartsReturnNull) {
  Pipeline run(caps_only_pipeline());
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  std::vector<std::unique_ptr<Puller>> pullers;
  for (int i = 0; i < 3; ++i)
    pullers.push_back(std::make_unique<Puller>(run.pipeline, run.tensor_sink()));
  pullers.push_back(std::make_unique<Puller>(run.pipeline, run.tensor_sink(), 60 * GST_SECOND));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (auto &puller : pullers) EXPECT_FALSE(puller->wait(0)) << "a pull returned before the flush";
  run.send_flush();
  for (auto &puller : pullers) {
    EXPECT_TRUE(puller->wait(5.0)) << "a pull blocked through the flush";
    EXPECT_EQ(puller->sample(), nullptr);
  }
  // After the flush the sink waits for tensors again.
  Puller after(run.pipeline, run.tensor_sink(), 100 * GST_MSECOND);
  EXPECT_TRUE(after.wait(5.0));
  EXPECT_EQ(after.sample(), nullptr);
}

TEST(TensorSink, PullBlockedWhenTheSinkStopsReturnsNull) {
  Pipeline run(caps_only_pipeline());
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  Puller puller(run.pipeline, run.tensor_sink());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(puller.wait(0));
  ASSERT_TRUE(run.set_state(GST_STATE_READY));
  EXPECT_TRUE(puller.wait(5.0));
  EXPECT_EQ(puller.sample(), nullptr);
}

// A pause is not a flush: a waiting pull goes on waiting.
TEST(TensorSink, PullKeepsWaitingThroughAPause) {
  Pipeline run(caps_only_pipeline());
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  const auto start = Clock::now();
  Puller puller(run.pipeline, run.tensor_sink(), 600 * GST_MSECOND);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(run.set_state(GST_STATE_PAUSED));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  ASSERT_TRUE(puller.wait(10.0));
  EXPECT_GE(seconds_since(start), 0.55) << "the pause ended the pull";
}

struct EosCounts {
  std::atomic<int> signal{0};
  std::atomic<int> callback{0};
  std::atomic<int> notified{0};
};

void count_eos_signal(GstCudaPrepTensorSink *, gpointer data) {
  static_cast<EosCounts *>(data)->signal++;
}

// At EOS every blocked pull returns NULL, the eos signal fires once, the EOS
// message comes (nothing queued, so nothing to wait for) and later pulls
// return NULL at once.
TEST(TensorSink, EosReleasesEveryPullAndEmitsEosOnce) {
  Pipeline run(caps_only_pipeline());
  EosCounts counts;
  g_signal_connect(run.sink, "eos", G_CALLBACK(count_eos_signal), &counts);
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  std::vector<std::unique_ptr<Puller>> pullers;
  for (int i = 0; i < 3; ++i)
    pullers.push_back(std::make_unique<Puller>(run.pipeline, run.tensor_sink()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(gst_cuda_prep_tensor_sink_is_eos(run.tensor_sink()));
  run.end();
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
  for (auto &puller : pullers) {
    EXPECT_TRUE(puller->wait(5.0));
    EXPECT_EQ(puller->sample(), nullptr);
  }
  EXPECT_EQ(counts.signal.load(), 1);
  EXPECT_TRUE(gst_cuda_prep_tensor_sink_is_eos(run.tensor_sink()));
  const auto start = Clock::now();
  EXPECT_EQ(gst_cuda_prep_tensor_sink_pull_tensor(run.tensor_sink()), nullptr);
  EXPECT_LT(seconds_since(start), 1.0);
}

// With callbacks the eos callback runs once instead of the signal; the
// user data's notify runs once, when the callbacks are replaced.
TEST(TensorSink, EosCallbackRunsOnceInsteadOfTheSignal) {
  Pipeline run(caps_only_pipeline());
  EosCounts counts;
  g_signal_connect(run.sink, "eos", G_CALLBACK(count_eos_signal), &counts);
  GstCudaPrepTensorSinkCallbacks callbacks = {};
  callbacks.eos = [](GstCudaPrepTensorSink *, gpointer data) {
    static_cast<EosCounts *>(data)->callback++;
  };
  gst_cuda_prep_tensor_sink_set_callbacks(
      run.tensor_sink(), &callbacks, &counts,
      [](gpointer data) { static_cast<EosCounts *>(data)->notified++; });
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  run.end();
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
  EXPECT_EQ(counts.callback.load(), 1);
  EXPECT_EQ(counts.signal.load(), 0);
  EXPECT_EQ(counts.notified.load(), 0);
  gst_cuda_prep_tensor_sink_set_callbacks(run.tensor_sink(), nullptr, nullptr, nullptr);
  EXPECT_EQ(counts.notified.load(), 1);
}

TEST(TensorSink, CallbacksAreReleasedWithTheSink) {
  int notified = 0;
  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  GstCudaPrepTensorSinkCallbacks callbacks = {};
  gst_cuda_prep_tensor_sink_set_callbacks(GST_CUDA_PREP_TENSOR_SINK(sink), &callbacks, &notified,
                                          [](gpointer data) { ++*static_cast<int *>(data); });
  EXPECT_EQ(notified, 0);
  gst_object_unref(sink);
  EXPECT_EQ(notified, 1);
}

// A flush after EOS clears it: a new stream can be pulled from again.
TEST(TensorSink, FlushClearsEos) {
  Pipeline run(caps_only_pipeline());
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  run.end();
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
  EXPECT_TRUE(gst_cuda_prep_tensor_sink_is_eos(run.tensor_sink()));
  run.send_flush();
  EXPECT_FALSE(gst_cuda_prep_tensor_sink_is_eos(run.tensor_sink()));
}

TEST(TensorSink, BufferWithoutATensorIsAnErrorNamingTheFix) {
  Pipeline run(caps_only_pipeline());
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  run.push(gst_buffer_new_allocate(nullptr, 8 * 4 * 3 * 4, nullptr), 0);
  const std::string end = run.wait_end(10 * GST_SECOND);
  EXPECT_NE(end.find("put cudatensorize before it"), std::string::npos) << end;
}

// --- with tensors (GPU) -----------------------------------------------------

// appsrc of small RGBA frames through the chain into the sink.
std::string tensor_pipeline(const std::string &sink_properties) {
  return "appsrc name=src format=time caps=\"" + caps_string("RGBA", 16, 8) +
         "\" ! cudaframeupload ! cudanormalize ! cudatensorize ! cudatensorsink name=sink " +
         sink_properties;
}

void push_frames(Pipeline &run, int first, int count) {
  const GstVideoInfo info = video_info(caps_string("RGBA", 16, 8));
  std::mt19937 rng(first);
  for (int i = first; i < first + count; ++i) run.push(random_frame(info, rng), i);
}

// The frame index a pulled tensor came from (its PTS / 10 ms), -1 for NULL.
int frame_of(GstSample *sample) {
  if (sample == nullptr) return -1;
  return static_cast<int>(GST_BUFFER_PTS(gst_sample_get_buffer(sample)) / (10 * GST_MSECOND));
}

// Pulls until NULL (each pull waits at most 10 s): the frames pulled.
std::vector<int> pull_all(Pipeline &run) {
  std::vector<int> frames;
  GstSample *sample = nullptr;
  while ((sample = gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 10 * GST_SECOND)) !=
         nullptr) {
    frames.push_back(frame_of(sample));
    gst_sample_unref(sample);
  }
  return frames;
}

std::vector<int> range(int first, int count) {
  std::vector<int> values;
  for (int i = first; i < first + count; ++i) values.push_back(i);
  return values;
}

bool file_exists(const std::string &path) {
  return g_file_test(path.c_str(), G_FILE_TEST_IS_REGULAR);
}

// gst-launch-1.0 with default properties and nobody pulling: the pipeline
// runs to EOS and every tensor is written.
// A clip tensor (NCTHW uint8, 3 clips of 2 frames of 1 x 2 x 3, two
// filled) in cudaprep memory leaves the sample API at rank 5, N cut to the
// filled clips: the download's bytes and DLPack's shape and strides.
TEST(TensorSinkGpu, AClipTensorLeavesAtRankFive) {
  CUDAPREP_REQUIRE_GPU();
  const cudaprep::ClipDesc clip = cudaprep::make_contiguous_clip_desc(
      cudaprep::ClipLayout::kNCTHW, 3, 2, 1, 2, 3, cudaprep::DataType::kUInt8);
  const size_t bytes = cudaprep::clip_span_bytes(clip);  // 36
  std::vector<guint8> pattern(bytes);
  for (size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<guint8>(i * 3 + 1);
  GstAllocator *allocator = gst_cuda_prep_allocator_get(0);
  GstMemory *memory = gst_allocator_alloc(allocator, bytes, nullptr);
  gst_object_unref(allocator);
  ASSERT_NE(memory, nullptr);
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, memory);
  guint8 *device = gst_cuda_prep_memory_get_device_pointer(gst_buffer_peek_memory(buffer, 0));
  CUDA_ASSERT_OK(cudaMemcpy(device, pattern.data(), bytes, cudaMemcpyHostToDevice));
  GstCudaPrepTensorMeta *meta = gst_buffer_add_cuda_prep_tensor_meta(buffer, 1);
  ASSERT_TRUE(
      gst_cuda_prep_tensor_set_from_clip_desc(meta->tensors[0], 0, clip, device, 0, nullptr));
  meta->tensors[0]->batch_filled = 2;
  GstSample *sample = gst_sample_new(buffer, nullptr, nullptr, nullptr);
  gst_buffer_unref(buffer);

  const size_t filled_bytes = 2 * 1 * 2 * 2 * 3;
  ASSERT_EQ(filled_bytes, gst_cuda_prep_tensor_sink_sample_get_size(sample));
  std::vector<guint8> host(filled_bytes);
  CUDA_ASSERT_OK(gst_cuda_prep_tensor_sink_sample_download(sample, host.data(), host.size()));
  EXPECT_TRUE(std::equal(host.begin(), host.end(), pattern.begin()));
  DLManagedTensor *managed = gst_cuda_prep_tensor_sink_sample_to_dlpack(sample, nullptr);
  ASSERT_NE(managed, nullptr);
  ASSERT_EQ(managed->dl_tensor.ndim, 5);
  const int64_t shape[5] = {2, 1, 2, 2, 3}, strides[5] = {12, 12, 6, 3, 1};
  for (int axis = 0; axis < 5; ++axis) {
    EXPECT_EQ(managed->dl_tensor.shape[axis], shape[axis]) << "axis " << axis;
    EXPECT_EQ(managed->dl_tensor.strides[axis], strides[axis]) << "axis " << axis;
  }
  managed->deleter(managed);
  gst_sample_unref(sample);
}

TEST(TensorSinkGpu, GstLaunchWithLocationAndNobodyPullingCompletes) {
  CUDAPREP_REQUIRE_GPU();
  gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  const std::string pattern = std::string(dir) + "/t-%03d.npy";
  {
    Pipeline run(
        "videotestsrc num-buffers=6 ! video/x-raw,format=RGBA,width=16,height=8 ! "
        "cudaframeupload ! cudanormalize ! cudatensorize ! cudatensorsink name=sink "
        "location=\"" +
        pattern + "\"");
    ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
    EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  }
  for (int i = 0; i < 7; ++i) {
    const std::string path = std::string(dir) + "/t-00" + std::to_string(i) + ".npy";
    EXPECT_EQ(file_exists(path), i < 6) << path;
    g_remove(path.c_str());
  }
  g_rmdir(dir);
  g_free(dir);

  Pipeline plain(
      "videotestsrc num-buffers=6 ! video/x-raw,format=RGBA,width=16,height=8 ! cudaframeupload "
      "! cudanormalize ! cudatensorize ! cudatensorsink name=sink");
  ASSERT_TRUE(plain.set_state(GST_STATE_PLAYING));
  EXPECT_EQ(plain.wait_end(30 * GST_SECOND), "eos");
}

// consumer=auto and nobody has pulled yet: a full queue drops its oldest
// tensor, EOS does not wait; an application arriving late gets the newest.
TEST(TensorSinkGpu, AutoWithoutAConsumerKeepsTheNewestAndDoesNotWaitAtEos) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline(""));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 4);
  run.end();
  EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  EXPECT_EQ(pull_all(run), std::vector<int>{3});
}

// An application that has pulled once (here: a try-pull that returns at
// once) takes every tensor with the defaults max-buffers=1 drop=false.
TEST(TensorSinkGpu, AnApplicationThatPullsLosesNothing) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline(""));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  EXPECT_EQ(gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 0), nullptr);
  push_frames(run, 0, 8);  // appsrc queues them; the sink waits for the pulls
  run.end();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(run.wait_end(0), "") << "EOS came before the tensors were pulled";
  EXPECT_EQ(pull_all(run), range(0, 8));
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
}

// consumer=application: the pipeline waits for the application from the
// first tensor on, though it has not pulled yet.
TEST(TensorSinkGpu, ConsumerApplicationWaitsForTheFirstPull) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("consumer=application"));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 5);
  run.end();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(run.wait_end(0), "");
  EXPECT_EQ(pull_all(run), range(0, 5));
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
}

// wait-on-eos=true: eos (signal and message) after the last tensor is
// pulled; false: at once, the tensors still there to pull.
TEST(TensorSinkGpu, WaitOnEosHoldsEosUntilTheQueueIsEmpty) {
  CUDAPREP_REQUIRE_GPU();
  for (const bool wait : {true, false}) {
    Pipeline run(tensor_pipeline(std::string("consumer=application max-buffers=0 wait-on-eos=") +
                                 (wait ? "true" : "false")));
    EosCounts counts;
    g_signal_connect(run.sink, "eos", G_CALLBACK(count_eos_signal), &counts);
    ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
    push_frames(run, 0, 2);
    run.end();
    if (wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      EXPECT_EQ(run.wait_end(0), "");
      EXPECT_EQ(counts.signal.load(), 0);
    } else {
      EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
    }
    EXPECT_EQ(pull_all(run), range(0, 2)) << "wait-on-eos=" << wait;
    if (wait) {
      EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
    }
    EXPECT_EQ(counts.signal.load(), 1);
  }
}

// drop=true with an application: the newest max-buffers tensors stay.
TEST(TensorSinkGpu, DropKeepsTheNewestMaxBuffers) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("consumer=application drop=true max-buffers=2 wait-on-eos=false"));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 5);
  run.end();
  EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  EXPECT_EQ(pull_all(run), range(3, 2));
}

struct TensorCounts {
  std::atomic<int> tensors{0};
  std::atomic<int> eos{0};
};

GstFlowReturn take_tensor(GstCudaPrepTensorSink *sink, gpointer data) {
  GstSample *sample = gst_cuda_prep_tensor_sink_try_pull_tensor(sink, 0);
  if (sample == nullptr) return GST_FLOW_ERROR;
  static_cast<TensorCounts *>(data)->tensors++;
  gst_sample_unref(sample);
  return GST_FLOW_OK;
}

// A new_tensor callback makes the application the consumer: it gets every
// tensor, then eos once.
TEST(TensorSinkGpu, NewTensorCallbackTakesEveryTensor) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline(""));
  TensorCounts counts;
  GstCudaPrepTensorSinkCallbacks callbacks = {};
  callbacks.new_tensor = take_tensor;
  callbacks.eos = [](GstCudaPrepTensorSink *, gpointer data) {
    static_cast<TensorCounts *>(data)->eos++;
  };
  gst_cuda_prep_tensor_sink_set_callbacks(run.tensor_sink(), &callbacks, &counts, nullptr);
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 6);
  run.end();
  EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  EXPECT_EQ(counts.tensors.load(), 6);
  EXPECT_EQ(counts.eos.load(), 1);
}

GstFlowReturn take_tensor_signal(GstCudaPrepTensorSink *sink, gpointer data) {
  return take_tensor(sink, data);
}

TEST(TensorSinkGpu, NewTensorSignalHandlerTakesEveryTensor) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("emit-signals=true"));
  TensorCounts counts;
  g_signal_connect(run.sink, "new-tensor", G_CALLBACK(take_tensor_signal), &counts);
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 6);
  run.end();
  EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  EXPECT_EQ(counts.tensors.load(), 6);
}

GstFlowReturn count_only(GstCudaPrepTensorSink *, gpointer data) {
  static_cast<TensorCounts *>(data)->tensors++;
  return GST_FLOW_OK;
}

// A flush discards the queued tensors: pulls after it find none.
TEST(TensorSinkGpu, FlushDiscardsQueuedTensors) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("consumer=application max-buffers=0 emit-signals=true"));
  TensorCounts counts;
  g_signal_connect(run.sink, "new-tensor", G_CALLBACK(count_only), &counts);
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 3);
  const auto start = Clock::now();
  while (counts.tensors.load() < 3 && seconds_since(start) < 30)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(counts.tensors.load(), 3) << run.wait_end(0);
  run.send_flush();
  EXPECT_EQ(gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 200 * GST_MSECOND),
            nullptr);
}

// Paused while it waits for room, the sink resumes on PLAYING and loses
// nothing (it used to return FLUSHING, which ended the stream).
TEST(TensorSinkGpu, PauseWhileWaitingForRoomLosesNothing) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("consumer=application"));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 4);
  run.end();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(run.set_state(GST_STATE_PAUSED));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  EXPECT_EQ(pull_all(run), range(0, 4));
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
}

// A file that cannot be written is an element error naming it; the tensor
// was queued for the application first.
TEST(TensorSinkGpu, UnwritableFileIsAnErrorNamingThePath) {
  CUDAPREP_REQUIRE_GPU();
  {
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    Pipeline run(tensor_pipeline("location=/dev/full"));
    ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
    EXPECT_EQ(gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 0), nullptr);
    push_frames(run, 0, 1);
    const std::string end = run.wait_end(30 * GST_SECOND);
    EXPECT_NE(end.find("Could not write tensor file \"/dev/full\""), std::string::npos) << end;
    // Files are written before queueing: a tensor without its file is not queued.
    GstSample *sample = gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), GST_SECOND);
    EXPECT_EQ(frame_of(sample), -1) << "a tensor whose file failed was queued";
    if (sample != nullptr) gst_sample_unref(sample);
  }
  {
    // The directory disappears after the sink started.
    gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
    ASSERT_NE(dir, nullptr);
    const std::string missing = std::string(dir) + "/gone";
    ASSERT_EQ(g_mkdir(missing.c_str(), 0700), 0);
    Pipeline run(tensor_pipeline("location=\"" + missing + "/t-%d.npy\""));
    ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
    ASSERT_EQ(g_rmdir(missing.c_str()), 0);
    push_frames(run, 0, 1);
    const std::string end = run.wait_end(30 * GST_SECOND);
    EXPECT_NE(end.find("\"" + missing + "/t-0.npy\""), std::string::npos) << end;
    g_rmdir(dir);
    g_free(dir);
  }
}

// An application reading file N as soon as it pulls tensor N finds it
// complete, equal to the tensor (the file is written before the tensor is
// queued).
TEST(TensorSinkGpu, EachFileIsCompleteWhenItsTensorIsPulled) {
  CUDAPREP_REQUIRE_GPU();
  gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  const std::string d(dir);
  Pipeline run(tensor_pipeline("consumer=application location=\"" + d + "/t-%d.npy\""));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 6);
  run.end();
  int pulled = 0;
  while (GstSample *sample =
             gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 10 * GST_SECOND)) {
    const gsize size = gst_cuda_prep_tensor_sink_sample_get_size(sample);
    std::vector<guint8> tensor(size);
    ASSERT_EQ(gst_cuda_prep_tensor_sink_sample_download(sample, tensor.data(), size), cudaSuccess);
    const std::string path = d + "/t-" + std::to_string(pulled) + ".npy";
    gchar *contents = nullptr;
    gsize length = 0;
    ASSERT_TRUE(g_file_get_contents(path.c_str(), &contents, &length, nullptr)) << path;
    // The .npy header, then exactly the tensor's bytes.
    ASSERT_GE(length, size) << path;
    EXPECT_EQ(std::memcmp(contents + (length - size), tensor.data(), size), 0) << path;
    g_free(contents);
    g_remove(path.c_str());
    gst_sample_unref(sample);
    ++pulled;
  }
  EXPECT_EQ(pulled, 6);
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
  g_rmdir(dir);
  g_free(dir);
}

// The index goes where the conversion is, with its width; without one the
// file holds the last tensor.
TEST(TensorSinkGpu, LocationPatternsNameTheFiles) {
  CUDAPREP_REQUIRE_GPU();
  gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  const std::string d(dir);
  struct Case {
    std::string pattern;
    std::vector<std::string> files;
  };
  const Case cases[] = {
      {"a-%u.npy", {"a-0.npy", "a-1.npy"}},
      {"b%%-%03i.npy", {"b%-000.npy", "b%-001.npy"}},
      {"c-%4d.npy", {"c-   0.npy", "c-   1.npy"}},
      {"d.npy", {"d.npy"}},
  };
  for (const Case &c : cases) {
    {
      Pipeline run(tensor_pipeline("location=\"" + d + "/" + c.pattern + "\""));
      ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
      push_frames(run, 0, 2);
      run.end();
      EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos") << c.pattern;
    }
    GDir *listing = g_dir_open(dir, 0, nullptr);
    std::vector<std::string> names;
    for (const gchar *name = g_dir_read_name(listing); name != nullptr;
         name = g_dir_read_name(listing))
      names.push_back(name);
    g_dir_close(listing);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, c.files) << c.pattern;
    for (const std::string &name : names) g_remove((d + "/" + name).c_str());
  }
  g_rmdir(dir);
  g_free(dir);
}

}  // namespace
