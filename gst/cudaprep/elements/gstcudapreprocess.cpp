/**
 * SECTION:element-cudapreprocess
 *
 * The preprocessing a model ships with, as cudaprep elements: `model-config`
 * names the model's own description (a Hugging Face preprocessor_config.json,
 * a timm config.json, our torchvision or Ultralytics JSON form, a GStreamer
 * .modelinfo; docs/model-configs.md) and the bin builds the chain that
 * reproduces it inside itself (cudaresize, a caps filter, cudacrop where the
 * model centre-crops, cudanormalize, cudatensorize), between ghost pads.
 * Anything in the file it cannot reproduce exactly is an error naming the key
 * (`config-error`, and an element error at start), never an approximation.
 *
 * Configs whose tensor size follows the frame's (shortest-edge resizes,
 * DPT's kept aspect ratio, DETR) need the frame size: `frame-width` and
 * `frame-height`. `launch-fragment` reads back the chain as gst-launch
 * syntax and `tensor-shape` the tensor's dims.
 *
 *   gst-launch-1.0 videotestsrc num-buffers=10 ! video/x-raw,width=1920,height=1080 !
 *       cudaframeupload ! cudapreprocess model-config=preprocessor_config.json
 *       frame-width=1920 frame-height=1080 ! cudatensorsink
 */
#include "gstcudapreprocess.h"

#include <string>

#include <gst/cudaprep/gstcudaprepelementname-private.h>

#include "modelconfig/modelconfig.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_preprocess_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_preprocess_debug

enum {
  PROP_0,
  PROP_MODEL_CONFIG,
  PROP_FRAME_WIDTH,
  PROP_FRAME_HEIGHT,
  PROP_LAUNCH_FRAGMENT,
  PROP_TENSOR_SHAPE,
  PROP_CONFIG_ERROR,
};

struct _GstCudaPrepPreprocess {
  GstBin parent;
  GstPad *sinkpad;  // ghost pads, targets set when the chain is built
  GstPad *srcpad;
  // Guarded by the object lock.
  std::string *model_config;
  gint frame_width;
  gint frame_height;
  std::string *launch_fragment;  // empty until a chain is built
  std::string *tensor_shape;
  std::string *config_error;  // empty when the chain was built
  GstElement *chain;          // the inner bin, or NULL
};

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS("video/x-raw(memory:CUDAPitched); "
                                            "video/x-raw(memory:CUDAMemory)"));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS("other/x-cudaprep-tensor(memory:CUDAPitched)"));

G_DEFINE_TYPE(GstCudaPrepPreprocess, gst_cuda_prep_preprocess, GST_TYPE_BIN)
GST_ELEMENT_REGISTER_DEFINE(cudapreprocess, "cudapreprocess", GST_RANK_NONE,
                            GST_TYPE_CUDA_PREP_PREPROCESS)

static void remove_chain(GstCudaPrepPreprocess *self) {
  if (self->chain == nullptr) return;
  gst_ghost_pad_set_target(GST_GHOST_PAD(self->sinkpad), nullptr);
  gst_ghost_pad_set_target(GST_GHOST_PAD(self->srcpad), nullptr);
  gst_bin_remove(GST_BIN(self), self->chain);
  self->chain = nullptr;
}

// Reads the config and builds the chain from its own launch fragment (the
// fragment users read back is what runs). Called in NULL only.
static void rebuild(GstCudaPrepPreprocess *self) {
  remove_chain(self);
  self->launch_fragment->clear();
  self->tensor_shape->clear();
  self->config_error->clear();
  if (self->model_config->empty()) {
    *self->config_error = "model-config is not set";
    return;
  }
  cudaprep::modelconfig::Recipe recipe;
  cudaprep::modelconfig::Chain chain;
  std::string error;
  if (!cudaprep::modelconfig::load_recipe(*self->model_config, &recipe, &error)) {
    *self->config_error = error;
    return;
  }
  if (!cudaprep::modelconfig::build_chain(recipe, self->frame_width, self->frame_height, &chain,
                                          &error)) {
    *self->config_error =
        *self->model_config + ": " + error +
        (cudaprep::modelconfig::needs_frame_size(recipe) ? " (frame-width, frame-height)" : "");
    return;
  }
  GError *gerror = nullptr;
  GstElement *bin = gst_parse_bin_from_description(chain.launch().c_str(), TRUE, &gerror);
  if (bin == nullptr) {
    *self->config_error = "the chain " + chain.launch() + " could not be made: " +
                          (gerror != nullptr ? gerror->message : "unknown error");
    g_clear_error(&gerror);
    return;
  }
  g_clear_error(&gerror);  // a recoverable warning, if any
  GstPad *chain_sink = gst_element_get_static_pad(bin, "sink");
  GstPad *chain_src = gst_element_get_static_pad(bin, "src");
  const gboolean added = gst_bin_add(GST_BIN(self), bin);
  const gboolean linked = added && chain_sink != nullptr && chain_src != nullptr &&
                          gst_ghost_pad_set_target(GST_GHOST_PAD(self->sinkpad), chain_sink) &&
                          gst_ghost_pad_set_target(GST_GHOST_PAD(self->srcpad), chain_src);
  if (chain_sink != nullptr) gst_object_unref(chain_sink);
  if (chain_src != nullptr) gst_object_unref(chain_src);
  if (!added) gst_object_unref(bin);
  if (!linked) {
    if (added) gst_bin_remove(GST_BIN(self), bin);
    *self->config_error = "the chain " + chain.launch() + " could not be put between the pads";
    return;
  }
  self->chain = bin;
  *self->launch_fragment = chain.launch();
  *self->tensor_shape = chain.shape_string();
  GST_INFO_OBJECT(self, "%s -> %s (tensor %s)", self->model_config->c_str(),
                  self->launch_fragment->c_str(), self->tensor_shape->c_str());
}

static void gst_cuda_prep_preprocess_set_property(GObject *object, guint prop_id,
                                                  const GValue *value, GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_PREPROCESS(object);
  if (GST_STATE(self) != GST_STATE_NULL) {
    // The chain is rebuilt only where no data flows.
    g_warning("cudapreprocess: %s can only change in the NULL state; it keeps its value",
              pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_MODEL_CONFIG: {
      const gchar *path = g_value_get_string(value);
      *self->model_config = path != nullptr ? path : "";
      break;
    }
    case PROP_FRAME_WIDTH:
      self->frame_width = g_value_get_int(value);
      break;
    case PROP_FRAME_HEIGHT:
      self->frame_height = g_value_get_int(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      return;
  }
  rebuild(self);
}

static void set_nullable_string(GValue *value, const std::string &text) {
  g_value_set_string(value, text.empty() ? nullptr : text.c_str());
}

static void gst_cuda_prep_preprocess_get_property(GObject *object, guint prop_id, GValue *value,
                                                  GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_PREPROCESS(object);
  switch (prop_id) {
    case PROP_MODEL_CONFIG:
      set_nullable_string(value, *self->model_config);
      break;
    case PROP_FRAME_WIDTH:
      g_value_set_int(value, self->frame_width);
      break;
    case PROP_FRAME_HEIGHT:
      g_value_set_int(value, self->frame_height);
      break;
    case PROP_LAUNCH_FRAGMENT:
      set_nullable_string(value, *self->launch_fragment);
      break;
    case PROP_TENSOR_SHAPE:
      set_nullable_string(value, *self->tensor_shape);
      break;
    case PROP_CONFIG_ERROR:
      set_nullable_string(value, *self->config_error);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
}

static GstStateChangeReturn gst_cuda_prep_preprocess_change_state(GstElement *element,
                                                                  GstStateChange transition) {
  auto *self = GST_CUDA_PREP_PREPROCESS(element);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && self->chain == nullptr) {
    GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("cudapreprocess: %s", self->config_error->c_str()),
                      (nullptr));
    return GST_STATE_CHANGE_FAILURE;
  }
  return GST_ELEMENT_CLASS(gst_cuda_prep_preprocess_parent_class)
      ->change_state(element, transition);
}

static void gst_cuda_prep_preprocess_finalize(GObject *object) {
  auto *self = GST_CUDA_PREP_PREPROCESS(object);
  delete self->model_config;
  delete self->launch_fragment;
  delete self->tensor_shape;
  delete self->config_error;
  G_OBJECT_CLASS(gst_cuda_prep_preprocess_parent_class)->finalize(object);
}

static void gst_cuda_prep_preprocess_class_init(GstCudaPrepPreprocessClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  gobject_class->set_property = gst_cuda_prep_preprocess_set_property;
  gobject_class->get_property = gst_cuda_prep_preprocess_get_property;
  gobject_class->finalize = gst_cuda_prep_preprocess_finalize;
  cudaprep::name_elements_after_factory(gobject_class);
  element_class->change_state = gst_cuda_prep_preprocess_change_state;

  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  const auto read_only = static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property(
      gobject_class, PROP_MODEL_CONFIG,
      g_param_spec_string("model-config", "Model config",
                          "Path of the model's preprocessing description: a Hugging Face "
                          "preprocessor_config.json, a timm config.json, cudaprep's torchvision "
                          "or ultralytics-letterbox JSON form, or a GStreamer .modelinfo "
                          "(docs/model-configs.md). Set in the NULL state",
                          nullptr, flags));
  g_object_class_install_property(
      gobject_class, PROP_FRAME_WIDTH,
      g_param_spec_int("frame-width", "Frame width",
                       "Width of the frames coming in, for configs whose resize follows the "
                       "frame's size (shortest edge, kept aspect ratio); 0: not given",
                       0, G_MAXINT, 0, flags));
  g_object_class_install_property(
      gobject_class, PROP_FRAME_HEIGHT,
      g_param_spec_int("frame-height", "Frame height",
                       "Height of the frames coming in (see frame-width); 0: not given", 0,
                       G_MAXINT, 0, flags));
  g_object_class_install_property(
      gobject_class, PROP_LAUNCH_FRAGMENT,
      g_param_spec_string("launch-fragment", "Launch fragment",
                          "The chain built from model-config, in gst-launch syntax (what runs "
                          "inside the bin); NULL while none is built (see config-error)",
                          nullptr, read_only));
  g_object_class_install_property(
      gobject_class, PROP_TENSOR_SHAPE,
      g_param_spec_string("tensor-shape", "Tensor shape",
                          "Dims of the tensor the chain makes, in its layout's order, e.g. "
                          "1x3x224x224; NULL while no chain is built",
                          nullptr, read_only));
  g_object_class_install_property(
      gobject_class, PROP_CONFIG_ERROR,
      g_param_spec_string("config-error", "Config error",
                          "Why no chain is built (the file and the key it cannot honour); NULL "
                          "when the chain is built",
                          nullptr, read_only));

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA preprocess from a model's config", "Filter/Converter/Video/Hardware",
      "Builds the cudaprep chain (resize, crop, normalize, tensorize) that reproduces a model's "
      "own preprocessing description (Hugging Face, timm, torchvision, Ultralytics, .modelinfo)",
      "cudaprep developers");
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_preprocess_debug, "cudapreprocess", 0,
                          "CUDA preprocess from a model's config");
}

static void gst_cuda_prep_preprocess_init(GstCudaPrepPreprocess *self) {
  self->model_config = new std::string();
  self->launch_fragment = new std::string();
  self->tensor_shape = new std::string();
  self->config_error = new std::string("model-config is not set");
  self->frame_width = 0;
  self->frame_height = 0;
  self->chain = nullptr;
  GstElementClass *klass = GST_ELEMENT_GET_CLASS(self);
  self->sinkpad = gst_ghost_pad_new_no_target_from_template(
      "sink", gst_element_class_get_pad_template(klass, "sink"));
  self->srcpad = gst_ghost_pad_new_no_target_from_template(
      "src", gst_element_class_get_pad_template(klass, "src"));
  gst_element_add_pad(GST_ELEMENT(self), self->sinkpad);
  gst_element_add_pad(GST_ELEMENT(self), self->srcpad);
}
