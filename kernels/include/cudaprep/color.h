// Colorimetry of YUV frames: which matrix and which code range turn
// Y'CbCr code values into R'G'B'. RGB and GRAY sources ignore it.
#pragma once

namespace cudaprep {

// The luma coefficients Kr and Kb that define a Y'CbCr matrix (Kg = 1 - Kr -
// Kb). Any pair works; the presets are the standards' (GStreamer's
// gst_video_color_matrix_get_Kr_Kb gives the same numbers).
struct ColorMatrix {
  float kr;
  float kb;

  static const ColorMatrix kBT601;   // Kr 0.299, Kb 0.114: SD video, JPEG
  static const ColorMatrix kBT709;   // Kr 0.2126, Kb 0.0722: HD video
  static const ColorMatrix kBT2020;  // Kr 0.2627, Kb 0.0593: UHD, HDR (non-constant luminance)
};

inline constexpr ColorMatrix ColorMatrix::kBT601{0.299f, 0.114f};
inline constexpr ColorMatrix ColorMatrix::kBT709{0.2126f, 0.0722f};
inline constexpr ColorMatrix ColorMatrix::kBT2020{0.2627f, 0.0593f};

constexpr bool operator==(const ColorMatrix &a, const ColorMatrix &b) {
  return a.kr == b.kr && a.kb == b.kb;
}
constexpr bool operator!=(const ColorMatrix &a, const ColorMatrix &b) {
  return !(a == b);
}

// kLimited: on n bits, Y in [16, 235] * 2^(n-8), Cb/Cr in [16, 240] *
// 2^(n-8) ("TV", "video" range).
// kFull: all three in [0, 2^n - 1], chroma centred on 2^(n-1) ("PC", JPEG).
enum class ColorRange { kFull, kLimited };

// The default, BT.601 limited, is what OpenCV's cvtColor(COLOR_YUV2RGB_*)
// assumes and what most SD cameras produce.
struct Colorimetry {
  ColorMatrix matrix = ColorMatrix::kBT601;
  ColorRange range = ColorRange::kLimited;
};

}  // namespace cudaprep
