/**
 * SECTION:element-cudaresize
 *
 * Resizes device frames, converting the colour on the way, in one kernel
 * pass (cudaprep::resize): any of RGBA BGRA RGBx BGRx RGB BGR GRAY8 NV12 I420
 * YUY2 in, RGB BGR RGBA BGRA RGBx BGRx GRAY8 out. YUV input is converted to
 * RGB with the matrix (BT.601 or BT.709) and range (full or limited) of the
 * input caps' colorimetry; caps without colorimetry get GStreamer's default
 * for the format and size (gst_video_info_from_caps).
 *
 * The output size is either negotiated (a capsfilter after the element, or
 * whatever downstream accepts, fixated as videoscale fixates it: when
 * downstream leaves it open the input size is kept, within a range without
 * it the nearest size that keeps the aspect ratio) or derived from the
 * input when `short-side` is set: the aspect ratio is kept, the short side
 * scaled to `short-side` and both sides snapped to multiples of
 * `multiple-of` (Depth-Anything's rule, e.g. 1920x1080 with short-side=518
 * multiple-of=14 gives 924x518).
 *
 * With add-borders=false the input is stretched to the output. With
 * add-borders=true its aspect ratio is kept and the rest is filled with
 * `pad-value` (letterbox, rounded as Ultralytics' LetterBox does), centred or
 * in the top-left corner. Aspect ratios are those of the pixel grids: the
 * input's pixel-aspect-ratio is not applied and the output is labelled 1/1,
 * since network input tensors have square pixels.
 *
 * `antialias=true` samples bilinear and bicubic as torchvision's
 * Resize(antialias=True) and PIL do (the filter widened by the downscale
 * factor). `antialias-intermediate` says what is kept between its
 * horizontal and vertical passes: `float` (default; torchvision on float
 * tensors, or on the GPU) or `uint8` (PIL, and torchvision on CPU uint8
 * tensors: the horizontal pass rounded to 8 bits first).
 *
 * `rounding=half-up` stores a value exactly between two 8-bit codes as the
 * upper one, as OpenCV's fixed-point cv::resize does (half-even, the
 * default, as its float maths would): a 6:1 bilinear shrink, such as
 * Ultralytics' letterbox of a 4K frame to 640, samples midway everywhere and
 * equals cv2.resize(INTER_LINEAR) only this way.
 *
 * `video-direction` (the GstVideoDirection interface, values as videoflip's)
 * flips or rotates the input in the same pass, before it is resized: the
 * samplers read the turned image, so every method, antialias, letterbox and
 * the fused kernel apply to it. Directions that turn by 90 degrees (90r,
 * 90l, ul-lr, ur-ll) exchange width and height wherever the output size
 * comes from the input. `auto` follows the stream's image-orientation tags
 * as videoflip does (renegotiating when a tag turns the frame).
 *
 * Every output buffer carries a GstCudaPrepGeometryMeta that maps its pixels
 * back to the source frame (through any upstream crop and the direction).
 * Equal input and output caps pass buffers through untouched unless a
 * direction is set.
 *
 * A nearest or bilinear downscale that reads at most three input rows in
 * four (1080 -> 360 bilinear reads rows 1, 4, 7, ...: the others have weight
 * zero) says so in its allocation answer, and cudaframeupload copies only
 * those rows; the output is the same, byte for byte.
 *
 *   gst-launch-1.0 videotestsrc ! video/x-raw,width=1920,height=1080 ! cudaframeupload !
 *       cudaresize add-borders=true pad-value="<114,114,114>" !
 *       "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB" ! cudaframedownload !
 *       fakesink
 *   gst-launch-1.0 videotestsrc ! video/x-raw,width=1920,height=1080 ! cudaframeupload !
 *       cudaresize video-direction=90r ! "video/x-raw(memory:CUDAPitched),format=RGB" !
 *       cudaframedownload ! fakesink
 *   gst-launch-1.0 videotestsrc ! video/x-raw,width=1920,height=1080 ! cudaframeupload !
 *       cudaresize method=bicubic short-side=518 multiple-of=14 !
 *       "video/x-raw(memory:CUDAPitched),format=RGB" ! cudaframedownload ! fakesink
 */
#include "elements/cudaresize/gstcudaresize-private.h"
#include "elements/cudaresize/gstcudaresizecaps.h"
#include "elements/cudaresize/gstcudaresizeparams.h"

#include <gst/video/video.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "cudaprep/copy.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/preprocess_batch.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "base/gstcudaprepnvcodec.h"
#include "base/gstcudapreppendingmeta.h"
#include "base/gstcudapreppixelmetas.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_resize_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_resize_debug

using namespace cudaprep::cudaresize;

#define OUTPUT_FORMATS "{ RGB, BGR, RGBA, BGRA, RGBx, BGRx, GRAY8 }"

struct GstCudaPrepResizePrivate {
  ResizeSettings settings;     // object lock
  guint settings_version = 0;  // object lock: counts the changes of `settings`
  // Streaming thread.
  cudaprep::Colorimetry colorimetry;  // of the input, from its caps
  cudaprep::ResizeParams params;      // of the frame being processed
  // The settings the frame being processed uses: a snapshot, taken again
  // when settings_version moves.
  ResizeSettings frame_settings;
  guint frame_settings_version = 0;
  bool has_frame_settings = false;
  // Whether `params` are frame_settings' for the negotiated caps: computed
  // once, not per frame.
  bool params_current = false;
  // The input rows `params` read, as announced upstream (period 0: all),
  // and what it was computed for.
  cudaprep::RowPattern rows_read;
  cudaprep::Interpolation rows_interpolation = cudaprep::Interpolation::kBilinear;
  bool rows_antialias = false;
  cudaprep::Orientation rows_orientation = cudaprep::Orientation::kIdentity;
  std::string stream_id;  // of the stream the tag directions came with
  gint rows_src_height = 0, rows_rect_height = 0;
};

struct _GstCudaPrepResize {
  GstCudaPrepBaseTransform parent;
  GstCudaPrepResizePrivate *priv;
};

// GstVideoDirection has no methods: the interface is its video-direction
// property.
static void gst_cuda_prep_resize_video_direction_init(GstVideoDirectionInterface *) {}

G_DEFINE_TYPE_WITH_CODE(GstCudaPrepResize, gst_cuda_prep_resize, GST_TYPE_CUDA_PREP_BASE_TRANSFORM,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_VIDEO_DIRECTION,
                                              gst_cuda_prep_resize_video_direction_init))
GST_ELEMENT_REGISTER_DEFINE(cudaresize, "cudaresize", GST_RANK_NONE, GST_TYPE_CUDA_PREP_RESIZE)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(
        GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_FRAME_FORMATS) ";" GST_CUDA_PREP_NVCODEC_VIDEO_CAPS(
            GST_CUDA_PREP_FRAME_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(OUTPUT_FORMATS)));

static ResizeSettings get_settings(GstCudaPrepResize *self, guint *version = nullptr) {
  GST_OBJECT_LOCK(self);
  const ResizeSettings settings = self->priv->settings;
  if (version != nullptr) *version = self->priv->settings_version;
  GST_OBJECT_UNLOCK(self);
  return settings;
}

static guint get_settings_version(GstCudaPrepResize *self) {
  GST_OBJECT_LOCK(self);
  const guint version = self->priv->settings_version;
  GST_OBJECT_UNLOCK(self);
  return version;
}

static cudaprep::Orientation get_orientation(GstCudaPrepResize *self) {
  GST_OBJECT_LOCK(self);
  const cudaprep::Orientation orientation = self->priv->settings.orientation();
  GST_OBJECT_UNLOCK(self);
  return orientation;
}

static gchar *gst_cuda_prep_resize_settings_error(GstCudaPrepBaseTransform *base) {
  const std::string error = settings_error(get_settings(GST_CUDA_PREP_RESIZE(base)));
  return error.empty() ? nullptr : g_strdup(error.c_str());
}
// The caps on the other side (transform_caps(): the same format first,
// then any), filtered.
static GstCaps *gst_cuda_prep_resize_transform_caps(GstBaseTransform *trans,
                                                    GstPadDirection direction, GstCaps *caps,
                                                    GstCaps *filter) {
  auto *self = GST_CUDA_PREP_RESIZE(trans);
  const ResizeSettings settings = get_settings(self);
  const GValue *other_formats =
      template_formats(direction == GST_PAD_SINK ? &src_template : &sink_template);
  GstCaps *result = transform_caps(settings, direction, caps, other_formats);
  return gst_cuda_prep_caps_filter_result(GST_ELEMENT(trans), direction, caps, result, filter);
}

// Keeps what can be kept (fixate_caps()).
static GstCaps *gst_cuda_prep_resize_fixate_caps(GstBaseTransform *trans, GstPadDirection direction,
                                                 GstCaps *caps, GstCaps *othercaps) {
  auto *self = GST_CUDA_PREP_RESIZE(trans);
  if (gst_caps_is_empty(othercaps)) return othercaps;
  GstCaps *result = fixate_caps(get_settings(self).swaps_size(), caps, othercaps);
  GST_DEBUG_OBJECT(self, "fixated %s caps to %" GST_PTR_FORMAT,
                   direction == GST_PAD_SINK ? "output" : "input", result);
  return result;
}

// An impossible size rule or an unsupported colour matrix.
static gchar *gst_cuda_prep_resize_input_error(GstCudaPrepBaseTransform *base,
                                               const GstVideoInfo *in_info) {
  const ResizeSettings settings = get_settings(GST_CUDA_PREP_RESIZE(base));
  std::string reason;
  cudaprep::Colorimetry colorimetry;
  gint width = 0, height = 0;
  if (input_colorimetry(in_info, &colorimetry, &reason) &&
      (!settings.uses_size_rule() ||
       rule_output_size(settings, GST_VIDEO_INFO_WIDTH(in_info), GST_VIDEO_INFO_HEIGHT(in_info),
                        &width, &height, &reason)))
    return nullptr;
  return g_strdup_printf("Impossible cudaresize settings: %s", reason.c_str());
}

static gboolean gst_cuda_prep_resize_set_info(GstCudaPrepBaseTransform *base, GstCaps *incaps,
                                              const GstVideoInfo *in_info, GstCaps *outcaps,
                                              const GstVideoInfo *out_info) {
  auto *self = GST_CUDA_PREP_RESIZE(base);
  GstCudaPrepResizePrivate *priv = self->priv;
  cudaprep::PixelFormat in_format, out_format;
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(in_info), &in_format) ||
      !gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(out_info), &out_format) ||
      !cudaprep::is_resize_source_format(in_format) ||
      !cudaprep::is_resize_destination_format(out_format)) {
    GST_ELEMENT_ERROR(
        self, CORE, NEGOTIATION,
        ("Unsupported conversion %s -> %s: cudaresize reads " GST_CUDA_PREP_FRAME_FORMATS
         " and writes " OUTPUT_FORMATS,
         gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(in_info)),
         gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(out_info))),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  const ResizeSettings settings = get_settings(self);
  const gint in_width = GST_VIDEO_INFO_WIDTH(in_info);
  const gint in_height = GST_VIDEO_INFO_HEIGHT(in_info);
  const gint out_width = GST_VIDEO_INFO_WIDTH(out_info);
  const gint out_height = GST_VIDEO_INFO_HEIGHT(out_info);
  std::string reason;
  gint rule_width = 0, rule_height = 0;
  if (settings.uses_size_rule()) {
    if (!rule_output_size(settings, in_width, in_height, &rule_width, &rule_height, &reason)) {
      GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                        ("Impossible cudaresize settings: %s", reason.c_str()), (nullptr));
      return FALSE;
    }
    if (rule_width != out_width || rule_height != out_height) {
      GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                        ("Output caps %dx%d differ from the %dx%d that short-side=%d "
                         "multiple-of=%d gives the %dx%d input",
                         out_width, out_height, rule_width, rule_height, settings.short_side,
                         settings.multiple_of, in_width, in_height),
                        (nullptr));
      return FALSE;
    }
  }
  if (!input_colorimetry(in_info, &priv->colorimetry, &reason) ||
      !resize_params(settings, in_info, out_info, priv->colorimetry, &priv->params, &reason)) {
    GST_ELEMENT_ERROR(
        self, CORE, NEGOTIATION,
        ("Impossible cudaresize of %dx%d %s to %dx%d %s: %s", in_width, in_height,
         gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(in_info)), out_width, out_height,
         gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(out_info)), reason.c_str()),
        (nullptr));
    return FALSE;
  }
  // The next frame computes its params again, from its settings and these caps.
  priv->params_current = false;
  // Equal caps are no reason to pass frames through that must be turned.
  if (settings.orientation() != cudaprep::Orientation::kIdentity)
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), FALSE);
  GST_INFO_OBJECT(self, "%dx%d %s -> %dx%d %s, image at %dx%d+%d+%d, direction %s", in_width,
                  in_height, gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(in_info)), out_width,
                  out_height, gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(out_info)),
                  priv->params.dst_rect.width, priv->params.dst_rect.height,
                  priv->params.dst_rect.x, priv->params.dst_rect.y,
                  cudaprep::orientation_name(priv->params.orientation));
  return TRUE;
}

// Its own kernel, or the fused one downstream runs with this resize.
static cudaError_t gst_cuda_prep_resize_prepare_kernels(GstCudaPrepBaseTransform *base,
                                                        const GstCudaPrepPendingReader *pending) {
  const GstVideoInfo *in_info = gst_cuda_prep_base_transform_get_in_info(base);
  cudaprep::PixelFormat format;
  if (in_info == nullptr || !gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(in_info), &format))
    return cudaErrorInvalidValue;
  const cudaprep::ResizeParams &params = GST_CUDA_PREP_RESIZE(base)->priv->params;
  if (pending == nullptr) return cudaprep::prepare_resize(format, params);
  if (pending->batched)
    return cudaprep::prepare_preprocess_batch(&format, 1, params, pending->dtype,
                                              pending->max_items);
  return cudaprep::prepare_preprocess(format, params, pending->dtype);
}

// The input rows a resize reads, as a pattern worth copying by: period 0
// when every row may be read or when most are.
static cudaprep::RowPattern rows_worth_copying(const cudaprep::ResizeParams &params,
                                               gint src_height) {
  // Antialiased sampling reads every row of a downscale; a direction other
  // than a mirror reads other source rows than the output's.
  if (params.antialias || (params.orientation != cudaprep::Orientation::kIdentity &&
                           params.orientation != cudaprep::Orientation::kFlipHorizontal))
    return {};
  const std::vector<bool> rows =
      cudaprep::resize_rows_read(params.interpolation, src_height, params.dst_rect.height);
  const auto count = std::count(rows.begin(), rows.end(), true);
  if (rows.empty() || 4 * count > 3 * static_cast<gint64>(src_height)) return {};
  cudaprep::RowPattern pattern = cudaprep::find_row_pattern(rows);
  if (pattern.period < 2) return {};
  return pattern;
}

// A frame uploaded for the rows of earlier settings (a method or size
// changed while it was on its way) lacks rows this resize reads.
static gboolean frame_holds_rows_read(GstCudaPrepResize *self, GstBuffer *input, gint src_height) {
  GstCudaPrepResizePrivate *priv = self->priv;
  if (priv->rows_interpolation != priv->params.interpolation ||
      priv->rows_antialias != priv->params.antialias ||
      priv->rows_orientation != priv->params.orientation || priv->rows_src_height != src_height ||
      priv->rows_rect_height != priv->params.dst_rect.height) {
    priv->rows_read = rows_worth_copying(priv->params, src_height);
    priv->rows_interpolation = priv->params.interpolation;
    priv->rows_antialias = priv->params.antialias;
    priv->rows_orientation = priv->params.orientation;
    priv->rows_src_height = src_height;
    priv->rows_rect_height = priv->params.dst_rect.height;
  }
  return gst_cuda_prep_buffer_holds_rows(input, priv->rows_read);
}

// Whether two snapshots give different output caps for the same input.
static bool shape_differs(const ResizeSettings &a, const ResizeSettings &b) {
  return a.swaps_size() != b.swaps_size() || a.short_side != b.short_side ||
         a.multiple_of != b.multiple_of;
}

// The frame's settings, taken once (the application may set properties
// while it is processed). A change of the output's shape (a turn that
// swaps the axes, short-side, multiple-of) waits until the caps follow it:
// set_property marked the src pad for renegotiation, which GstBaseTransform
// does before the next frame; this frame, already negotiated, keeps the
// settings it was negotiated with.
static void take_frame_settings(GstCudaPrepResize *self) {
  GstCudaPrepResizePrivate *priv = self->priv;
  if (priv->has_frame_settings && get_settings_version(self) == priv->frame_settings_version)
    return;
  guint version = 0;
  const ResizeSettings settings = get_settings(self, &version);
  if (priv->has_frame_settings && shape_differs(settings, priv->frame_settings) &&
      gst_pad_needs_reconfigure(GST_BASE_TRANSFORM_SRC_PAD(self))) {
    GST_DEBUG_OBJECT(self, "new output shape: from the next frame, after renegotiation");
    return;
  }
  priv->frame_settings = settings;
  priv->frame_settings_version = version;
  priv->has_frame_settings = true;
  priv->params_current = false;
}

// Settings that keep the caps (method, borders, pad value) apply from the
// next frame on. The resize runs here, or is left to downstream's fused
// kernel in a GstCudaPrepPendingMeta when it takes it.
static GstCudaPrepOutputPlan gst_cuda_prep_resize_plan_output(GstCudaPrepBaseTransform *base,
                                                              GstBuffer *inbuf) {
  auto *self = GST_CUDA_PREP_RESIZE(base);
  const GstVideoInfo *in_info = gst_cuda_prep_base_transform_get_in_info(base);
  take_frame_settings(self);
  std::string reason;
  if (!self->priv->params_current &&
      !resize_params(self->priv->frame_settings, in_info,
                     gst_cuda_prep_base_transform_get_out_info(base), self->priv->colorimetry,
                     &self->priv->params, &reason)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Impossible cudaresize: %s", reason.c_str()),
                      (nullptr));
    return GST_CUDA_PREP_OUTPUT_ERROR;
  }
  self->priv->params_current = true;
  if (!frame_holds_rows_read(self, inbuf, GST_VIDEO_INFO_HEIGHT(in_info))) {
    GST_INFO_OBJECT(self, "dropping a frame uploaded for the rows of earlier settings");
    return GST_CUDA_PREP_OUTPUT_DROP;
  }
  if (gst_cuda_prep_base_transform_downstream_runs_pending(base))
    return GST_CUDA_PREP_OUTPUT_IN_PLACE;
  if (self->priv->params.float_intermediate) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED,
                      ("Impossible cudaresize: float-intermediate needs the fused kernel, but "
                       "downstream does not take the resize: link cudaresize ! cudanormalize ! "
                       "cudatensorize (or cudabatch) with nothing but a cudacrop in between, or "
                       "set float-intermediate=false"),
                      (nullptr));
    return GST_CUDA_PREP_OUTPUT_ERROR;
  }
  return GST_CUDA_PREP_OUTPUT_RUN;
}

static gboolean gst_cuda_prep_resize_annotate_output(GstCudaPrepBaseTransform *base,
                                                     GstBuffer *inbuf, GstBuffer *outbuf,
                                                     GstCudaPrepOutputPlan plan) {
  auto *self = GST_CUDA_PREP_RESIZE(base);
  GstCudaPrepResizePrivate *priv = self->priv;
  const GstVideoInfo *in_info = gst_cuda_prep_base_transform_get_in_info(base);
  const GstVideoInfo *out_info = gst_cuda_prep_base_transform_get_out_info(base);
  const cudaprep::FrameGeometry source_geometry = gst_cuda_prep_buffer_move_pixel_metas(
      inbuf, outbuf,
      cudaprep::resize_frame_geometry(GST_VIDEO_INFO_WIDTH(in_info), GST_VIDEO_INFO_HEIGHT(in_info),
                                      priv->params.dst_rect, priv->params.orientation),
      GST_VIDEO_INFO_WIDTH(out_info), GST_VIDEO_INFO_HEIGHT(out_info),
      plan == GST_CUDA_PREP_OUTPUT_IN_PLACE ? GstCudaPrepPixelMove::kPending
                                            : GstCudaPrepPixelMove::kNewFrame);
  if (plan == GST_CUDA_PREP_OUTPUT_IN_PLACE) {
    const ResizeSettings &settings = priv->frame_settings;
    GstCudaPrepPendingMeta *pending = gst_buffer_ensure_cuda_prep_pending_meta(outbuf);
    pending->has_resize = TRUE;
    pending->resize = priv->params;
    pending->letterbox = settings.add_borders;
    pending->letterbox_options = letterbox_options(settings);
    pending->source_geometry = source_geometry;
  }
  return TRUE;
}

// Tells upstream (cudaframeupload) which input rows this resize reads when
// a downscale skips most (bilinear 1080 -> 360 reads one row in three), so
// that only those cross PCIe.
static gboolean gst_cuda_prep_resize_region_read(GstCudaPrepBaseTransform *base,
                                                 const GstVideoInfo *in_info,
                                                 GstCudaPrepRegion *region) {
  auto *self = GST_CUDA_PREP_RESIZE(base);
  const GstVideoInfo *out_info = gst_cuda_prep_base_transform_get_out_info(base);
  cudaprep::ResizeParams params;
  std::string reason;
  if (out_info == nullptr || !resize_params(get_settings(self), in_info, out_info,
                                            self->priv->colorimetry, &params, &reason))
    return FALSE;
  const cudaprep::RowPattern rows = rows_worth_copying(params, GST_VIDEO_INFO_HEIGHT(in_info));
  if (rows.period == 0) return FALSE;
  region->rect = {0, rows.first, GST_VIDEO_INFO_WIDTH(in_info), rows.last - rows.first + 1};
  region->rows = rows;
  return TRUE;
}

static GstFlowReturn gst_cuda_prep_resize_process(GstCudaPrepBaseTransform *base, GstBuffer *inbuf,
                                                  GstBuffer *outbuf) {
  auto *self = GST_CUDA_PREP_RESIZE(base);
  cudaprep::Image src, dst;
  if (!gst_cuda_prep_base_transform_input_image(base, inbuf, &src) ||
      !gst_cuda_prep_base_transform_output_image(base, outbuf, &dst))
    return GST_FLOW_ERROR;
  const std::string reason = cudaprep::resize_params_error(src, dst, self->priv->params);
  if (!reason.empty()) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Cannot resize this frame: %s", reason.c_str()),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  if (!CUDAPREP_CHECK(self, cudaprep::resize(src, dst, self->priv->params,
                                             gst_cuda_prep_base_transform_get_stream(base))))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

// After the applied direction may have changed (the property, or a tag
// with video-direction=auto): the output size may swap, and the rows read
// change, so upstream asks again which to copy (else every frame uploaded
// for the old rows would be dropped). Passthrough is left to the streaming
// thread (before_transform).
static void direction_changed(GstCudaPrepResize *self) {
  gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
  gst_base_transform_reconfigure_sink(GST_BASE_TRANSFORM(self));
}

// A turned frame is never passed through, even between equal caps
// (renegotiating equal caps does not reconfigure the element). Turned off
// here, on the streaming thread before GstBaseTransform checks for a
// renegotiation (which then gives the pool), never from the application's
// thread: there, between that check and the frame's output buffer, it left
// a frame without passthrough and without a pool (not-negotiated).
static void gst_cuda_prep_resize_before_transform(GstBaseTransform *trans, GstBuffer *) {
  if (get_orientation(GST_CUDA_PREP_RESIZE(trans)) == cudaprep::Orientation::kIdentity ||
      !gst_base_transform_is_passthrough(trans))
    return;
  gst_base_transform_set_passthrough(trans, FALSE);
  gst_base_transform_reconfigure_src(trans);
}

// video-direction=auto follows the image-orientation tags as videoflip
// does: a stream-scope tag wins over a global one; a stream tag without
// orientation falls back to the global one, a global tag without it means
// the identity; a new stream forgets both. Tags pass on unchanged.
static gboolean gst_cuda_prep_resize_sink_event(GstBaseTransform *trans, GstEvent *event) {
  auto *self = GST_CUDA_PREP_RESIZE(trans);
  GstCudaPrepResizePrivate *priv = self->priv;
  bool tags_changed = false;
  if (GST_EVENT_TYPE(event) == GST_EVENT_TAG) {
    GstTagList *tags = nullptr;
    gst_event_parse_tag(event, &tags);
    GstVideoOrientationMethod tagged = GST_VIDEO_ORIENTATION_IDENTITY;
    const bool has_orientation = gst_video_orientation_from_tag(tags, &tagged);
    const bool stream_scope = gst_tag_list_get_scope(tags) == GST_TAG_SCOPE_STREAM;
    GST_OBJECT_LOCK(self);
    if (stream_scope)
      priv->settings.stream_tag_direction = has_orientation ? tagged : GST_VIDEO_ORIENTATION_AUTO;
    else
      priv->settings.global_tag_direction =
          has_orientation ? tagged : GST_VIDEO_ORIENTATION_IDENTITY;
    tags_changed = priv->settings.direction == GST_VIDEO_ORIENTATION_AUTO;
    ++priv->settings_version;
    GST_OBJECT_UNLOCK(self);
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START) {
    const gchar *stream_id = nullptr;
    gst_event_parse_stream_start(event, &stream_id);
    if (stream_id == nullptr || priv->stream_id != stream_id) {
      priv->stream_id = stream_id != nullptr ? stream_id : "";
      GST_OBJECT_LOCK(self);
      priv->settings.stream_tag_direction = GST_VIDEO_ORIENTATION_AUTO;
      priv->settings.global_tag_direction = GST_VIDEO_ORIENTATION_IDENTITY;
      tags_changed = priv->settings.direction == GST_VIDEO_ORIENTATION_AUTO;
      ++priv->settings_version;
      GST_OBJECT_UNLOCK(self);
    }
  }
  if (tags_changed) {
    GST_DEBUG_OBJECT(self, "direction from tags: %s",
                     cudaprep::orientation_name(get_settings(self).orientation()));
    direction_changed(self);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_resize_parent_class)->sink_event(trans, event);
}

static void gst_cuda_prep_resize_set_property(GObject *object, guint prop_id, const GValue *value,
                                              GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_RESIZE(object);
  GST_OBJECT_LOCK(self);
  ResizeSettings &settings = self->priv->settings;
  switch (prop_id) {
    case PROP_METHOD:
      settings.method = static_cast<GstCudaPrepResizeMethod>(g_value_get_enum(value));
      break;
    case PROP_ADD_BORDERS:
      settings.add_borders = g_value_get_boolean(value);
      break;
    case PROP_PAD_VALUE:
      settings.pad_values.clear();
      for (guint i = 0; i < gst_value_array_get_size(value); ++i)
        settings.pad_values.push_back(g_value_get_int(gst_value_array_get_value(value, i)));
      break;
    case PROP_LETTERBOX_ALIGN:
      settings.letterbox_align =
          static_cast<GstCudaPrepResizeLetterboxAlign>(g_value_get_enum(value));
      break;
    case PROP_SHORT_SIDE:
      settings.short_side = g_value_get_int(value);
      break;
    case PROP_MULTIPLE_OF:
      settings.multiple_of = g_value_get_int(value);
      break;
    case PROP_ANTIALIAS:
      settings.antialias = g_value_get_boolean(value);
      break;
    case PROP_ANTIALIAS_INTERMEDIATE:
      settings.antialias_intermediate =
          static_cast<GstCudaPrepResizeAntialiasIntermediate>(g_value_get_enum(value));
      break;
    case PROP_FLOAT_INTERMEDIATE:
      settings.float_intermediate = g_value_get_boolean(value);
      break;
    case PROP_ROUNDING:
      settings.rounding = static_cast<GstCudaPrepResizeRounding>(g_value_get_enum(value));
      break;
    case PROP_VIDEO_DIRECTION:
      settings.direction = static_cast<GstVideoOrientationMethod>(g_value_get_enum(value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  ++self->priv->settings_version;
  GST_OBJECT_UNLOCK(self);
  if (prop_id == PROP_VIDEO_DIRECTION) {
    direction_changed(self);
    return;
  }
  // The derived output size may change: renegotiate.
  if (prop_id == PROP_SHORT_SIDE || prop_id == PROP_MULTIPLE_OF)
    gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
  // The rows read may change: upstream asks again which to copy.
  gst_base_transform_reconfigure_sink(GST_BASE_TRANSFORM(self));
}

static void gst_cuda_prep_resize_get_property(GObject *object, guint prop_id, GValue *value,
                                              GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_RESIZE(object);
  GST_OBJECT_LOCK(self);
  const ResizeSettings &settings = self->priv->settings;
  switch (prop_id) {
    case PROP_METHOD:
      g_value_set_enum(value, settings.method);
      break;
    case PROP_ADD_BORDERS:
      g_value_set_boolean(value, settings.add_borders);
      break;
    case PROP_PAD_VALUE:
      for (gint pad_value : settings.pad_values) {
        GValue entry = G_VALUE_INIT;
        g_value_init(&entry, G_TYPE_INT);
        g_value_set_int(&entry, pad_value);
        gst_value_array_append_and_take_value(value, &entry);
      }
      break;
    case PROP_LETTERBOX_ALIGN:
      g_value_set_enum(value, settings.letterbox_align);
      break;
    case PROP_SHORT_SIDE:
      g_value_set_int(value, settings.short_side);
      break;
    case PROP_MULTIPLE_OF:
      g_value_set_int(value, settings.multiple_of);
      break;
    case PROP_ANTIALIAS:
      g_value_set_boolean(value, settings.antialias);
      break;
    case PROP_ANTIALIAS_INTERMEDIATE:
      g_value_set_enum(value, settings.antialias_intermediate);
      break;
    case PROP_FLOAT_INTERMEDIATE:
      g_value_set_boolean(value, settings.float_intermediate);
      break;
    case PROP_ROUNDING:
      g_value_set_enum(value, settings.rounding);
      break;
    case PROP_VIDEO_DIRECTION:
      g_value_set_enum(value, settings.direction);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_prep_resize_finalize(GObject *object) {
  delete GST_CUDA_PREP_RESIZE(object)->priv;
  G_OBJECT_CLASS(gst_cuda_prep_resize_parent_class)->finalize(object);
}

static void gst_cuda_prep_resize_class_init(GstCudaPrepResizeClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstCudaPrepBaseTransformClass *base_class = GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_cuda_prep_resize_set_property;
  gobject_class->get_property = gst_cuda_prep_resize_get_property;
  gobject_class->finalize = gst_cuda_prep_resize_finalize;
  install_properties(gobject_class);
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA resize", "Filter/Converter/Video/Scaler/Hardware",
      "Resizes pitched CUDA device frames (nearest, bilinear, bicubic, area; stretch or "
      "letterbox; size from caps or a short-side rule; flips and rotations) and converts "
      "YUV/RGB formats to RGB, BGR, RGBA, BGRA, RGBx, BGRx or GRAY8 in the same pass",
      "cudaprep developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->before_transform = gst_cuda_prep_resize_before_transform;
  trans_class->transform_caps = gst_cuda_prep_resize_transform_caps;
  gst_cuda_prep_base_transform_class_read_nvcodec_frames(base_class);
  trans_class->fixate_caps = gst_cuda_prep_resize_fixate_caps;
  base_class->settings_error = gst_cuda_prep_resize_settings_error;
  base_class->input_error = gst_cuda_prep_resize_input_error;
  base_class->set_info = gst_cuda_prep_resize_set_info;
  base_class->plan_output = gst_cuda_prep_resize_plan_output;
  base_class->annotate_output = gst_cuda_prep_resize_annotate_output;
  base_class->process = gst_cuda_prep_resize_process;
  base_class->region_read = gst_cuda_prep_resize_region_read;
  trans_class->sink_event = gst_cuda_prep_resize_sink_event;
  base_class->hands_input_to_pending = TRUE;
  base_class->prepare_kernels = gst_cuda_prep_resize_prepare_kernels;

  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_RESIZE_METHOD, static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_RESIZE_LETTERBOX_ALIGN,
                              static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE,
                              static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_RESIZE_ROUNDING,
                              static_cast<GstPluginAPIFlags>(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_resize_debug, "cudaresize", 0, "CUDA resize");
}

static void gst_cuda_prep_resize_init(GstCudaPrepResize *self) {
  self->priv = new GstCudaPrepResizePrivate();
}
