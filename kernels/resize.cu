// Launch side of resize(): validates the views, picks the source reader and
// the sampler at compile time (7 readers x 4 methods), one thread per
// destination pixel. The per-pixel maths lives in pixel_ops.cuh.
#include "cudaprep/resize.h"

#include "pixel_ops.cuh"

namespace cudaprep {
namespace {

using pixel_ops::DestinationLayout;
using pixel_ops::ResampleAxes;
using pixel_ops::Rgba;

// 32 threads along a row: each warp writes one contiguous run of pixels.
constexpr int kBlockWidth = 32;
constexpr int kBlockHeight = 8;
constexpr int kMaxGridHeight = 65535;

template <Interpolation kMethod, class Source>
__global__ void resize_kernel(Source src, uint8_t *dst, size_t dst_pitch_bytes, int dst_width,
                              int dst_height, DestinationLayout layout, PixelRect rect,
                              ResampleAxes axes, Rgba pad) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst_width || y >= dst_height) return;
  const int rect_x = x - rect.x;
  const int rect_y = y - rect.y;
  const bool inside = rect_x >= 0 && rect_y >= 0 && rect_x < rect.width && rect_y < rect.height;
  const Rgba value = inside ? pixel_ops::resample<kMethod>(src, rect_x, rect_y, axes) : pad;
  pixel_ops::store_pixel(dst + y * dst_pitch_bytes, x, value, layout);
}

PixelRect effective_rect(const Image &dst, const ResizeParams &params) {
  const PixelRect &rect = params.dst_rect;
  if (rect.x == 0 && rect.y == 0 && rect.width == 0 && rect.height == 0) {
    return PixelRect{0, 0, dst.width, dst.height};
  }
  return rect;
}

const char *format_name(PixelFormat format) {
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
  }
  return "an unknown format";
}

std::string plane_error(const char *role, const Image &image, int plane) {
  const ImagePlane &view = image.planes[plane];
  const std::string where = std::string(role) + " plane " + std::to_string(plane) + " (" +
                            format_name(image.format) + ")";
  if (view.data == nullptr) return where + " has no data pointer";
  const size_t row_bytes = plane_row_bytes(image.format, plane, image.width);
  if (view.pitch_bytes < row_bytes) {
    return where + " pitch " + std::to_string(view.pitch_bytes) + " is shorter than its row of " +
           std::to_string(row_bytes) + " bytes";
  }
  return {};
}

std::string size_error(const char *role, const Image &image) {
  if (image.width > 0 && image.height > 0) return {};
  return std::string(role) + " size " + std::to_string(image.width) + "x" +
         std::to_string(image.height) + " is empty";
}

template <class Source>
cudaError_t launch(const Source &source, const Image &dst, const ResizeParams &params,
                   cudaStream_t stream) {
  const PixelRect rect = effective_rect(dst, params);
  const ResampleAxes axes =
      pixel_ops::resample_axes(source.width, source.height, rect.width, rect.height);
  const DestinationLayout layout = pixel_ops::destination_layout(dst.format);
  const Rgba pad = make_float4(params.pad_value[0], params.pad_value[1], params.pad_value[2],
                               params.pad_value[3]);
  const dim3 block(kBlockWidth, kBlockHeight);
  const dim3 grid((dst.width + kBlockWidth - 1) / kBlockWidth,
                  (dst.height + kBlockHeight - 1) / kBlockHeight);
  uint8_t *const out = dst.planes[0].data;
  const size_t pitch = dst.planes[0].pitch_bytes;
  switch (params.interpolation) {
    case Interpolation::kNearest:
      resize_kernel<Interpolation::kNearest><<<grid, block, 0, stream>>>(
          source, out, pitch, dst.width, dst.height, layout, rect, axes, pad);
      break;
    case Interpolation::kBilinear:
      resize_kernel<Interpolation::kBilinear><<<grid, block, 0, stream>>>(
          source, out, pitch, dst.width, dst.height, layout, rect, axes, pad);
      break;
    case Interpolation::kBicubic:
      resize_kernel<Interpolation::kBicubic><<<grid, block, 0, stream>>>(
          source, out, pitch, dst.width, dst.height, layout, rect, axes, pad);
      break;
    case Interpolation::kArea:
      resize_kernel<Interpolation::kArea><<<grid, block, 0, stream>>>(
          source, out, pitch, dst.width, dst.height, layout, rect, axes, pad);
      break;
  }
  return cudaGetLastError();
}

// The 32-bit reader of a 4-byte format whose view allows it.
pixel_ops::Packed32Source packed32_source(const Image &src) {
  const DestinationLayout layout = pixel_ops::destination_layout(src.format);
  return {src.planes[0].data, src.planes[0].pitch_bytes,
          src.width,          src.height,
          layout.r_index,     layout.g_index,
          layout.b_index,     layout.alpha_filler ? -1 : layout.alpha_index};
}

bool is_aligned(const ImagePlane &plane, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(plane.data) | plane.pitch_bytes) % alignment == 0;
}

pixel_ops::InterleavedRgbSource interleaved_source(const Image &src) {
  pixel_ops::InterleavedRgbSource source;
  source.data = src.planes[0].data;
  source.pitch_bytes = src.planes[0].pitch_bytes;
  source.width = src.width;
  source.height = src.height;
  // Channel byte indices as read by the destination layout of the same name.
  const DestinationLayout layout = pixel_ops::destination_layout(src.format);
  source.bytes_per_pixel = layout.bytes_per_pixel;
  source.r_index = layout.r_index;
  source.g_index = layout.g_index;
  source.b_index = layout.b_index;
  source.alpha_index = layout.alpha_filler ? -1 : layout.alpha_index;
  return source;
}

}  // namespace

bool is_resize_source_format(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRGBA:
    case PixelFormat::kBGRA:
    case PixelFormat::kRGBx:
    case PixelFormat::kBGRx:
    case PixelFormat::kRGB:
    case PixelFormat::kBGR:
    case PixelFormat::kGRAY8:
    case PixelFormat::kNV12:
    case PixelFormat::kI420:
    case PixelFormat::kYUY2:
      return true;
  }
  return false;
}

bool is_resize_destination_format(PixelFormat format) {
  return pixel_ops::destination_layout(format).bytes_per_pixel > 0;
}

std::string resize_params_error(const Image &src, const Image &dst, const ResizeParams &params) {
  if (!is_resize_source_format(src.format)) return "resize: unsupported source format";
  if (!is_resize_destination_format(dst.format)) {
    return std::string("resize: cannot write ") + format_name(dst.format) +
           "; destinations are RGB, BGR, RGBA, BGRA, RGBx, BGRx and GRAY8";
  }
  switch (params.interpolation) {
    case Interpolation::kNearest:
    case Interpolation::kBilinear:
    case Interpolation::kBicubic:
    case Interpolation::kArea:
      break;
    default:
      return "resize: unknown interpolation method";
  }
  for (const std::string &error : {size_error("source", src), size_error("destination", dst)}) {
    if (!error.empty()) return "resize: " + error;
  }
  if ((dst.height + kBlockHeight - 1) / kBlockHeight > kMaxGridHeight) {
    return "resize: destination height " + std::to_string(dst.height) + " exceeds " +
           std::to_string(kMaxGridHeight * kBlockHeight);
  }
  for (int plane = 0; plane < format_info(src.format).num_planes; ++plane) {
    const std::string error = plane_error("source", src, plane);
    if (!error.empty()) return "resize: " + error;
  }
  const std::string dst_error = plane_error("destination", dst, 0);
  if (!dst_error.empty()) return "resize: " + dst_error;

  const PixelRect rect = effective_rect(dst, params);
  const bool inside = rect.width > 0 && rect.height > 0 && rect.x >= 0 && rect.y >= 0 &&
                      static_cast<long long>(rect.x) + rect.width <= dst.width &&
                      static_cast<long long>(rect.y) + rect.height <= dst.height;
  if (!inside) {
    return "resize: destination rectangle " + std::to_string(rect.width) + "x" +
           std::to_string(rect.height) + " at (" + std::to_string(rect.x) + ", " +
           std::to_string(rect.y) + ") is empty or not inside the " + std::to_string(dst.width) +
           "x" + std::to_string(dst.height) + " destination";
  }
  return {};
}

cudaError_t resize(const Image &src, const Image &dst, const ResizeParams &params,
                   cudaStream_t stream) {
  if (!resize_params_error(src, dst, params).empty()) return cudaErrorInvalidValue;
  const pixel_ops::YuvToRgbMatrix matrix = pixel_ops::yuv_to_rgb_matrix(params.source_colorimetry);
  switch (src.format) {
    case PixelFormat::kRGBA:
    case PixelFormat::kBGRA:
    case PixelFormat::kRGBx:
    case PixelFormat::kBGRx:
      if (is_aligned(src.planes[0], 4)) return launch(packed32_source(src), dst, params, stream);
      return launch(interleaved_source(src), dst, params, stream);
    case PixelFormat::kRGB:
    case PixelFormat::kBGR:
      return launch(interleaved_source(src), dst, params, stream);
    case PixelFormat::kGRAY8:
      return launch(pixel_ops::GraySource{src.planes[0].data, src.planes[0].pitch_bytes, src.width,
                                          src.height},
                    dst, params, stream);
    case PixelFormat::kNV12:
      return launch(
          pixel_ops::Nv12Source{src.planes[0].data, src.planes[0].pitch_bytes, src.planes[1].data,
                                src.planes[1].pitch_bytes, src.width, src.height, matrix},
          dst, params, stream);
    case PixelFormat::kI420:
      return launch(
          pixel_ops::I420Source{src.planes[0].data, src.planes[0].pitch_bytes, src.planes[1].data,
                                src.planes[1].pitch_bytes, src.planes[2].data,
                                src.planes[2].pitch_bytes, src.width, src.height, matrix},
          dst, params, stream);
    case PixelFormat::kYUY2:
      return launch(pixel_ops::Yuy2Source{src.planes[0].data, src.planes[0].pitch_bytes, src.width,
                                          src.height, matrix},
                    dst, params, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace cudaprep
