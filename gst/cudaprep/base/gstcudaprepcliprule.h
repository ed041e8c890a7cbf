// The clip settings of cudatensorize and cudabatch (layout, clip-length,
// clip-frame-stride, clip-stride), their checks, and which clip frames a
// stream's frame becomes under them: the clip rule.
//
// Frame f of a stream (counted from 0 since its clips began: start, a
// flush, new caps) is frame t of clip k when k * stride <= f, the distance
// f - k * stride is t * frame-stride, and t < length. Clips overlap when
// stride < length * frame-stride, and leave gaps when it is more.
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "base/gstcudapreptensorformat.h"
#include "cudaprep/tensor.h"

#define GST_CUDA_PREP_DEFAULT_CLIP_LENGTH 0
#define GST_CUDA_PREP_DEFAULT_CLIP_FRAME_STRIDE 1
#define GST_CUDA_PREP_DEFAULT_CLIP_STRIDE 0
#define GST_CUDA_PREP_MAX_CLIP_LENGTH 1024
#define GST_CUDA_PREP_MAX_CLIP_FRAME_STRIDE 1000
#define GST_CUDA_PREP_MAX_CLIP_STRIDE 100000

// clip-length, clip-frame-stride, clip-stride and the clips per tensor,
// all >= 1 (a clip-stride of 0 is resolved to length * frame_stride before).
struct GstCudaPrepClipRule {
  guint length = 1;
  guint frame_stride = 1;
  guint stride = 1;
  guint clips_per_tensor = 1;
};

// The clip properties as set (each element's settings add their own).
struct GstCudaPrepClipSettings {
  gint layout =
      static_cast<gint>(cudaprep::TensorLayout::kNCHW);   // or GST_CUDA_PREP_LAYOUT_NCTHW/NTCHW
  guint clip_length = GST_CUDA_PREP_DEFAULT_CLIP_LENGTH;  // 0: items are frames
  guint clip_frame_stride = GST_CUDA_PREP_DEFAULT_CLIP_FRAME_STRIDE;
  guint clip_stride = GST_CUDA_PREP_DEFAULT_CLIP_STRIDE;  // 0: clip_length * clip_frame_stride

  gboolean clips() const { return layout >= GST_CUDA_PREP_LAYOUT_CLIPS; }
  cudaprep::ClipLayout clip_layout() const {
    return static_cast<cudaprep::ClipLayout>(layout - GST_CUDA_PREP_LAYOUT_CLIPS);
  }
  // The caps' spelling of the layout (NCHW, ..., NTCHW).
  const char *layout_name() const;
  // The rule of these settings, `clips_per_tensor` clips per tensor.
  GstCudaPrepClipRule rule(guint clips_per_tensor) const;
};

// Why the clip settings cannot work (a sentence naming the property, e.g.
// "clip-length=16 makes clips, which need layout=ncthw or ntchw (not
// nchw)"), or an empty string.
std::string gst_cuda_prep_clip_settings_error(const GstCudaPrepClipSettings &settings);

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
