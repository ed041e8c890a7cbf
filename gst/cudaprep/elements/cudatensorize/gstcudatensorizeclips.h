// cudatensorize's clips (clip-length > 0): the clip tensors open at once.
//
// Which clip frames a frame of the stream becomes is the clip rule
// (base/gstcudaprepcliprule.h). Clip k is clip k % clips-per-tensor of
// tensor k / clips-per-tensor. Clips overlap when
// stride < length * frame-stride: a frame then goes into each clip that
// holds it, all at once (the fused kernel reads and resamples it once and
// stores it into each; a frame without pending work is tensorized into
// each), never copied from one clip to another; the tensors of overlapping
// clips are open together. Clips begin in order and end in order, so tensors complete in
// order, at most one per frame.
#pragma once

#include <gst/gst.h>

#include <deque>
#include <memory>
#include <vector>

#include "base/gstcudaprepbatchwriter.h"
#include "base/gstcudaprepcliprule.h"
#include "cudaprep/tensor.h"

// The clip tensors of one stream: opened from the element's pool when their
// first clip begins, written frame by frame, closed whole when their last
// clip ends, or as they are (each clip's fill count in the meta) at EOS and
// new caps. All on the streaming thread, the device current.
class GstCudaPrepClipTensors {
 public:
  GstCudaPrepClipTensors(GstElement *element, GstCudaPrepCore *core, const gchar *tensor_id);

  // Drops the open tensors (their writes recorded) and starts counting
  // frames from 0 with this rule, into tensors of `desc`.
  void reset(const GstCudaPrepClipRule &rule, const cudaprep::ClipDesc &desc);
  // Drops the open tensors and starts counting from 0 (a flush).
  void restart();
  // Writes `item`'s frame into every clip that takes it; `*completed` gets
  // the tensor this frame completed (stamped), or NULL.
  GstFlowReturn add_frame(GstBufferPool *pool, const GstCudaPrepBatchItem &item,
                          GstClockTime end_time, const GstCudaPrepBatchFrames &frames,
                          GstBuffer **completed);
  // Closes every open tensor in order, as it is, into `closed`; then starts
  // counting from 0.
  GstFlowReturn close_all(std::vector<GstBuffer *> *closed);
  gboolean has_open() const { return !open_.empty(); }
  // After the stream is synchronised (the element stops).
  void finish_gpu_time(gint device_id);

 private:
  struct OpenTensor {
    GstCudaPrepBatchWriter *writer;
    GstClockTime end_time;  // of the last frame written, if known
  };
  GstCudaPrepBatchWriter *spare_writer();
  GstBuffer *close_front(GstFlowReturn *ret);

  GstElement *element_;
  GstCudaPrepCore *core_;
  const gchar *tensor_id_;
  GstCudaPrepClipRule rule_;
  cudaprep::ClipDesc desc_;
  std::vector<std::unique_ptr<GstCudaPrepBatchWriter>> writers_;  // each open or spare
  std::deque<OpenTensor> open_;  // tensors first_open_ , first_open_ + 1, ...
  guint64 first_open_ = 0;
  guint64 next_frame_ = 0;
  // add_frame()'s lists, kept so that a frame allocates nothing: the clip
  // frames it becomes, where each is written, and the tensor of each.
  std::vector<GstCudaPrepClipSlot> slots_;
  std::vector<GstCudaPrepBatchWriter::ClipFrame> targets_;
  std::vector<guint64> target_tensors_;
};
