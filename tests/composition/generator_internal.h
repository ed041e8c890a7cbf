// What generator.cpp and constraints.cpp (the differential composition
// test's generator and its constraint check) share: the input and resize
// output formats the generator draws, and small geometry predicates.
#pragma once

#include <cstdint>

#include "composition/generator.h"

namespace cudaprep::composition::internal {

inline constexpr PixelFormat kInputFormats[] = {
    PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx,  PixelFormat::kBGRx,
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kGRAY8, PixelFormat::kNV12,
    PixelFormat::kI420, PixelFormat::kYUY2,
};
inline constexpr PixelFormat kResizeOutputFormats[] = {
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kRGBA,  PixelFormat::kBGRA,
    PixelFormat::kRGBx, PixelFormat::kBGRx, PixelFormat::kGRAY8,
};

inline bool is_yuv(PixelFormat format) {
  return format == PixelFormat::kNV12 || format == PixelFormat::kI420 ||
         format == PixelFormat::kYUY2;
}

// Whether `rect` (as given) lies inside a width x height frame.
inline bool fits(const PixelRect &rect, int width, int height) {
  return rect.x >= 0 && rect.y >= 0 && rect.width >= 1 && rect.height >= 1 &&
         static_cast<int64_t>(rect.x) + rect.width <= width &&
         static_cast<int64_t>(rect.y) + rect.height <= height;
}

}  // namespace cudaprep::composition::internal
