// Host side of the kernels that resample a source frame, shared by resize()
// and the fused preprocess(): validation of the source and of the
// rectangle, the per-frame constants of the resize maths, the choice of
// source reader and of the interpolation kernel. Keeping these in one place
// is what makes both kernels read and sample the same pixels with the same
// constants.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "antialias_ops.cuh"
#include "color_ops.cuh"
#include "cudaprep/resize.h"
#include "image_errors.h"
#include "launch.cuh"
#include "orientation_ops.cuh"
#include "resample_ops.cuh"
#include "resize_tile.cuh"
#include "source_ops.cuh"
#include "source_variant.cuh"
#include "store_ops.cuh"

namespace cudaprep {

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
      device::resample_axes(src_width, src_height, mapping.rect.width, mapping.rect.height,
                            params.interpolation, params.antialias, params.antialias_intermediate);
  mapping.float_intermediate = params.float_intermediate;
  mapping.round_half_up = params.round_half_up;
  // Unrounded results match a float reference (cv2.resize of floats) only
  // with its sample positions; the 8-bit path keeps its own.
  mapping.axes.opencv_positions = params.float_intermediate;
  mapping.pad = make_float4(params.pad_value[0], params.pad_value[1], params.pad_value[2],
                            params.pad_value[3]);
  return mapping;
}

// Shared memory a resampling block may reserve for its tile: the default
// limit without opting in per kernel, and room for several blocks per SM.
constexpr size_t kTileSharedBytes = 48 * 1024;

// The most source pixels the antialiased taps of `extent` consecutive
// output pixels span along one axis (float rounding of the coordinates
// included): end - first < (extent - 1) * scale + 2 * support + 1. A block
// that spans more falls back to the per-pixel sampler.
inline int tile_footprint_bound(const device::AntialiasAxis &axis, int extent) {
  return static_cast<int>(std::ceil((extent - 1) * static_cast<double>(axis.scale) +
                                    2.0 * axis.support + 1e-3)) +
         2;
}

// The shared memory a launch reserves per block for `capacity`.
inline size_t tile_shared_bytes(const device::TileCapacity &capacity) {
  if (capacity.rows == 0) return 0;
  return device::tile_shared_layout(capacity, kBlockWidth).bytes;
}

// `capacity` with as many rows per chunk as fit the default limit beside its
// staged columns and taps, at most `wanted_rows` (the whole footprint's). A
// staged chunk of fewer than a block's rows costs more in synchronisation
// than staging saves: then the source is read unstaged. No room: no tiling.
inline device::TileCapacity fitted_tile_capacity(device::TileCapacity capacity, int wanted_rows) {
  const auto rows_that_fit = [](const device::TileCapacity &shape) {
    const auto bytes = [&](int rows) {
      return device::tile_shared_layout({rows, shape.columns, shape.taps}, kBlockWidth).bytes;
    };
    const size_t fixed = bytes(0), per_row = bytes(1) - bytes(0);
    return fixed >= kTileSharedBytes ? 0 : static_cast<int>((kTileSharedBytes - fixed) / per_row);
  };
  if (capacity.columns > 0 && rows_that_fit(capacity) < static_cast<int>(kBlockHeight)) {
    capacity.columns = 0;
  }
  capacity.rows = std::min(wanted_rows, rows_that_fit(capacity));
  if (capacity.rows <= 0) return {};
  return capacity;
}

// One capacity for blocks of several items (or one item's, merged with
// none): the largest of each, fitted to the limit.
inline device::TileCapacity merged_tile_capacity(const device::TileCapacity &a,
                                                 const device::TileCapacity &b) {
  return fitted_tile_capacity({0, std::max(a.columns, b.columns), std::max(a.taps, b.taps)},
                              std::max(a.rows, b.rows));
}

// The fewest horizontal taps per output column at which readers that
// convert at every load are staged. Measured on an H200 (bench_kernels W5,
// 4K NV12 -> 455x256): staged, bicubic's 35 taps took 91 us against 161
// converted per tap; bilinear's 18 took 71 against 55.
constexpr int kStagedTapsAtLeast = 24;

// What a block of the tiled antialiased sampler (resize_tile.cuh) needs for
// `axes`, read by `Source`: the taps of one output column, the whole
// footprint's rows if they fit (else chunks of them) and, for readers that
// convert at every load and columns of many taps, the staged footprint's
// columns. Zero rows: not antialiased, or nothing fits; the kernel samples
// per pixel.
template <class Source>
device::TileCapacity tile_capacity(const device::ResampleAxes &axes) {
  if (!axes.antialias) return {};
  const int taps = tile_footprint_bound(axes.antialias_x, 1);
  const bool staged = device::converts_on_load<Source>::value && taps >= kStagedTapsAtLeast;
  const int columns = staged ? tile_footprint_bound(axes.antialias_x, kBlockWidth) : 0;
  return fitted_tile_capacity({0, columns, taps},
                              tile_footprint_bound(axes.antialias_y, kBlockHeight));
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
  switch (params.orientation) {
    case Orientation::kIdentity:
    case Orientation::kRotate90:
    case Orientation::kRotate180:
    case Orientation::kRotate270:
    case Orientation::kFlipHorizontal:
    case Orientation::kFlipVertical:
    case Orientation::kTranspose:
    case Orientation::kAntiTranspose:
      break;
    default:
      return "resize: unknown orientation " + std::to_string(static_cast<int>(params.orientation));
  }
  switch (params.antialias_intermediate) {
    case AntialiasIntermediate::kFloat:
      break;
    case AntialiasIntermediate::kUint8:
      if (!params.antialias) {
        return "resize: the uint8 antialias intermediate needs antialias (it is the 8-bit "
               "step between the antialiased passes)";
      }
      break;
    default:
      return "resize: unknown antialias intermediate " +
             std::to_string(static_cast<int>(params.antialias_intermediate));
  }
  if (params.antialias && params.interpolation != Interpolation::kBilinear &&
      params.interpolation != Interpolation::kBicubic) {
    return std::string("resize: antialias applies to bilinear and bicubic, not ") +
           interpolation_name(params.interpolation) +
           (params.interpolation == Interpolation::kArea ? " (already an area mean)" : "");
  }
  for (const std::string &error :
       {image_error("source", src), size_error("destination", dst_width, dst_height)}) {
    if (!error.empty()) return "resize: " + error;
  }
  // One thread per destination pixel: the grid's height is the limit.
  if (static_cast<unsigned>(dst_height) > kMaxGridHeight * kBlockHeight) {
    return "resize: destination height " + std::to_string(dst_height) + " exceeds " +
           std::to_string(kMaxGridHeight * kBlockHeight);
  }
  // The rectangle may reach beyond the destination (a crop of the resized
  // frame: the whole of it, placed at minus the crop's corner), but every
  // destination pixel's position in it must be an int.
  const PixelRect rect = effective_rect(dst_width, dst_height, params);
  const auto fits_int = [](long long value) { return value <= INT_MAX; };
  const bool valid = rect.width > 0 && rect.height > 0 &&
                     fits_int(static_cast<long long>(rect.x) + rect.width) &&
                     fits_int(static_cast<long long>(rect.y) + rect.height) &&
                     fits_int(static_cast<long long>(dst_width) - rect.x) &&
                     fits_int(static_cast<long long>(dst_height) - rect.y);
  if (!valid) {
    return "resize: destination rectangle " + std::to_string(rect.width) + "x" +
           std::to_string(rect.height) + " at (" + std::to_string(rect.x) + ", " +
           std::to_string(rect.y) + ") is empty or too far from the " + std::to_string(dst_width) +
           "x" + std::to_string(dst_height) + " destination";
  }
  return {};
}

// Channel byte indices as the destination layout of the same format writes
// them; the x byte of RGBx/BGRx is not alpha.
template <bool kPacked32>
device::InterleavedRgbSource<kPacked32> interleaved_source(const Image &src) {
  const device::DestinationLayout layout = device::destination_layout(src.format);
  return {src.planes[0].data,
          src.planes[0].pitch_bytes,
          src.width,
          src.height,
          layout.bytes_per_pixel,
          layout.r_index,
          layout.g_index,
          layout.b_index,
          layout.alpha_filler ? -1 : layout.alpha_index};
}

// Returns launch(std::integral_constant<Interpolation, method>()), so that
// the kernel it launches takes the method as a template argument;
// cudaErrorInvalidValue for a method the checkers refuse.
template <class Launch>
cudaError_t with_interpolation(Interpolation method, Launch &&launch) {
  switch (method) {
    case Interpolation::kNearest:
      return launch(std::integral_constant<Interpolation, Interpolation::kNearest>());
    case Interpolation::kBilinear:
      return launch(std::integral_constant<Interpolation, Interpolation::kBilinear>());
    case Interpolation::kBicubic:
      return launch(std::integral_constant<Interpolation, Interpolation::kBicubic>());
    case Interpolation::kArea:
      return launch(std::integral_constant<Interpolation, Interpolation::kArea>());
  }
  return cudaErrorInvalidValue;
}

// with_interpolation(), and launch(method, antialiased) with antialiased a
// std::bool_constant: true only for bilinear and bicubic when `antialias`
// (the kernels that may tile, see block_resized_value()).
template <class Launch>
cudaError_t with_sampler(Interpolation method, bool antialias, Launch &&launch) {
  return with_interpolation(method, [&](auto kind) {
    constexpr Interpolation kMethod = decltype(kind)::value;
    if constexpr (kMethod == Interpolation::kBilinear || kMethod == Interpolation::kBicubic) {
      if (antialias) return launch(kind, std::true_type());
    }
    return launch(kind, std::false_type());
  });
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
      if (is_aligned(src.planes[0].data, static_cast<int64_t>(src.planes[0].pitch_bytes), 4)) {
        return launch(interleaved_source<true>(src));
      }
      return launch(interleaved_source<false>(src));
    case PixelFormat::kRGB:
    case PixelFormat::kBGR:
      return launch(interleaved_source<false>(src));
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
    case PixelFormat::kP010:
    case PixelFormat::kP012:
    case PixelFormat::kP016:
      // 16-bit loads: the checkers require 2-byte aligned planes and pitches.
      return launch(
          device::P01xSource{src.planes[0].data, src.planes[0].pitch_bytes, src.planes[1].data,
                             src.planes[1].pitch_bytes, src.width, src.height,
                             device::yuv_to_rgb_matrix(colorimetry, bits_per_sample(src.format))});
  }
  return cudaErrorInvalidValue;
}

// A reader's type as a kernel's name expression spells it.
template <class Source>
struct ReaderName {
  static std::string get() { return Source::kRuntimeName; }
};
template <class Source>
struct ReaderName<device::OrientedSource<Source>> {
  static std::string get() {
    return std::string("cudaprep::device::OrientedSource<") + Source::kRuntimeName + ">";
  }
};
template <class Source>
std::string reader_name() {
  return ReaderName<Source>::get();
}

// A method as a kernel's name expression spells a template argument.
inline std::string interpolation_argument(Interpolation method) {
  return "(cudaprep::Interpolation)" + std::to_string(static_cast<int>(method));
}

// A sampler's template arguments (method, antialiased) as a kernel's name
// expression spells them.
inline std::string sampler_arguments(Interpolation method, bool antialiased) {
  return interpolation_argument(method) + (antialiased ? ", true" : ", false");
}

// with_resize_source() for a resample with `params`: the reader of `src`,
// seen through params.orientation (device::OrientedSource) unless that is
// the identity, which keeps the plain reader and its kernels.
template <class Launch>
cudaError_t with_oriented_source(const Image &src, const ResizeParams &params, Launch &&launch) {
  return with_resize_source(src, params.source_colorimetry, [&](const auto &source) {
    if (params.orientation == Orientation::kIdentity) return launch(source);
    return launch(device::oriented(source, params.orientation));
  });
}

// Calls launch(reader) for every reader with_oriented_source() may pick
// for frames of `format` seen through `orientation`, whatever their views'
// alignment: what a launch for such frames may need compiled.
template <class Launch>
cudaError_t with_each_possible_source(PixelFormat format, Orientation orientation,
                                      Launch &&launch) {
  if (!is_resize_source_format(format)) return cudaErrorInvalidValue;
  ResizeParams params;
  params.orientation = orientation;
  for (const size_t pitch_bytes : {size_t{4}, size_t{1}}) {  // 4-byte aligned or not
    Image probe;
    probe.format = format;
    probe.width = 1;
    probe.height = 1;
    for (ImagePlane &plane : probe.planes) plane.pitch_bytes = pitch_bytes;
    const cudaError_t err = with_oriented_source(probe, params, launch);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

// Every format a resize reads, every (method, antialias) pair it samples
// with and the orientations that change its reader (kernel_variants.h).
constexpr PixelFormat kEveryResizeSourceFormat[] = {
    PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx,  PixelFormat::kBGRx,
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kGRAY8, PixelFormat::kNV12,
    PixelFormat::kI420, PixelFormat::kYUY2, PixelFormat::kP010,  PixelFormat::kP012,
    PixelFormat::kP016};
inline std::vector<ResizeParams> every_sampler_and_reader_orientation() {
  std::vector<ResizeParams> every;
  for (const Orientation orientation : {Orientation::kIdentity, Orientation::kRotate90}) {
    for (const Interpolation method : {Interpolation::kNearest, Interpolation::kBilinear,
                                       Interpolation::kBicubic, Interpolation::kArea}) {
      for (const bool antialias : {false, true}) {
        if (antialias && method != Interpolation::kBilinear && method != Interpolation::kBicubic)
          continue;
        ResizeParams params;
        params.orientation = orientation;
        params.interpolation = method;
        params.antialias = antialias;
        every.push_back(params);
      }
    }
  }
  return every;
}

}  // namespace cudaprep
