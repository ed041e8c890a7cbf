// cudatensorsink at its edges, without a tensor: its properties (consumer,
// wait-on-eos, max-buffers, location, sync) and the caps it accepts, the
// location pattern, pull/try-pull through flushes, pauses, stops and EOS,
// the eos signal and callbacks, the allocation answer, a buffer without a
// tensor.
//
// None of it needs a GPU (the sink is fed tensor caps by appsrc, then EOS,
// flushes or a system-memory buffer); what needs a tensor (device memory
// from cudatensorize) is test_tensorsink_gpu.cpp's.
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudatensorsink.h>
#include "common/gst_frames.h"
#include "common/tensorsink_rig.h"

namespace {

using cudaprep::test::posted_error;
using cudaprep::test::tensorsink_rig::Clock;
using cudaprep::test::tensorsink_rig::count_eos_signal;
using cudaprep::test::tensorsink_rig::EosCounts;
using cudaprep::test::tensorsink_rig::Pipeline;
using cudaprep::test::tensorsink_rig::seconds_since;

const char kTensorCaps[] =
    "other/x-cudaprep-tensor(memory:CUDAPitched),dtype=float32,layout=NCHW,batch=1,channels=3,"
    "channel-order=RGB,width=8,height=4";

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
}  // namespace
