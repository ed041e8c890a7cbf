#include "elements/cudabatch/gstcudabatchstats.h"

#include <algorithm>
#include <cmath>

guint64 gst_cuda_prep_batch_percentile(std::vector<guint64> samples, double p) {
  if (samples.empty()) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * samples.size()));
  const size_t index = std::min(samples.size(), std::max<size_t>(rank, 1)) - 1;
  std::nth_element(samples.begin(), samples.begin() + index, samples.end());
  return samples[index];
}

void GstCudaPrepBatchSourceStats::arrived(const GstBuffer *buffer, GstClockTime now) {
  std::lock_guard<std::mutex> guard(lock_);
  queued_.emplace_back(buffer, now);
  ++frames_in_;
}

void GstCudaPrepBatchSourceStats::refused(const GstBuffer *buffer) {
  std::lock_guard<std::mutex> guard(lock_);
  // (Searched from the back: it was the last to arrive unless another frame
  // came meanwhile.)
  for (auto it = queued_.rbegin(); it != queued_.rend(); ++it) {
    if (it->first != buffer) continue;
    queued_.erase(std::next(it).base());
    --frames_in_;
    return;
  }
}

GstClockTime GstCudaPrepBatchSourceStats::taken(const GstBuffer *buffer) {
  std::lock_guard<std::mutex> guard(lock_);
  const auto it = std::find_if(queued_.begin(), queued_.end(),
                               [buffer](const auto &entry) { return entry.first == buffer; });
  if (it == queued_.end()) return GST_CLOCK_TIME_NONE;
  const GstClockTime arrival = it->second;
  // Frames are taken in their order: any before it left the queue unseen.
  queued_.erase(queued_.begin(), std::next(it));
  return arrival;
}

void GstCudaPrepBatchSourceStats::clear_queue(gboolean dropped) {
  std::lock_guard<std::mutex> guard(lock_);
  if (dropped) dropped_flush_ += queued_.size();
  queued_.clear();
}

void GstCudaPrepBatchSourceStats::dropped_latest() {
  std::lock_guard<std::mutex> guard(lock_);
  ++dropped_latest_;
}

void GstCudaPrepBatchSourceStats::dropped_flush(guint items) {
  std::lock_guard<std::mutex> guard(lock_);
  dropped_flush_ += items;
}

void GstCudaPrepBatchSourceStats::batched(GstClockTime arrival, GstClockTime left, guint window) {
  std::lock_guard<std::mutex> guard(lock_);
  ++items_batched_;
  if (!GST_CLOCK_TIME_IS_VALID(arrival) || window == 0) return;
  // A new window size starts the window afresh.
  if (window != window_) {
    latencies_.clear();
    next_latency_ = 0;
    window_ = window;
  }
  const guint64 latency = left > arrival ? left - arrival : 0;
  if (latencies_.size() < window)
    latencies_.push_back(latency);
  else
    latencies_[next_latency_] = latency;
  next_latency_ = (next_latency_ + 1) % window;
}

GstStructure *GstCudaPrepBatchSourceStats::to_structure(const gchar *pad_name,
                                                        gint source_index) const {
  std::lock_guard<std::mutex> guard(lock_);
  GstStructure *structure = gst_structure_new(
      "cudabatch-source-stats", "pad", G_TYPE_STRING, pad_name, "source-index", G_TYPE_INT,
      source_index, "frames-in", G_TYPE_UINT64, frames_in_, "items-batched", G_TYPE_UINT64,
      items_batched_, "dropped-latest", G_TYPE_UINT64, dropped_latest_, "dropped-flush",
      G_TYPE_UINT64, dropped_flush_, "latency-samples", G_TYPE_UINT, guint(latencies_.size()),
      nullptr);
  if (!latencies_.empty())
    gst_structure_set(structure, "latency-p50-ns", G_TYPE_UINT64,
                      gst_cuda_prep_batch_percentile(latencies_, 50), "latency-p99-ns",
                      G_TYPE_UINT64, gst_cuda_prep_batch_percentile(latencies_, 99),
                      "latency-max-ns", G_TYPE_UINT64,
                      *std::max_element(latencies_.begin(), latencies_.end()), nullptr);
  return structure;
}
