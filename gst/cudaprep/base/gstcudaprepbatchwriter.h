// The batch tensor writer: frames, or regions of frames, into one batch
// tensor buffer with its GstCudaPrepTensorMeta. cudatensorize (one stream,
// frame by frame) and cudabatch (N sources, the batch at once) both write
// their tensors through it.
//
// A batch is a buffer from the element's tensor pool holding a single
// GstCudaPrepMemory, written as `desc` says (N = desc.dims[0] slots). Items
// fill slots 0, 1, ... in the order they are written. An item's pixels:
//
//  - a frame with a GstCudaPrepPendingMeta that has normalisation (upstream
//    left its resize and normalisation here): the fused preprocess of the
//    source frame the buffer still holds, with the meta's parameters; a
//    region item reads the sub-image `rect` of it and lands in `dst_rect` of
//    its slot (the pending resize's other parameters kept);
//  - any other frame: tensorize of the frame as GstCudaPrepBatchFrames
//    describes it (cudanormalize's planar frames, or 8-bit video).
//
// Closing a batch zeroes the slots no item filled (a reused buffer still
// holds old items), records the write (end_write: the memory's ready event,
// after every kernel of the batch) and attaches a GstCudaPrepTensorMeta with
// one tensor: `tensor_id`, `desc`, the device pointer, device id and ready
// event; items[i] describes the i-th item written (PTS, geometry, source
// index, region id, and a region's rectangle), batch_filled is their count,
// and the other slots keep set_from_desc's defaults (no PTS, identity, whole
// frame); built against GStreamer >= 1.26 GStreamer's GstTensorMeta follows
// (gstcudaprepgsttensor.h). The item geometry is a cudaprep::FrameGeometry up to here: this is
// the one place it becomes the public GstCudaPrepGeometry. Timestamps and
// flags of the buffer are the caller's.
//
// Two ways to fill; each keeps its element's kernels:
//
//  frame by frame (cudatensorize: one kernel per frame, no frame held)
//    begin()        a tensor buffer from the pool; begin_write on it
//    write_item()   per frame: begin_read, ONE kernel into the next slot
//                   (preprocess(), tensorize_planar() or
//                   tensorize_interleaved()), end_read; each step only if
//                   the one before succeeded, and the item counts only if
//                   all did (a failed item's slot is the next one's)
//    finish()       zero the rest, end_write, meta: the buffer; or
//    drop()         end_write (the kernels already queued) and release it
//
//  all at once (cudabatch: the caller holds the frames until then)
//    write_batch()  a tensor buffer from the pool; begin_write; begin_read
//                   of each distinct frame (the items of one frame must be
//                   neighbours), stopping at the first failure; in item
//                   order one tensorize per item without pending work, then
//                   ONE preprocess_batch() launch for all items with it
//                   (every region item); zero the rest; end_read of each
//                   frame and end_write, both also after a failure; meta
//
//  clips, frame by frame (cudatensorize and cudabatch clip-length > 0: N clips of T
//  frames, NCTHW or NTCHW; a frame is written where it belongs, never
//  copied afterwards)
//    begin_clips()       as begin(), for a clip tensor
//    write_clip_frames() as write_item(), into frame t of clip n of each
//                        of several open clip batches (overlapping clips
//                        share the frame): ONE fused kernel reads and
//                        resamples it once and stores it into each (a
//                        frame without pending work: one tensorize per
//                        clip); clip n's frames come in order (t = the
//                        frames it holds), and clip n begins after clip
//                        n - 1 did
//    empty_clip()        forgets a begun clip's frames (cudabatch: its
//                        source was flushed)
//    complete()          every clip holds its T frames
//    finish()/drop()     as above; finish() zeroes each clip's frames not
//                        written, and the meta says per clip the frames
//                        written and their PTS; items[n] is clip n's first
//                        frame
//
// Errors: every failure is an element error posted on `element` (the
// core's, the CUDA call's, or one of these: "Tensor buffer is not a device
// frame: not CUDA device memory", "Pending/Input buffer is not a device
// frame: ...", "Cannot write this frame into the tensor: ..." (write_item),
// "Cannot write a frame of source N into the tensor: ..." and "Cannot write
// the batch's items into the tensor: ..." (write_batch), "Could not attach
// the tensor meta", "Could not attach GStreamer's GstTensorMeta"); a failed
// acquire gives the pool's flow return (e.g. FLUSHING) without one. A
// batch that failed to close is released.
//
// Threads: the element's streaming thread, with its device current
// (gst_cuda_prep_core_make_current(); drop() makes it current itself).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>

#include "cudaprep/geometry.h"
#include "cudaprep/preprocess_batch.h"
#include "cudaprep/resize.h"
#include "cudaprep/tensor.h"
#include "gstcudaprepcore.h"
#include "gstcudapreptensorformat.h"
#include "gstcudapreptrace.h"

// One item of a batch: a whole frame or a region of one.
struct GstCudaPrepBatchItem {
  GstBuffer *buffer = nullptr;  // the frame; the caller keeps it alive during the call
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  cudaprep::FrameGeometry geometry;  // source frame -> the item's tensor pixels
  gint source_index = 0;             // cudabatch's sink_N: N; 0 for one stream
  gint region_id = GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME;
  // A region (read only on the pending path): `rect` of the source frame,
  // resized into `dst_rect` of the slot; `rect` is also the item's
  // rectangle in the meta.
  gboolean is_region = FALSE;
  cudaprep::PixelRect rect{};
  cudaprep::PixelRect dst_rect{};
};

// What the frames without pending work hold: `planar` frames, or (planar
// NULL) 8-bit `video` whose channels come in `channel_order`.
struct GstCudaPrepBatchFrames {
  const GstCudaPrepPlanarInfo *planar = nullptr;
  const GstVideoInfo *video = nullptr;
  cudaprep::ChannelOrder channel_order = cudaprep::ChannelOrder::kRGB;
};

class GstCudaPrepBatchWriter {
 public:
  // `element` posts the errors; `core` gives stream, device and the
  // read/write protocol; `tensor_id` (static) names the tensor in the meta.
  GstCudaPrepBatchWriter(GstElement *element, GstCudaPrepCore *core, const gchar *tensor_id);
  ~GstCudaPrepBatchWriter();  // releases an open batch without recording anything
  GstCudaPrepBatchWriter(const GstCudaPrepBatchWriter &) = delete;
  GstCudaPrepBatchWriter &operator=(const GstCudaPrepBatchWriter &) = delete;

  // --- Frame by frame ---
  // Opens a batch of `desc` (kept until it closes) from `pool` (borrowed;
  // activated if it is not yet). Not while one is open.
  GstFlowReturn begin(GstBufferPool *pool, const cudaprep::TensorDesc &desc);
  gboolean is_open() const { return buffer_ != nullptr; }
  // Items written into the open batch, its N, and its first item's PTS
  // (NONE while it has none).
  guint filled() const { return static_cast<guint>(items_.size()); }
  guint batch_size() const {
    return static_cast<guint>(clips_ ? clip_desc_.dims[0] : desc_.dims[0]);
  }
  GstClockTime first_pts() const { return items_.empty() ? GST_CLOCK_TIME_NONE : items_[0].pts; }
  // Writes `item` into the next slot of the open batch (filled() < N).
  gboolean write_item(const GstCudaPrepBatchItem &item, const GstCudaPrepBatchFrames &frames);
  // Opens a batch of clips of `desc` from `pool`, as begin().
  GstFlowReturn begin_clips(GstBufferPool *pool, const cudaprep::ClipDesc &desc);
  // Frame `frame` of clip `clip` of `writer`'s open clip batch: `clip` < N
  // is a begun clip or the next one (`frame` 0), `frame` the number of
  // frames the clip holds (< T). filled() counts begun clips.
  struct ClipFrame {
    GstCudaPrepBatchWriter *writer;
    guint clip;
    guint frame;
  };
  // Writes `item` into each of `count` (>= 1) clip frames, of writers of
  // one element (one core) whose clip batches have the same description;
  // posts errors on that element.
  static gboolean write_clip_frames(const GstCudaPrepBatchItem &item,
                                    const GstCudaPrepBatchFrames &frames,
                                    const ClipFrame *clip_frames, gsize count);
  // Forgets the frames written into begun clip `clip` (a flushed source's,
  // in cudabatch): finish() zeroes them, and the meta says the clip holds
  // none and has no PTS. No frame is written into it afterwards.
  void empty_clip(guint clip);
  // Whether the open batch is full: N items, or N clips of T frames each.
  gboolean complete() const;
  // Closes the open batch: its buffer, or NULL after an error (the buffer
  // released, its write not recorded past the failed step).
  GstBuffer *finish();
  // Closes the open batch, if any, without a buffer.
  void drop();

  // --- All at once ---
  // A closed batch of `desc` from `pool` holding `count` items (1..N), or
  // NULL with `ret` set (an error: GST_FLOW_ERROR, or the pool's return).
  GstBuffer *write_batch(GstBufferPool *pool, const cudaprep::TensorDesc &desc,
                         const GstCudaPrepBatchItem *items, gsize count,
                         const GstCudaPrepBatchFrames &frames, GstFlowReturn *ret);
  // write_batch()'s kernels are timed for the cudapreptime tracer: after
  // the stream is synchronised (the element stops), the last times and the
  // events go.
  void finish_gpu_time(gint device_id) { gpu_timer_.finish(element_, device_id); }

 private:
  GstFlowReturn acquire(GstBufferPool *pool, const cudaprep::TensorDesc &desc);
  gboolean reads(const GstCudaPrepBatchItem *items, gsize count, gboolean begin);
  gboolean fill_batch(const GstCudaPrepBatchItem *items, gsize count,
                      const GstCudaPrepBatchFrames &frames);
  gboolean one_resize_method(const GstCudaPrepBatchItem *items,
                             std::vector<cudaprep::PreprocessItem> *fused);
  gboolean clear_unfilled(gsize filled);
  gboolean attach_meta(GstBuffer *buffer);
  GstBuffer *close(gboolean keep);
  gboolean write_frame(const GstCudaPrepBatchItem &item, const GstCudaPrepBatchFrames &frames,
                       void *const *data, int count, const cudaprep::TensorDesc &desc, int slot);
  gboolean takes_clip_frame(guint clip, guint frame) const;
  void record_clip_frame(const GstCudaPrepBatchItem &item, guint clip, guint frame);
  gboolean clear_unfilled_clips();

  GstElement *element_;
  GstCudaPrepGpuTimer gpu_timer_;  // the kernels of write_item() and write_batch()
  GstCudaPrepCore *core_;
  const gchar *tensor_id_;
  // The batch being written: its buffer and device pointer, its tensor,
  // and the items written so far (buffers not kept).
  GstBuffer *buffer_ = nullptr;
  guint8 *data_ = nullptr;
  cudaprep::TensorDesc desc_;
  std::vector<GstCudaPrepBatchItem> items_;
  // A batch of clips (begin_clips): its tensor, and per clip the frames
  // written and their PTS (T per clip).
  gboolean clips_ = FALSE;
  cudaprep::ClipDesc clip_desc_;
  std::vector<guint> clip_filled_;
  std::vector<GstClockTime> frame_pts_;
  // write_clip_frames()'s device pointers, when this writer is the first.
  std::vector<void *> clip_frame_data_;
};
