// Pixel formats and pitched image views shared by every kernel.
// Usable without GStreamer: a view is a device pointer and a pitch per plane.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define CUDAPREP_HD __host__ __device__ __forceinline__
#else
#define CUDAPREP_HD inline
#endif

namespace cudaprep {

constexpr int kMaxPlanes = 3;

enum class PixelFormat : int {
  kRGBA,
  kBGRA,
  kRGBx,
  kBGRx,
  kRGB,
  kBGR,
  kGRAY8,
  kNV12,  // Y plane, then interleaved U,V at half width and half height
  kI420,  // Y, U, V planes; U and V at half width and half height
  kYUY2,  // packed Y0 U Y1 V for each pair of pixels
  // NV12's layout with 16-bit little-endian samples whose significant bits
  // are the high ones (what NVDEC writes for 10-, 12- and 16-bit video).
  kP010,  // 10 significant bits
  kP012,  // 12 significant bits
  kP016,  // 16 significant bits
};

// How one plane is laid out: a "unit" is the smallest group of bytes that
// repeats along a row (a pixel, or a pair of pixels for YUY2 / chroma).
struct PlaneLayout {
  int unit_bytes;       // bytes in one unit
  int pixels_per_unit;  // horizontal pixels of the full image one unit covers
  int height_divisor;   // 1 for full-height planes, 2 for 4:2:0 chroma
};

struct FormatInfo {
  int num_planes;
  PlaneLayout planes[kMaxPlanes];
};

CUDAPREP_HD FormatInfo format_info(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRGBA:
    case PixelFormat::kBGRA:
    case PixelFormat::kRGBx:
    case PixelFormat::kBGRx:
      return {1, {{4, 1, 1}, {0, 1, 1}, {0, 1, 1}}};
    case PixelFormat::kRGB:
    case PixelFormat::kBGR:
      return {1, {{3, 1, 1}, {0, 1, 1}, {0, 1, 1}}};
    case PixelFormat::kGRAY8:
      return {1, {{1, 1, 1}, {0, 1, 1}, {0, 1, 1}}};
    case PixelFormat::kNV12:
      return {2, {{1, 1, 1}, {2, 2, 2}, {0, 1, 1}}};
    case PixelFormat::kI420:
      return {3, {{1, 1, 1}, {1, 2, 2}, {1, 2, 2}}};
    case PixelFormat::kYUY2:
      return {1, {{4, 2, 1}, {0, 1, 1}, {0, 1, 1}}};
    case PixelFormat::kP010:
    case PixelFormat::kP012:
    case PixelFormat::kP016:
      return {2, {{2, 1, 1}, {4, 2, 2}, {0, 1, 1}}};
  }
  return {0, {{0, 1, 1}, {0, 1, 1}, {0, 1, 1}}};
}

// Bytes of pixel data in one row of `plane` (odd sizes round the chroma up,
// as GStreamer does).
CUDAPREP_HD size_t plane_row_bytes(PixelFormat format, int plane, int width) {
  const PlaneLayout layout = format_info(format).planes[plane];
  const size_t units = (static_cast<size_t>(width) + layout.pixels_per_unit - 1) /
                       static_cast<size_t>(layout.pixels_per_unit);
  return units * static_cast<size_t>(layout.unit_bytes);
}

CUDAPREP_HD int plane_height(PixelFormat format, int plane, int height) {
  const int divisor = format_info(format).planes[plane].height_divisor;
  // Not (height + divisor - 1) / divisor: that overflows at INT_MAX.
  return height / divisor + (height % divisor != 0);
}

// True for formats whose crop offsets must stay even (4:2:0 / 4:2:2 chroma).
CUDAPREP_HD bool is_chroma_subsampled(PixelFormat format) {
  return format == PixelFormat::kNV12 || format == PixelFormat::kI420 ||
         format == PixelFormat::kYUY2 || format == PixelFormat::kP010 ||
         format == PixelFormat::kP012 || format == PixelFormat::kP016;
}

// Significant bits of each sample: 8, or 10, 12, 16 for the P01x formats.
CUDAPREP_HD int bits_per_sample(PixelFormat format) {
  switch (format) {
    case PixelFormat::kP010:
      return 10;
    case PixelFormat::kP012:
      return 12;
    case PixelFormat::kP016:
      return 16;
    default:
      return 8;
  }
}

inline const char *pixel_format_name(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRGBA:
      return "RGBA";
    case PixelFormat::kBGRA:
      return "BGRA";
    case PixelFormat::kRGBx:
      return "RGBx";
    case PixelFormat::kBGRx:
      return "BGRx";
    case PixelFormat::kRGB:
      return "RGB";
    case PixelFormat::kBGR:
      return "BGR";
    case PixelFormat::kGRAY8:
      return "GRAY8";
    case PixelFormat::kNV12:
      return "NV12";
    case PixelFormat::kI420:
      return "I420";
    case PixelFormat::kYUY2:
      return "YUY2";
    case PixelFormat::kP010:
      return "P010_10LE";
    case PixelFormat::kP012:
      return "P012_LE";
    case PixelFormat::kP016:
      return "P016_LE";
  }
  return "an unknown format";
}

// A view of a pitched image in device memory. `planes[i].data` points at the
// first pixel of the view (base + offset), `pitch_bytes` is the distance
// between rows, which is >= plane_row_bytes() and need not equal it.
struct ImagePlane {
  uint8_t *data = nullptr;
  size_t pitch_bytes = 0;
};

struct Image {
  PixelFormat format = PixelFormat::kRGBA;
  int width = 0;
  int height = 0;
  ImagePlane planes[kMaxPlanes] = {};
};

// The x, y, width x height rectangle of `image` as a view of the same
// memory. x and y must be even where the chroma is subsampled (is_chroma_
// subsampled), and the rectangle inside the image.
inline Image sub_image(const Image &image, int x, int y, int width, int height) {
  Image view = image;
  const FormatInfo info = format_info(image.format);
  for (int plane = 0; plane < info.num_planes; ++plane) {
    const PlaneLayout &layout = info.planes[plane];
    view.planes[plane].data +=
        static_cast<size_t>(y / layout.height_divisor) * image.planes[plane].pitch_bytes +
        static_cast<size_t>(x / layout.pixels_per_unit) * layout.unit_bytes;
  }
  view.width = width;
  view.height = height;
  return view;
}

}  // namespace cudaprep
