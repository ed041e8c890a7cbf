#include "cudaprep/resize_geometry.h"

#include <algorithm>
#include <cfenv>
#include <cmath>

namespace cudaprep {
namespace {

bool fail(std::string *error, const std::string &reason) {
  if (error != nullptr) *error = reason;
  return false;
}

std::string size_string(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

// Python's round() and numpy's np.round(): ties go to the even neighbour.
double round_half_even(double value) {
  const int saved_mode = std::fegetround();
  std::fesetround(FE_TONEAREST);
  const double rounded = std::nearbyint(value);
  std::fesetround(saved_mode);
  return rounded;
}

// The largest side we hand out: keeps width * bytes-per-pixel well inside int.
constexpr double kMaxSide = 1 << 20;

}  // namespace

bool letterbox_rect(int src_width, int src_height, int dst_width, int dst_height,
                    const LetterboxOptions &options, PixelRect *rect, std::string *error) {
  if (src_width <= 0 || src_height <= 0) {
    return fail(error, "letterbox: source size " + size_string(src_width, src_height) +
                           " is empty; both sides must be at least 1");
  }
  if (dst_width <= 0 || dst_height <= 0) {
    return fail(error, "letterbox: output size " + size_string(dst_width, dst_height) +
                           " is empty; both sides must be at least 1");
  }
  double ratio = std::min(static_cast<double>(dst_width) / src_width,
                          static_cast<double>(dst_height) / src_height);
  if (!options.scale_up) ratio = std::min(ratio, 1.0);
  // A side that rounds to 0 still needs one pixel; rounding never exceeds the
  // output because src * ratio <= dst up to a last-bit error.
  const int width = std::clamp(static_cast<int>(round_half_even(src_width * ratio)), 1, dst_width);
  const int height =
      std::clamp(static_cast<int>(round_half_even(src_height * ratio)), 1, dst_height);
  PixelRect result;
  result.width = width;
  result.height = height;
  if (options.align == LetterboxAlign::kCenter) {
    result.x = (dst_width - width) / 2;
    result.y = (dst_height - height) / 2;
  }
  *rect = result;
  return true;
}

bool short_side_multiple_size(int src_width, int src_height, int short_side, int multiple_of,
                              int *out_width, int *out_height, std::string *error) {
  if (src_width <= 0 || src_height <= 0) {
    return fail(error, "short-side resize: source size " + size_string(src_width, src_height) +
                           " is empty; both sides must be at least 1");
  }
  if (short_side <= 0) {
    return fail(error, "short-side resize: short side " + std::to_string(short_side) +
                           " must be at least 1");
  }
  if (multiple_of <= 0) {
    return fail(error, "short-side resize: multiple-of " + std::to_string(multiple_of) +
                           " must be at least 1");
  }
  const double scale = std::max(static_cast<double>(short_side) / src_width,
                                static_cast<double>(short_side) / src_height);
  auto constrain = [&](double scaled_side) {
    double multiples = round_half_even(scaled_side / multiple_of);
    if (multiples * multiple_of < short_side) multiples = std::ceil(scaled_side / multiple_of);
    return multiples * multiple_of;
  };
  const double width = constrain(src_width * scale);
  const double height = constrain(src_height * scale);
  if (width > kMaxSide || height > kMaxSide) {
    return fail(error, "short-side resize: " + size_string(src_width, src_height) +
                           " with short side " + std::to_string(short_side) +
                           " would need a side longer than " +
                           std::to_string(static_cast<int>(kMaxSide)) + " pixels");
  }
  *out_width = static_cast<int>(width);
  *out_height = static_cast<int>(height);
  return true;
}

FrameGeometry resize_frame_geometry(int src_width, int src_height, const PixelRect &dst_rect,
                                    Orientation orientation) {
  const bool swapped = swaps_axes(orientation);
  FrameGeometry geometry;
  geometry.orientation = orientation;
  geometry.scale_x = static_cast<double>(dst_rect.width) / (swapped ? src_height : src_width);
  geometry.scale_y = static_cast<double>(dst_rect.height) / (swapped ? src_width : src_height);
  geometry.pad_x = dst_rect.x;
  geometry.pad_y = dst_rect.y;
  // The source corner R maps to the oriented image's origin: where a
  // coordinate R negates, the far edge.
  const AxisMatrix r = axis_matrix(orientation);
  geometry.crop_x = (r.xx < 0 || r.yx < 0) ? src_width : 0;
  geometry.crop_y = (r.xy < 0 || r.yy < 0) ? src_height : 0;
  return geometry;
}

std::vector<bool> resize_rows_read(Interpolation interpolation, int src_height, int rect_height) {
  std::vector<bool> rows;
  if (src_height <= 0 || rect_height <= 0) return rows;
  const auto clamp_row = [&](long row) {
    return static_cast<int>(std::clamp<long>(row, 0, src_height - 1));
  };
  switch (interpolation) {
    case Interpolation::kNearest: {
      // nearest_index(): OpenCV's scale 1 / (dst / src), in double.
      const double src_per_dst = 1.0 / (static_cast<double>(rect_height) / src_height);
      rows.assign(src_height, false);
      for (int d = 0; d < rect_height; ++d)
        rows[clamp_row(static_cast<long>(std::floor(d * src_per_dst)))] = true;
      return rows;
    }
    case Interpolation::kBilinear: {
      // centre_source_coordinate() and sample_bilinear(), in float.
      const float src_per_dst = static_cast<float>(static_cast<double>(src_height) / rect_height);
      rows.assign(src_height, false);
      for (int d = 0; d < rect_height; ++d) {
        const float sy = std::fmaf(static_cast<float>(d) + 0.5f, src_per_dst, -0.5f);
        const float floor_y = std::floor(sy);
        rows[clamp_row(static_cast<long>(floor_y))] = true;
        if (sy - floor_y != 0.0f) rows[clamp_row(static_cast<long>(floor_y) + 1)] = true;
      }
      return rows;
    }
    default:
      return rows;
  }
}

}  // namespace cudaprep
