// cudabatch's statistics of one source (one sink pad): frames in, items
// batched, frames dropped with the reason, and the latency of its items
// from the frame's arrival at the pad (its chain function, host monotonic
// time) to their batch leaving cudabatch (handed to
// gst_aggregator_finish_buffer, its kernels enqueued), as percentiles over
// the last `window` items. Part of cudabatch (elements/cudabatch/).
#pragma once

#include <gst/gst.h>

#include <deque>
#include <mutex>
#include <utility>
#include <vector>

// The p-th percentile (0 < p <= 100) of `samples` by nearest rank: the
// smallest sample with at least p % of the samples at or below it. 0 for
// no samples.
guint64 gst_cuda_prep_batch_percentile(std::vector<guint64> samples, double p);

class GstCudaPrepBatchSourceStats {
 public:
  // A frame enters the pad's chain function at `now` (upstream thread).
  void arrived(const GstBuffer *buffer, GstClockTime now);
  // The chain function did not queue it (flushing, EOS): not counted.
  void refused(const GstBuffer *buffer);
  // The aggregate thread took `buffer` from the pad's queue: when it
  // arrived, or NONE for a buffer that did not pass the chain function (a
  // GAP event's) or that a flush already counted.
  GstClockTime taken(const GstBuffer *buffer);
  // The frames still queued at the pad were discarded: by a flush
  // (`dropped`: counted as dropped-flush), or by a stop.
  void clear_queue(gboolean dropped);
  // A taken frame source-policy=latest dropped for a newer one.
  void dropped_latest();
  // Items of this source's frames that a flush took out of the waiting batch.
  void dropped_flush(guint items);
  // An item left in a batch at `left`, its frame having arrived at `arrival`
  // (NONE: unknown, not a latency sample); `window` the items the
  // percentiles cover.
  void batched(GstClockTime arrival, GstClockTime left, guint window);
  // cudabatch-source-stats: pad, source-index, frames-in, items-batched,
  // dropped-latest, dropped-flush, latency-samples and, with samples,
  // latency-p50-ns, latency-p99-ns, latency-max-ns.
  GstStructure *to_structure(const gchar *pad_name, gint source_index) const;

 private:
  mutable std::mutex lock_;
  // Frames that passed the chain function and are not taken yet, in order.
  std::deque<std::pair<const GstBuffer *, GstClockTime>> queued_;
  guint64 frames_in_ = 0, items_batched_ = 0, dropped_latest_ = 0, dropped_flush_ = 0;
  std::vector<guint64> latencies_;  // the last `window` items' (a ring)
  size_t next_latency_ = 0;         // where the ring's next sample goes
  guint window_ = 0;                // the ring's size
};
