// Colorimetry of 8-bit YUV frames: which matrix and which code range turn
// Y'CbCr code values into R'G'B'. RGB and GRAY sources ignore it.
#pragma once

namespace cudaprep {

// Luma coefficients: BT.601 (Kr 0.299, Kb 0.114; SD video, JPEG) or
// BT.709 (Kr 0.2126, Kb 0.0722; HD video).
enum class ColorMatrix { kBT601, kBT709 };

// kLimited: Y in [16, 235], Cb/Cr in [16, 240] ("TV", "video" range).
// kFull: all three in [0, 255], chroma centred on 128 ("PC", JPEG range).
enum class ColorRange { kFull, kLimited };

// The default, BT.601 limited, is what OpenCV's cvtColor(COLOR_YUV2RGB_*)
// assumes and what most SD cameras produce.
struct Colorimetry {
  ColorMatrix matrix = ColorMatrix::kBT601;
  ColorRange range = ColorRange::kLimited;
};

}  // namespace cudaprep
