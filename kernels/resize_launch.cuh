// Host side of the kernels that resample a source frame, shared by resize()
// and the fused preprocess(): validation of the source and of the
// rectangle, the per-frame constants of the resize maths, the launch shape,
// and the choice of source reader. Keeping these in one place is what makes
// both kernels read and sample the same pixels with the same constants.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cudaprep/resize.h"
#include "resize_ops.cuh"

namespace cudaprep {

// 32 threads along a row: each warp writes one contiguous run of pixels.
constexpr int kResizeBlockWidth = 32;
constexpr int kResizeBlockHeight = 8;
constexpr int kMaxGridHeight = 65535;

// One thread per destination pixel; the grid's height limit is checked by
// resize_source_error().
inline dim3 resize_block() {
  return dim3(kResizeBlockWidth, kResizeBlockHeight);
}
inline dim3 resize_grid(int dst_width, int dst_height) {
  return dim3((dst_width + kResizeBlockWidth - 1) / kResizeBlockWidth,
              (dst_height + kResizeBlockHeight - 1) / kResizeBlockHeight);
}

// params.dst_rect, or the whole destination for the default 0x0 rectangle.
inline PixelRect effective_rect(int dst_width, int dst_height, const ResizeParams &params) {
  const PixelRect &rect = params.dst_rect;
  if (rect.x == 0 && rect.y == 0 && rect.width == 0 && rect.height == 0) {
    return PixelRect{0, 0, dst_width, dst_height};
  }
  return rect;
}

inline device::ResizeMapping resize_mapping(int src_width, int src_height, int dst_width,
                                            int dst_height, const ResizeParams &params) {
  device::ResizeMapping mapping;
  mapping.rect = effective_rect(dst_width, dst_height, params);
  mapping.axes =
      device::resample_axes(src_width, src_height, mapping.rect.width, mapping.rect.height);
  mapping.pad = make_float4(params.pad_value[0], params.pad_value[1], params.pad_value[2],
                            params.pad_value[3]);
  return mapping;
}

inline std::string plane_error(const char *role, const Image &image, int plane) {
  const ImagePlane &view = image.planes[plane];
  const std::string where = std::string(role) + " plane " + std::to_string(plane) + " (" +
                            pixel_format_name(image.format) + ")";
  if (view.data == nullptr) return where + " has no data pointer";
  const size_t row_bytes = plane_row_bytes(image.format, plane, image.width);
  if (view.pitch_bytes < row_bytes) {
    return where + " pitch " + std::to_string(view.pitch_bytes) + " is shorter than its row of " +
           std::to_string(row_bytes) + " bytes";
  }
  return {};
}

inline std::string size_error(const char *role, int width, int height) {
  if (width > 0 && height > 0) return {};
  return std::string(role) + " size " + std::to_string(width) + "x" + std::to_string(height) +
         " is empty";
}

// Why `src` cannot be resampled into a dst_width x dst_height destination
// with `params`, or an empty string: everything resize_params_error() checks
// except the destination's format and memory. Messages start with "resize: ".
inline std::string resize_source_error(const Image &src, int dst_width, int dst_height,
                                       const ResizeParams &params) {
  if (!is_resize_source_format(src.format)) return "resize: unsupported source format";
  switch (params.interpolation) {
    case Interpolation::kNearest:
    case Interpolation::kBilinear:
    case Interpolation::kBicubic:
    case Interpolation::kArea:
      break;
    default:
      return "resize: unknown interpolation method";
  }
  for (const std::string &error : {size_error("source", src.width, src.height),
                                   size_error("destination", dst_width, dst_height)}) {
    if (!error.empty()) return "resize: " + error;
  }
  if ((dst_height + kResizeBlockHeight - 1) / kResizeBlockHeight > kMaxGridHeight) {
    return "resize: destination height " + std::to_string(dst_height) + " exceeds " +
           std::to_string(kMaxGridHeight * kResizeBlockHeight);
  }
  for (int plane = 0; plane < format_info(src.format).num_planes; ++plane) {
    const std::string error = plane_error("source", src, plane);
    if (!error.empty()) return "resize: " + error;
  }
  const PixelRect rect = effective_rect(dst_width, dst_height, params);
  const bool inside = rect.width > 0 && rect.height > 0 && rect.x >= 0 && rect.y >= 0 &&
                      static_cast<long long>(rect.x) + rect.width <= dst_width &&
                      static_cast<long long>(rect.y) + rect.height <= dst_height;
  if (!inside) {
    return "resize: destination rectangle " + std::to_string(rect.width) + "x" +
           std::to_string(rect.height) + " at (" + std::to_string(rect.x) + ", " +
           std::to_string(rect.y) + ") is empty or not inside the " + std::to_string(dst_width) +
           "x" + std::to_string(dst_height) + " destination";
  }
  return {};
}

inline bool is_aligned(const ImagePlane &plane, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(plane.data) | plane.pitch_bytes) % alignment == 0;
}

// The 32-bit reader of a 4-byte format whose view allows it.
inline device::Packed32Source packed32_source(const Image &src) {
  const device::DestinationLayout layout = device::destination_layout(src.format);
  return {src.planes[0].data, src.planes[0].pitch_bytes,
          src.width,          src.height,
          layout.r_index,     layout.g_index,
          layout.b_index,     layout.alpha_filler ? -1 : layout.alpha_index};
}

inline device::InterleavedRgbSource interleaved_source(const Image &src) {
  device::InterleavedRgbSource source;
  source.data = src.planes[0].data;
  source.pitch_bytes = src.planes[0].pitch_bytes;
  source.width = src.width;
  source.height = src.height;
  // Channel byte indices as read by the destination layout of the same name.
  const device::DestinationLayout layout = device::destination_layout(src.format);
  source.bytes_per_pixel = layout.bytes_per_pixel;
  source.r_index = layout.r_index;
  source.g_index = layout.g_index;
  source.b_index = layout.b_index;
  source.alpha_index = layout.alpha_filler ? -1 : layout.alpha_index;
  return source;
}

// Calls launch(source) with the reader of `src` (a validated view): the
// 32-bit reader for 4-byte formats whose view is 4-byte aligned, byte loads
// otherwise; YUV readers convert through `colorimetry`. Returns launch's
// result, or cudaErrorInvalidValue for a format no reader handles.
template <class Launch>
cudaError_t with_resize_source(const Image &src, const Colorimetry &colorimetry, Launch &&launch) {
  const device::YuvToRgbMatrix matrix = device::yuv_to_rgb_matrix(colorimetry);
  switch (src.format) {
    case PixelFormat::kRGBA:
    case PixelFormat::kBGRA:
    case PixelFormat::kRGBx:
    case PixelFormat::kBGRx:
      if (is_aligned(src.planes[0], 4)) return launch(packed32_source(src));
      return launch(interleaved_source(src));
    case PixelFormat::kRGB:
    case PixelFormat::kBGR:
      return launch(interleaved_source(src));
    case PixelFormat::kGRAY8:
      return launch(
          device::GraySource{src.planes[0].data, src.planes[0].pitch_bytes, src.width, src.height});
    case PixelFormat::kNV12:
      return launch(device::Nv12Source{src.planes[0].data, src.planes[0].pitch_bytes,
                                       src.planes[1].data, src.planes[1].pitch_bytes, src.width,
                                       src.height, matrix});
    case PixelFormat::kI420:
      return launch(device::I420Source{src.planes[0].data, src.planes[0].pitch_bytes,
                                       src.planes[1].data, src.planes[1].pitch_bytes,
                                       src.planes[2].data, src.planes[2].pitch_bytes, src.width,
                                       src.height, matrix});
    case PixelFormat::kYUY2:
      return launch(device::Yuy2Source{src.planes[0].data, src.planes[0].pitch_bytes, src.width,
                                       src.height, matrix});
  }
  return cudaErrorInvalidValue;
}

}  // namespace cudaprep
