#include "gstcudaprepcliprule.h"

const char *GstCudaPrepClipSettings::layout_name() const {
  return clips() ? cudaprep::clip_layout_name(clip_layout())
                 : cudaprep::tensor_layout_name(static_cast<cudaprep::TensorLayout>(layout));
}

GstCudaPrepClipRule GstCudaPrepClipSettings::rule(guint clips_per_tensor) const {
  GstCudaPrepClipRule rule;
  rule.length = clip_length;
  rule.frame_stride = clip_frame_stride;
  rule.stride = clip_stride != 0 ? clip_stride : clip_length * clip_frame_stride;
  rule.clips_per_tensor = clips_per_tensor;
  return rule;
}

// A sentence g_strdup_printf() made, as a string.
static std::string take_sentence(gchar *text) {
  std::string sentence(text);
  g_free(text);
  return sentence;
}

std::string gst_cuda_prep_clip_settings_error(const GstCudaPrepClipSettings &settings) {
  // The property's spelling (the caps' is upper case).
  gchar *lower = g_ascii_strdown(settings.layout_name(), -1);
  const std::string layout(lower);
  g_free(lower);
  const guint length = settings.clip_length;
  if (length > GST_CUDA_PREP_MAX_CLIP_LENGTH)
    return take_sentence(
        g_strdup_printf("clip-length=%u is outside 0..%d", length, GST_CUDA_PREP_MAX_CLIP_LENGTH));
  if (length > 0 && !settings.clips())
    return take_sentence(
        g_strdup_printf("clip-length=%u makes clips, which need layout=ncthw or ntchw (not %s)",
                        length, layout.c_str()));
  if (settings.clip_frame_stride == 0 ||
      settings.clip_frame_stride > GST_CUDA_PREP_MAX_CLIP_FRAME_STRIDE)
    return take_sentence(g_strdup_printf("clip-frame-stride=%u is outside 1..%d",
                                         settings.clip_frame_stride,
                                         GST_CUDA_PREP_MAX_CLIP_FRAME_STRIDE));
  if (settings.clip_stride > GST_CUDA_PREP_MAX_CLIP_STRIDE)
    return take_sentence(g_strdup_printf("clip-stride=%u is outside 0..%d", settings.clip_stride,
                                         GST_CUDA_PREP_MAX_CLIP_STRIDE));
  if (length == 0 && settings.clips())
    return take_sentence(g_strdup_printf(
        "layout=%s is a clip layout: set clip-length to the frames per clip", layout.c_str()));
  return std::string();
}

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
