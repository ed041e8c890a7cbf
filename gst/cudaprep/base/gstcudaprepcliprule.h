// Which clip frames a stream's frame becomes: the clip rule of
// cudatensorize and cudabatch (clip-length, clip-frame-stride, clip-stride).
//
// Frame f of a stream (counted from 0 since its clips began: start, a
// flush, new caps) is frame t of clip k when k * stride <= f, the distance
// f - k * stride is t * frame-stride, and t < length. Clips overlap when
// stride < length * frame-stride, and leave gaps when it is more.
#pragma once

#include <gst/gst.h>

#include <vector>

// clip-length, clip-frame-stride, clip-stride and the clips per tensor,
// all >= 1 (a clip-stride of 0 is resolved to length * frame_stride before).
struct GstCudaPrepClipRule {
  guint length = 1;
  guint frame_stride = 1;
  guint stride = 1;
  guint clips_per_tensor = 1;
};

// Frame `frame` of clip `clip` (numbered from 0 since the clips began).
struct GstCudaPrepClipSlot {
  guint64 clip = 0;
  guint frame = 0;
};

// The clip frames stream frame `index` becomes, clips in increasing order,
// into `slots` (emptied first; its memory reused frame after frame); none
// when no clip takes it (stride > length * frame_stride leaves gaps).
void gst_cuda_prep_clip_slots(const GstCudaPrepClipRule &rule, guint64 index,
                              std::vector<GstCudaPrepClipSlot> *slots);
