// When a batch leaves: live sources' frames join earliest first and a
// partial batch leaves when its oldest frame has waited latency-budget;
// other sources' frames join in turn; every source at EOS pushes what waits.
// Part of cudabatch (gstcudabatch-private.h).
#include "elements/cudabatch/gstcudabatch-private.h"

#include <vector>

#define GST_CAT_DEFAULT gst_cuda_prep_batch_debug

namespace cudaprep::batch {

// The running time of the pad's next queued frame, NONE without one.
static GstClockTime head_running_time(GstCudaPrepBatchPad *pad) {
  GstBuffer *head = gst_aggregator_pad_peek_buffer(GST_AGGREGATOR_PAD(pad));
  if (head == nullptr) return GST_CLOCK_TIME_NONE;
  const GstClockTime running = gst_segment_to_running_time(&GST_AGGREGATOR_PAD(pad)->segment,
                                                           GST_FORMAT_TIME, GST_BUFFER_PTS(head));
  gst_buffer_unref(head);
  return running;
}

// How many items of the waiting batch `pad`'s frames became.
static guint items_of(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad) {
  guint count = 0;
  for (const GstCudaPrepBatchPrivate::Origin &origin : self->priv->origins)
    count += origin.pad == pad;
  return count;
}

GstCudaPrepBatchPad *earliest_pad(GstCudaPrepBatch *self,
                                  const std::vector<GstCudaPrepBatchPad *> &pads,
                                  const BatchSettings &settings) {
  GstCudaPrepBatchPad *earliest = nullptr;
  GstClockTime earliest_time = GST_CLOCK_TIME_NONE;
  for (GstCudaPrepBatchPad *pad : pads) {
    if (!gst_aggregator_pad_has_buffer(GST_AGGREGATOR_PAD(pad))) continue;
    if (settings.max_source_frames != 0 && items_of(self, pad) >= settings.max_source_frames)
      continue;
    const GstClockTime running = head_running_time(pad);
    if (earliest == nullptr ||
        (GST_CLOCK_TIME_IS_VALID(running) &&
         (!GST_CLOCK_TIME_IS_VALID(earliest_time) || running < earliest_time))) {
      earliest = pad;
      earliest_time = running;
    }
  }
  return earliest;
}

// Host time (gst_util_get_timestamp) until the waiting batch is due: its
// oldest frame's arrival at its pad plus latency-budget, whatever latency
// upstream reports (an RTSP jitter buffer's 2 s would otherwise hold every
// partial batch that long). FALSE where no item's arrival is known.
static gboolean time_to_due(GstCudaPrepBatch *self, GstClockTimeDiff *left) {
  GstClockTime oldest = GST_CLOCK_TIME_NONE;
  for (const GstCudaPrepBatchPrivate::Origin &origin : self->priv->origins)
    if (GST_CLOCK_TIME_IS_VALID(origin.arrival) &&
        (!GST_CLOCK_TIME_IS_VALID(oldest) || origin.arrival < oldest))
      oldest = origin.arrival;
  if (!GST_CLOCK_TIME_IS_VALID(oldest)) return FALSE;
  guint64 budget = 0;
  g_object_get(self, "latency", &budget, nullptr);
  *left = GST_CLOCK_DIFF(gst_util_get_timestamp(), oldest + budget);
  return TRUE;
}

// Whether the waiting batch's oldest frame has waited its latency budget;
// for items of unknown arrival, whether the clock passed their running time
// plus the aggregator's latency.
static gboolean oldest_is_due(GstCudaPrepBatch *self) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  if (priv->items.empty()) return TRUE;
  GstClockTimeDiff left = 0;
  if (time_to_due(self, &left)) return left <= 0;
  if (!GST_CLOCK_TIME_IS_VALID(priv->first_running_time)) return TRUE;
  GstClock *clock = gst_element_get_clock(GST_ELEMENT(self));
  if (clock == nullptr) return TRUE;
  const GstClockTime now = gst_clock_get_time(clock);
  gst_object_unref(clock);
  const GstClockTime latency = priv->total_latency;
  const GstClockTime base_time = gst_element_get_base_time(GST_ELEMENT(self));
  return !GST_CLOCK_TIME_IS_VALID(latency) || now >= base_time + priv->first_running_time + latency;
}

// Live sources: every frame waiting on a pad joins the batch, earliest
// first across the pads (no pad waits for the others), at most
// max-source-frames of one source per batch; a full batch leaves at once
// and a partial one when its oldest frame is due. get_next_time() wakes
// this whenever a frame arrives and when the oldest is due.
static GstFlowReturn aggregate_live(GstCudaPrepBatch *self,
                                    const std::vector<GstCudaPrepBatchPad *> &pads,
                                    const BatchSettings &settings, gboolean *all_eos) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  GstFlowReturn ret = GST_FLOW_OK;
  drop_flushed_items(self);
  while (ret == GST_FLOW_OK) {
    GstCudaPrepBatchPad *pad = earliest_pad(self, pads, settings);
    if (pad == nullptr) break;
    GstBuffer *buffer = take_frame(self, pad, settings.source_policy);
    if (buffer == nullptr) continue;  // a gap
    ret = add_frame(self, pad, buffer);
  }
  *all_eos = !pads.empty();
  for (GstCudaPrepBatchPad *pad : pads)
    *all_eos = *all_eos && gst_aggregator_pad_is_eos(GST_AGGREGATOR_PAD(pad));
  if (ret == GST_FLOW_OK && !priv->items.empty() && oldest_is_due(self)) {
    GST_DEBUG_OBJECT(self, "latency budget: pushing %zu items", priv->items.size());
    ret = push_batch(self);
  }
  return ret;
}

// Sources that are not live: one turn over the pads, each with a frame
// queued gives one (GstAggregator calls this when every pad has one); a
// full batch leaves. A timeout pushes what the batch holds.
static GstFlowReturn aggregate_in_turn(GstCudaPrepBatch *self,
                                       const std::vector<GstCudaPrepBatchPad *> &pads,
                                       const BatchSettings &settings, gboolean timeout,
                                       gboolean *all_eos) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  GstFlowReturn ret = GST_FLOW_OK;
  *all_eos = !pads.empty();
  const size_t count = pads.size();
  for (size_t turn = 0; turn < count && ret == GST_FLOW_OK; ++turn) {
    GstCudaPrepBatchPad *pad = pads[(priv->next_pad + turn) % count];
    GstBuffer *buffer = take_frame(self, pad, settings.source_policy);
    if (buffer == nullptr) {
      *all_eos = *all_eos && gst_aggregator_pad_is_eos(GST_AGGREGATOR_PAD(pad));
      continue;
    }
    *all_eos = FALSE;
    ret = add_frame(self, pad, buffer);
  }
  priv->next_pad = count > 0 ? (priv->next_pad + 1) % count : 0;
  if (ret == GST_FLOW_OK && timeout) {
    GST_DEBUG_OBJECT(self, "timeout: pushing %zu items", priv->items.size());
    ret = push_batch(self);
  }
  return ret;
}

GstFlowReturn gst_cuda_prep_batch_aggregate(GstAggregator *agg, gboolean timeout) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  GstCudaPrepBatchPrivate *priv = self->priv;
  const BatchSettings settings = get_settings(self);
  const std::vector<GstCudaPrepBatchPad *> &pads = streaming_sink_pads(self);
  priv->total_latency = gst_aggregator_get_latency(agg);
  const gboolean live = GST_CLOCK_TIME_IS_VALID(priv->total_latency);
  gboolean all_eos = FALSE;
  GstFlowReturn ret = priv->writes_clips ? aggregate_clips(self, pads, settings, live, &all_eos)
                      : live             ? aggregate_live(self, pads, settings, &all_eos)
                             : aggregate_in_turn(self, pads, settings, timeout, &all_eos);
  if (ret != GST_FLOW_OK) return ret;
  if (all_eos) {
    GST_DEBUG_OBJECT(self, "all sources at EOS: pushing %zu items", priv->items.size());
    ret = push_batch(self);
    if (ret != GST_FLOW_OK) return ret;
  }
  return all_eos ? GST_FLOW_EOS : GST_FLOW_OK;
}

// When GstAggregator is to call aggregate() without every pad holding a
// frame (live sources; it waits until this running time plus its latency,
// latency-budget included): at once (time 0, long past) while a frame waits
// on a pad that may still add one to the batch, so that frames join as they
// arrive and a full batch never waits for a slow source; else when the
// waiting batch's oldest frame is due (time_to_due(), turned into the
// running time the aggregator adds its latency to), or when the next clip
// or partial clip tensor is (clips_next_due()); NONE while nothing waits. Called with the
// aggregator's source lock held.
GstClockTime gst_cuda_prep_batch_get_next_time(GstAggregator *agg) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  GstCudaPrepBatchPrivate *priv = self->priv;
  drop_flushed_items(self);
  const BatchSettings settings = get_settings(self);
  const gboolean frame_to_add =
      priv->has_info && earliest_pad(self, streaming_sink_pads(self), settings) != nullptr;
  if (frame_to_add) return 0;
  GstClockTimeDiff left = 0;
  if (priv->writes_clips) {
    const GstClockTime due = clips_next_due(self);
    if (!GST_CLOCK_TIME_IS_VALID(due)) return GST_CLOCK_TIME_NONE;
    left = GST_CLOCK_DIFF(gst_util_get_timestamp(), due);
  } else if (priv->items.empty()) {
    return GST_CLOCK_TIME_NONE;
  }
  GstClock *clock = gst_element_get_clock(GST_ELEMENT(self));
  if (clock == nullptr || !GST_CLOCK_TIME_IS_VALID(priv->total_latency) ||
      (!priv->writes_clips && !time_to_due(self, &left))) {
    if (clock) gst_object_unref(clock);
    return priv->writes_clips ? 0 : priv->first_running_time;
  }
  const GstClockTime now = gst_clock_get_time(clock);
  gst_object_unref(clock);
  const GstClockTimeDiff due = GST_CLOCK_DIFF(gst_element_get_base_time(GST_ELEMENT(self)), now) +
                               left - static_cast<GstClockTimeDiff>(priv->total_latency);
  return due > 0 ? static_cast<GstClockTime>(due) : 0;
}

}  // namespace cudaprep::batch
