/**
 * SECTION:element-cudanormalize
 *
 * Normalises 8-bit device frames into planar float frames, one pass over
 * memory:
 *
 *   y[c] = (x[c] * scale - mean[c]) / std[c]
 *
 * with the output channels in channel-order (RGB or BGR whatever the input
 * order; alpha and padding dropped; GRAY8 gives one GRAY channel, or three
 * equal ones for rgb/bgr). The output is
 * `application/x-cudaprep-planar(memory:CUDAPitched)` (see
 * gstcudapreptensorformat.h), float32 or float16, which cudatensorize turns
 * into a batch tensor. mean and std must have one value per output channel
 * (or be empty: mean 0, std 1); a wrong length, a value that is not a finite
 * 32-bit float, or a std of 0 (or too small for a float) is an error at
 * state change naming the value.
 *
 *   gst-launch-1.0 videotestsrc ! cudaframeupload ! cudanormalize mean="<0.485,0.456,0.406>"
 * std="<0.229,0.224,0.225>" ! cudatensorize ! cudatensorsink drop=true
 */
#include "gstcudanormalize.h"

#include <gst/video/video.h>

#include <cmath>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "cudaprep/normalize.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/preprocess_batch.h"
#include "base/gstcudapreppendingmeta.h"
#include "base/gstcudapreptensorformat.h"
#include "base/gstcudaprepview.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_normalize_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_normalize_debug

enum { PROP_0, PROP_MEAN, PROP_STD, PROP_SCALE, PROP_CHANNEL_ORDER, PROP_DTYPE };

#define DEFAULT_SCALE (1.0 / 255.0)
#define DEFAULT_CHANNEL_ORDER cudaprep::ChannelOrder::kRGB
#define DEFAULT_DTYPE cudaprep::DataType::kFloat32

struct NormalizeSettings {
  std::vector<double> mean;  // empty: 0 for every channel
  std::vector<double> std;   // empty: 1 for every channel
  double scale = DEFAULT_SCALE;
  cudaprep::ChannelOrder channel_order = DEFAULT_CHANNEL_ORDER;
  cudaprep::DataType dtype = DEFAULT_DTYPE;
};

struct GstCudaPrepNormalizePrivate {
  NormalizeSettings settings;  // object lock
  // Negotiated (streaming thread).
  GstCudaPrepPlanarInfo out_info;
  cudaprep::NormalizeParams params;
};

struct _GstCudaPrepNormalize {
  GstCudaPrepBaseTransform parent;
  GstCudaPrepNormalizePrivate *priv;
};

G_DEFINE_TYPE(GstCudaPrepNormalize, gst_cuda_prep_normalize, GST_TYPE_CUDA_PREP_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(cudanormalize, "cudanormalize", GST_RANK_NONE,
                            GST_TYPE_CUDA_PREP_NORMALIZE)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_INTERLEAVED_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_CUDA_PREP_PLANAR_CAPS));

// A value as a user wrote it (1e-50, inf), not std::to_string's 0.000000.
static std::string number(double value) {
  gchar text[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(text, sizeof(text), "%g", value);
  return text;
}

// Why `settings` cannot be used, in words a user can act on; empty if valid.
static std::string settings_error(const NormalizeSettings &settings) {
  const size_t channels = cudaprep::channel_count(settings.channel_order);
  const char *order = cudaprep::channel_order_name(settings.channel_order);
  const std::pair<const char *, const std::vector<double> *> lists[] = {{"mean", &settings.mean},
                                                                        {"std", &settings.std}};
  for (const auto &[name, values] : lists) {
    if (!values->empty() && values->size() != channels)
      return std::string(name) + " has " + std::to_string(values->size()) +
             " values but channel-order=" + order + " gives " + std::to_string(channels) +
             " channel(s): give one value per output channel, e.g. " + name + "=\"<" +
             (channels == 3 ? "0.5,0.5,0.5" : "0.5") + ">\"";
    for (size_t c = 0; c < values->size(); ++c) {
      // The kernels compute in float: a value is usable when it is a finite float.
      if (!std::isfinite(static_cast<float>((*values)[c])))
        return std::string(name) + "[" + std::to_string(c) + "]=" + number((*values)[c]) +
               " is not a finite 32-bit float";
    }
  }
  for (size_t c = 0; c < settings.std.size(); ++c) {
    // A zero or subnormal float std divides into infinities.
    if (!std::isnormal(static_cast<float>(settings.std[c])))
      return "std[" + std::to_string(c) + "]=" + number(settings.std[c]) +
             " is 0 or too close to 0 for a 32-bit float: the channel would be divided by zero";
  }
  if (!std::isfinite(static_cast<float>(settings.scale)))
    return "scale=" + number(settings.scale) + " is not a finite 32-bit float";
  return {};
}

static cudaprep::NormalizeParams params_of(const NormalizeSettings &settings) {
  cudaprep::NormalizeParams params;
  params.scale = static_cast<float>(settings.scale);
  params.channel_order = settings.channel_order;
  for (size_t c = 0; c < settings.mean.size(); ++c)
    params.mean[c] = static_cast<float>(settings.mean[c]);
  for (size_t c = 0; c < settings.std.size(); ++c)
    params.std[c] = static_cast<float>(settings.std[c]);
  return params;
}

static NormalizeSettings get_settings(GstCudaPrepNormalize *self) {
  GST_OBJECT_LOCK(self);
  const NormalizeSettings settings = self->priv->settings;
  GST_OBJECT_UNLOCK(self);
  return settings;
}

static gchar *gst_cuda_prep_normalize_settings_error(GstCudaPrepBaseTransform *base) {
  const std::string error = settings_error(get_settings(GST_CUDA_PREP_NORMALIZE(base)));
  return error.empty() ? nullptr : g_strdup(error.c_str());
}

static void set_double_array(std::vector<double> *values, const GValue *value) {
  values->clear();
  const guint size = gst_value_array_get_size(value);
  for (guint i = 0; i < size; ++i) {
    const GValue *item = gst_value_array_get_value(value, i);
    values->push_back(G_VALUE_HOLDS_DOUBLE(item) ? g_value_get_double(item) : NAN);
  }
}

static void get_double_array(const std::vector<double> &values, GValue *value) {
  for (double item : values) {
    GValue element = G_VALUE_INIT;
    g_value_init(&element, G_TYPE_DOUBLE);
    g_value_set_double(&element, item);
    gst_value_array_append_and_take_value(value, &element);
  }
}

static void gst_cuda_prep_normalize_set_property(GObject *object, guint prop_id,
                                                 const GValue *value, GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_NORMALIZE(object);
  GST_OBJECT_LOCK(self);
  NormalizeSettings &settings = self->priv->settings;
  switch (prop_id) {
    case PROP_MEAN:
      set_double_array(&settings.mean, value);
      break;
    case PROP_STD:
      set_double_array(&settings.std, value);
      break;
    case PROP_SCALE:
      settings.scale = g_value_get_double(value);
      break;
    case PROP_CHANNEL_ORDER:
      settings.channel_order = static_cast<cudaprep::ChannelOrder>(g_value_get_enum(value));
      break;
    case PROP_DTYPE:
      settings.dtype = static_cast<cudaprep::DataType>(g_value_get_enum(value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_prep_normalize_get_property(GObject *object, guint prop_id, GValue *value,
                                                 GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_NORMALIZE(object);
  GST_OBJECT_LOCK(self);
  const NormalizeSettings &settings = self->priv->settings;
  switch (prop_id) {
    case PROP_MEAN:
      get_double_array(settings.mean, value);
      break;
    case PROP_STD:
      get_double_array(settings.std, value);
      break;
    case PROP_SCALE:
      g_value_set_double(value, settings.scale);
      break;
    case PROP_CHANNEL_ORDER:
      g_value_set_enum(value, static_cast<gint>(settings.channel_order));
      break;
    case PROP_DTYPE:
      g_value_set_enum(value, static_cast<gint>(settings.dtype));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

// The planar caps the current settings produce (size and rate unset).
static GstStructure *planar_structure(GstCudaPrepNormalize *self) {
  const NormalizeSettings settings = get_settings(self);
  const cudaprep::ChannelOrder channel_order = settings.channel_order;
  const cudaprep::DataType dtype = settings.dtype;
  return gst_structure_new(GST_CUDA_PREP_PLANAR_MEDIA_TYPE, "dtype", G_TYPE_STRING,
                           cudaprep::data_type_name(dtype), "channels", G_TYPE_INT,
                           cudaprep::channel_count(channel_order), "channel-order", G_TYPE_STRING,
                           cudaprep::channel_order_name(channel_order), nullptr);
}

// Video -> planar with the properties' dtype and channels; planar -> the
// video formats that can give the properties' channel order (gray: GRAY8).
static GstCaps *gst_cuda_prep_normalize_transform_caps(GstBaseTransform *trans,
                                                       GstPadDirection direction, GstCaps *caps,
                                                       GstCaps *filter) {
  auto *self = GST_CUDA_PREP_NORMALIZE(trans);
  GstStructure *planar = planar_structure(self);
  const gboolean gray = g_strcmp0(gst_structure_get_string(planar, "channel-order"), "GRAY") == 0;
  GstCaps *result = gst_caps_new_empty();
  const guint size = gst_caps_get_size(caps);
  for (guint i = 0; i < size; ++i) {
    const GstStructure *structure = gst_caps_get_structure(caps, i);
    GstStructure *out = nullptr;
    if (direction == GST_PAD_SINK) {
      out = gst_structure_copy(planar);
    } else {
      if (!gst_structure_can_intersect(structure, planar)) continue;
      GstCaps *video = gst_caps_from_string(GST_CUDA_PREP_VIDEO_CAPS(
          GST_CUDA_PREP_INTERLEAVED_FORMATS) ";" GST_CUDA_PREP_VIDEO_CAPS("GRAY8"));
      out = gst_structure_copy(gst_caps_get_structure(video, gray ? 1 : 0));
      gst_caps_unref(video);
    }
    gst_cuda_prep_structure_copy_fields(out, structure, {"width", "height", "framerate"});
    result = gst_caps_merge_structure_full(
        result, out, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED, nullptr));
  }
  gst_structure_free(planar);
  return gst_cuda_prep_caps_filter_result(GST_ELEMENT(trans), direction, caps, result, filter);
}

static gboolean gst_cuda_prep_normalize_set_info(GstCudaPrepBaseTransform *base, GstCaps *incaps,
                                                 const GstVideoInfo *in_info, GstCaps *outcaps,
                                                 const GstVideoInfo *) {
  auto *self = GST_CUDA_PREP_NORMALIZE(base);
  GstCudaPrepNormalizePrivate *priv = self->priv;
  if (!gst_cuda_prep_planar_info_from_caps(&priv->out_info, outcaps)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("Invalid planar output caps: %s", GST_CUDA_PREP_PLANAR_CAPS_RULES),
                      ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  cudaprep::PixelFormat format;
  cudaprep::InterleavedChannelMap map;
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(in_info), &format) ||
      !cudaprep::interleaved_channel_map(format, priv->out_info.channel_order, &map)) {
    GST_ELEMENT_ERROR(
        self, CORE, NEGOTIATION,
        ("cudanormalize cannot give channel-order %s from %s input%s",
         cudaprep::channel_order_name(priv->out_info.channel_order), GST_VIDEO_INFO_NAME(in_info),
         priv->out_info.channel_order == cudaprep::ChannelOrder::kGray ? ": gray needs GRAY8 input"
                                                                       : ""),
        (nullptr));
    return FALSE;
  }
  if (priv->out_info.width != GST_VIDEO_INFO_WIDTH(in_info) ||
      priv->out_info.height != GST_VIDEO_INFO_HEIGHT(in_info)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("cudanormalize does not resize: the output must be %dx%d, like the input "
                       "(put cudaresize before it)",
                       GST_VIDEO_INFO_WIDTH(in_info), GST_VIDEO_INFO_HEIGHT(in_info)),
                      ("out %" GST_PTR_FORMAT, outcaps));
    return FALSE;
  }
  priv->params = params_of(get_settings(self));
  priv->params.channel_order = priv->out_info.channel_order;
  return TRUE;
}

// Whether the fused kernel computes what the separate ones would: it
// resizes to RGB, or to GRAY8 for channel-order=gray, so a GRAY8 input
// expanded to RGB is not.
static gboolean fusable(GstCudaPrepNormalize *self, GstVideoFormat in_format) {
  const bool gray_input = in_format == GST_VIDEO_FORMAT_GRAY8;
  const bool gray_output = self->priv->params.channel_order == cudaprep::ChannelOrder::kGray;
  return gray_input == gray_output;
}

// Upstream may leave its resize here when this element can hand it on with
// its own work: downstream takes pending work (asked now, with the current
// caps) and the result is the same.
static gboolean gst_cuda_prep_normalize_accepts_pending(GstCudaPrepBaseTransform *base) {
  auto *self = GST_CUDA_PREP_NORMALIZE(base);
  const GstVideoInfo *in_info = gst_cuda_prep_base_transform_get_in_info(base);
  if (in_info == nullptr || !fusable(self, GST_VIDEO_INFO_FORMAT(in_info))) return FALSE;
  return gst_cuda_prep_base_transform_ask_downstream_takes_pending(base);
}

// Its own kernel, or the fused one downstream runs with this element's
// work (with no resize: when a cudaresize upstream left one, it compiles the
// kernel that runs both).
static cudaError_t gst_cuda_prep_normalize_prepare_kernels(
    GstCudaPrepBaseTransform *base, const GstCudaPrepPendingReader *pending) {
  GstCudaPrepNormalizePrivate *priv = GST_CUDA_PREP_NORMALIZE(base)->priv;
  const GstVideoInfo *in_info = gst_cuda_prep_base_transform_get_in_info(base);
  cudaprep::PixelFormat format;
  if (in_info == nullptr || !gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(in_info), &format))
    return cudaErrorInvalidValue;
  // plan_output() runs this element's own kernel where the fused one would
  // not compute the same (fusable()), downstream's pending work or not.
  if (pending == nullptr || !fusable(GST_CUDA_PREP_NORMALIZE(base), GST_VIDEO_INFO_FORMAT(in_info)))
    return cudaprep::prepare_normalize(format, priv->params.channel_order, priv->out_info.dtype);
  const cudaprep::ResizeParams identity;
  if (pending->batched)
    return cudaprep::prepare_preprocess_batch(&format, 1, identity, pending->dtype,
                                              pending->max_items);
  return cudaprep::prepare_preprocess(format, identity, pending->dtype);
}

// Runs its own kernel, or leaves the normalisation (and any pending resize)
// to downstream's fused kernel: the frame stays the source buffer.
static GstCudaPrepOutputPlan gst_cuda_prep_normalize_plan_output(GstCudaPrepBaseTransform *base,
                                                                 GstBuffer *) {
  const GstVideoInfo *in_info = gst_cuda_prep_base_transform_get_in_info(base);
  return gst_cuda_prep_base_transform_downstream_runs_pending(base) &&
                 fusable(GST_CUDA_PREP_NORMALIZE(base), GST_VIDEO_INFO_FORMAT(in_info))
             ? GST_CUDA_PREP_OUTPUT_IN_PLACE
             : GST_CUDA_PREP_OUTPUT_RUN;
}

static gboolean gst_cuda_prep_normalize_annotate_output(GstCudaPrepBaseTransform *base, GstBuffer *,
                                                        GstBuffer *outbuf,
                                                        GstCudaPrepOutputPlan plan) {
  if (plan != GST_CUDA_PREP_OUTPUT_IN_PLACE) return TRUE;
  GstCudaPrepPendingMeta *pending = gst_buffer_ensure_cuda_prep_pending_meta(outbuf);
  if (!pending->has_resize) pending->resize = cudaprep::ResizeParams();  // 1:1, exact
  pending->has_normalize = TRUE;
  pending->normalize = GST_CUDA_PREP_NORMALIZE(base)->priv->params;
  return TRUE;
}

static gsize gst_cuda_prep_normalize_output_block_size(GstCudaPrepBaseTransform *base) {
  return GST_CUDA_PREP_NORMALIZE(base)->priv->out_info.size;
}

static GstFlowReturn gst_cuda_prep_normalize_process(GstCudaPrepBaseTransform *base,
                                                     GstBuffer *inbuf, GstBuffer *outbuf) {
  auto *self = GST_CUDA_PREP_NORMALIZE(base);
  GstCudaPrepNormalizePrivate *priv = self->priv;
  cudaprep::Image source;
  cudaprep::PlanarImage planar;
  const gchar *error = nullptr;
  if (!gst_cuda_prep_base_transform_input_image(base, inbuf, &source)) return GST_FLOW_ERROR;
  if (!gst_cuda_prep_buffer_planar_image(outbuf, &priv->out_info, &planar, &error)) {
    gst_cuda_prep_post_frame_error(GST_ELEMENT(self), "Output", error);
    return GST_FLOW_ERROR;
  }
  const std::string invalid = cudaprep::normalize_error(source, planar, priv->params);
  if (!invalid.empty()) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Cannot normalise this frame: %s", invalid.c_str()),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  if (!CUDAPREP_CHECK(self, cudaprep::normalize(source, planar, priv->params,
                                                gst_cuda_prep_base_transform_get_stream(base))))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

static void gst_cuda_prep_normalize_finalize(GObject *object) {
  delete GST_CUDA_PREP_NORMALIZE(object)->priv;
  G_OBJECT_CLASS(gst_cuda_prep_normalize_parent_class)->finalize(object);
}

static void gst_cuda_prep_normalize_class_init(GstCudaPrepNormalizeClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstCudaPrepBaseTransformClass *base_class = GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_cuda_prep_normalize_set_property;
  gobject_class->get_property = gst_cuda_prep_normalize_get_property;
  gobject_class->finalize = gst_cuda_prep_normalize_finalize;

  // Read when caps are set: changes apply from the next negotiation.
  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_READY);
  const auto element_flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property(
      gobject_class, PROP_MEAN,
      gst_param_spec_array(
          "mean", "Mean",
          "Per output channel, subtracted after scaling, e.g. \"<0.485,0.456,0.406>\" (ImageNet); "
          "one value per channel of channel-order (empty: 0 for every channel)",
          g_param_spec_double("mean-value", "Mean value", "One channel's mean", -INFINITY, INFINITY,
                              0.0, element_flags),
          flags));
  g_object_class_install_property(
      gobject_class, PROP_STD,
      gst_param_spec_array(
          "std", "Standard deviation",
          "Per output channel, divides after the mean is subtracted, e.g. "
          "\"<0.229,0.224,0.225>\" (ImageNet); one non-zero value per channel of channel-order "
          "(empty: 1 for every channel)",
          g_param_spec_double("std-value", "Standard deviation value",
                              "One channel's standard deviation", -INFINITY, INFINITY, 1.0,
                              element_flags),
          flags));
  g_object_class_install_property(
      gobject_class, PROP_SCALE,
      g_param_spec_double("scale", "Scale",
                          "Multiplies each 8-bit value before the mean is subtracted; 1/255 maps "
                          "0..255 to 0..1, 1 keeps 0..255",
                          -INFINITY, INFINITY, DEFAULT_SCALE, flags));
  g_object_class_install_property(
      gobject_class, PROP_CHANNEL_ORDER,
      g_param_spec_enum("channel-order", "Channel order",
                        "Order of the output channels whatever the input's (alpha dropped); gray "
                        "needs GRAY8 input, which rgb/bgr expand to three equal channels",
                        GST_TYPE_CUDA_PREP_CHANNEL_ORDER, static_cast<gint>(DEFAULT_CHANNEL_ORDER),
                        flags));
  g_object_class_install_property(
      gobject_class, PROP_DTYPE,
      g_param_spec_enum("dtype", "Data type",
                        "Element type of the output planes; float16 is the float32 result "
                        "rounded to nearest even",
                        GST_TYPE_CUDA_PREP_FLOAT_DTYPE, static_cast<gint>(DEFAULT_DTYPE), flags));

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA normalize", "Filter/Converter/Video/Hardware",
      "Normalises 8-bit CUDA device frames, (x * scale - mean[c]) / std[c] per channel, into "
      "planar float32 or float16 frames in RGB, BGR or GRAY order",
      "cudaprep developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cuda_prep_normalize_transform_caps;
  base_class->settings_error = gst_cuda_prep_normalize_settings_error;
  base_class->set_info = gst_cuda_prep_normalize_set_info;
  base_class->accepts_pending = gst_cuda_prep_normalize_accepts_pending;
  base_class->hands_input_to_pending = TRUE;
  base_class->pending_keeps_pixels = TRUE;
  base_class->prepare_kernels = gst_cuda_prep_normalize_prepare_kernels;
  base_class->plan_output = gst_cuda_prep_normalize_plan_output;
  base_class->annotate_output = gst_cuda_prep_normalize_annotate_output;
  base_class->output_block_size = gst_cuda_prep_normalize_output_block_size;
  base_class->process = gst_cuda_prep_normalize_process;

  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_CHANNEL_ORDER, static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_FLOAT_DTYPE, static_cast<GstPluginAPIFlags>(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_normalize_debug, "cudanormalize", 0, "CUDA normalize");
}

static void gst_cuda_prep_normalize_init(GstCudaPrepNormalize *self) {
  self->priv = new GstCudaPrepNormalizePrivate();
}
