// cudabatch's clips (clip-length > 0): the settings that cannot work, the
// frames taken from the pads into their clips, and the clip tensors pushed
// as they become ready. Part of cudabatch (gstcudabatch-private.h).
#include "elements/cudabatch/gstcudabatch-private.h"

#include <string>
#include <vector>

#define GST_CAT_DEFAULT gst_cuda_prep_batch_debug

namespace cudaprep::batch {

std::string clip_settings_error(const BatchSettings &settings,
                                const std::vector<GstCudaPrepBatchPad *> &pads) {
  const std::string error = gst_cuda_prep_clip_settings_error(settings);
  if (!error.empty() || settings.clip_length == 0) return error;
  const std::string clips = "clip-length=" + std::to_string(settings.clip_length);
  if (settings.source_policy == GST_CUDA_PREP_BATCH_SOURCE_POLICY_LATEST)
    return clips +
           " with source-policy=latest: a clip holds every frame of its source, which that "
           "policy would drop; use source-policy=wait";
  if (settings.max_source_frames != 0)
    return clips + " with max-source-frames=" + std::to_string(settings.max_source_frames) +
           ": a clip takes a slot when it begins, whatever its source; set max-source-frames=0";
  for (GstCudaPrepBatchPad *pad : pads) {
    if (gst_cuda_prep_batch_pad_get_settings(pad).region_source !=
        GST_CUDA_PREP_BATCH_REGION_SOURCE_FRAME)
      return std::string(GST_PAD_NAME(pad)) + " takes regions, but " + clips +
             " makes clips of whole frames: set its region-source=frame";
  }
  return std::string();
}

// The pad's frame duration from its caps' frame rate; NONE without one.
static GstClockTime frame_duration(GstCudaPrepBatchPad *pad) {
  if (!pad->has_info || pad->info.fps_n <= 0 || pad->info.fps_d <= 0) return GST_CLOCK_TIME_NONE;
  return gst_util_uint64_scale_int(GST_SECOND, pad->info.fps_d, pad->info.fps_n);
}

// What every frame of one aggregate() call is written with.
struct ClipFrameContext {
  GstBufferPool *pool;  // the tensors' (NULL before the allocation query)
  GstClockTime budget;  // latency-budget
  gboolean live;
};

// Writes the pad's frame into its clips. Takes `buffer`.
static GstFlowReturn add_clip_frame(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad,
                                    GstBuffer *buffer, const ClipFrameContext &context) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  if (!priv->has_info) {
    gst_buffer_unref(buffer);
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("A frame arrived before any caps"), (nullptr));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  const GstCudaPrepBatchItem item = frame_item(pad, buffer);
  GstCudaPrepBatchClipTiming timing;
  timing.arrival =
      GST_CLOCK_TIME_IS_VALID(pad->taken_arrival) ? pad->taken_arrival : gst_util_get_timestamp();
  timing.running_time =
      gst_segment_to_running_time(&GST_AGGREGATOR_PAD(pad)->segment, GST_FORMAT_TIME, item.pts);
  timing.frame_duration = frame_duration(pad);
  timing.budget = context.budget;
  timing.live = context.live;
  GstCudaPrepBatchFrames frames;
  frames.planar = &priv->info;
  const GstFlowReturn ret = priv->clips.add_frame(context.pool, pad, item, timing, frames);
  gst_buffer_unref(buffer);
  return ret;
}

// Pushes `tensors` in order; after a failed push, releases the rest.
static GstFlowReturn push_tensors(GstCudaPrepBatch *self, std::vector<GstBuffer *> *tensors,
                                  GstFlowReturn ret) {
  for (GstBuffer *tensor : *tensors) {
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref(tensor);
      continue;
    }
    GST_DEBUG_OBJECT(self, "clip tensor at %" GST_TIME_FORMAT,
                     GST_TIME_ARGS(GST_BUFFER_PTS(tensor)));
    GST_OBJECT_LOCK(self);
    ++self->priv->batches;
    GST_OBJECT_UNLOCK(self);
    ret = gst_aggregator_finish_buffer(GST_AGGREGATOR(self), tensor);
  }
  tensors->clear();
  return ret;
}

GstFlowReturn aggregate_clips(GstCudaPrepBatch *self,
                              const std::vector<GstCudaPrepBatchPad *> &pads,
                              const BatchSettings &settings, gboolean live, gboolean *all_eos) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  if (!gst_cuda_prep_core_make_current(priv->core)) return GST_FLOW_ERROR;
  priv->clips.sync_sources(pads);
  ClipFrameContext context{gst_aggregator_get_buffer_pool(GST_AGGREGATOR(self)), 0, live};
  g_object_get(self, "latency", &context.budget, nullptr);
  GstFlowReturn ret = GST_FLOW_OK;
  if (live) {
    // Every frame waiting joins its clips, earliest first across the pads.
    while (ret == GST_FLOW_OK) {
      GstCudaPrepBatchPad *pad = earliest_pad(self, pads, settings);
      if (pad == nullptr) break;
      GstBuffer *buffer = take_frame(self, pad, settings.source_policy);
      if (buffer != nullptr) ret = add_clip_frame(self, pad, buffer, context);
    }
  } else {
    // One frame of each source per turn.
    for (GstCudaPrepBatchPad *pad : pads) {
      if (ret != GST_FLOW_OK) break;
      GstBuffer *buffer = take_frame(self, pad, settings.source_policy);
      if (buffer != nullptr) ret = add_clip_frame(self, pad, buffer, context);
    }
  }
  if (context.pool != nullptr) gst_object_unref(context.pool);
  if (ret != GST_FLOW_OK) return ret;
  *all_eos = !pads.empty();
  for (GstCudaPrepBatchPad *pad : pads) {
    if (gst_aggregator_pad_is_eos(GST_AGGREGATOR_PAD(pad)))
      priv->clips.end_source(pad);
    else
      *all_eos = FALSE;
  }
  const GstClockTime now = gst_util_get_timestamp();
  if (live) priv->clips.end_due(now);
  std::vector<GstBuffer *> ready;
  ret = *all_eos ? priv->clips.close_all(settings.latency_window, &ready)
                 : priv->clips.take_ready(now, settings.latency_window, &ready);
  return push_tensors(self, &ready, ret);
}

void end_source_clips(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  if (!gst_cuda_prep_core_make_current(priv->core)) return;
  priv->clips.end_source(pad);
  std::vector<GstBuffer *> ready;
  const GstFlowReturn ret =
      priv->clips.take_ready(gst_util_get_timestamp(), get_settings(self).latency_window, &ready);
  const GstFlowReturn pushed = push_tensors(self, &ready, ret);
  if (pushed != GST_FLOW_OK)
    GST_DEBUG_OBJECT(self, "pushing the clip tensors gave %s", gst_flow_get_name(pushed));
}

GstFlowReturn push_all_clips(GstCudaPrepBatch *self) {
  if (!gst_cuda_prep_core_make_current(self->priv->core)) return GST_FLOW_ERROR;
  std::vector<GstBuffer *> closed;
  const GstFlowReturn ret = self->priv->clips.close_all(get_settings(self).latency_window, &closed);
  return push_tensors(self, &closed, ret);
}

void report_clip_latency(GstCudaPrepBatch *self) {
  const BatchSettings settings = get_settings(self);
  const guint64 span = static_cast<guint64>(settings.clip_length - 1) * settings.clip_frame_stride;
  GstClockTime latency = 0;
  std::vector<GstCudaPrepBatchPad *> pads = sink_pads(self);
  for (GstCudaPrepBatchPad *pad : pads) {
    const GstClockTime duration = frame_duration(pad);
    if (GST_CLOCK_TIME_IS_VALID(duration)) latency = MAX(latency, span * duration);
  }
  unref_pads(&pads);
  GST_INFO_OBJECT(self, "clips add %" GST_TIME_FORMAT " to the latency", GST_TIME_ARGS(latency));
  gst_aggregator_set_latency(GST_AGGREGATOR(self), latency, latency);
}

GstClockTime clips_next_due(GstCudaPrepBatch *self) {
  return self->priv->clips.next_due();
}

}  // namespace cudaprep::batch
