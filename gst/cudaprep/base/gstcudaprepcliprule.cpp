#include "gstcudaprepcliprule.h"

void gst_cuda_prep_clip_slots(const GstCudaPrepClipRule &rule, guint64 index,
                              std::vector<GstCudaPrepClipSlot> *slots) {
  slots->clear();
  const guint64 span = static_cast<guint64>(rule.length - 1) * rule.frame_stride;
  // The clips whose first frame is at or before `index` and whose last is
  // at or after it.
  const guint64 first = index > span ? (index - span + rule.stride - 1) / rule.stride : 0;
  for (guint64 clip = first; clip <= index / rule.stride; ++clip) {
    const guint64 distance = index - clip * rule.stride;
    if (distance % rule.frame_stride == 0)
      slots->push_back({clip, static_cast<guint>(distance / rule.frame_stride)});
  }
}
