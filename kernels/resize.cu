// Launch side of resize(): validates the views, picks the source reader and
// the sampler at compile time (6 readers x 4 methods), one thread per
// destination pixel, antialiased sampling tiled (resize_tile.cuh). The per-pixel maths lives
// in the *_ops.cuh headers (resample_ops.cuh composes them, store_ops.cuh writes pixels), the
// host side shared with preprocess() in resize_launch.cuh.
#include "cudaprep/resize.h"

#include "color_ops.cuh"
#include "resample_ops.cuh"
#include "resize_kernel.cuh"
#include "resize_launch.cuh"
#include "runtime/kernel_variants.h"
#include "runtime/runtime_kernels.h"
#include "store_ops.cuh"

namespace cudaprep {
namespace {

using device::DestinationLayout;
using device::ResizeMapping;

template <Interpolation kMethod, bool kAntialiased, class Source>
const runtime::KernelRequest &resize_request() {
  static const runtime::KernelRequest request{
      "resize_kernel.cuh", "cudaprep::resize_kernel<" + sampler_arguments(kMethod, kAntialiased) +
                               ", " + reader_name<Source>() + ">"};
  return request;
}

template <class Source>
cudaError_t launch(const Source &source, const Image &dst, const ResizeParams &params,
                   cudaStream_t stream) {
  const ResizeMapping mapping =
      resize_mapping(source.width, source.height, dst.width, dst.height, params);
  const DestinationLayout layout = device::destination_layout(dst.format);
  const LaunchShape shape = launch_shape_2d(dst.width, dst.height, 1);
  const device::TileCapacity capacity = tile_capacity<Source>(mapping.axes);
  const ResizeArgs<Source> args{source,
                                dst.planes[0].data,
                                dst.planes[0].pitch_bytes,
                                dst.width,
                                dst.height,
                                layout,
                                mapping,
                                capacity};
  return with_sampler(params.interpolation, params.antialias, [&](auto method, auto antialiased) {
    return runtime::launch_kernel(
        resize_request<decltype(method)::value, decltype(antialiased)::value, Source>(), shape,
        tile_shared_bytes(capacity), stream, args);
  });
}

}  // namespace

bool is_resize_source_format(PixelFormat format) {
  return format_info(format).num_planes > 0;
}

bool is_resize_destination_format(PixelFormat format) {
  return device::destination_layout(format).bytes_per_pixel > 0;
}

std::string resize_params_error(const Image &src, const Image &dst, const ResizeParams &params) {
  if (!is_resize_destination_format(dst.format)) {
    return std::string("resize: cannot write ") + pixel_format_name(dst.format) +
           "; destinations are RGB, BGR, RGBA, BGRA, RGBx, BGRx and GRAY8";
  }
  if (params.float_intermediate) {
    return "resize: float_intermediate is for preprocess(); resize() writes 8-bit pixels";
  }
  const std::string error = resize_source_error(src, dst.width, dst.height, params);
  if (!error.empty()) return error;
  const std::string dst_error = plane_error("destination", dst, 0);
  if (!dst_error.empty()) return "resize: " + dst_error;
  return {};
}

cudaError_t resize(const Image &src, const Image &dst, const ResizeParams &params,
                   cudaStream_t stream) {
  if (!resize_params_error(src, dst, params).empty()) return cudaErrorInvalidValue;
  return with_oriented_source(
      src, params, [&](const auto &source) { return launch(source, dst, params, stream); });
}

namespace {

// use(request) for every kernel resize() may launch for such frames.
template <class Use>
cudaError_t for_resize_requests(PixelFormat src_format, const ResizeParams &params, Use &&use) {
  return with_each_possible_source(src_format, params.orientation, [&](const auto &source) {
    using Source = std::decay_t<decltype(source)>;
    return with_sampler(params.interpolation, params.antialias, [&](auto method, auto antialiased) {
      return use(resize_request<decltype(method)::value, decltype(antialiased)::value, Source>());
    });
  });
}

}  // namespace

cudaError_t prepare_resize(PixelFormat src_format, const ResizeParams &params) {
  return for_resize_requests(src_format, params, runtime::prepare_kernel);
}

void runtime::append_resize_variants(std::vector<KernelRequest> *requests) {
  for (const PixelFormat format : kEveryResizeSourceFormat) {
    for (const ResizeParams &params : every_sampler_and_reader_orientation()) {
      for_resize_requests(format, params, [&](const KernelRequest &request) {
        requests->push_back(request);
        return cudaSuccess;
      });
    }
  }
}

}  // namespace cudaprep
