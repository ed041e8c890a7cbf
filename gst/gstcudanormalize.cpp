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
 * (or be empty: mean 0, std 1); a wrong length or a zero std is an error at
 * state change.
 *
 *   gst-launch-1.0 videotestsrc ! cudaframeupload ! cudanormalize mean="<0.485,0.456,0.406>"
 * std="<0.229,0.224,0.225>" ! cudatensorize ! cudatensorsink drop=true
 */
#include "gstcudanormalize.h"

#include <gst/video/video.h>

#include <cmath>
#include <string>
#include <vector>

#include "cudaprep/normalize.h"
#include "gstcudaprepformat.h"
#include "gstcudaprepmeta.h"
#include "gstcudapreptensorformat.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_normalize_debug);
#define GST_CAT_DEFAULT gst_cuda_normalize_debug

enum { PROP_0, PROP_MEAN, PROP_STD, PROP_SCALE, PROP_CHANNEL_ORDER, PROP_DTYPE };

#define DEFAULT_SCALE (1.0 / 255.0)
#define DEFAULT_CHANNEL_ORDER cudaprep::ChannelOrder::kRGB
#define DEFAULT_DTYPE cudaprep::DataType::kFloat32

// The 8-bit interleaved formats the kernel reads.
#define NORMALIZE_INPUT_FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8 }"

struct NormalizeSettings {
  std::vector<double> mean;  // empty: 0 for every channel
  std::vector<double> std;   // empty: 1 for every channel
  double scale = DEFAULT_SCALE;
  cudaprep::ChannelOrder channel_order = DEFAULT_CHANNEL_ORDER;
  cudaprep::DataType dtype = DEFAULT_DTYPE;
};

struct _GstCudaNormalize {
  GstCudaPrepBaseTransform parent;
  NormalizeSettings *settings;  // object lock
  GstVideoInfo in_info;
  GstCudaPrepPlanarInfo out_info;
  cudaprep::NormalizeParams params;
  gboolean defer;  // downstream runs this normalisation (GstCudaPrepPendingMeta)
};

G_DEFINE_TYPE(GstCudaNormalize, gst_cuda_normalize, GST_TYPE_CUDA_PREP_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(cudanormalize, "cudanormalize", GST_RANK_NONE, GST_TYPE_CUDA_NORMALIZE)

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS(GST_CUDA_PREP_VIDEO_CAPS(NORMALIZE_INPUT_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_CUDA_PREP_PLANAR_CAPS));

// Why `settings` cannot be used, in words a user can act on; empty if valid.
static std::string settings_error(const NormalizeSettings &settings) {
  const size_t channels = cudaprep::channel_count(settings.channel_order);
  const char *order = cudaprep::channel_order_name(settings.channel_order);
  for (const auto &[name, values] :
       {std::make_pair("mean", &settings.mean), std::make_pair("std", &settings.std)}) {
    if (!values->empty() && values->size() != channels)
      return std::string(name) + " has " + std::to_string(values->size()) +
             " values but channel-order=" + order + " gives " + std::to_string(channels) +
             " channel(s): give one value per output channel, e.g. " + name + "=\"<" +
             (channels == 3 ? "0.5,0.5,0.5" : "0.5") + ">\"";
    for (size_t c = 0; c < values->size(); ++c) {
      if (!std::isfinite((*values)[c]))
        return std::string(name) + "[" + std::to_string(c) + "] is not a finite number";
    }
  }
  for (size_t c = 0; c < settings.std.size(); ++c) {
    if (settings.std[c] == 0.0)
      return "std[" + std::to_string(c) + "] is 0: the channel would be divided by zero";
  }
  if (!std::isfinite(settings.scale)) return "scale is not a finite number";
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

// Checks the settings under the object lock, posting an element error.
static gboolean check_settings(GstCudaNormalize *self, NormalizeSettings *copy) {
  GST_OBJECT_LOCK(self);
  *copy = *self->settings;
  GST_OBJECT_UNLOCK(self);
  const std::string error = settings_error(*copy);
  if (!error.empty()) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                      ("Invalid cudanormalize settings: %s", error.c_str()), (nullptr));
    return FALSE;
  }
  return TRUE;
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

static void gst_cuda_normalize_set_property(GObject *object, guint prop_id, const GValue *value,
                                            GParamSpec *pspec) {
  auto *self = GST_CUDA_NORMALIZE(object);
  GST_OBJECT_LOCK(self);
  NormalizeSettings &settings = *self->settings;
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

static void gst_cuda_normalize_get_property(GObject *object, guint prop_id, GValue *value,
                                            GParamSpec *pspec) {
  auto *self = GST_CUDA_NORMALIZE(object);
  GST_OBJECT_LOCK(self);
  const NormalizeSettings &settings = *self->settings;
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
static GstStructure *planar_structure(GstCudaNormalize *self) {
  GST_OBJECT_LOCK(self);
  const cudaprep::ChannelOrder channel_order = self->settings->channel_order;
  const cudaprep::DataType dtype = self->settings->dtype;
  GST_OBJECT_UNLOCK(self);
  return gst_structure_new(GST_CUDA_PREP_PLANAR_MEDIA_TYPE, "dtype", G_TYPE_STRING,
                           cudaprep::data_type_name(dtype), "channels", G_TYPE_INT,
                           cudaprep::channel_count(channel_order), "channel-order", G_TYPE_STRING,
                           cudaprep::channel_order_name(channel_order), nullptr);
}

static void copy_frame_fields(GstStructure *to, const GstStructure *from) {
  for (const char *field : {"width", "height", "framerate"}) {
    const GValue *value = gst_structure_get_value(from, field);
    if (value != nullptr) gst_structure_set_value(to, field, value);
  }
}

// Video -> planar with the properties' dtype and channels; planar -> the
// video formats that can give the properties' channel order (gray: GRAY8).
static GstCaps *gst_cuda_normalize_transform_caps(GstBaseTransform *trans,
                                                  GstPadDirection direction, GstCaps *caps,
                                                  GstCaps *filter) {
  auto *self = GST_CUDA_NORMALIZE(trans);
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
      GstCaps *video = gst_caps_from_string(
          GST_CUDA_PREP_VIDEO_CAPS(NORMALIZE_INPUT_FORMATS) ";" GST_CUDA_PREP_VIDEO_CAPS("GRAY8"));
      out = gst_structure_copy(gst_caps_get_structure(video, gray ? 1 : 0));
      gst_caps_unref(video);
    }
    copy_frame_fields(out, structure);
    result = gst_caps_merge_structure_full(
        result, out, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED, nullptr));
  }
  gst_structure_free(planar);
  if (filter != nullptr) {
    GstCaps *filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(result);
    result = filtered;
  }
  GST_DEBUG_OBJECT(self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
                   direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

static gboolean gst_cuda_normalize_set_caps(GstBaseTransform *trans, GstCaps *incaps,
                                            GstCaps *outcaps) {
  auto *self = GST_CUDA_NORMALIZE(trans);
  if (!gst_cuda_prep_frame_info_from_caps(GST_ELEMENT(self), incaps, &self->in_info)) return FALSE;
  if (!gst_cuda_prep_planar_info_from_caps(&self->out_info, outcaps)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("Invalid planar output caps: %s", GST_CUDA_PREP_PLANAR_CAPS_RULES),
                      ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  NormalizeSettings settings;
  if (!check_settings(self, &settings)) return FALSE;
  cudaprep::PixelFormat format;
  cudaprep::InterleavedChannelMap map;
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&self->in_info), &format) ||
      !cudaprep::interleaved_channel_map(format, self->out_info.channel_order, &map)) {
    GST_ELEMENT_ERROR(
        self, CORE, NEGOTIATION,
        ("cudanormalize cannot give channel-order %s from %s input%s",
         cudaprep::channel_order_name(self->out_info.channel_order),
         GST_VIDEO_INFO_NAME(&self->in_info),
         self->out_info.channel_order == cudaprep::ChannelOrder::kGray ? ": gray needs GRAY8 input"
                                                                       : ""),
        (nullptr));
    return FALSE;
  }
  if (self->out_info.width != GST_VIDEO_INFO_WIDTH(&self->in_info) ||
      self->out_info.height != GST_VIDEO_INFO_HEIGHT(&self->in_info)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("cudanormalize does not resize: the output must be %dx%d, like the input "
                       "(put cudaresize before it)",
                       GST_VIDEO_INFO_WIDTH(&self->in_info), GST_VIDEO_INFO_HEIGHT(&self->in_info)),
                      ("out %" GST_PTR_FORMAT, outcaps));
    return FALSE;
  }
  self->params = params_of(settings);
  self->params.channel_order = self->out_info.channel_order;
  return TRUE;
}

// Whether this element can hand its work (and a pending resize) to
// downstream in a GstCudaPrepPendingMeta: downstream takes it, and the fused
// kernel computes what the separate ones would (it resizes to RGB, or to
// GRAY8 for channel-order=gray, so a GRAY8 input expanded to RGB is not).
static gboolean can_defer(GstCudaNormalize *self) {
  const bool gray_input = GST_VIDEO_INFO_FORMAT(&self->in_info) == GST_VIDEO_FORMAT_GRAY8;
  const bool gray_output = self->params.channel_order == cudaprep::ChannelOrder::kGray;
  if (gray_input != gray_output) return FALSE;
  GstCaps *caps = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SRC_PAD(self));
  if (caps == nullptr) return FALSE;
  GstQuery *query = gst_query_new_allocation(caps, FALSE);
  const gboolean accepted =
      gst_pad_peer_query(GST_BASE_TRANSFORM_SRC_PAD(self), query) &&
      gst_query_find_allocation_meta(query, GST_CUDA_PREP_PENDING_META_API_TYPE, nullptr);
  gst_query_unref(query);
  gst_caps_unref(caps);
  return accepted;
}

static gboolean gst_cuda_normalize_propose_allocation(GstBaseTransform *trans,
                                                      GstQuery *decide_query, GstQuery *query) {
  if (!GST_BASE_TRANSFORM_CLASS(gst_cuda_normalize_parent_class)
           ->propose_allocation(trans, decide_query, query))
    return FALSE;
  if (can_defer(GST_CUDA_NORMALIZE(trans)))
    gst_query_add_allocation_meta(query, GST_CUDA_PREP_PENDING_META_API_TYPE, nullptr);
  return TRUE;
}

// A deferred frame stays the input buffer, its work noted in the meta.
static GstFlowReturn gst_cuda_normalize_prepare_output_buffer(GstBaseTransform *trans,
                                                              GstBuffer *input,
                                                              GstBuffer **output) {
  if (!GST_CUDA_NORMALIZE(trans)->defer || gst_base_transform_is_passthrough(trans))
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_normalize_parent_class)
        ->prepare_output_buffer(trans, input, output);
  *output = gst_cuda_prep_buffer_in_place_output(input);
  return GST_FLOW_OK;
}

static GstFlowReturn gst_cuda_normalize_transform(GstBaseTransform *trans, GstBuffer *inbuf,
                                                  GstBuffer *outbuf) {
  auto *self = GST_CUDA_NORMALIZE(trans);
  if (!self->defer)
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_normalize_parent_class)
        ->transform(trans, inbuf, outbuf);
  GstCudaPrepPendingMeta *pending = gst_buffer_ensure_cuda_prep_pending_meta(outbuf);
  if (!pending->has_resize) pending->resize = cudaprep::ResizeParams();  // 1:1, exact
  pending->has_normalize = TRUE;
  pending->normalize = self->params;
  return GST_FLOW_OK;
}

static GstFlowReturn gst_cuda_normalize_transform_ip(GstBaseTransform *trans, GstBuffer *buffer) {
  return gst_cuda_normalize_transform(trans, buffer, buffer);
}

static gboolean gst_cuda_normalize_decide_allocation(GstBaseTransform *trans, GstQuery *query) {
  auto *self = GST_CUDA_NORMALIZE(trans);
  self->defer =
      gst_query_find_allocation_meta(query, GST_CUDA_PREP_PENDING_META_API_TYPE, nullptr) &&
      can_defer(self);
  GST_DEBUG_OBJECT(
      self, "%s",
      self->defer ? "fused: cudatensorize runs this normalisation" : "runs its own kernel");
  return gst_cuda_prep_decide_block_pool(
      trans, query, gst_cuda_prep_base_transform_get_device_id(GST_CUDA_PREP_BASE_TRANSFORM(self)),
      self->out_info.size);
}

static GstFlowReturn gst_cuda_normalize_process(GstCudaPrepBaseTransform *base, GstBuffer *inbuf,
                                                GstBuffer *outbuf) {
  auto *self = GST_CUDA_NORMALIZE(base);
  cudaprep::Image source;
  cudaprep::PlanarImage planar;
  const gchar *error = nullptr;
  if (!gst_cuda_prep_buffer_device_image(inbuf, &self->in_info, &source, &error)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Input buffer is not a device frame: %s", error),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  if (!gst_cuda_prep_buffer_planar_image(outbuf, &self->out_info, &planar, &error)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Output buffer is not a planar frame: %s", error),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  const std::string invalid = cudaprep::normalize_error(source, planar, self->params);
  if (!invalid.empty()) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Cannot normalise this frame: %s", invalid.c_str()),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  if (!CUDAPREP_CHECK(self, cudaprep::normalize(source, planar, self->params,
                                                gst_cuda_prep_base_transform_get_stream(base))))
    return GST_FLOW_ERROR;
  // Pixels stay where they are: the source mapping passes through unchanged.
  gst_cuda_prep_buffer_chain_geometry(inbuf, outbuf, cudaprep::FrameGeometry());
  return GST_FLOW_OK;
}

// Settings errors surface when the element is set up, before any GPU work
// (and on machines without a GPU).
static GstStateChangeReturn gst_cuda_normalize_change_state(GstElement *element,
                                                            GstStateChange transition) {
  auto *self = GST_CUDA_NORMALIZE(element);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY ||
      transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    NormalizeSettings settings;
    if (!check_settings(self, &settings)) return GST_STATE_CHANGE_FAILURE;
  }
  return GST_ELEMENT_CLASS(gst_cuda_normalize_parent_class)->change_state(element, transition);
}

static void gst_cuda_normalize_finalize(GObject *object) {
  delete GST_CUDA_NORMALIZE(object)->settings;
  G_OBJECT_CLASS(gst_cuda_normalize_parent_class)->finalize(object);
}

static void gst_cuda_normalize_class_init(GstCudaNormalizeClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_cuda_normalize_set_property;
  gobject_class->get_property = gst_cuda_normalize_get_property;
  gobject_class->finalize = gst_cuda_normalize_finalize;

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
          g_param_spec_double("mean-value", "Mean value", "One channel's mean", -G_MAXFLOAT,
                              G_MAXFLOAT, 0.0, element_flags),
          flags));
  g_object_class_install_property(
      gobject_class, PROP_STD,
      gst_param_spec_array(
          "std", "Standard deviation",
          "Per output channel, divides after the mean is subtracted, e.g. "
          "\"<0.229,0.224,0.225>\" (ImageNet); one non-zero value per channel of channel-order "
          "(empty: 1 for every channel)",
          g_param_spec_double("std-value", "Standard deviation value",
                              "One channel's standard deviation", -G_MAXFLOAT, G_MAXFLOAT, 1.0,
                              element_flags),
          flags));
  g_object_class_install_property(
      gobject_class, PROP_SCALE,
      g_param_spec_double("scale", "Scale",
                          "Multiplies each 8-bit value before the mean is subtracted; 1/255 maps "
                          "0..255 to 0..1, 1 keeps 0..255",
                          -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_SCALE, flags));
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
  element_class->change_state = gst_cuda_normalize_change_state;

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cuda_normalize_transform_caps;
  trans_class->set_caps = gst_cuda_normalize_set_caps;
  trans_class->decide_allocation = gst_cuda_normalize_decide_allocation;
  trans_class->propose_allocation = gst_cuda_normalize_propose_allocation;
  trans_class->prepare_output_buffer = gst_cuda_normalize_prepare_output_buffer;
  trans_class->transform = gst_cuda_normalize_transform;
  trans_class->transform_ip = gst_cuda_normalize_transform_ip;
  GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass)->process = gst_cuda_normalize_process;

  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_CHANNEL_ORDER, static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_FLOAT_DTYPE, static_cast<GstPluginAPIFlags>(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_normalize_debug, "cudanormalize", 0, "CUDA normalize");
}

static void gst_cuda_normalize_init(GstCudaNormalize *self) {
  self->settings = new NormalizeSettings();
  gst_video_info_init(&self->in_info);
}
