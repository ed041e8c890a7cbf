#include "gstcudapreptrace.h"

#include <gst/cudaprep/gstcudaprepcuda-private.h>

#include <algorithm>
#include <mutex>
#include <utility>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_trace_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_trace_debug

namespace {

// The GPU is this far behind the host: later frames go untimed rather than
// make the element keep more events.
constexpr size_t kMaxPending = 64;

std::mutex tracers_lock;
std::vector<std::pair<gpointer, GstCudaPrepGpuTimeReport>> tracers;  // tracers_lock
gint tracer_count = 0;                                               // atomic

void init_debug() {
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_trace_debug, "cudapreptrace", 0,
                            "cudaprep: GPU time of elements for the cudapreptime tracer");
    g_once_init_leave(&done, 1);
  }
}

}  // namespace

void gst_cuda_prep_trace_add_tracer(gpointer tracer, GstCudaPrepGpuTimeReport report_fn) {
  init_debug();
  std::lock_guard<std::mutex> guard(tracers_lock);
  tracers.emplace_back(tracer, report_fn);
  g_atomic_int_set(&tracer_count, static_cast<gint>(tracers.size()));
}

void gst_cuda_prep_trace_remove_tracer(gpointer tracer) {
  std::lock_guard<std::mutex> guard(tracers_lock);
  tracers.erase(std::remove_if(tracers.begin(), tracers.end(),
                               [tracer](const auto &entry) { return entry.first == tracer; }),
                tracers.end());
  g_atomic_int_set(&tracer_count, static_cast<gint>(tracers.size()));
}

gboolean gst_cuda_prep_trace_gpu_enabled(void) {
  return g_atomic_int_get(&tracer_count) > 0;
}

void gst_cuda_prep_trace_report_gpu_time(GstElement *element, guint64 gpu_ns, guint frames) {
  std::lock_guard<std::mutex> guard(tracers_lock);
  for (const auto &[tracer, report_fn] : tracers) report_fn(tracer, element, gpu_ns, frames);
}

GstCudaPrepGpuTimer::~GstCudaPrepGpuTimer() {
  // finish() destroyed the events; a timer that never ran has none.
  g_warn_if_fail(pending_.empty() && free_.empty() && current_.start == nullptr);
}

gboolean GstCudaPrepGpuTimer::make_pair(GstElement *element, Pair *pair) {
  if (!free_.empty()) {
    *pair = free_.back();
    free_.pop_back();
    return TRUE;
  }
  cudaEvent_t start = nullptr, stop = nullptr;
  if (gst_cuda_prep_consume_error(cudaEventCreate(&start)) != cudaSuccess) {
    GST_WARNING_OBJECT(element, "no CUDA event for the GPU time: this frame goes untimed");
    return FALSE;
  }
  if (gst_cuda_prep_consume_error(cudaEventCreate(&stop)) != cudaSuccess) {
    gst_cuda_prep_consume_error(cudaEventDestroy(start));  // (the failure is reported below)
    GST_WARNING_OBJECT(element, "no CUDA event for the GPU time: this frame goes untimed");
    return FALSE;
  }
  *pair = Pair{start, stop, 0};
  return TRUE;
}

void GstCudaPrepGpuTimer::report_completed(GstElement *element) {
  while (!pending_.empty()) {
    Pair &pair = pending_.front();
    const cudaError_t done = cudaEventQuery(pair.stop);
    if (done == cudaErrorNotReady) break;
    float ms = 0.0f;
    if (done == cudaSuccess && gst_cuda_prep_consume_error(
                                   cudaEventElapsedTime(&ms, pair.start, pair.stop)) == cudaSuccess)
      gst_cuda_prep_trace_report_gpu_time(
          element, static_cast<guint64>(static_cast<double>(ms) * 1e6), pair.frames);
    else
      GST_WARNING_OBJECT(element, "no GPU time for %u frames: %s", pair.frames,
                         cudaGetErrorString(gst_cuda_prep_consume_error(done)));
    free_.push_back(pair);
    pending_.pop_front();
  }
}

void GstCudaPrepGpuTimer::begin(GstElement *element, cudaStream_t stream) {
  if (!pending_.empty()) report_completed(element);
  timing_ = FALSE;
  if (!gst_cuda_prep_trace_gpu_enabled() || pending_.size() >= kMaxPending) return;
  if (current_.start == nullptr && !make_pair(element, &current_)) return;
  timing_ = gst_cuda_prep_consume_error(cudaEventRecord(current_.start, stream)) == cudaSuccess;
  if (!timing_) GST_WARNING_OBJECT(element, "recording the GPU time's start event failed");
}

void GstCudaPrepGpuTimer::end(GstElement *element, cudaStream_t stream, guint frames) {
  if (!timing_) return;
  timing_ = FALSE;
  if (gst_cuda_prep_consume_error(cudaEventRecord(current_.stop, stream)) != cudaSuccess) {
    GST_WARNING_OBJECT(element, "recording the GPU time's stop event failed");
    return;
  }
  current_.frames = frames;
  pending_.push_back(current_);
  current_ = Pair{};
}

void GstCudaPrepGpuTimer::finish(GstElement *element, gint device_id) {
  if (pending_.empty() && free_.empty() && current_.start == nullptr) return;
  GstCudaPrepScopedDevice device(device_id);
  report_completed(element);
  for (const Pair &pair : pending_) free_.push_back(pair);  // (their work failed)
  pending_.clear();
  if (current_.start != nullptr) free_.push_back(current_);
  current_ = Pair{};
  timing_ = FALSE;
  for (const Pair &pair : free_)
    for (cudaEvent_t event : {pair.start, pair.stop})
      if (gst_cuda_prep_consume_error(cudaEventDestroy(event)) != cudaSuccess)
        GST_WARNING_OBJECT(element, "destroying a GPU time event failed");
  free_.clear();
}
