/**
 * SECTION:element-cudacrop
 *
 * Crops device frames. The output is a view of the input: the same device
 * memory with new GstVideoMeta offsets, no copy, whenever downstream handles
 * GstVideoMeta (every cudaprep element does); otherwise the cropped pixels
 * are copied into a compact frame with one 2D copy per plane.
 *
 * The crop is given either videocrop's way (left/right/top/bottom pixels
 * removed) or as a region (x, y, width, height), which wins when width and
 * height are both set. For NV12 and I420 the left and top offsets are
 * rounded down to even pixels, for YUY2 the left offset, as videocrop does,
 * so that chroma samples stay aligned. A crop that does not fit the frame is
 * an error naming the numbers; nothing outside the frame is ever read.
 *
 *   gst-launch-1.0 videotestsrc ! cudaframeupload ! cudacrop left=100 top=50 right=100 bottom=50 !
 * cudaframedownload ! autovideosink gst-launch-1.0 videotestsrc ! cudaframeupload ! cudacrop x=700
 * y=300 width=512 height=512 ! ...
 */
#include "gstcudacrop.h"

#include <gst/video/video.h>

#include "cudaprep/copy.h"
#include "gstcudaprepformat.h"
#include "gstcudaprepmemory.h"
#include "gstcudaprepmeta.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_crop_debug);
#define GST_CAT_DEFAULT gst_cuda_crop_debug

enum {
  PROP_0,
  PROP_LEFT,
  PROP_RIGHT,
  PROP_TOP,
  PROP_BOTTOM,
  PROP_X,
  PROP_Y,
  PROP_WIDTH,
  PROP_HEIGHT
};

struct CropRect {
  gint x, y, width, height;
};

struct CropSettings {
  gint left, right, top, bottom;  // videocrop form
  gint x, y, width, height;       // region form, used when width and height > 0
  bool uses_region() const { return width > 0 && height > 0; }
};

struct _GstCudaCrop {
  GstCudaPrepBaseTransform parent;
  CropSettings settings;  // object lock
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  CropRect rect;              // in input pixels, chroma-aligned
  gboolean downstream_views;  // downstream reads GstVideoMeta: output views
  gint settings_changed;      // atomic: rect is to be computed again
};

G_DEFINE_TYPE(GstCudaCrop, gst_cuda_crop, GST_TYPE_CUDA_PREP_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(cudacrop, "cudacrop", GST_RANK_NONE, GST_TYPE_CUDA_CROP)

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS)));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS)));

static CropSettings get_settings(GstCudaCrop *self) {
  GST_OBJECT_LOCK(self);
  const CropSettings settings = self->settings;
  GST_OBJECT_UNLOCK(self);
  return settings;
}

// The crop of a frame of `width` x `height` in `format`; FALSE with a reason
// when it does not fit.
static gboolean compute_rect(const CropSettings &settings, GstVideoFormat video_format, gint width,
                             gint height, CropRect *rect, gchar **reason) {
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
    *rect = {settings.left, settings.top,
             static_cast<gint>(static_cast<gint64>(width) - settings.left - settings.right),
             static_cast<gint>(static_cast<gint64>(height) - settings.top - settings.bottom)};
    if (static_cast<gint64>(width) - settings.left - settings.right < 1 ||
        static_cast<gint64>(height) - settings.top - settings.bottom < 1) {
      *reason = g_strdup_printf(
          "crop left=%d right=%d top=%d bottom=%d removes the whole %dx%d input frame",
          settings.left, settings.right, settings.top, settings.bottom, width, height);
      return FALSE;
    }
  }
  cudaprep::PixelFormat format;
  if (gst_cuda_prep_pixel_format(video_format, &format) && cudaprep::is_chroma_subsampled(format)) {
    rect->x &= ~1;
    if (format != cudaprep::PixelFormat::kYUY2) rect->y &= ~1;
  }
  return TRUE;
}

// Maps one width/height caps field through the crop.
static gboolean transform_dimension(const GValue *value, GValue *result, gint64 removed,
                                    gint region_size, GstPadDirection direction) {
  if (region_size > 0 && direction == GST_PAD_SINK) {
    g_value_init(result, G_TYPE_INT);
    g_value_set_int(result, region_size);
    return TRUE;
  }
  // Input sizes grow by what is removed; output sizes shrink by it.
  const gint64 delta = direction == GST_PAD_SINK ? -removed : removed;
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

static GstCaps *gst_cuda_crop_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                             GstCaps *caps, GstCaps *filter) {
  auto *self = GST_CUDA_CROP(trans);
  const CropSettings settings = get_settings(self);
  GstCaps *result = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstStructure *structure = gst_structure_copy(gst_caps_get_structure(caps, i));
    const bool region = settings.uses_region();
    // 64-bit: two G_MAXINT edges must not wrap into a negative crop.
    gint64 removed_x = region ? 0 : static_cast<gint64>(settings.left) + settings.right;
    gint64 removed_y = region ? 0 : static_cast<gint64>(settings.top) + settings.bottom;
    if (region && direction == GST_PAD_SRC) {
      // Any input at least as large as the region's far corner.
      removed_x = settings.x;
      removed_y = settings.y;
    }
    GValue width = G_VALUE_INIT, height = G_VALUE_INIT;
    const gboolean ok = transform_dimension(gst_structure_get_value(structure, "width"), &width,
                                            removed_x, region ? settings.width : 0, direction) &&
                        transform_dimension(gst_structure_get_value(structure, "height"), &height,
                                            removed_y, region ? settings.height : 0, direction);
    const gint64 region_right = static_cast<gint64>(settings.x) + settings.width;
    const gint64 region_bottom = static_cast<gint64>(settings.y) + settings.height;
    // A region reaching past G_MAXINT fits no frame.
    const gboolean fits = !region || (region_right <= G_MAXINT && region_bottom <= G_MAXINT);
    if (ok && fits) {
      if (region && direction == GST_PAD_SRC) {
        gst_value_set_int_range(&width, static_cast<gint>(region_right), G_MAXINT);
        gst_value_set_int_range(&height, static_cast<gint>(region_bottom), G_MAXINT);
      }
      gst_structure_take_value(structure, "width", &width);
      gst_structure_take_value(structure, "height", &height);
      gst_caps_append_structure_full(result, structure,
                                     gst_caps_features_copy(gst_caps_get_features(caps, i)));
    } else {
      if (G_IS_VALUE(&width)) g_value_unset(&width);
      if (G_IS_VALUE(&height)) g_value_unset(&height);
      gst_structure_free(structure);
    }
  }
  if (direction == GST_PAD_SRC) {
    // Also take any input size, after the exact ones: a frame the crop does
    // not fit then reaches sink_event and gets a clear error instead of a
    // bare not-negotiated upstream.
    GstCaps *any_size = gst_caps_copy(caps);
    for (guint i = 0; i < gst_caps_get_size(any_size); ++i)
      gst_structure_set(gst_caps_get_structure(any_size, i), "width", GST_TYPE_INT_RANGE, 1,
                        G_MAXINT, "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, nullptr);
    result = gst_caps_merge(result, any_size);
  }
  if (filter != nullptr) {
    GstCaps *filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(result);
    result = filtered;
  }
  GST_DEBUG_OBJECT(self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
                   direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

// An impossible crop is reported as such when the input caps arrive, rather
// than as a bare not-negotiated.
static gboolean gst_cuda_crop_sink_event(GstBaseTransform *trans, GstEvent *event) {
  auto *self = GST_CUDA_CROP(trans);
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    GstCaps *caps = nullptr;
    gst_event_parse_caps(event, &caps);
    GstVideoInfo info;
    CropRect rect;
    gchar *reason = nullptr;
    if (!gst_cuda_prep_frame_info_from_caps(GST_ELEMENT(self), caps, &info)) {
      gst_event_unref(event);
      return FALSE;
    }
    if (!compute_rect(get_settings(self), GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_INFO_WIDTH(&info),
                      GST_VIDEO_INFO_HEIGHT(&info), &rect, &reason)) {
      GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Impossible crop: %s", reason), (nullptr));
      g_free(reason);
      gst_event_unref(event);
      return FALSE;
    }
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_crop_parent_class)->sink_event(trans, event);
}

static gboolean gst_cuda_crop_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  auto *self = GST_CUDA_CROP(trans);
  if (!gst_cuda_prep_frame_info_from_caps(GST_ELEMENT(self), incaps, &self->in_info) ||
      !gst_cuda_prep_frame_info_from_caps(GST_ELEMENT(self), outcaps, &self->out_info))
    return FALSE;
  gchar *reason = nullptr;
  g_atomic_int_set(&self->settings_changed, 0);
  if (!compute_rect(get_settings(self), GST_VIDEO_INFO_FORMAT(&self->in_info),
                    GST_VIDEO_INFO_WIDTH(&self->in_info), GST_VIDEO_INFO_HEIGHT(&self->in_info),
                    &self->rect, &reason)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Impossible crop: %s", reason), (nullptr));
    g_free(reason);
    return FALSE;
  }
  if (self->rect.width != GST_VIDEO_INFO_WIDTH(&self->out_info) ||
      self->rect.height != GST_VIDEO_INFO_HEIGHT(&self->out_info)) {
    GST_ELEMENT_ERROR(
        self, CORE, NEGOTIATION,
        ("Output caps %dx%d do not match the %dx%d crop", GST_VIDEO_INFO_WIDTH(&self->out_info),
         GST_VIDEO_INFO_HEIGHT(&self->out_info), self->rect.width, self->rect.height),
        (nullptr));
    return FALSE;
  }
  GST_INFO_OBJECT(self, "crop %dx%d at (%d,%d)", self->rect.width, self->rect.height, self->rect.x,
                  self->rect.y);
  return TRUE;
}

static gboolean gst_cuda_crop_decide_allocation(GstBaseTransform *trans, GstQuery *query) {
  auto *self = GST_CUDA_CROP(trans);
  self->downstream_views = gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  GST_DEBUG_OBJECT(self, "downstream %s GstVideoMeta: %s",
                   self->downstream_views ? "reads" : "ignores",
                   self->downstream_views ? "zero-copy views" : "compact copies");
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_crop_parent_class)->decide_allocation(trans, query);
}

// The crop window of `input` as an image view (no copy).
static gboolean input_view(GstCudaCrop *self, GstBuffer *input, cudaprep::Image *view) {
  const gchar *error = nullptr;
  if (!gst_cuda_prep_buffer_device_image(input, &self->in_info, view, &error)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Input buffer is not a device frame: %s", error),
                      (nullptr));
    return FALSE;
  }
  *view =
      cudaprep::sub_image(*view, self->rect.x, self->rect.y, self->rect.width, self->rect.height);
  return TRUE;
}

// Tells upstream (cudaframeupload) which region of each frame this element
// reads, so that only that region crosses PCIe. The region comes from the
// settings now, not from the last caps: after a live property change the
// upstream renegotiation asks before this element has renegotiated.
static gboolean gst_cuda_crop_propose_allocation(GstBaseTransform *trans, GstQuery *decide_query,
                                                 GstQuery *query) {
  auto *self = GST_CUDA_CROP(trans);
  if (!GST_BASE_TRANSFORM_CLASS(gst_cuda_crop_parent_class)
           ->propose_allocation(trans, decide_query, query))
    return FALSE;
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  CropRect rect;
  gchar *reason = nullptr;
  if (gst_base_transform_is_passthrough(trans) || caps == nullptr ||
      !gst_video_info_from_caps(&info, caps))
    return TRUE;
  if (!compute_rect(get_settings(self), GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_INFO_WIDTH(&info),
                    GST_VIDEO_INFO_HEIGHT(&info), &rect, &reason)) {
    g_free(reason);  // named when the caps arrive
    return TRUE;
  }
  gst_cuda_prep_query_add_region(query, rect.x, rect.y, rect.width, rect.height, 0, 0);
  return TRUE;
}

// A frame uploaded for the region of earlier settings (it was on its way
// when they changed) lacks this crop's pixels: it is dropped, never shown.
static gboolean frame_holds_crop(GstCudaCrop *self, GstBuffer *input) {
  if (gst_cuda_prep_buffer_holds_region(input, self->rect.x, self->rect.y, self->rect.width,
                                        self->rect.height))
    return TRUE;
  GST_INFO_OBJECT(self, "dropping a frame uploaded for another crop region (settings changed)");
  return FALSE;
}

// A crop that moved but kept its size leaves the caps as they were, and
// GstBaseTransform calls set_caps only for new caps: the new position is
// taken here, from the next frame on. A new size comes through set_caps.
static void take_new_position(GstCudaCrop *self) {
  if (!g_atomic_int_compare_and_exchange(&self->settings_changed, 1, 0)) return;
  CropRect rect;
  gchar *reason = nullptr;
  if (!compute_rect(get_settings(self), GST_VIDEO_INFO_FORMAT(&self->in_info),
                    GST_VIDEO_INFO_WIDTH(&self->in_info), GST_VIDEO_INFO_HEIGHT(&self->in_info),
                    &rect, &reason)) {
    g_free(reason);  // renegotiation names it
    return;
  }
  if (rect.width != self->rect.width || rect.height != self->rect.height) return;
  self->rect = rect;
  GST_INFO_OBJECT(self, "crop moved to (%d,%d)", rect.x, rect.y);
}

static GstFlowReturn gst_cuda_crop_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *input,
                                                         GstBuffer **output) {
  auto *self = GST_CUDA_CROP(trans);
  take_new_position(self);
  if (gst_base_transform_is_passthrough(trans) || !self->downstream_views)
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_crop_parent_class)
        ->prepare_output_buffer(trans, input, output);

  // The view is the input buffer itself with its GstVideoMeta moved, as
  // videocrop's in-place crop: a new buffer sharing the memory would make
  // the upstream pool discard the frame (its memory is not exclusive when
  // it comes back) and allocate a new one for every frame. The pool restores
  // the meta when the frame returns to it.
  if (!frame_holds_crop(self, input)) {
    *output = input;  // dropped by transform_ip, unchanged
    return GST_FLOW_OK;
  }
  cudaprep::Image view;
  if (!input_view(self, input, &view)) return GST_FLOW_ERROR;
  *output = gst_cuda_prep_buffer_in_place_output(input);
  GstVideoMeta *meta = gst_buffer_get_video_meta(*output);
  guint8 *base = gst_cuda_prep_memory_get_device_pointer(gst_buffer_peek_memory(*output, 0));
  meta->width = view.width;
  meta->height = view.height;
  for (guint plane = 0; plane < meta->n_planes; ++plane)
    meta->offset[plane] = view.planes[plane].data - base;
  return GST_FLOW_OK;
}

static GstFlowReturn gst_cuda_crop_process(GstCudaPrepBaseTransform *base, GstBuffer *inbuf,
                                           GstBuffer *outbuf) {
  auto *self = GST_CUDA_CROP(base);
  cudaprep::Image view, compact;
  const gchar *error = nullptr;
  if (!input_view(self, inbuf, &view)) return GST_FLOW_ERROR;
  if (!gst_cuda_prep_buffer_device_image(outbuf, &self->out_info, &compact, &error)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Output buffer is not a device frame: %s", error),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  if (!CUDAPREP_CHECK(
          self, cudaprep::copy_image(view, compact, gst_cuda_prep_base_transform_get_stream(base))))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

static void record_crop_geometry(GstCudaCrop *self, GstBuffer *inbuf, GstBuffer *outbuf) {
  cudaprep::FrameGeometry crop;
  crop.crop_x = self->rect.x;
  crop.crop_y = self->rect.y;
  gst_cuda_prep_buffer_chain_geometry(inbuf, outbuf, crop);
}

// A view that is the input buffer itself (see prepare_output_buffer).
static GstFlowReturn gst_cuda_crop_transform_ip(GstBaseTransform *trans, GstBuffer *buffer) {
  if (!frame_holds_crop(GST_CUDA_CROP(trans), buffer)) return GST_BASE_TRANSFORM_FLOW_DROPPED;
  record_crop_geometry(GST_CUDA_CROP(trans), buffer, buffer);
  return GST_FLOW_OK;
}

static GstFlowReturn gst_cuda_crop_transform(GstBaseTransform *trans, GstBuffer *inbuf,
                                             GstBuffer *outbuf) {
  auto *self = GST_CUDA_CROP(trans);
  if (!frame_holds_crop(self, inbuf)) return GST_BASE_TRANSFORM_FLOW_DROPPED;
  record_crop_geometry(self, inbuf, outbuf);
  // A view shares the input's memory and its ready event: nothing to run.
  if (self->downstream_views) return GST_FLOW_OK;
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_crop_parent_class)->transform(trans, inbuf, outbuf);
}

static void gst_cuda_crop_set_property(GObject *object, guint prop_id, const GValue *value,
                                       GParamSpec *pspec) {
  auto *self = GST_CUDA_CROP(object);
  GST_OBJECT_LOCK(self);
  CropSettings &settings = self->settings;
  gint *fields[] = {nullptr,     &settings.left, &settings.right, &settings.top,   &settings.bottom,
                    &settings.x, &settings.y,    &settings.width, &settings.height};
  if (prop_id > PROP_0 && prop_id <= PROP_HEIGHT)
    *fields[prop_id] = g_value_get_int(value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  GST_OBJECT_UNLOCK(self);
  g_atomic_int_set(&self->settings_changed, 1);
  // The output size may change: renegotiate.
  gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
  // ...and upstream copies another region.
  gst_base_transform_reconfigure_sink(GST_BASE_TRANSFORM(self));
}

static void gst_cuda_crop_get_property(GObject *object, guint prop_id, GValue *value,
                                       GParamSpec *pspec) {
  auto *self = GST_CUDA_CROP(object);
  GST_OBJECT_LOCK(self);
  CropSettings &settings = self->settings;
  gint *fields[] = {nullptr,     &settings.left, &settings.right, &settings.top,   &settings.bottom,
                    &settings.x, &settings.y,    &settings.width, &settings.height};
  if (prop_id > PROP_0 && prop_id <= PROP_HEIGHT)
    g_value_set_int(value, *fields[prop_id]);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_crop_class_init(GstCudaCropClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_cuda_crop_set_property;
  gobject_class->get_property = gst_cuda_crop_get_property;
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

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA crop", "Filter/Effect/Video/Hardware",
      "Crops pitched CUDA device frames as zero-copy views (new offsets into the same memory), "
      "or as compact copies when downstream cannot read views",
      "cudaprep developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_cuda_crop_transform_caps;
  trans_class->sink_event = gst_cuda_crop_sink_event;
  trans_class->set_caps = gst_cuda_crop_set_caps;
  trans_class->decide_allocation = gst_cuda_crop_decide_allocation;
  trans_class->propose_allocation = gst_cuda_crop_propose_allocation;
  trans_class->prepare_output_buffer = gst_cuda_crop_prepare_output_buffer;
  trans_class->transform = gst_cuda_crop_transform;
  trans_class->transform_ip = gst_cuda_crop_transform_ip;
  GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass)->process = gst_cuda_crop_process;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_crop_debug, "cudacrop", 0, "CUDA crop");
}

static void gst_cuda_crop_init(GstCudaCrop *self) {
  self->settings = CropSettings{};
  gst_video_info_init(&self->in_info);
  gst_video_info_init(&self->out_info);
}
