// The waiting batch's items: frames taken from the pads (source-policy),
// items appended and flushed ones dropped, the batch written through the
// batch writer and pushed, and the statistics as it leaves. Part of
// cudabatch (gstcudabatch-private.h).
#include "elements/cudabatch/gstcudabatch-private.h"

#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include "base/gstcudapreppixelmetas.h"

#define GST_CAT_DEFAULT gst_cuda_prep_batch_debug

namespace cudaprep::batch {

void drop_items(GstCudaPrepBatch *self) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  for (GstCudaPrepBatchItem &item : priv->items) gst_buffer_unref(item.buffer);
  for (GstCudaPrepBatchPrivate::Origin &origin : priv->origins) gst_object_unref(origin.pad);
  priv->items.clear();
  priv->origins.clear();
  priv->first_running_time = GST_CLOCK_TIME_NONE;
}

// Drops the items of frames a pad took before its latest flush: a flush on
// one source discards what that source sent before it, and nothing of the
// others'.
void drop_flushed_items(GstCudaPrepBatch *self) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  size_t kept = 0;
  for (size_t i = 0; i < priv->items.size(); ++i) {
    GstCudaPrepBatchPrivate::Origin &origin = priv->origins[i];
    if (origin.flush_epoch != g_atomic_int_get(&origin.pad->flush_epoch)) {
      GST_DEBUG_OBJECT(origin.pad, "flushed: its item at %" GST_TIME_FORMAT " leaves the batch",
                       GST_TIME_ARGS(priv->items[i].pts));
      // (A frame of unknown arrival was counted by the pad's flush.)
      if (GST_CLOCK_TIME_IS_VALID(origin.arrival)) origin.pad->stats->dropped_flush(1);
      gst_buffer_unref(priv->items[i].buffer);
      gst_object_unref(origin.pad);
      continue;
    }
    priv->items[kept] = priv->items[i];
    priv->origins[kept] = origin;
    ++kept;
  }
  priv->items.resize(kept);
  priv->origins.resize(kept);
  priv->first_running_time = kept > 0 ? priv->origins.front().running_time : GST_CLOCK_TIME_NONE;
}

// cudabatch-stats: batches, and sources, a cudabatch-source-stats per pad.
GstStructure *stats_structure(GstCudaPrepBatch *self) {
  GST_OBJECT_LOCK(self);
  const guint64 batches = self->priv->batches;
  GST_OBJECT_UNLOCK(self);
  GValue sources = G_VALUE_INIT;
  gst_value_array_init(&sources, 0);
  std::vector<GstCudaPrepBatchPad *> pads = sink_pads(self);
  for (GstCudaPrepBatchPad *pad : pads) {
    GValue source = G_VALUE_INIT;
    g_value_init(&source, GST_TYPE_STRUCTURE);
    g_value_take_boxed(&source, pad->stats->to_structure(GST_PAD_NAME(pad), pad->source_index));
    gst_value_array_append_and_take_value(&sources, &source);
  }
  unref_pads(&pads);
  GstStructure *stats =
      gst_structure_new("cudabatch-stats", "batches", G_TYPE_UINT64, batches, nullptr);
  gst_structure_take_value(stats, "sources", &sources);
  return stats;
}

// Each item's latency, from its frame's arrival at its pad to now, when its
// batch leaves.
static void record_batch(GstCudaPrepBatch *self, const BatchSettings &settings) {
  const GstClockTime now = gst_util_get_timestamp();
  for (const GstCudaPrepBatchPrivate::Origin &origin : self->priv->origins)
    origin.pad->stats->batched(origin.arrival, now, settings.latency_window);
  GST_OBJECT_LOCK(self);
  ++self->priv->batches;
  GST_OBJECT_UNLOCK(self);
}

// The stats as an element message every stats-interval ms (checked as
// batches leave).
static void post_stats_when_due(GstCudaPrepBatch *self, const BatchSettings &settings) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  if (settings.stats_interval == 0) return;
  const GstClockTime now = gst_util_get_timestamp();
  if (GST_CLOCK_TIME_IS_VALID(priv->next_stats) && now < priv->next_stats) return;
  const bool first = !GST_CLOCK_TIME_IS_VALID(priv->next_stats);
  priv->next_stats = now + settings.stats_interval * GST_MSECOND;
  if (first) return;  // the interval starts with the first batch
  gst_element_post_message(GST_ELEMENT(self),
                           gst_message_new_element(GST_OBJECT(self), stats_structure(self)));
}

// Writes the waiting items into a tensor buffer and pushes it (nothing
// when no item waits): one preprocess_batch() launch for every item whose
// frame carries pending work (every region item does), one tensorize launch
// for each frame that does not.
GstFlowReturn push_batch(GstCudaPrepBatch *self) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  drop_flushed_items(self);
  if (priv->items.empty()) return GST_FLOW_OK;
  if (!gst_cuda_prep_core_make_current(priv->core)) {
    drop_items(self);
    return GST_FLOW_ERROR;
  }
  GstBufferPool *pool = gst_aggregator_get_buffer_pool(GST_AGGREGATOR(self));
  GstCudaPrepBatchFrames frames;
  frames.planar = &priv->info;
  GstFlowReturn ret;
  GstBuffer *batch = priv->writer.write_batch(pool, priv->desc, priv->items.data(),
                                              priv->items.size(), frames, &ret);
  if (pool != nullptr) gst_object_unref(pool);
  if (batch == nullptr) {
    drop_items(self);
    return ret;
  }
  // On the output segment (time from 0): the first frame's running time.
  GST_BUFFER_PTS(batch) = priv->first_running_time;
  GST_BUFFER_DTS(batch) = GST_CLOCK_TIME_NONE;
  GST_DEBUG_OBJECT(self, "batch of %zu/%" G_GSIZE_FORMAT " items at %" GST_TIME_FORMAT,
                   priv->items.size(), static_cast<gsize>(priv->desc.dims[0]),
                   GST_TIME_ARGS(priv->first_running_time));
  const BatchSettings settings = get_settings(self);
  record_batch(self, settings);
  drop_items(self);
  const GstFlowReturn pushed = gst_aggregator_finish_buffer(GST_AGGREGATOR(self), batch);
  post_stats_when_due(self, settings);
  return pushed;
}

// The pad's next queued frame, or NULL. A GAP event reaches an aggregator
// as an empty buffer flagged GAP (qtdemux edit lists, a decoder after
// packet loss): no frame, so no item and no error; the batch that leaves
// without it says so in its fill count.
static GstBuffer *pop_frame(GstCudaPrepBatchPad *pad) {
  GstBuffer *buffer;
  while ((buffer = gst_aggregator_pad_pop_buffer(GST_AGGREGATOR_PAD(pad))) != nullptr &&
         GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_GAP) && gst_buffer_get_size(buffer) == 0) {
    GST_LOG_OBJECT(pad, "a gap at %" GST_TIME_FORMAT ": no item",
                   GST_TIME_ARGS(GST_BUFFER_PTS(buffer)));
    gst_buffer_unref(buffer);
  }
  return buffer;
}

// The pad's next frame under the source policy (latest: its newest queued
// one, the older ones dropped), or NULL.
GstBuffer *take_frame(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad,
                      GstCudaPrepBatchSourcePolicy policy) {
  // Read before the pop: a frame popped just before a flush empties the
  // queue counts as flushed.
  pad->taken_epoch = g_atomic_int_get(&pad->flush_epoch);
  GstBuffer *buffer = pop_frame(pad);
  pad->taken_arrival = buffer != nullptr ? pad->stats->taken(buffer) : GST_CLOCK_TIME_NONE;
  if (buffer == nullptr || policy != GST_CUDA_PREP_BATCH_SOURCE_POLICY_LATEST) return buffer;
  while (GstBuffer *newer = pop_frame(pad)) {
    GST_LOG_OBJECT(pad, "source-policy=latest drops the frame at %" GST_TIME_FORMAT,
                   GST_TIME_ARGS(GST_BUFFER_PTS(buffer)));
    pad->stats->dropped_latest();
    gst_buffer_unref(buffer);
    buffer = newer;
    pad->taken_arrival = pad->stats->taken(buffer);
  }
  (void)self;
  return buffer;
}

// Appends an item (taking its buffer reference); a full batch leaves.
GstFlowReturn append_item(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad,
                          const GstCudaPrepBatchItem &item) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  drop_flushed_items(self);
  const GstClockTime running_time =
      gst_segment_to_running_time(&GST_AGGREGATOR_PAD(pad)->segment, GST_FORMAT_TIME, item.pts);
  if (priv->items.empty()) priv->first_running_time = running_time;
  priv->items.push_back(item);
  priv->origins.push_back(
      GstCudaPrepBatchPrivate::Origin{GST_CUDA_PREP_BATCH_PAD(gst_object_ref(pad)),
                                      pad->taken_epoch, running_time, pad->taken_arrival});
  if (priv->items.size() == static_cast<size_t>(priv->desc.dims[0])) return push_batch(self);
  return GST_FLOW_OK;
}

GstCudaPrepBatchItem frame_item(GstCudaPrepBatchPad *pad, GstBuffer *buffer) {
  GstCudaPrepBatchItem item;
  item.buffer = buffer;
  item.pts = GST_BUFFER_PTS(buffer);
  item.geometry = gst_cuda_prep_buffer_get_geometry(buffer);
  item.source_index = pad->source_index;
  return item;
}

// The frame's items: the whole frame, or one per region. Takes `buffer`.
GstFlowReturn add_frame(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad, GstBuffer *buffer) {
  if (!self->priv->has_info) {
    gst_buffer_unref(buffer);
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("A frame arrived before any caps"), (nullptr));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  const GstCudaPrepBatchPadSettings settings = gst_cuda_prep_batch_pad_get_settings(pad);
  if (settings.region_source != GST_CUDA_PREP_BATCH_REGION_SOURCE_FRAME) {
    const GstFlowReturn ret = add_frame_regions(self, pad, buffer, settings);
    gst_buffer_unref(buffer);
    return ret;
  }
  return append_item(self, pad, frame_item(pad, buffer));
}

}  // namespace cudaprep::batch
