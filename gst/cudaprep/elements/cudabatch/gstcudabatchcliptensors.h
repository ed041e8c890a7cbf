// cudabatch's clip tensors (clip-length > 0): each source's frames into
// clips of T frames, the clips of several sources in one tensor. Part of
// cudabatch (elements/cudabatch/).
//
// Per source, the clip rule (base/gstcudaprepcliprule.h) says which clip
// frames a frame becomes; its frames are counted from 0 since start, its
// flush or its new caps. A clip takes the next slot of the newest open
// tensor when its first frame comes (a new tensor when that one is full),
// so a tensor's items are clips in the order they began, of any sources.
// A frame is written once into every clip of its source that holds it (one
// fused launch stores into each), never held and never copied afterwards.
//
// A clip ends when it holds its T frames; when its source ends or changes
// caps (as it is: the meta's fill count says how many frames it holds, the
// rest are zeros); when its source is flushed (emptied: fill count 0); or,
// live, when its latency budget passes: at its first frame's arrival plus
// its span, (T - 1) x frame-stride frame durations, plus latency-budget
// (without a frame rate: its last frame's arrival plus latency-budget).
// Tensors leave in order, each when all its N clips ended; one with free
// slots when the clips it holds ended and every source is at EOS or, live,
// when its first clip is due.
//
// All on cudabatch's streaming (aggregate) thread, the device current.
#pragma once

#include <gst/gst.h>

#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "base/gstcudaprepbatchwriter.h"
#include "base/gstcudaprepcliprule.h"
#include "cudaprep/tensor.h"
#include "elements/cudabatch/gstcudabatchpad.h"

// When a frame came and how long its clips may wait for the rest.
struct GstCudaPrepBatchClipTiming {
  GstClockTime arrival = GST_CLOCK_TIME_NONE;  // at its pad, host time (gst_util_get_timestamp)
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstClockTime frame_duration = GST_CLOCK_TIME_NONE;  // from the pad's caps; NONE: no frame rate
  GstClockTime budget = 0;                            // latency-budget
  gboolean live = FALSE;                              // without it, no clip is ever due
};

class GstCudaPrepBatchClipTensors {
 public:
  GstCudaPrepBatchClipTensors(GstElement *element, GstCudaPrepCore *core, const gchar *tensor_id);
  ~GstCudaPrepBatchClipTensors();
  GstCudaPrepBatchClipTensors(const GstCudaPrepBatchClipTensors &) = delete;
  GstCudaPrepBatchClipTensors &operator=(const GstCudaPrepBatchClipTensors &) = delete;

  // Drops everything and takes this rule, into tensors of `desc`.
  void reset(const GstCudaPrepClipRule &rule, const cudaprep::ClipDesc &desc);
  // Drops the open tensors (their writes recorded) and every source's
  // count (a flush of every source, a stop).
  void drop_all();
  // Writes `item`, the next frame of `pad` (taken under pad->taken_epoch),
  // into each of its source's clips that takes it.
  GstFlowReturn add_frame(GstBufferPool *pool, GstCudaPrepBatchPad *pad,
                          const GstCudaPrepBatchItem &item,
                          const GstCudaPrepBatchClipTiming &timing,
                          const GstCudaPrepBatchFrames &frames);
  // Ends the source's clips as they are and counts its frames from 0 (its
  // EOS, its new caps).
  void end_source(GstCudaPrepBatchPad *pad);
  // The sources' flushes (a flushed source's clips are emptied and end)
  // and the pads released (their clips end); `pads`: every sink pad.
  void sync_sources(const std::vector<GstCudaPrepBatchPad *> &pads);
  // Ends the clips whose budget passed by host time `now`.
  void end_due(GstClockTime now);
  // Closes the tensors ready to leave, in order, into `ready`, each
  // stamped with its first clip's running time. Each clip that leaves is
  // counted in its source's stats (latency from its first frame's arrival;
  // `latency_window`).
  GstFlowReturn take_ready(GstClockTime now, guint latency_window, std::vector<GstBuffer *> *ready);
  // Ends every clip and closes every tensor as it is, in order, into
  // `closed` (EOS of every source, a new tensor).
  GstFlowReturn close_all(guint latency_window, std::vector<GstBuffer *> *closed);
  // The host time of the next clip or tensor to fall due, or NONE.
  GstClockTime next_due() const;
  gboolean has_open() const { return !open_.empty(); }
  // After the stream is synchronised (the element stops).
  void finish_gpu_time(gint device_id);

 private:
  struct Clip {
    guint64 number;  // the source's clip k
    guint64 tensor;  // which open tensor (counted like first_open_)
    guint slot;      // its item in that tensor
    guint frames;    // written
    GstClockTime due;
  };
  struct Source {
    GstCudaPrepBatchPad *pad;  // a reference
    gint epoch;                // the pad's flush count its frames were counted under
    guint64 next_frame;
    std::deque<Clip> open;  // begun, not ended, in clip order
  };
  // What the source stats learn of a clip as its tensor leaves.
  struct ClipOrigin {
    GstCudaPrepBatchPad *pad;  // a reference; NULL for an emptied clip
    GstClockTime arrival;
  };
  struct OpenTensor {
    GstCudaPrepBatchWriter *writer;
    guint begun = 0, ended = 0;
    GstClockTime first_due = GST_CLOCK_TIME_NONE;
    GstClockTime running_time = GST_CLOCK_TIME_NONE;  // of its first clip's first frame
    std::vector<ClipOrigin> origins;                  // per slot
  };

  Source &source_of(GstCudaPrepBatchPad *pad);
  GstFlowReturn begin_clip(GstBufferPool *pool, Source &source, guint64 number,
                           const GstCudaPrepBatchClipTiming &timing);
  void end_clip(Source &source, size_t index);
  void empty_source(Source &source);
  void forget_source(Source &source);
  GstBuffer *close_front(guint latency_window, GstFlowReturn *ret);
  OpenTensor &tensor(guint64 index) { return open_[index - first_open_]; }

  GstElement *element_;
  GstCudaPrepCore *core_;
  const gchar *tensor_id_;
  GstCudaPrepClipRule rule_;
  cudaprep::ClipDesc desc_;
  std::vector<std::unique_ptr<GstCudaPrepBatchWriter>> writers_;  // each open or spare
  std::deque<OpenTensor> open_;  // tensors first_open_, first_open_ + 1, ...
  guint64 first_open_ = 0;
  std::map<gint, Source> sources_;  // by source index (sink_N: N)
  // add_frame()'s lists, kept so that a frame allocates nothing.
  std::vector<GstCudaPrepClipSlot> slots_;
  std::vector<GstCudaPrepBatchWriter::ClipFrame> targets_;
};
