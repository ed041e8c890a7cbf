#include "elements/cudabatch/gstcudabatchcliptensors.h"

#include <algorithm>

GST_DEBUG_CATEGORY_EXTERN(gst_cuda_prep_batch_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_batch_debug

GstCudaPrepBatchClipTensors::GstCudaPrepBatchClipTensors(GstElement *element, GstCudaPrepCore *core,
                                                         const gchar *tensor_id)
    : element_(element), core_(core), tensor_id_(tensor_id) {}

GstCudaPrepBatchClipTensors::~GstCudaPrepBatchClipTensors() {
  drop_all();
}

void GstCudaPrepBatchClipTensors::drop_all() {
  for (OpenTensor &open : open_) {
    open.writer->drop();
    for (const ClipOrigin &origin : open.origins)
      if (origin.pad != nullptr) gst_object_unref(origin.pad);
  }
  open_.clear();
  first_open_ = 0;
  for (auto &entry : sources_) gst_object_unref(entry.second.pad);
  sources_.clear();
}

void GstCudaPrepBatchClipTensors::reset(const GstCudaPrepClipRule &rule,
                                        const cudaprep::ClipDesc &desc) {
  drop_all();
  rule_ = rule;
  desc_ = desc;
}

GstCudaPrepBatchClipTensors::Source &GstCudaPrepBatchClipTensors::source_of(
    GstCudaPrepBatchPad *pad) {
  auto found = sources_.find(pad->source_index);
  if (found != sources_.end() && found->second.pad != pad) {
    // A pad released and another requested under its name.
    forget_source(found->second);
    sources_.erase(found);
    found = sources_.end();
  }
  if (found == sources_.end()) {
    Source source{GST_CUDA_PREP_BATCH_PAD(gst_object_ref(pad)), pad->taken_epoch, 0, {}};
    found = sources_.emplace(pad->source_index, std::move(source)).first;
  }
  return found->second;
}

// The clip's slot: the next of the newest open tensor, or of a new one.
GstFlowReturn GstCudaPrepBatchClipTensors::begin_clip(GstBufferPool *pool, Source &source,
                                                      guint64 number,
                                                      const GstCudaPrepBatchClipTiming &timing) {
  if (open_.empty() || open_.back().begun == rule_.clips_per_tensor) {
    GstCudaPrepBatchWriter *writer = nullptr;
    for (const auto &spare : writers_)
      if (!spare->is_open()) writer = spare.get();
    if (writer == nullptr) {
      writers_.push_back(std::make_unique<GstCudaPrepBatchWriter>(element_, core_, tensor_id_));
      writer = writers_.back().get();
    }
    const GstFlowReturn ret = writer->begin_clips(pool, desc_);
    if (ret != GST_FLOW_OK) return ret;
    OpenTensor open;
    open.writer = writer;
    open.origins.reserve(rule_.clips_per_tensor);
    open_.push_back(std::move(open));
  }
  GstClockTime due = GST_CLOCK_TIME_NONE;
  if (timing.live) {
    const guint64 span = static_cast<guint64>(rule_.length - 1) * rule_.frame_stride;
    due = timing.arrival + timing.budget;
    if (GST_CLOCK_TIME_IS_VALID(timing.frame_duration)) due += span * timing.frame_duration;
  }
  OpenTensor &open = open_.back();
  if (open.begun == 0) {
    open.first_due = due;
    open.running_time = timing.running_time;
  }
  open.origins.push_back({GST_CUDA_PREP_BATCH_PAD(gst_object_ref(source.pad)), timing.arrival});
  source.open.push_back({number, first_open_ + open_.size() - 1, open.begun, 0, due});
  ++open.begun;
  return GST_FLOW_OK;
}

void GstCudaPrepBatchClipTensors::end_clip(Source &source, size_t index) {
  const Clip clip = source.open[index];
  source.open.erase(source.open.begin() + static_cast<std::ptrdiff_t>(index));
  ++tensor(clip.tensor).ended;
  GST_LOG_OBJECT(source.pad, "clip %" G_GUINT64_FORMAT " ends with %u of %u frames", clip.number,
                 clip.frames, rule_.length);
}

GstFlowReturn GstCudaPrepBatchClipTensors::add_frame(GstBufferPool *pool, GstCudaPrepBatchPad *pad,
                                                     const GstCudaPrepBatchItem &item,
                                                     const GstCudaPrepBatchClipTiming &timing,
                                                     const GstCudaPrepBatchFrames &frames) {
  Source &source = source_of(pad);
  if (pad->taken_epoch != source.epoch) {
    empty_source(source);
    source.epoch = pad->taken_epoch;
  }
  gst_cuda_prep_clip_slots(rule_, source.next_frame++, &slots_);
  targets_.clear();
  for (const GstCudaPrepClipSlot &slot : slots_) {
    if (slot.frame == 0) {
      const GstFlowReturn ret = begin_clip(pool, source, slot.clip, timing);
      if (ret != GST_FLOW_OK) return ret;
    }
    // A clip its budget ended takes no more frames.
    for (const Clip &clip : source.open) {
      if (clip.number == slot.clip)
        targets_.push_back({tensor(clip.tensor).writer, clip.slot, clip.frames});
    }
  }
  if (targets_.empty()) return GST_FLOW_OK;
  if (!GstCudaPrepBatchWriter::write_clip_frames(item, frames, targets_.data(), targets_.size()))
    return GST_FLOW_ERROR;
  for (size_t index = 0; index < source.open.size();) {
    Clip &clip = source.open[index];
    const bool written =
        std::any_of(slots_.begin(), slots_.end(),
                    [&](const GstCudaPrepClipSlot &s) { return s.clip == clip.number; });
    if (written) {
      ++clip.frames;
      if (timing.live && !GST_CLOCK_TIME_IS_VALID(timing.frame_duration))
        clip.due = timing.arrival + timing.budget;
    }
    if (clip.frames == rule_.length)
      end_clip(source, index);
    else
      ++index;
  }
  return GST_FLOW_OK;
}

void GstCudaPrepBatchClipTensors::end_source(GstCudaPrepBatchPad *pad) {
  auto found = sources_.find(pad->source_index);
  if (found == sources_.end() || found->second.pad != pad) return;
  Source &source = found->second;
  while (!source.open.empty()) end_clip(source, 0);
  source.next_frame = 0;
}

// A flushed source: what its open clips hold is forgotten.
void GstCudaPrepBatchClipTensors::empty_source(Source &source) {
  for (const Clip &clip : source.open) {
    OpenTensor &open = tensor(clip.tensor);
    open.writer->empty_clip(clip.slot);
    ClipOrigin &origin = open.origins[clip.slot];
    if (origin.pad != nullptr) {
      origin.pad->stats->dropped_flush(1);
      gst_object_unref(origin.pad);
      origin.pad = nullptr;
    }
  }
  while (!source.open.empty()) end_clip(source, 0);
  source.next_frame = 0;
}

void GstCudaPrepBatchClipTensors::forget_source(Source &source) {
  while (!source.open.empty()) end_clip(source, 0);
  gst_object_unref(source.pad);
}

void GstCudaPrepBatchClipTensors::sync_sources(const std::vector<GstCudaPrepBatchPad *> &pads) {
  for (auto entry = sources_.begin(); entry != sources_.end();) {
    Source &source = entry->second;
    if (std::find(pads.begin(), pads.end(), source.pad) == pads.end()) {
      forget_source(source);
      entry = sources_.erase(entry);
      continue;
    }
    const gint epoch = g_atomic_int_get(&source.pad->flush_epoch);
    if (epoch != source.epoch) {
      GST_DEBUG_OBJECT(source.pad, "flushed: its %zu open clips are emptied", source.open.size());
      empty_source(source);
      source.epoch = epoch;
    }
    ++entry;
  }
}

void GstCudaPrepBatchClipTensors::end_due(GstClockTime now) {
  for (auto &entry : sources_) {
    Source &source = entry.second;
    for (size_t index = 0; index < source.open.size();) {
      if (GST_CLOCK_TIME_IS_VALID(source.open[index].due) && now >= source.open[index].due) {
        GST_DEBUG_OBJECT(source.pad,
                         "latency budget: clip %" G_GUINT64_FORMAT " leaves with %u frames",
                         source.open[index].number, source.open[index].frames);
        end_clip(source, index);
      } else {
        ++index;
      }
    }
  }
}

GstBuffer *GstCudaPrepBatchClipTensors::close_front(guint latency_window, GstFlowReturn *ret) {
  OpenTensor open = std::move(open_.front());
  open_.pop_front();
  ++first_open_;
  GstBuffer *buffer = open.writer->finish();
  *ret = buffer != nullptr ? GST_FLOW_OK : GST_FLOW_ERROR;
  const GstClockTime now = gst_util_get_timestamp();
  for (const ClipOrigin &origin : open.origins) {
    if (origin.pad == nullptr) continue;
    if (buffer != nullptr) origin.pad->stats->batched(origin.arrival, now, latency_window);
    gst_object_unref(origin.pad);
  }
  if (buffer == nullptr) return nullptr;
  // On the output segment (time from 0), as cudabatch's image batches.
  GST_BUFFER_PTS(buffer) = open.running_time;
  GST_BUFFER_DTS(buffer) = GST_CLOCK_TIME_NONE;
  return buffer;
}

GstFlowReturn GstCudaPrepBatchClipTensors::take_ready(GstClockTime now, guint latency_window,
                                                      std::vector<GstBuffer *> *ready) {
  GstFlowReturn ret = GST_FLOW_OK;
  while (!open_.empty() && ret == GST_FLOW_OK) {
    const OpenTensor &front = open_.front();
    const gboolean due = GST_CLOCK_TIME_IS_VALID(front.first_due) && now >= front.first_due;
    if (front.ended < front.begun || (front.begun < rule_.clips_per_tensor && !due)) break;
    GstBuffer *buffer = close_front(latency_window, &ret);
    if (buffer != nullptr) ready->push_back(buffer);
  }
  return ret;
}

GstFlowReturn GstCudaPrepBatchClipTensors::close_all(guint latency_window,
                                                     std::vector<GstBuffer *> *closed) {
  for (auto &entry : sources_) {
    while (!entry.second.open.empty()) end_clip(entry.second, 0);
    entry.second.next_frame = 0;
  }
  GstFlowReturn ret = GST_FLOW_OK;
  while (!open_.empty() && ret == GST_FLOW_OK) {
    GstBuffer *buffer = close_front(latency_window, &ret);
    if (buffer != nullptr) closed->push_back(buffer);
  }
  return ret;
}

GstClockTime GstCudaPrepBatchClipTensors::next_due() const {
  GstClockTime next = GST_CLOCK_TIME_NONE;
  const auto earlier = [&next](GstClockTime due) {
    if (GST_CLOCK_TIME_IS_VALID(due) && (!GST_CLOCK_TIME_IS_VALID(next) || due < next)) next = due;
  };
  for (const auto &entry : sources_)
    for (const Clip &clip : entry.second.open) earlier(clip.due);
  if (!open_.empty() && open_.front().begun < rule_.clips_per_tensor)
    earlier(open_.front().first_due);
  return next;
}

void GstCudaPrepBatchClipTensors::finish_gpu_time(gint device_id) {
  for (const auto &writer : writers_) writer->finish_gpu_time(device_id);
}
