// cudabatch's properties: their specs (ranges, defaults, blurbs), set and
// get. Part of cudabatch (gstcudabatch-private.h).
#include "elements/cudabatch/gstcudabatch-private.h"

#include "base/gstcudaprepcore.h"
#include "base/gstcudapreptensorformat.h"

enum {
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_LATENCY_BUDGET,
  PROP_BATCH_TIMEOUT,  // the old name of latency-budget
  PROP_MAX_SOURCE_FRAMES,
  PROP_SOURCE_POLICY,
  PROP_LAYOUT,
  PROP_STATS,
  PROP_STATS_INTERVAL,
  PROP_LATENCY_WINDOW,
  PROP_CLIP_LENGTH,
  PROP_CLIP_FRAME_STRIDE,
  PROP_CLIP_STRIDE,
  PROP_CORE_FIRST,  // the core's properties follow
};

namespace cudaprep::batch {

const guint kFirstCoreProperty = PROP_CORE_FIRST;

GType source_policy_get_type() {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_BATCH_SOURCE_POLICY_WAIT,
       "Every frame in turn: a faster source's frames queue and it is held back", "wait"},
      {GST_CUDA_PREP_BATCH_SOURCE_POLICY_LATEST,
       "Only the newest frame per turn: a faster source's older frames are dropped", "latest"},
      {0, nullptr, nullptr}};
  if (g_once_init_enter(&type)) {
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepBatchSourcePolicy", values));
  }
  return type;
}

void set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_BATCH(object);
  if (gst_cuda_prep_core_set_property(self->priv->core, prop_id, value)) return;
  switch (prop_id) {
    case PROP_BATCH_SIZE:
      GST_OBJECT_LOCK(self);
      self->priv->settings.batch_size = g_value_get_uint(value);
      GST_OBJECT_UNLOCK(self);
      break;
    case PROP_LATENCY_BUDGET:
    case PROP_BATCH_TIMEOUT:
      // The aggregator's own wait for live sources: the budget and the
      // latency it reports are one number.
      g_object_set(object, "latency", g_value_get_uint64(value), nullptr);
      break;
    case PROP_MAX_SOURCE_FRAMES:
      GST_OBJECT_LOCK(self);
      self->priv->settings.max_source_frames = g_value_get_uint(value);
      GST_OBJECT_UNLOCK(self);
      break;
    case PROP_SOURCE_POLICY:
      GST_OBJECT_LOCK(self);
      self->priv->settings.source_policy =
          static_cast<GstCudaPrepBatchSourcePolicy>(g_value_get_enum(value));
      GST_OBJECT_UNLOCK(self);
      break;
    case PROP_LAYOUT:
      GST_OBJECT_LOCK(self);
      self->priv->settings.layout = g_value_get_enum(value);
      GST_OBJECT_UNLOCK(self);
      break;
    case PROP_STATS_INTERVAL:
      GST_OBJECT_LOCK(self);
      self->priv->settings.stats_interval = g_value_get_uint(value);
      GST_OBJECT_UNLOCK(self);
      break;
    case PROP_LATENCY_WINDOW:
      GST_OBJECT_LOCK(self);
      self->priv->settings.latency_window = g_value_get_uint(value);
      GST_OBJECT_UNLOCK(self);
      break;
    case PROP_CLIP_LENGTH:
      GST_OBJECT_LOCK(self);
      self->priv->settings.clip_length = g_value_get_uint(value);
      GST_OBJECT_UNLOCK(self);
      break;
    case PROP_CLIP_FRAME_STRIDE:
      GST_OBJECT_LOCK(self);
      self->priv->settings.clip_frame_stride = g_value_get_uint(value);
      GST_OBJECT_UNLOCK(self);
      break;
    case PROP_CLIP_STRIDE:
      GST_OBJECT_LOCK(self);
      self->priv->settings.clip_stride = g_value_get_uint(value);
      GST_OBJECT_UNLOCK(self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
}

void get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_BATCH(object);
  if (gst_cuda_prep_core_get_property(self->priv->core, prop_id, value)) return;
  const BatchSettings settings = get_settings(self);
  switch (prop_id) {
    case PROP_BATCH_SIZE:
      g_value_set_uint(value, settings.batch_size);
      break;
    case PROP_LATENCY_BUDGET:
    case PROP_BATCH_TIMEOUT: {
      guint64 latency = 0;
      g_object_get(object, "latency", &latency, nullptr);
      g_value_set_uint64(value, latency);
      break;
    }
    case PROP_MAX_SOURCE_FRAMES:
      g_value_set_uint(value, settings.max_source_frames);
      break;
    case PROP_SOURCE_POLICY:
      g_value_set_enum(value, settings.source_policy);
      break;
    case PROP_LAYOUT:
      g_value_set_enum(value, static_cast<gint>(settings.layout));
      break;
    case PROP_STATS:
      g_value_take_boxed(value, stats_structure(self));
      break;
    case PROP_STATS_INTERVAL:
      g_value_set_uint(value, settings.stats_interval);
      break;
    case PROP_LATENCY_WINDOW:
      g_value_set_uint(value, settings.latency_window);
      break;
    case PROP_CLIP_LENGTH:
      g_value_set_uint(value, settings.clip_length);
      break;
    case PROP_CLIP_FRAME_STRIDE:
      g_value_set_uint(value, settings.clip_frame_stride);
      break;
    case PROP_CLIP_STRIDE:
      g_value_set_uint(value, settings.clip_stride);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
}

void install_properties(GObjectClass *gobject_class) {
  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_READY);
  g_object_class_install_property(
      gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint("batch-size", "Batch size",
                        "Items per tensor (frames from all sources together); read when caps "
                        "are set",
                        1, GST_CUDA_PREP_TENSOR_MAX_BATCH, DEFAULT_BATCH_SIZE, flags));
  g_object_class_install_property(
      gobject_class, PROP_LATENCY_BUDGET,
      g_param_spec_uint64("latency-budget", "Latency budget",
                          "Live sources: the longest (ns) a frame waits in a batch that is not "
                          "full; a full batch leaves at once, frames join earliest first across "
                          "the sources; with clips, how long past its span (T - 1 frame "
                          "strides) a clip waits for its frames. Reported in the latency (the "
                          "aggregator's latency property), with the clips' span",
                          0, G_MAXUINT64, DEFAULT_LATENCY_BUDGET, flags));
  g_object_class_install_property(
      gobject_class, PROP_BATCH_TIMEOUT,
      g_param_spec_uint64("batch-timeout", "Batch timeout",
                          "Deprecated: the old name of latency-budget", 0, G_MAXUINT64,
                          DEFAULT_LATENCY_BUDGET,
                          static_cast<GParamFlags>(flags | G_PARAM_DEPRECATED)));
  g_object_class_install_property(
      gobject_class, PROP_MAX_SOURCE_FRAMES,
      g_param_spec_uint("max-source-frames", "Max source frames",
                        "Live sources: at most this many frames of one source per batch, so "
                        "that a fast camera cannot fill batches alone (0: no limit)",
                        0, GST_CUDA_PREP_TENSOR_MAX_BATCH, DEFAULT_MAX_SOURCE_FRAMES,
                        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property(
      gobject_class, PROP_SOURCE_POLICY,
      g_param_spec_enum("source-policy", "Source policy",
                        "What a source faster than the others does", source_policy_get_type(),
                        DEFAULT_SOURCE_POLICY,
                        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property(
      gobject_class, PROP_LAYOUT,
      g_param_spec_enum("layout", "Layout",
                        "Order of the tensor's axes in memory; ncthw and ntchw are the clip "
                        "layouts (5-D, with clip-length)",
                        GST_TYPE_CUDA_PREP_CLIP_OR_TENSOR_LAYOUT, DEFAULT_LAYOUT, flags));
  g_object_class_install_property(
      gobject_class, PROP_CLIP_LENGTH,
      g_param_spec_uint("clip-length", "Clip length",
                        "Frames per clip (T), 1 to 1024, with layout=ncthw or ntchw: each item "
                        "of the tensor is a clip of T frames of one source, batch-size clips "
                        "of any sources per tensor; 0: each item is one frame",
                        0, GST_CUDA_PREP_MAX_CLIP_LENGTH, GST_CUDA_PREP_DEFAULT_CLIP_LENGTH,
                        flags));
  g_object_class_install_property(
      gobject_class, PROP_CLIP_FRAME_STRIDE,
      g_param_spec_uint("clip-frame-stride", "Clip frame stride",
                        "A clip takes every clip-frame-stride-th frame of its source (a model's "
                        "sampling rate)",
                        1, GST_CUDA_PREP_MAX_CLIP_FRAME_STRIDE,
                        GST_CUDA_PREP_DEFAULT_CLIP_FRAME_STRIDE, flags));
  g_object_class_install_property(
      gobject_class, PROP_CLIP_STRIDE,
      g_param_spec_uint("clip-stride", "Clip stride",
                        "Frames of a source from the start of one of its clips to the start of "
                        "the next, 0 to 100000: 0 starts a clip where the last one ended "
                        "(clip-length x clip-frame-stride); less overlaps clips, more leaves "
                        "gaps",
                        0, GST_CUDA_PREP_MAX_CLIP_STRIDE, GST_CUDA_PREP_DEFAULT_CLIP_STRIDE,
                        flags));
  const auto playing_flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                      GST_PARAM_MUTABLE_PLAYING);
  g_object_class_install_property(
      gobject_class, PROP_STATS,
      g_param_spec_boxed(
          "stats", "Statistics",
          "cudabatch-stats: batches, and sources, one cudabatch-source-stats per sink pad: pad, "
          "source-index, frames-in (arrived at the pad), items-batched, dropped-latest "
          "(source-policy=latest), dropped-flush, latency-samples and, with samples, "
          "latency-p50-ns, latency-p99-ns, latency-max-ns: host time from a frame's arrival at "
          "the pad to its batch leaving (clips: from the clip's first frame), over the source's "
          "last latency-window items",
          GST_TYPE_STRUCTURE, static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property(
      gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint("stats-interval", "Statistics interval",
                        "Milliseconds between cudabatch-stats element messages (the value of "
                        "stats), checked as batches leave; 0: none",
                        0, MAX_STATS_INTERVAL, DEFAULT_STATS_INTERVAL, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_LATENCY_WINDOW,
      g_param_spec_uint("latency-window", "Latency window",
                        "Items of each source the latency percentiles of stats cover (the "
                        "latest ones); a change starts the windows afresh",
                        1, MAX_LATENCY_WINDOW, DEFAULT_LATENCY_WINDOW, playing_flags));
  gst_cuda_prep_core_install_properties(gobject_class, PROP_CORE_FIRST);
}

}  // namespace cudaprep::batch
