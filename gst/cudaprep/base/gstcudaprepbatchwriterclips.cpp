// GstCudaPrepBatchWriter's clips (gstcudaprepbatchwriter.h): a batch of
// clips opened, frames written into the clip frames that take them, and the
// frames never written zeroed as it closes.
#include "gstcudaprepbatchwriter.h"

#include <algorithm>
#include <vector>

#include <gst/cudaprep/gstcudaprepcuda-private.h>

GstFlowReturn GstCudaPrepBatchWriter::begin_clips(GstBufferPool *pool,
                                                  const cudaprep::ClipDesc &desc) {
  size_t offset_bytes = 0;
  const GstFlowReturn ret = begin(pool, cudaprep::clip_frame_desc(desc, 0, 0, &offset_bytes));
  if (ret != GST_FLOW_OK) return ret;
  const cudaprep::ClipShape shape = cudaprep::clip_shape(desc);
  clips_ = TRUE;
  clip_desc_ = desc;
  clip_filled_.assign(static_cast<gsize>(shape.clips), 0);
  frame_pts_.assign(static_cast<gsize>(shape.clips * shape.frames), GST_CLOCK_TIME_NONE);
  return GST_FLOW_OK;
}

// Whether frame `frame` of clip `clip` is this open clip batch's next to
// write (write_clip_frames()'s contract).
gboolean GstCudaPrepBatchWriter::takes_clip_frame(guint clip, guint frame) const {
  const cudaprep::ClipShape shape = cudaprep::clip_shape(clip_desc_);
  return buffer_ != nullptr && clips_ && clip < shape.clips && frame < shape.frames &&
         frame == clip_filled_[clip] && (frame > 0 ? clip < items_.size() : clip == items_.size());
}

void GstCudaPrepBatchWriter::record_clip_frame(const GstCudaPrepBatchItem &item, guint clip,
                                               guint frame) {
  if (frame == 0) {
    items_.push_back(item);
    items_.back().buffer = nullptr;  // not kept
  }
  ++clip_filled_[clip];
  frame_pts_[clip * cudaprep::clip_shape(clip_desc_).frames + frame] = item.pts;
}

gboolean GstCudaPrepBatchWriter::write_clip_frames(const GstCudaPrepBatchItem &item,
                                                   const GstCudaPrepBatchFrames &frames,
                                                   const ClipFrame *clip_frames, gsize count) {
  g_return_val_if_fail(count > 0, FALSE);
  GstCudaPrepBatchWriter *first = clip_frames[0].writer;
  std::vector<void *> &data = first->clip_frame_data_;  // reused: no allocation per frame
  data.clear();
  cudaprep::TensorDesc frame_desc;
  for (gsize i = 0; i < count; ++i) {
    const ClipFrame &target = clip_frames[i];
    g_return_val_if_fail(target.writer->takes_clip_frame(target.clip, target.frame), FALSE);
    size_t offset_bytes = 0;
    const cudaprep::TensorDesc desc = cudaprep::clip_frame_desc(
        target.writer->clip_desc_, target.clip, target.frame, &offset_bytes);
    // One kernel stores into all of them with one set of strides.
    g_return_val_if_fail(
        i == 0 || std::equal(desc.strides_bytes, desc.strides_bytes + cudaprep::kTensorRank,
                             frame_desc.strides_bytes),
        FALSE);
    frame_desc = desc;
    data.push_back(target.writer->data_ + offset_bytes);
  }
  if (!first->write_frame(item, frames, data.data(), static_cast<int>(count), frame_desc, 0))
    return FALSE;
  for (gsize i = 0; i < count; ++i)
    clip_frames[i].writer->record_clip_frame(item, clip_frames[i].clip, clip_frames[i].frame);
  return TRUE;
}

void GstCudaPrepBatchWriter::empty_clip(guint clip) {
  g_return_if_fail(clips_ && clip < items_.size());
  const gsize frames = static_cast<gsize>(cudaprep::clip_shape(clip_desc_).frames);
  clip_filled_[clip] = 0;
  std::fill_n(frame_pts_.begin() + clip * frames, frames, GST_CLOCK_TIME_NONE);
  items_[clip].pts = GST_CLOCK_TIME_NONE;
}

// Zeroes every clip frame not written (a reused buffer still holds old
// clips): each is C planes of H x W elements, the planes a channel stride
// apart.
gboolean GstCudaPrepBatchWriter::clear_unfilled_clips() {
  const cudaprep::ClipShape shape = cudaprep::clip_shape(clip_desc_);
  const cudaStream_t stream = gst_cuda_prep_core_get_stream(core_);
  for (gsize clip = 0; clip < clip_filled_.size(); ++clip) {
    for (int64_t frame = clip_filled_[clip]; frame < shape.frames; ++frame) {
      size_t offset_bytes = 0;
      const cudaprep::TensorDesc frame_desc =
          cudaprep::clip_frame_desc(clip_desc_, static_cast<int64_t>(clip), frame, &offset_bytes);
      const size_t plane_bytes = static_cast<size_t>(frame_desc.strides_bytes[2] * shape.height);
      if (!CUDAPREP_CHECK(
              element_, cudaMemset2DAsync(
                            data_ + offset_bytes, static_cast<size_t>(frame_desc.strides_bytes[1]),
                            0, plane_bytes, static_cast<size_t>(shape.channels), stream)))
        return FALSE;
    }
  }
  return TRUE;
}
