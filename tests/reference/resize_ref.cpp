#include "reference/resize_ref.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudaprep::ref {
namespace {

// One output pixel along one axis as (source index, weight) taps.
struct Tap {
  int index;
  double weight;
};
using Taps = std::vector<Tap>;

int clamp_to(int index, int size) {
  return std::clamp(index, 0, size - 1);
}

Taps nearest_taps(int d, int src_size, int dst_size) {
  const double inverse_scale = static_cast<double>(dst_size) / src_size;
  const double src_per_dst = 1.0 / inverse_scale;
  return {{std::min(static_cast<int>(std::floor(d * src_per_dst)), src_size - 1), 1.0}};
}

// Source position of output pixel d's centre, with pixel i centred at i.
double centre_position(int d, int src_size, int dst_size, SamplePositions positions) {
  if (positions == SamplePositions::kOpenCvFloat) {
    const double scale = 1.0 / (static_cast<double>(dst_size) / src_size);
    return static_cast<float>((d + 0.5) * scale - 0.5);
  }
  return (d + 0.5) * src_size / dst_size - 0.5;
}

Taps linear_taps(int d, int src_size, int dst_size, SamplePositions positions) {
  const double position = centre_position(d, src_size, dst_size, positions);
  const int left = static_cast<int>(std::floor(position));
  const double right_weight = position - left;
  return {{clamp_to(left, src_size), 1.0 - right_weight},
          {clamp_to(left + 1, src_size), right_weight}};
}

// Keys (1981) cubic convolution kernel with a = -0.75.
double keys_kernel(double distance) {
  constexpr double kA = -0.75;
  const double s = std::abs(distance);
  if (s <= 1.0) return (kA + 2.0) * s * s * s - (kA + 3.0) * s * s + 1.0;
  if (s < 2.0) return kA * s * s * s - 5.0 * kA * s * s + 8.0 * kA * s - 4.0 * kA;
  return 0.0;
}

Taps cubic_taps(int d, int src_size, int dst_size, SamplePositions positions) {
  const double position = centre_position(d, src_size, dst_size, positions);
  const int base = static_cast<int>(std::floor(position));
  Taps taps;
  for (int index = base - 1; index <= base + 2; ++index) {
    taps.push_back({clamp_to(index, src_size), keys_kernel(position - index)});
  }
  return taps;
}

Taps area_taps(int d, int src_size, int dst_size) {
  const double scale = static_cast<double>(src_size) / dst_size;
  const double begin = d * scale;
  const double end = std::min((d + 1) * scale, static_cast<double>(src_size));
  Taps taps;
  for (int index = static_cast<int>(std::floor(begin)); index < end; ++index) {
    const double overlap = std::min(end, index + 1.0) - std::max(begin, double(index));
    if (overlap > 0.0) taps.push_back({index, overlap / (end - begin)});
  }
  return taps;
}

Taps opencv_taps(Interpolation interpolation, int d, int src_size, int dst_size,
                 SamplePositions positions) {
  switch (interpolation) {
    case Interpolation::kNearest:
      return nearest_taps(d, src_size, dst_size);
    case Interpolation::kBilinear:
      return linear_taps(d, src_size, dst_size, positions);
    case Interpolation::kBicubic:
      return cubic_taps(d, src_size, dst_size, positions);
    case Interpolation::kArea:
      return area_taps(d, src_size, dst_size);
  }
  return {};
}

// The filters of the antialiased definition (resize.h): PIL's triangle and
// its cubic with a = -0.5 (Pillow's Resample.c, torchvision's aa kernels).
double triangle_filter(double x) {
  return std::max(1.0 - std::abs(x), 0.0);
}

double pil_cubic_filter(double x) {
  constexpr double kA = -0.5;
  const double s = std::abs(x);
  if (s < 1.0) return ((kA + 2.0) * s - (kA + 3.0)) * s * s + 1.0;
  if (s < 2.0) return (((s - 5.0) * s + 8.0) * s - 4.0) * kA;
  return 0.0;
}

Taps antialias_taps(Interpolation interpolation, int d, int src_size, int dst_size) {
  const bool cubic = interpolation == Interpolation::kBicubic;
  const double scale = static_cast<double>(src_size) / dst_size;
  const double filter_scale = std::max(scale, 1.0);
  const double support = (cubic ? 2.0 : 1.0) * filter_scale;
  const double centre = (d + 0.5) * scale;
  const int first = std::max(static_cast<int>(centre - support + 0.5), 0);
  const int end = std::min(static_cast<int>(centre + support + 0.5), src_size);
  Taps taps;
  double total = 0.0;
  for (int i = first; i < end; ++i) {
    const double x = (i - centre + 0.5) / filter_scale;
    taps.push_back({i, cubic ? pil_cubic_filter(x) : triangle_filter(x)});
    total += taps.back().weight;
  }
  for (Tap &tap : taps) tap.weight /= total;
  return taps;
}

Taps taps_for(Interpolation interpolation, bool antialias, int d, int src_size, int dst_size,
              SamplePositions positions) {
  if (antialias) return antialias_taps(interpolation, d, src_size, dst_size);
  return opencv_taps(interpolation, d, src_size, dst_size, positions);
}

// floor(v + 0.5) clamped to [0, 255], per channel: what PIL's 8-bit passes
// store.
RgbaPixel round_half_up_to_bytes(const RgbaPixel &value) {
  const auto byte = [](double v) { return std::min(std::max(std::floor(v + 0.5), 0.0), 255.0); };
  return {byte(value.r), byte(value.g), byte(value.b), byte(value.a)};
}

template <class At>
RgbaPixel weighted_sum(const Taps &taps, const At &at) {
  RgbaPixel sum{0.0, 0.0, 0.0, 0.0};
  for (const Tap &tap : taps) {
    const RgbaPixel &source = at(tap.index);
    sum.r += tap.weight * source.r;
    sum.g += tap.weight * source.g;
    sum.b += tap.weight * source.b;
    sum.a += tap.weight * source.a;
  }
  return sum;
}

// The antialiased resample with the 8-bit intermediate: every source row
// through the horizontal pass, rounded, then the vertical pass, rounded;
// `tie_steps` as resample() documents it.
RgbaImage resample_with_uint8_intermediate(const RgbaImage &src, int dst_width, int dst_height,
                                           Interpolation interpolation,
                                           std::vector<uint8_t> *tie_steps) {
  RgbaImage rows;
  rows.width = dst_width;
  rows.height = src.height;
  rows.pixels.resize(static_cast<size_t>(dst_width) * src.height);
  // Per horizontal value: the other rounding minus the one taken (0: no tie).
  std::vector<RgbaPixel> other_rounding(rows.pixels.size(), RgbaPixel{0.0, 0.0, 0.0, 0.0});
  const auto tie_delta = [](double exact, double rounded) {
    if (std::fabs(exact - std::floor(exact) - 0.5) >= kTieWindow) return 0.0;
    const double other = rounded > exact ? rounded - 1.0 : rounded + 1.0;
    return other < 0.0 || other > 255.0 ? 0.0 : other - rounded;
  };
  for (int x = 0; x < dst_width; ++x) {
    const Taps taps = antialias_taps(interpolation, x, src.width, dst_width);
    for (int y = 0; y < src.height; ++y) {
      const size_t index = static_cast<size_t>(y) * dst_width + x;
      const RgbaPixel exact =
          weighted_sum(taps, [&](int i) -> const RgbaPixel & { return src.at(i, y); });
      rows.pixels[index] = round_half_up_to_bytes(exact);
      const RgbaPixel &rounded = rows.pixels[index];
      other_rounding[index] = {tie_delta(exact.r, rounded.r), tie_delta(exact.g, rounded.g),
                               tie_delta(exact.b, rounded.b), tie_delta(exact.a, rounded.a)};
    }
  }
  RgbaImage dst;
  dst.width = dst_width;
  dst.height = dst_height;
  dst.pixels.resize(static_cast<size_t>(dst_width) * dst_height);
  if (tie_steps != nullptr) tie_steps->assign(dst.pixels.size(), 0);
  for (int y = 0; y < dst_height; ++y) {
    const Taps taps = antialias_taps(interpolation, y, src.height, dst_height);
    for (int x = 0; x < dst_width; ++x) {
      const size_t index = static_cast<size_t>(y) * dst_width + x;
      const RgbaPixel exact =
          weighted_sum(taps, [&](int i) -> const RgbaPixel & { return rows.at(x, i); });
      dst.pixels[index] = round_half_up_to_bytes(exact);
      if (tie_steps == nullptr) continue;
      // The vertical sum's range when any tied value rounds the other way.
      RgbaPixel low = exact, high = exact;
      for (const Tap &tap : taps) {
        const RgbaPixel &delta = other_rounding[static_cast<size_t>(tap.index) * dst_width + x];
        double *low_channels[] = {&low.r, &low.g, &low.b, &low.a};
        double *high_channels[] = {&high.r, &high.g, &high.b, &high.a};
        const double deltas[] = {delta.r, delta.g, delta.b, delta.a};
        for (int c = 0; c < 4; ++c) {
          *low_channels[c] += std::min(0.0, tap.weight * deltas[c]);
          *high_channels[c] += std::max(0.0, tap.weight * deltas[c]);
        }
      }
      const RgbaPixel low_bytes = round_half_up_to_bytes(low);
      const RgbaPixel high_bytes = round_half_up_to_bytes(high);
      const RgbaPixel &taken = dst.pixels[index];
      const double steps =
          std::max({taken.r - low_bytes.r, high_bytes.r - taken.r, taken.g - low_bytes.g,
                    high_bytes.g - taken.g, taken.b - low_bytes.b, high_bytes.b - taken.b,
                    taken.a - low_bytes.a, high_bytes.a - taken.a});
      (*tie_steps)[index] = static_cast<uint8_t>(steps);
    }
  }
  return dst;
}

}  // namespace

void oriented_source_pixel(Orientation orientation, int src_width, int src_height, int x, int y,
                           int *src_x, int *src_y) {
  const int w = src_width, h = src_height;
  switch (orientation) {
    case Orientation::kIdentity:
      *src_x = x, *src_y = y;
      return;
    case Orientation::kRotate90:
      *src_x = y, *src_y = h - 1 - x;
      return;
    case Orientation::kRotate180:
      *src_x = w - 1 - x, *src_y = h - 1 - y;
      return;
    case Orientation::kRotate270:
      *src_x = w - 1 - y, *src_y = x;
      return;
    case Orientation::kFlipHorizontal:
      *src_x = w - 1 - x, *src_y = y;
      return;
    case Orientation::kFlipVertical:
      *src_x = x, *src_y = h - 1 - y;
      return;
    case Orientation::kTranspose:
      *src_x = y, *src_y = x;
      return;
    case Orientation::kAntiTranspose:
      *src_x = w - 1 - y, *src_y = h - 1 - x;
      return;
  }
  ADD_FAILURE() << "unknown orientation " << static_cast<int>(orientation);
  *src_x = *src_y = 0;
}

RgbaImage orient(const RgbaImage &src, Orientation orientation) {
  RgbaImage dst;
  dst.width = swaps_axes(orientation) ? src.height : src.width;
  dst.height = swaps_axes(orientation) ? src.width : src.height;
  dst.pixels.resize(src.pixels.size());
  for (int y = 0; y < dst.height; ++y) {
    for (int x = 0; x < dst.width; ++x) {
      int src_x = 0, src_y = 0;
      oriented_source_pixel(orientation, src.width, src.height, x, y, &src_x, &src_y);
      dst.pixels[static_cast<size_t>(y) * dst.width + x] = src.at(src_x, src_y);
    }
  }
  return dst;
}

HostFrame orient(const HostFrame &src, Orientation orientation) {
  const FormatInfo &info = format_info(src.format);
  const bool swapped = swaps_axes(orientation);
  HostFrame dst(src.format, swapped ? src.height : src.width, swapped ? src.width : src.height);
  for (int plane = 0; plane < info.num_planes; ++plane) {
    const PlaneLayout layout = info.planes[plane];
    // A plane whose units are single pixels of a grid `columns` x `rows`.
    const int divisor = layout.height_divisor;
    const bool one_pixel_units = layout.pixels_per_unit == divisor;
    EXPECT_TRUE(one_pixel_units && src.width % divisor == 0 && src.height % divisor == 0)
        << pixel_format_name(src.format) << " " << src.width << "x" << src.height
        << ": the reference orients whole pixel units of even 4:2:0 frames and packed formats";
    if (!one_pixel_units) return dst;
    const int columns = src.width / divisor, rows = src.height / divisor;
    const int dst_columns = swapped ? rows : columns, dst_rows = swapped ? columns : rows;
    for (int y = 0; y < dst_rows; ++y) {
      for (int x = 0; x < dst_columns; ++x) {
        int src_x = 0, src_y = 0;
        oriented_source_pixel(orientation, columns, rows, x, y, &src_x, &src_y);
        std::memcpy(dst.row(plane, y) + static_cast<size_t>(x) * layout.unit_bytes,
                    src.row(plane, src_y) + static_cast<size_t>(src_x) * layout.unit_bytes,
                    layout.unit_bytes);
      }
    }
  }
  return dst;
}

RgbaImage resample(const RgbaImage &src, int dst_width, int dst_height, Interpolation interpolation,
                   bool antialias, SamplePositions positions, AntialiasIntermediate intermediate,
                   std::vector<uint8_t> *tie_steps) {
  if (antialias && intermediate == AntialiasIntermediate::kUint8) {
    return resample_with_uint8_intermediate(src, dst_width, dst_height, interpolation, tie_steps);
  }
  if (tie_steps != nullptr) tie_steps->assign(static_cast<size_t>(dst_width) * dst_height, 0);
  std::vector<Taps> column_taps(dst_width);
  for (int x = 0; x < dst_width; ++x)
    column_taps[x] = taps_for(interpolation, antialias, x, src.width, dst_width, positions);
  RgbaImage dst;
  dst.width = dst_width;
  dst.height = dst_height;
  dst.pixels.resize(static_cast<size_t>(dst_width) * dst_height);
  for (int y = 0; y < dst_height; ++y) {
    const Taps row_taps = taps_for(interpolation, antialias, y, src.height, dst_height, positions);
    for (int x = 0; x < dst_width; ++x) {
      RgbaPixel sum{0.0, 0.0, 0.0, 0.0};
      for (const Tap &row : row_taps) {
        for (const Tap &column : column_taps[x]) {
          const double weight = row.weight * column.weight;
          const RgbaPixel &source = src.at(column.index, row.index);
          sum.r += weight * source.r;
          sum.g += weight * source.g;
          sum.b += weight * source.b;
          sum.a += weight * source.a;
        }
      }
      dst.pixels[static_cast<size_t>(y) * dst_width + x] = sum;
    }
  }
  return dst;
}

HostFrame resize_reference(const HostFrame &src, PixelFormat dst_format, int dst_width,
                           int dst_height, const ResizeParams &params,
                           std::vector<uint8_t> *tie_steps) {
  PixelRect rect = params.dst_rect;
  if (rect.x == 0 && rect.y == 0 && rect.width == 0 && rect.height == 0) {
    rect = PixelRect{0, 0, dst_width, dst_height};
  }
  RgbaImage decoded;
  decoded.width = src.width;
  decoded.height = src.height;
  decoded.pixels = decode_to_rgba(src, params.source_colorimetry);
  std::vector<uint8_t> scaled_tie_steps;
  const RgbaImage scaled =
      resample(orient(decoded, params.orientation), rect.width, rect.height, params.interpolation,
               params.antialias, SamplePositions::kExact, params.antialias_intermediate,
               tie_steps != nullptr ? &scaled_tie_steps : nullptr);
  if (tie_steps != nullptr) tie_steps->assign(static_cast<size_t>(dst_width) * dst_height, 0);

  const RgbaPixel pad{double(params.pad_value[0]), double(params.pad_value[1]),
                      double(params.pad_value[2]), double(params.pad_value[3])};
  HostFrame dst(dst_format, dst_width, dst_height);
  for (int y = 0; y < dst_height; ++y) {
    for (int x = 0; x < dst_width; ++x) {
      const bool inside =
          x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;
      encode_rgba_pixel(&dst, x, y, inside ? scaled.at(x - rect.x, y - rect.y) : pad,
                        params.round_half_up);
      if (inside && tie_steps != nullptr)
        (*tie_steps)[static_cast<size_t>(y) * dst_width + x] =
            scaled_tie_steps[static_cast<size_t>(y - rect.y) * rect.width + (x - rect.x)];
    }
  }
  return dst;
}

}  // namespace cudaprep::ref
