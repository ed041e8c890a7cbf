// GPU time of cudaprep's elements for the cudapreptime tracer
// (tracers/gstcudapreptracer.h). While a tracer is alive, an element's
// GstCudaPrepGpuTimer records a pair of CUDA events (with timing) on the
// element's stream around the kernels it enqueues for a frame (the base
// transform around process(), cudabatch around a batch's launches); the
// elapsed time of pairs whose work has completed (cudaEventQuery, never a
// wait) goes to the tracer at the element's next frame and when it stops.
// Without a tracer the timer does nothing but read one flag.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include <deque>
#include <vector>

// The tracer's side: `report` gets `gpu_ns` of GPU time spent on `frames`
// frames of `element` (from the element's streaming thread, or the thread
// that stops it).
typedef void (*GstCudaPrepGpuTimeReport)(gpointer tracer, GstElement *element, guint64 gpu_ns,
                                         guint frames);
void gst_cuda_prep_trace_add_tracer(gpointer tracer, GstCudaPrepGpuTimeReport report);
void gst_cuda_prep_trace_remove_tracer(gpointer tracer);

// Whether a tracer takes GPU times (elements time their kernels only then).
gboolean gst_cuda_prep_trace_gpu_enabled(void);

// Hands `gpu_ns` for `frames` frames of `element` to every tracer (what the
// timer does with each completed pair).
void gst_cuda_prep_trace_report_gpu_time(GstElement *element, guint64 gpu_ns, guint frames);

class GstCudaPrepGpuTimer {
 public:
  GstCudaPrepGpuTimer() = default;
  GstCudaPrepGpuTimer(const GstCudaPrepGpuTimer &) = delete;
  GstCudaPrepGpuTimer &operator=(const GstCudaPrepGpuTimer &) = delete;
  ~GstCudaPrepGpuTimer();

  // Around the element's work on `stream` for `frames` frames, with the
  // element's device current: begin() first reports the pairs completed
  // since, then records the start event; end() records the stop event.
  void begin(GstElement *element, cudaStream_t stream);
  void end(GstElement *element, cudaStream_t stream, guint frames);
  // After the stream is synchronised (the element stops): reports what
  // completed and destroys the events.
  void finish(GstElement *element, gint device_id);

 private:
  struct Pair {
    cudaEvent_t start = nullptr, stop = nullptr;
    guint frames = 0;
  };
  gboolean make_pair(GstElement *element, Pair *pair);
  void report_completed(GstElement *element);

  std::deque<Pair> pending_;  // recorded, in order, not yet complete
  std::vector<Pair> free_;    // events to reuse
  Pair current_;              // begun, not yet ended
  gboolean timing_ = FALSE;   // current_ holds a start event recorded
};
