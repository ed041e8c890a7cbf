/**
 * SECTION:element-cudacrop
 *
 * Crops device frames. The output is a view of the input: the same device
 * memory with new GstVideoMeta offsets, no copy, whenever downstream handles
 * GstVideoMeta (every cudaprep element does); otherwise the cropped pixels
 * are copied into a compact frame with one 2D copy per plane.
 *
 * After a cudaresize whose work is left to a fused kernel downstream
 * (cudaresize ! cudacrop ! cudanormalize ! cudatensorize, or into
 * cudabatch), the crop is not a view: it moves the pending resize's
 * destination rectangle by minus its corner, so the one kernel samples only
 * the crop's pixels and no 8-bit frame is written between the resize and the
 * crop (with float-intermediate, nothing is rounded before the tensor).
 *
 * The crop is given either videocrop's way (left/right/top/bottom pixels
 * removed) or as a region (x, y, width, height), which wins when width and
 * height are both set. `region` sets x, y, width and height in one step, so
 * that a crop moved while playing never shows an in-between rectangle. For NV12 and I420 the left
 * and top offsets are rounded down to even pixels, for YUY2 the left offset, as videocrop does, so
 * that chroma samples stay aligned. A crop that does not fit the frame is an error naming the
 * numbers; nothing outside the frame is ever read.
 *
 *   gst-launch-1.0 videotestsrc ! cudaframeupload !
 *       cudacrop left=100 top=50 right=100 bottom=50 ! cudaframedownload ! autovideosink
 *   gst-launch-1.0 videotestsrc ! cudaframeupload ! cudacrop region="<700,300,512,512>" ! ...
 */
#include "gstcudacrop.h"

#include <gst/video/video.h>

#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepformat-private.h>
#include "cudaprep/copy.h"
#include "base/gstcudaprepnvcodec.h"
#include "base/gstcudapreppendingmeta.h"
#include "base/gstcudapreppixelmetas.h"
#include "base/gstcudaprepview.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_crop_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_crop_debug

enum {
  PROP_0,
  PROP_LEFT,
  PROP_RIGHT,
  PROP_TOP,
  PROP_BOTTOM,
  PROP_X,
  PROP_Y,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_REGION,
};

struct CropSettings {
  gint left = 0, right = 0, top = 0, bottom = 0;  // videocrop form
  gint x = 0, y = 0, width = 0, height = 0;       // region form, used when width and height > 0
  bool uses_region() const { return width > 0 && height > 0; }
  gint *field(guint prop_id) {
    gint *fields[] = {nullptr, &left, &right, &top, &bottom, &x, &y, &width, &height};
    return prop_id > PROP_0 && prop_id <= PROP_HEIGHT ? fields[prop_id] : nullptr;
  }
};

struct GstCudaPrepCropPrivate {
  CropSettings settings;         // object lock
  cudaprep::PixelRect rect;      // in input pixels, chroma-aligned (streaming thread)
  gint settings_changed = 0;     // atomic: rect is to be computed again
  gint settings_generation = 0;  // atomic: counts property changes
  // Streaming thread: the generation the caps were last set under, and
  // whether they were sized from settings changed during that negotiation.
  gint negotiated_generation = 0;
  gboolean rect_stale = FALSE;
};

struct _GstCudaPrepCrop {
  GstCudaPrepBaseTransform parent;
  GstCudaPrepCropPrivate *priv;
};

G_DEFINE_TYPE(GstCudaPrepCrop, gst_cuda_prep_crop, GST_TYPE_CUDA_PREP_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(cudacrop, "cudacrop", GST_RANK_NONE, GST_TYPE_CUDA_PREP_CROP)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(
        GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS) ";" GST_CUDA_PREP_NVCODEC_VIDEO_CAPS(
            GST_CUDA_PREP_FRAME_FORMATS)));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS)));

static CropSettings get_settings(GstCudaPrepCrop *self) {
  GST_OBJECT_LOCK(self);
  const CropSettings settings = self->priv->settings;
  GST_OBJECT_UNLOCK(self);
  return settings;
}

// The crop of a frame of `width` x `height` in `format`; FALSE with a reason
// when it does not fit.
static gboolean compute_rect(const CropSettings &settings, GstVideoFormat video_format, gint width,
                             gint height, cudaprep::PixelRect *rect, gchar **reason) {
  if (settings.uses_region()) {
    *rect = {settings.x, settings.y, settings.width, settings.height};
    if (static_cast<gint64>(rect->x) + rect->width > width ||
        static_cast<gint64>(rect->y) + rect->height > height) {
      *reason = g_strdup_printf(
          "crop region x=%d y=%d width=%d height=%d does not fit the %dx%d input frame", rect->x,
          rect->y, rect->width, rect->height, width, height);
      return FALSE;
    }
  } else {
    const gint64 crop_width = static_cast<gint64>(width) - settings.left - settings.right;
    const gint64 crop_height = static_cast<gint64>(height) - settings.top - settings.bottom;
    if (crop_width < 1 || crop_height < 1) {
      *reason = g_strdup_printf(
          "crop left=%d right=%d top=%d bottom=%d removes the whole %dx%d input frame",
          settings.left, settings.right, settings.top, settings.bottom, width, height);
      return FALSE;
    }
    *rect = {settings.left, settings.top, static_cast<gint>(crop_width),
             static_cast<gint>(crop_height)};
  }
  cudaprep::PixelFormat format;
  if (gst_cuda_prep_pixel_format(video_format, &format) && cudaprep::is_chroma_subsampled(format)) {
    rect->x &= ~1;
    if (format != cudaprep::PixelFormat::kYUY2) rect->y &= ~1;
  }
  return TRUE;
}

static gboolean compute_rect_for(const CropSettings &settings, const GstVideoInfo *info,
                                 cudaprep::PixelRect *rect, gchar **reason) {
  return compute_rect(settings, GST_VIDEO_INFO_FORMAT(info), GST_VIDEO_INFO_WIDTH(info),
                      GST_VIDEO_INFO_HEIGHT(info), rect, reason);
}

// Maps one width/height caps field through the crop: input sizes grow by
// what is removed, output sizes shrink by it. A field the caps leave out
// stays out (unset `result`).
static gboolean transform_dimension(const GValue *value, GValue *result, gint64 delta) {
  if (value == nullptr) return TRUE;
  if (G_VALUE_HOLDS_INT(value)) {
    const gint64 size = g_value_get_int(value) + delta;
    if (size < 1 || size > G_MAXINT) return FALSE;
    g_value_init(result, G_TYPE_INT);
    g_value_set_int(result, static_cast<gint>(size));
    return TRUE;
  }
  if (GST_VALUE_HOLDS_INT_RANGE(value)) {
    const gint64 min = MAX(gst_value_get_int_range_min(value) + delta, 1);
    const gint64 max = MIN(gst_value_get_int_range_max(value) + delta, G_MAXINT);
    if (min > max) return FALSE;
    // A range needs min < max; one size left is a plain int.
    if (min == max) {
      g_value_init(result, G_TYPE_INT);
      g_value_set_int(result, static_cast<gint>(min));
    } else {
      g_value_init(result, GST_TYPE_INT_RANGE);
      gst_value_set_int_range(result, static_cast<gint>(min), static_cast<gint>(max));
    }
    return TRUE;
  }
  return FALSE;
}

// `size` exactly, or any size from `min` up.
static void set_size_value(GValue *result, gint size, gint64 min) {
  if (size > 0) {
    g_value_init(result, G_TYPE_INT);
    g_value_set_int(result, size);
  } else {
    g_value_init(result, GST_TYPE_INT_RANGE);
    gst_value_set_int_range(result, static_cast<gint>(min), G_MAXINT);
  }
}

// The other side's caps of one structure; FALSE when no size fits.
static gboolean transform_structure(const CropSettings &settings, GstPadDirection direction,
                                    GstStructure *structure) {
  GValue width = G_VALUE_INIT, height = G_VALUE_INIT;
  gboolean ok = TRUE;
  if (settings.uses_region()) {
    // Output: the region's size. Input: any frame reaching the far corner.
    const gint64 right = static_cast<gint64>(settings.x) + settings.width;
    const gint64 bottom = static_cast<gint64>(settings.y) + settings.height;
    if (right > G_MAXINT || bottom > G_MAXINT) return FALSE;
    const bool output = direction == GST_PAD_SINK;
    set_size_value(&width, output ? settings.width : 0, right);
    set_size_value(&height, output ? settings.height : 0, bottom);
  } else {
    // 64-bit: two G_MAXINT edges must not wrap into a negative crop.
    const gint64 removed_x = static_cast<gint64>(settings.left) + settings.right;
    const gint64 removed_y = static_cast<gint64>(settings.top) + settings.bottom;
    const gint64 sign = direction == GST_PAD_SINK ? -1 : 1;
    ok = transform_dimension(gst_structure_get_value(structure, "width"), &width,
                             sign * removed_x) &&
         transform_dimension(gst_structure_get_value(structure, "height"), &height,
                             sign * removed_y);
  }
  if (ok && G_IS_VALUE(&width)) gst_structure_take_value(structure, "width", &width);
  if (ok && G_IS_VALUE(&height)) gst_structure_take_value(structure, "height", &height);
  if (G_IS_VALUE(&width)) g_value_unset(&width);
  if (G_IS_VALUE(&height)) g_value_unset(&height);
  return ok;
}

// `caps` with any width and height.
static GstCaps *any_size_of(GstCaps *caps) {
  GstCaps *any_size = gst_caps_copy(caps);
  for (guint i = 0; i < gst_caps_get_size(any_size); ++i)
    gst_structure_set(gst_caps_get_structure(any_size, i), "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
                      "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, nullptr);
  return any_size;
}

// The exact sizes first. A frame the crop does not fit must reach
// sink_event, which names it ("Impossible crop"), rather than fail as a bare
// not-negotiated upstream or gst_parse_launch's "could not link": so the
// input side also takes any size, after the exact ones, and an output side
// with no exact size (no frame upstream offers fits) offers any size.
static GstCaps *gst_cuda_prep_crop_transform_caps(GstBaseTransform *trans,
                                                  GstPadDirection direction, GstCaps *caps,
                                                  GstCaps *filter) {
  auto *self = GST_CUDA_PREP_CROP(trans);
  const CropSettings settings = get_settings(self);
  GstCaps *result = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstStructure *structure = gst_structure_copy(gst_caps_get_structure(caps, i));
    if (transform_structure(settings, direction, structure))
      gst_caps_append_structure_full(result, structure,
                                     gst_caps_features_copy(gst_caps_get_features(caps, i)));
    else
      gst_structure_free(structure);
  }
  if (direction == GST_PAD_SRC || gst_caps_is_empty(result))
    result = gst_caps_merge(result, any_size_of(caps));
  return gst_cuda_prep_caps_filter_result(GST_ELEMENT(trans), direction, caps, result, filter);
}

static gboolean post_impossible_crop(GstCudaPrepCrop *self, gchar *reason) {
  GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Impossible crop: %s", reason), (nullptr));
  g_free(reason);
  return FALSE;
}

// What the sink pad takes: downstream's caps through the crop, the exact
// sizes first. GstBaseTransform's own answer would put downstream's caps
// unchanged first when they intersect the any-size fallback (it prefers
// passthrough), and a source would then pick the output size as its input
// (cudacrop left=10 ! width=630 asking for 630 instead of 640).
static GstCaps *sink_caps(GstBaseTransform *trans, GstCaps *filter) {
  GstCaps *src_template = gst_pad_get_pad_template_caps(GST_BASE_TRANSFORM_SRC_PAD(trans));
  GstCaps *downstream = gst_pad_peer_query_caps(GST_BASE_TRANSFORM_SRC_PAD(trans), src_template);
  gst_caps_unref(src_template);
  // Through the class's transform_caps: it also maps nvcodec's CUDAMemory.
  GstCaps *upstream =
      GST_BASE_TRANSFORM_GET_CLASS(trans)->transform_caps(trans, GST_PAD_SRC, downstream, filter);
  gst_caps_unref(downstream);
  GstCaps *sink_template = gst_pad_get_pad_template_caps(GST_BASE_TRANSFORM_SINK_PAD(trans));
  GstCaps *result = gst_caps_intersect_full(upstream, sink_template, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref(sink_template);
  gst_caps_unref(upstream);
  return result;
}

// Accept-caps agrees with the caps query, the any-size fallback included:
// GstBaseTransform's own answer refuses a frame the crop leaves no pixels
// of, so the caps never arrived, upstream failed to negotiate and its source
// posted "Internal data stream error" first, never "Impossible crop".
static gboolean gst_cuda_prep_crop_query(GstBaseTransform *trans, GstPadDirection direction,
                                         GstQuery *query) {
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE(query) == GST_QUERY_CAPS) {
    GstCaps *filter = nullptr;
    gst_query_parse_caps(query, &filter);
    GstCaps *result = sink_caps(trans, filter);
    gst_query_set_caps_result(query, result);
    gst_caps_unref(result);
    return TRUE;
  }
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE(query) == GST_QUERY_ACCEPT_CAPS) {
    GstCaps *caps = nullptr;
    gst_query_parse_accept_caps(query, &caps);
    GstCaps *taken = sink_caps(trans, nullptr);
    gst_query_set_accept_caps_result(query, gst_caps_is_subset(caps, taken));
    gst_caps_unref(taken);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_crop_parent_class)->query(trans, direction, query);
}

static gchar *gst_cuda_prep_crop_input_error(GstCudaPrepBaseTransform *base,
                                             const GstVideoInfo *in_info) {
  cudaprep::PixelRect rect;
  gchar *reason = nullptr;
  if (compute_rect_for(get_settings(GST_CUDA_PREP_CROP(base)), in_info, &rect, &reason))
    return nullptr;
  gchar *error = g_strdup_printf("Impossible crop: %s", reason);
  g_free(reason);
  return error;
}

static gboolean gst_cuda_prep_crop_set_info(GstCudaPrepBaseTransform *base, GstCaps *,
                                            const GstVideoInfo *in_info, GstCaps *,
                                            const GstVideoInfo *out_info) {
  auto *self = GST_CUDA_PREP_CROP(base);
  GstCudaPrepCropPrivate *priv = self->priv;
  gchar *reason = nullptr;
  g_atomic_int_set(&priv->settings_changed, 0);
  // The settings and the count of changes they hold, read together: a
  // change between two reads would be in the rectangle but not counted.
  GST_OBJECT_LOCK(self);
  const CropSettings settings = priv->settings;
  const gint generation = g_atomic_int_get(&priv->settings_generation);
  GST_OBJECT_UNLOCK(self);
  const gboolean changed_since = generation != priv->negotiated_generation;
  priv->negotiated_generation = generation;
  priv->rect_stale = FALSE;
  if (!compute_rect_for(settings, in_info, &priv->rect, &reason))
    return post_impossible_crop(self, reason);
  if (priv->rect.width != GST_VIDEO_INFO_WIDTH(out_info) ||
      priv->rect.height != GST_VIDEO_INFO_HEIGHT(out_info)) {
    if (changed_since) {
      // The application changed the crop while these caps were made from
      // the old one: negotiate again before the next frame.
      GST_INFO_OBJECT(self, "the crop changed while its caps were negotiated: again");
      priv->rect_stale = TRUE;
      gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
      return TRUE;
    }
    GST_ELEMENT_ERROR(
        self, CORE, NEGOTIATION,
        ("Output caps %dx%d do not match the %dx%d crop", GST_VIDEO_INFO_WIDTH(out_info),
         GST_VIDEO_INFO_HEIGHT(out_info), priv->rect.width, priv->rect.height),
        (nullptr));
    return FALSE;
  }
  GST_INFO_OBJECT(self, "crop %dx%d at (%d,%d)", priv->rect.width, priv->rect.height, priv->rect.x,
                  priv->rect.y);
  return TRUE;
}

// The region comes from the settings now, not from the last caps: after a
// live property change the upstream renegotiation asks before this element
// has renegotiated.
static gboolean gst_cuda_prep_crop_region_read(GstCudaPrepBaseTransform *base,
                                               const GstVideoInfo *in_info,
                                               GstCudaPrepRegion *region) {
  gchar *reason = nullptr;
  *region = GstCudaPrepRegion{};
  // Of the frame the caps describe: a pending resize upstream must not take
  // it for a part of its own input.
  region->of_result = TRUE;
  if (compute_rect_for(get_settings(GST_CUDA_PREP_CROP(base)), in_info, &region->rect, &reason))
    return TRUE;
  g_free(reason);  // named when the caps arrive
  return FALSE;
}

// A crop that moved but kept its size leaves the caps as they were, and
// GstBaseTransform calls set_caps only for new caps: the new position is
// taken here, from the next frame on. A new size comes through set_caps.
static void take_new_position(GstCudaPrepCrop *self) {
  GstCudaPrepCropPrivate *priv = self->priv;
  if (!g_atomic_int_compare_and_exchange(&priv->settings_changed, 1, 0)) return;
  cudaprep::PixelRect rect;
  gchar *reason = nullptr;
  if (!compute_rect_for(
          get_settings(self),
          gst_cuda_prep_base_transform_get_in_info(GST_CUDA_PREP_BASE_TRANSFORM(self)), &rect,
          &reason)) {
    g_free(reason);  // renegotiation names it
    return;
  }
  if (rect.width != priv->rect.width || rect.height != priv->rect.height) return;
  priv->rect = rect;
  GST_INFO_OBJECT(self, "crop moved to (%d,%d)", rect.x, rect.y);
}

// A crop whose caps were made from an older size is stale until caps of
// its size come. If the application has since set a crop of the caps' size
// again (back and forth), the renegotiation gives equal caps, which
// GstBaseTransform does not set again: the crop takes its rectangle here,
// else every frame would be dropped until the next change of size.
static gboolean take_settled_rect(GstCudaPrepCrop *self) {
  GstCudaPrepCropPrivate *priv = self->priv;
  auto *base = GST_CUDA_PREP_BASE_TRANSFORM(self);
  const GstVideoInfo *out_info = gst_cuda_prep_base_transform_get_out_info(base);
  cudaprep::PixelRect rect;
  gchar *reason = nullptr;
  if (!compute_rect_for(get_settings(self), gst_cuda_prep_base_transform_get_in_info(base), &rect,
                        &reason)) {
    g_free(reason);  // renegotiation names it
    return FALSE;
  }
  if (rect.width != GST_VIDEO_INFO_WIDTH(out_info) ||
      rect.height != GST_VIDEO_INFO_HEIGHT(out_info))
    return FALSE;  // caps of the new size are on their way
  priv->rect = rect;
  priv->rect_stale = FALSE;
  GST_INFO_OBJECT(self, "the crop is back to its caps' size: %dx%d at (%d,%d)", rect.width,
                  rect.height, rect.x, rect.y);
  return TRUE;
}

// Whether upstream left its resize to a fused kernel downstream (only
// cudaresize leaves work in video frames; cudanormalize's are planar).
static bool holds_pending_resize(GstBuffer *buffer) {
  const GstCudaPrepPendingMeta *pending = gst_buffer_get_cuda_prep_pending_meta(buffer);
  return pending != nullptr && pending->has_resize;
}

// A view when downstream reads GstVideoMeta: the input buffer itself with
// its GstVideoMeta moved, as videocrop's in-place crop (a new buffer sharing
// the memory would make the upload pool discard the frame and allocate one
// per frame). A frame uploaded for the region of earlier settings (on its
// way when they changed) lacks this crop's pixels: dropped, never shown.
static GstCudaPrepOutputPlan gst_cuda_prep_crop_plan_output(GstCudaPrepBaseTransform *base,
                                                            GstBuffer *inbuf) {
  auto *self = GST_CUDA_PREP_CROP(base);
  if (self->priv->rect_stale && !take_settled_rect(self)) {
    GST_INFO_OBJECT(self, "dropping a frame: the crop changed while its caps were negotiated");
    return GST_CUDA_PREP_OUTPUT_DROP;
  }
  take_new_position(self);
  // A pending resize: the crop composes into it (the upload's region meta
  // names pixels of the held source, not of this element's input).
  if (holds_pending_resize(inbuf)) {
    if (gst_cuda_prep_base_transform_downstream_runs_pending(base))
      return GST_CUDA_PREP_OUTPUT_IN_PLACE;
    GST_ELEMENT_ERROR(self, STREAM, FAILED,
                      ("cudacrop received a resize left pending upstream, but its downstream no "
                       "longer runs pending work"),
                      (nullptr));
    return GST_CUDA_PREP_OUTPUT_ERROR;
  }
  if (!gst_cuda_prep_buffer_holds_rect(inbuf, self->priv->rect)) {
    GST_INFO_OBJECT(self, "dropping a frame uploaded for another crop region (settings changed)");
    return GST_CUDA_PREP_OUTPUT_DROP;
  }
  return gst_cuda_prep_base_transform_downstream_reads_views(base) ? GST_CUDA_PREP_OUTPUT_IN_PLACE
                                                                   : GST_CUDA_PREP_OUTPUT_RUN;
}

// The crop window of `input` (no copy).
static gboolean input_view(GstCudaPrepCrop *self, GstBuffer *input, cudaprep::Image *view) {
  if (!gst_cuda_prep_base_transform_input_image(GST_CUDA_PREP_BASE_TRANSFORM(self), input, view))
    return FALSE;
  const cudaprep::PixelRect &rect = self->priv->rect;
  *view = cudaprep::sub_image(*view, rect.x, rect.y, rect.width, rect.height);
  return TRUE;
}

// Folds the crop into the pending resize of `outbuf`, which holds upstream's
// source frame: the resize's destination rectangle (the whole caps frame by
// default) moves by minus the crop's corner.
static void crop_pending_resize(GstCudaPrepCrop *self, GstBuffer *outbuf) {
  const GstVideoInfo *in_info =
      gst_cuda_prep_base_transform_get_in_info(GST_CUDA_PREP_BASE_TRANSFORM(self));
  GstCudaPrepPendingMeta *pending = gst_buffer_get_cuda_prep_pending_meta(outbuf);
  cudaprep::PixelRect &placed = pending->resize.dst_rect;
  if (placed.width == 0 && placed.height == 0)
    placed =
        cudaprep::PixelRect{0, 0, GST_VIDEO_INFO_WIDTH(in_info), GST_VIDEO_INFO_HEIGHT(in_info)};
  placed.x -= self->priv->rect.x;
  placed.y -= self->priv->rect.y;
  pending->cropped = TRUE;
}

static gboolean gst_cuda_prep_crop_annotate_output(GstCudaPrepBaseTransform *base, GstBuffer *inbuf,
                                                   GstBuffer *outbuf, GstCudaPrepOutputPlan plan) {
  auto *self = GST_CUDA_PREP_CROP(base);
  GstCudaPrepPixelMove move = GstCudaPrepPixelMove::kNewFrame;
  if (plan == GST_CUDA_PREP_OUTPUT_IN_PLACE && holds_pending_resize(outbuf)) {
    crop_pending_resize(self, outbuf);
    move = GstCudaPrepPixelMove::kPending;
  } else if (plan == GST_CUDA_PREP_OUTPUT_IN_PLACE) {
    cudaprep::Image view;
    if (!input_view(self, outbuf, &view)) return FALSE;
    gst_cuda_prep_buffer_set_view(outbuf, view);
    move = GstCudaPrepPixelMove::kView;
  }
  const cudaprep::PixelRect &rect = self->priv->rect;
  cudaprep::FrameGeometry crop;
  crop.crop_x = rect.x;
  crop.crop_y = rect.y;
  gst_cuda_prep_buffer_move_pixel_metas(inbuf, outbuf, crop, rect.width, rect.height, move);
  return TRUE;
}

// Upstream may leave its resize here when downstream takes pending work:
// the crop then composes into it (crop_pending_resize) instead of a view.
static gboolean gst_cuda_prep_crop_accepts_pending(GstCudaPrepBaseTransform *base) {
  return gst_cuda_prep_base_transform_ask_downstream_takes_pending(base);
}

static GstFlowReturn gst_cuda_prep_crop_process(GstCudaPrepBaseTransform *base, GstBuffer *inbuf,
                                                GstBuffer *outbuf) {
  auto *self = GST_CUDA_PREP_CROP(base);
  cudaprep::Image view, compact;
  if (!input_view(self, inbuf, &view) ||
      !gst_cuda_prep_base_transform_output_image(base, outbuf, &compact) ||
      !CUDAPREP_CHECK(
          self, cudaprep::copy_image(view, compact, gst_cuda_prep_base_transform_get_stream(base))))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

// `<x, y, width, height>` into the region form; FALSE with a warning when
// the value is not four integers >= 0.
static gboolean parse_region(const GValue *value, CropSettings *settings) {
  if (gst_value_array_get_size(value) != 4) return FALSE;
  gint fields[4];
  for (guint i = 0; i < 4; ++i) {
    const GValue *item = gst_value_array_get_value(value, i);
    if (!G_VALUE_HOLDS_INT(item) || g_value_get_int(item) < 0) return FALSE;
    fields[i] = g_value_get_int(item);
  }
  settings->x = fields[0];
  settings->y = fields[1];
  settings->width = fields[2];
  settings->height = fields[3];
  return TRUE;
}

static void gst_cuda_prep_crop_set_property(GObject *object, guint prop_id, const GValue *value,
                                            GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_CROP(object);
  GST_OBJECT_LOCK(self);
  CropSettings &settings = self->priv->settings;
  gint *field = settings.field(prop_id);
  if (field != nullptr) {
    *field = g_value_get_int(value);
  } else if (prop_id == PROP_REGION) {
    if (!parse_region(value, &settings))
      g_warning(
          "cudacrop: region takes four integers >= 0, <x,y,width,height>; keeping <%d,%d,%d,%d>",
          settings.x, settings.y, settings.width, settings.height);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
  // Counted with the change, under the same lock: set_info() reads both
  // together.
  g_atomic_int_inc(&self->priv->settings_generation);
  GST_OBJECT_UNLOCK(self);
  g_atomic_int_set(&self->priv->settings_changed, 1);
  // The output size may change: renegotiate.
  gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
  // ...and upstream copies another region.
  gst_base_transform_reconfigure_sink(GST_BASE_TRANSFORM(self));
}

static void append_int(GValue *array, gint value) {
  GValue item = G_VALUE_INIT;
  g_value_init(&item, G_TYPE_INT);
  g_value_set_int(&item, value);
  gst_value_array_append_and_take_value(array, &item);
}

static void gst_cuda_prep_crop_get_property(GObject *object, guint prop_id, GValue *value,
                                            GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_CROP(object);
  GST_OBJECT_LOCK(self);
  CropSettings &settings = self->priv->settings;
  gint *field = settings.field(prop_id);
  if (field != nullptr) {
    g_value_set_int(value, *field);
  } else if (prop_id == PROP_REGION) {
    for (gint item : {settings.x, settings.y, settings.width, settings.height})
      append_int(value, item);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_prep_crop_finalize(GObject *object) {
  delete GST_CUDA_PREP_CROP(object)->priv;
  G_OBJECT_CLASS(gst_cuda_prep_crop_parent_class)->finalize(object);
}

static void gst_cuda_prep_crop_class_init(GstCudaPrepCropClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstCudaPrepBaseTransformClass *base_class = GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_cuda_prep_crop_set_property;
  gobject_class->get_property = gst_cuda_prep_crop_get_property;
  gobject_class->finalize = gst_cuda_prep_crop_finalize;
  const auto flags =
      static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_CONTROLLABLE);
  struct {
    guint id;
    const char *name, *nick, *blurb;
  } const properties[] = {
      {PROP_LEFT, "left", "Left", "Pixels to crop at the left (videocrop form)"},
      {PROP_RIGHT, "right", "Right", "Pixels to crop at the right (videocrop form)"},
      {PROP_TOP, "top", "Top", "Pixels to crop at the top (videocrop form)"},
      {PROP_BOTTOM, "bottom", "Bottom", "Pixels to crop at the bottom (videocrop form)"},
      {PROP_X, "x", "X", "Left edge of the crop region (region form)"},
      {PROP_Y, "y", "Y", "Top edge of the crop region (region form)"},
      {PROP_WIDTH, "width", "Width",
       "Width of the crop region; with height > 0 the region form replaces left/right/top/bottom "
       "(0: unused)"},
      {PROP_HEIGHT, "height", "Height",
       "Height of the crop region; with width > 0 the region form replaces left/right/top/bottom "
       "(0: unused)"},
  };
  for (const auto &property : properties)
    g_object_class_install_property(
        gobject_class, property.id,
        g_param_spec_int(property.name, property.nick, property.blurb, 0, G_MAXINT, 0, flags));
  g_object_class_install_property(
      gobject_class, PROP_REGION,
      gst_param_spec_array(
          "region", "Region",
          "x, y, width and height of the crop region in one step, e.g. \"<700,300,512,512>\": a "
          "region moved while playing never shows an in-between rectangle. Default <0,0,0,0> "
          "(region form unused)",
          g_param_spec_int("region-value", "Region value", "x, y, width or height", 0, G_MAXINT, 0,
                           static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
          flags));

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA crop", "Filter/Effect/Video/Hardware",
      "Crops pitched CUDA device frames as zero-copy views (new offsets into the same memory), "
      "or as compact copies when downstream cannot read views",
      "cudaprep developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_cuda_prep_crop_transform_caps;
  trans_class->query = gst_cuda_prep_crop_query;
  gst_cuda_prep_base_transform_class_read_nvcodec_frames(base_class);
  base_class->input_error = gst_cuda_prep_crop_input_error;
  base_class->set_info = gst_cuda_prep_crop_set_info;
  base_class->plan_output = gst_cuda_prep_crop_plan_output;
  base_class->annotate_output = gst_cuda_prep_crop_annotate_output;
  base_class->process = gst_cuda_prep_crop_process;
  base_class->region_read = gst_cuda_prep_crop_region_read;
  base_class->accepts_pending = gst_cuda_prep_crop_accepts_pending;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_crop_debug, "cudacrop", 0, "CUDA crop");
}

static void gst_cuda_prep_crop_init(GstCudaPrepCrop *self) {
  self->priv = new GstCudaPrepCropPrivate();
}
