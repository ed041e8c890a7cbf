// cudaresize's properties: their enum types and their specs (names, blurbs,
// ranges, defaults). Part of cudaresize (gstcudaresize-private.h).
#include "elements/cudaresize/gstcudaresize-private.h"

GType gst_cuda_prep_resize_method_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_RESIZE_METHOD_NEAREST, "Nearest neighbour (OpenCV INTER_NEAREST)", "nearest"},
      {GST_CUDA_PREP_RESIZE_METHOD_BILINEAR,
       "Bilinear, half-pixel centres, no antialiasing (OpenCV INTER_LINEAR)", "bilinear"},
      {GST_CUDA_PREP_RESIZE_METHOD_BICUBIC, "Bicubic, Keys A=-0.75 (OpenCV INTER_CUBIC)",
       "bicubic"},
      {GST_CUDA_PREP_RESIZE_METHOD_AREA, "Area-weighted mean (OpenCV INTER_AREA)", "area"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepResizeMethod", values));
  return type;
}

GType gst_cuda_prep_resize_letterbox_align_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_RESIZE_LETTERBOX_ALIGN_CENTER,
       "Centred; an odd pixel of padding goes right/bottom (Ultralytics' LetterBox)", "center"},
      {GST_CUDA_PREP_RESIZE_LETTERBOX_ALIGN_TOP_LEFT, "Top-left corner; all padding right/bottom",
       "top-left"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepResizeLetterboxAlign", values));
  return type;
}

GType gst_cuda_prep_resize_antialias_intermediate_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE_FLOAT,
       "Float between the passes, rounded once (torchvision on float tensors, or on the GPU)",
       "float"},
      {GST_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE_UINT8,
       "Horizontal pass first, rounded to 8 bits, then vertical (PIL, torchvision on CPU uint8 "
       "tensors)",
       "uint8"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type,
                      g_enum_register_static("GstCudaPrepResizeAntialiasIntermediate", values));
  return type;
}

GType gst_cuda_prep_resize_rounding_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_RESIZE_ROUNDING_HALF_EVEN, "Ties to the even code (float maths, torchvision)",
       "half-even"},
      {GST_CUDA_PREP_RESIZE_ROUNDING_HALF_UP,
       "Ties to the upper code (OpenCV's fixed-point cv::resize of 8-bit images)", "half-up"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepResizeRounding", values));
  return type;
}

namespace cudaprep::cudaresize {

void install_properties(GObjectClass *gobject_class) {
  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_PLAYING);
  g_object_class_install_property(
      gobject_class, PROP_METHOD,
      g_param_spec_enum("method", "Method",
                        "Interpolation: nearest, bilinear, bicubic or area, each sampling as "
                        "OpenCV's cv::resize does (INTER_NEAREST, INTER_LINEAR, INTER_CUBIC, "
                        "INTER_AREA)",
                        GST_TYPE_CUDA_PREP_RESIZE_METHOD, DEFAULT_METHOD, flags));
  g_object_class_install_property(
      gobject_class, PROP_ADD_BORDERS,
      g_param_spec_boolean("add-borders", "Add borders",
                           "Keep the input's aspect ratio and fill the rest of the output with "
                           "pad-value (letterbox); false stretches the input to the output size. "
                           "Unlike videoscale's add-borders (default true) the default is false: "
                           "models train with one or the other, so a letterbox is asked for",
                           DEFAULT_ADD_BORDERS, flags));
  g_object_class_install_property(
      gobject_class, PROP_PAD_VALUE,
      gst_param_spec_array("pad-value", "Pad value",
                           "Colour of the letterbox borders, 0-255 per channel whatever the output "
                           "format: <grey>, <grey,alpha>, <R,G,B> or <R,G,B,A>; alpha defaults to "
                           "255. Default <0,0,0> (black); YOLO models use <114,114,114>. Values "
                           "outside 0-255 or a wrong count are an error at start",
                           g_param_spec_int("value", "Value", "One channel of the pad colour",
                                            G_MININT, G_MAXINT, DEFAULT_PAD_LEVEL, flags),
                           flags));
  g_object_class_install_property(
      gobject_class, PROP_LETTERBOX_ALIGN,
      g_param_spec_enum("letterbox-align", "Letterbox alignment",
                        "Where the image sits inside the borders when add-borders is true",
                        GST_TYPE_CUDA_PREP_RESIZE_LETTERBOX_ALIGN, DEFAULT_LETTERBOX_ALIGN, flags));
  g_object_class_install_property(
      gobject_class, PROP_SHORT_SIDE,
      g_param_spec_int("short-side", "Short side",
                       "Derive the output size from the input: keep the aspect ratio, scale the "
                       "short side to this many pixels, then snap both sides to multiples of "
                       "multiple-of (Depth-Anything: 518 and 14). 0: the output size comes from "
                       "the caps",
                       0, G_MAXINT, 0, flags));
  g_object_class_install_property(
      gobject_class, PROP_MULTIPLE_OF,
      g_param_spec_int("multiple-of", "Multiple of",
                       "With short-side: both output sides become multiples of this, rounded to "
                       "nearest but never below short-side. 0 or 1: no snapping",
                       0, G_MAXINT, 0, flags));

  g_object_class_install_property(
      gobject_class, PROP_ANTIALIAS,
      g_param_spec_boolean("antialias", "Antialias",
                           "bilinear and bicubic as torchvision's Resize(antialias=True) and PIL "
                           "sample: the filter widens with the downscale factor (bicubic with "
                           "A=-0.5). false: OpenCV's sampling. An error with nearest or area",
                           FALSE, flags));
  g_object_class_install_property(
      gobject_class, PROP_ANTIALIAS_INTERMEDIATE,
      g_param_spec_enum("antialias-intermediate", "Antialias intermediate",
                        "With antialias=true, what the antialiased resample keeps between its "
                        "horizontal and vertical passes: float (rounded once at the end, as "
                        "torchvision resizes float tensors, and uint8 tensors on the GPU) or uint8 "
                        "(horizontal pass first, rounded half up and clamped to 0-255, then the "
                        "vertical pass, as PIL and torchvision on CPU uint8 tensors do: within 1 "
                        "of theirs). uint8 without antialias is an error at start",
                        GST_TYPE_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE,
                        DEFAULT_ANTIALIAS_INTERMEDIATE, flags));
  g_object_class_install_property(
      gobject_class, PROP_FLOAT_INTERMEDIATE,
      g_param_spec_boolean("float-intermediate", "Float intermediate",
                           "When fused into cudatensorize, normalise the resampled values "
                           "unrounded (as references that resize floats do) instead of the 8-bit "
                           "pixels this element would write. Needs cudaresize ! cudanormalize ! "
                           "cudatensorize: an error when the resize would run here. Bilinear and "
                           "bicubic then place samples as cv2.resize does for float images",
                           FALSE, flags));
  g_object_class_install_property(
      gobject_class, PROP_ROUNDING,
      g_param_spec_enum("rounding", "Rounding",
                        "How an 8-bit value exactly between two codes is stored (here or in the "
                        "fused kernel's 8-bit step): half-even (the float convention) or half-up "
                        "(OpenCV's fixed-point cv::resize: a 6:1 bilinear shrink, all ties, "
                        "equals cv2.resize only so). Other values round to the nearest code "
                        "either way",
                        GST_TYPE_CUDA_PREP_RESIZE_ROUNDING, DEFAULT_ROUNDING, flags));
  // GstVideoDirection's property, with its own blurb (the interface's
  // accepts any pspec of its type and flags).
  g_object_class_install_property(
      gobject_class, PROP_VIDEO_DIRECTION,
      g_param_spec_enum("video-direction", "Video direction",
                        "Flip or rotate the input before resizing it, as videoflip's "
                        "video-direction: identity, 90r (clockwise), 180, 90l, horiz, vert, ul-lr, "
                        "ur-ll; auto follows the stream's image-orientation tags. 90r, 90l, ul-lr "
                        "and ur-ll exchange the width and height of an output size derived from "
                        "the input (kept size, short-side, letterbox). custom is an error at start",
                        GST_TYPE_VIDEO_ORIENTATION_METHOD, GST_VIDEO_ORIENTATION_IDENTITY, flags));
}

}  // namespace cudaprep::cudaresize
