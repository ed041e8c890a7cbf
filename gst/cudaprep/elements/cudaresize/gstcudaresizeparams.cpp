// What cudaresize's settings make of the negotiated frames
// (gstcudaresizeparams.h). Part of cudaresize.
#include "elements/cudaresize/gstcudaresizeparams.h"

#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>

namespace cudaprep::cudaresize {

static cudaprep::Interpolation interpolation_of(GstCudaPrepResizeMethod method) {
  switch (method) {
    case GST_CUDA_PREP_RESIZE_METHOD_NEAREST:
      return cudaprep::Interpolation::kNearest;
    case GST_CUDA_PREP_RESIZE_METHOD_BICUBIC:
      return cudaprep::Interpolation::kBicubic;
    case GST_CUDA_PREP_RESIZE_METHOD_AREA:
      return cudaprep::Interpolation::kArea;
    case GST_CUDA_PREP_RESIZE_METHOD_BILINEAR:
      break;
  }
  return cudaprep::Interpolation::kBilinear;
}

// The pad value as R, G, B, A from the 1 to 4 values given.
static void pad_rgba(const ResizeSettings &settings, uint8_t rgba[4]) {
  const std::vector<gint> &values = settings.pad_values;
  const bool grey = values.size() <= 2;
  rgba[0] = static_cast<uint8_t>(values[0]);
  rgba[1] = static_cast<uint8_t>(grey ? values[0] : values[1]);
  rgba[2] = static_cast<uint8_t>(grey ? values[0] : values[2]);
  const guint alpha_index = grey ? 1 : 3;
  rgba[3] = values.size() > alpha_index ? static_cast<uint8_t>(values[alpha_index]) : 255;
}

// Why the settings cannot work, naming the property and value; empty if
// they can.
std::string settings_error(const ResizeSettings &settings) {
  if (settings.direction == GST_VIDEO_ORIENTATION_CUSTOM)
    return "video-direction=custom is not supported by cudaresize: it flips and rotates by "
           "identity, 90r, 180, 90l, horiz, vert, ul-lr or ur-ll only";
  if (settings.antialias_intermediate == GST_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE_UINT8 &&
      !settings.antialias)
    return "antialias-intermediate=uint8 needs antialias=true: it is the 8-bit step between the "
           "antialiased passes";
  const size_t count = settings.pad_values.size();
  if (count < 1 || count > kMaxPadValues)
    return "pad-value takes 1 to 4 values (<grey>, <grey,alpha>, <R,G,B> or <R,G,B,A>), not " +
           std::to_string(count);
  for (size_t i = 0; i < count; ++i) {
    if (settings.pad_values[i] < 0 || settings.pad_values[i] > 255)
      return "pad-value[" + std::to_string(i) + "]=" + std::to_string(settings.pad_values[i]) +
             " is outside 0..255";
  }
  return {};
}

// How the input's YUV codes map to RGB. Unknown matrix or range parts take
// GStreamer's default for this format and size; the matrix's Kr and Kb come
// from GStreamer (gst_video_color_matrix_get_Kr_Kb: BT.601, BT.709,
// BT.2020, SMPTE 240M, FCC); a matrix without them is refused rather than
// converted wrongly.
bool input_colorimetry(const GstVideoInfo *info, cudaprep::Colorimetry *colorimetry,
                       std::string *reason) {
  *colorimetry = cudaprep::Colorimetry{};
  if (!GST_VIDEO_INFO_IS_YUV(info)) return true;
  GstVideoInfo default_info;
  gst_video_info_set_format(&default_info, GST_VIDEO_INFO_FORMAT(info), GST_VIDEO_INFO_WIDTH(info),
                            GST_VIDEO_INFO_HEIGHT(info));
  GstVideoColorimetry given = info->colorimetry;
  if (given.matrix == GST_VIDEO_COLOR_MATRIX_UNKNOWN)
    given.matrix = default_info.colorimetry.matrix;
  if (given.range == GST_VIDEO_COLOR_RANGE_UNKNOWN) given.range = default_info.colorimetry.range;
  gdouble kr = 0.0, kb = 0.0;
  if (!gst_video_color_matrix_get_Kr_Kb(given.matrix, &kr, &kb)) {
    gchar *name = gst_video_colorimetry_to_string(&given);
    *reason = std::string("input colorimetry ") + (name != nullptr ? name : "(unnamed)") +
              " has no YUV colour matrix cudaresize can convert; YUV input needs one with "
              "luma coefficients (BT.601, BT.709, BT.2020, SMPTE 240M), full or limited range";
    g_free(name);
    return false;
  }
  colorimetry->matrix = cudaprep::ColorMatrix{static_cast<float>(kr), static_cast<float>(kb)};
  colorimetry->range = given.range == GST_VIDEO_COLOR_RANGE_0_255 ? cudaprep::ColorRange::kFull
                                                                  : cudaprep::ColorRange::kLimited;
  return true;
}

// A plane-less stand-in of a negotiated frame for resize_params_error(),
// which checks formats, sizes and pitches and never reads pixels.
static cudaprep::Image frame_shape(const GstVideoInfo *info) {
  static uint8_t placeholder;
  cudaprep::Image image;
  gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(info), &image.format);
  image.width = GST_VIDEO_INFO_WIDTH(info);
  image.height = GST_VIDEO_INFO_HEIGHT(info);
  for (int plane = 0; plane < cudaprep::format_info(image.format).num_planes; ++plane) {
    image.planes[plane].data = &placeholder;
    image.planes[plane].pitch_bytes = cudaprep::plane_row_bytes(image.format, plane, image.width);
  }
  return image;
}

cudaprep::LetterboxOptions letterbox_options(const ResizeSettings &settings) {
  cudaprep::LetterboxOptions options;
  options.align = settings.letterbox_align == GST_CUDA_PREP_RESIZE_LETTERBOX_ALIGN_TOP_LEFT
                      ? cudaprep::LetterboxAlign::kTopLeft
                      : cudaprep::LetterboxAlign::kCenter;
  return options;
}

// The kernel parameters for the current settings and negotiated frames.
bool resize_params(const ResizeSettings &settings, const GstVideoInfo *in_info,
                   const GstVideoInfo *out_info, const cudaprep::Colorimetry &colorimetry,
                   cudaprep::ResizeParams *params, std::string *reason) {
  const gint in_width = GST_VIDEO_INFO_WIDTH(in_info), in_height = GST_VIDEO_INFO_HEIGHT(in_info);
  const gint out_width = GST_VIDEO_INFO_WIDTH(out_info),
             out_height = GST_VIDEO_INFO_HEIGHT(out_info);
  *reason = settings_error(settings);
  if (!reason->empty()) return false;
  params->interpolation = interpolation_of(settings.method);
  params->antialias = settings.antialias;
  params->antialias_intermediate =
      settings.antialias_intermediate == GST_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE_UINT8
          ? cudaprep::AntialiasIntermediate::kUint8
          : cudaprep::AntialiasIntermediate::kFloat;
  params->round_half_up = settings.rounding == GST_CUDA_PREP_RESIZE_ROUNDING_HALF_UP;
  params->orientation = settings.orientation();
  params->source_colorimetry = colorimetry;
  pad_rgba(settings, params->pad_value);
  params->dst_rect = cudaprep::PixelRect{0, 0, out_width, out_height};
  if (settings.add_borders) {
    // The oriented input is what keeps its aspect ratio.
    if (!cudaprep::letterbox_rect(settings.swaps_size() ? in_height : in_width,
                                  settings.swaps_size() ? in_width : in_height, out_width,
                                  out_height, letterbox_options(settings), &params->dst_rect,
                                  reason))
      return false;
  }
  // The float intermediate is the fused kernel's; resize() itself refuses it,
  // so it is checked off (params may hold the last call's value).
  params->float_intermediate = false;
  *reason = cudaprep::resize_params_error(frame_shape(in_info), frame_shape(out_info), *params);
  params->float_intermediate = settings.float_intermediate;
  return reason->empty();
}

}  // namespace cudaprep::cudaresize
