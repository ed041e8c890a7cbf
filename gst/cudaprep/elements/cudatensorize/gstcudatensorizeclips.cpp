#include "gstcudatensorizeclips.h"

GstCudaPrepClipTensors::GstCudaPrepClipTensors(GstElement *element, GstCudaPrepCore *core,
                                               const gchar *tensor_id)
    : element_(element), core_(core), tensor_id_(tensor_id) {}

void GstCudaPrepClipTensors::restart() {
  for (OpenTensor &open : open_) open.writer->drop();
  open_.clear();
  first_open_ = 0;
  next_frame_ = 0;
}

void GstCudaPrepClipTensors::reset(const GstCudaPrepClipRule &rule,
                                   const cudaprep::ClipDesc &desc) {
  restart();
  rule_ = rule;
  desc_ = desc;
}

GstCudaPrepBatchWriter *GstCudaPrepClipTensors::spare_writer() {
  for (const auto &writer : writers_) {
    if (!writer->is_open()) return writer.get();
  }
  writers_.push_back(std::make_unique<GstCudaPrepBatchWriter>(element_, core_, tensor_id_));
  return writers_.back().get();
}

// Closes the oldest open tensor and stamps it: its first clip's first PTS,
// lasting to the end of the last frame written.
GstBuffer *GstCudaPrepClipTensors::close_front(GstFlowReturn *ret) {
  const OpenTensor open = open_.front();
  open_.pop_front();
  ++first_open_;
  const GstClockTime first_pts = open.writer->first_pts();
  GstBuffer *tensor = open.writer->finish();
  *ret = tensor != nullptr ? GST_FLOW_OK : GST_FLOW_ERROR;
  if (tensor == nullptr) return nullptr;
  GST_BUFFER_PTS(tensor) = first_pts;
  GST_BUFFER_DTS(tensor) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION(tensor) = GST_CLOCK_TIME_IS_VALID(first_pts) &&
                                        GST_CLOCK_TIME_IS_VALID(open.end_time) &&
                                        open.end_time >= first_pts
                                    ? open.end_time - first_pts
                                    : GST_CLOCK_TIME_NONE;
  return tensor;
}

GstFlowReturn GstCudaPrepClipTensors::add_frame(GstBufferPool *pool,
                                                const GstCudaPrepBatchItem &item,
                                                GstClockTime end_time,
                                                const GstCudaPrepBatchFrames &frames,
                                                GstBuffer **completed) {
  *completed = nullptr;
  targets_.clear();
  target_tensors_.clear();
  gst_cuda_prep_clip_slots(rule_, next_frame_, &slots_);
  for (const GstCudaPrepClipSlot &slot : slots_) {
    const guint64 tensor = slot.clip / rule_.clips_per_tensor;
    while (first_open_ + open_.size() <= tensor) {
      GstCudaPrepBatchWriter *writer = spare_writer();
      const GstFlowReturn ret = writer->begin_clips(pool, desc_);
      if (ret != GST_FLOW_OK) return ret;
      open_.push_back({writer, GST_CLOCK_TIME_NONE});
    }
    targets_.push_back({open_[tensor - first_open_].writer,
                        static_cast<guint>(slot.clip % rule_.clips_per_tensor), slot.frame});
    target_tensors_.push_back(tensor);
  }
  if (!targets_.empty() &&
      !GstCudaPrepBatchWriter::write_clip_frames(item, frames, targets_.data(), targets_.size()))
    return GST_FLOW_ERROR;
  for (const guint64 tensor : target_tensors_) open_[tensor - first_open_].end_time = end_time;
  ++next_frame_;
  GstFlowReturn ret = GST_FLOW_OK;
  if (!open_.empty() && open_.front().writer->complete()) *completed = close_front(&ret);
  return ret;
}

GstFlowReturn GstCudaPrepClipTensors::close_all(std::vector<GstBuffer *> *closed) {
  GstFlowReturn ret = GST_FLOW_OK;
  while (!open_.empty() && ret == GST_FLOW_OK) {
    GstBuffer *tensor = close_front(&ret);
    if (tensor != nullptr) closed->push_back(tensor);
  }
  restart();
  return ret;
}

void GstCudaPrepClipTensors::finish_gpu_time(gint device_id) {
  for (const auto &writer : writers_) writer->finish_gpu_time(device_id);
}
