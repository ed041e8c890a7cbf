// What the cudatensorsink suites (lib/test_tensorsink.cpp and
// test_tensorsink_gpu.cpp) share: a pipeline parsed from a description with
// its appsrc and sink, the eos signals counted, and the time since a start.
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <chrono>
#include <string>

#include <gst/cudaprep/gstcudatensorsink.h>

namespace cudaprep::test::tensorsink_rig {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start);

// A pipeline parsed from a description naming its sink "sink" (and its
// appsrc, if any, "src"); set to NULL and released at the end.
struct Pipeline {
  GstElement *pipeline = nullptr;
  GstElement *src = nullptr;
  GstElement *sink = nullptr;
  GstBus *bus = nullptr;

  explicit Pipeline(const std::string &description);
  ~Pipeline();
  void stop();
  GstCudaPrepTensorSink *tensor_sink() const;
  bool set_state(GstState state);
  // The first EOS or ERROR within `timeout`: "eos", "error: <message>" or
  // "" if none.
  std::string wait_end(GstClockTime timeout);
  void push(GstBuffer *buffer, int index);
  void end();
  void send_flush();
};

struct EosCounts {
  std::atomic<int> signal{0};
  std::atomic<int> callback{0};
  std::atomic<int> notified{0};
};

void count_eos_signal(GstCudaPrepTensorSink *, gpointer data);

}  // namespace cudaprep::test::tensorsink_rig
