// Launch side of resize(): validates the views, picks the source reader and
// the sampler at compile time (6 readers x 4 methods), one thread per
// destination pixel, antialiased sampling tiled (resize_tile.cuh) or, for
// the shrinks two_pass_plan() chooses, in two passes
// (antialias_two_pass_run.cuh). The per-pixel maths lives in the *_ops.cuh
// headers (resample_ops.cuh composes them, store_ops.cuh writes pixels), the
// host side shared with preprocess() in resize_launch.cuh.
#include "cudaprep/resize.h"

#include "antialias_two_pass_run.cuh"
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

// Pass 2 of the two passes into a destination's pixels; kMethod
// antialiased bilinear or bicubic.
template <Interpolation kMethod>
const runtime::KernelRequest &resize_two_pass_request() {
  static const runtime::KernelRequest request{
      "antialias_two_pass_kernel.cuh",
      "cudaprep::resize_two_pass_kernel<" + interpolation_argument(kMethod) + ">"};
  return request;
}

// Whether the two passes store what the single pass stores into `layout`
// from a `src_format` frame: they carry no alpha (255 inside the
// rectangle), so not where the destination keeps an alpha the source has.
bool two_passes_match_alpha(PixelFormat src_format, const device::DestinationLayout &layout) {
  const bool keeps_alpha = layout.alpha_index >= 0 && !layout.alpha_filler;
  const bool source_alpha = src_format == PixelFormat::kRGBA || src_format == PixelFormat::kBGRA;
  return !(keeps_alpha && source_alpha);
}

// Both passes of `plan` into `sums`, then the destination's pixels.
template <Interpolation kMethod, class Source>
cudaError_t launch_two_pass(const ResizeArgs<Source> &single, const TwoPassPlan &plan,
                            const device::RowSums &sums, cudaStream_t stream) {
  const cudaError_t launched =
      launch_row_sums<kMethod>(single.src, single.mapping.axes, plan, sums, stream);
  if (launched != cudaSuccess) return launched;
  const ResizeTwoPassArgs args{sums,
                               single.mapping,
                               plan.band,
                               single.dst,
                               single.dst_pitch_bytes,
                               single.dst_width,
                               single.dst_height,
                               single.layout};
  return runtime::launch_kernel(resize_two_pass_request<kMethod>(), plan.output_launch,
                                plan.band_shared_bytes, stream, args);
}

// The two passes where two_pass_plan() says so, the destination allows
// (two_passes_match_alpha()) and the device has memory pools (else, unless
// they are forced, the single pass): one thread per destination pixel.
template <class Source>
cudaError_t launch(const Source &source, PixelFormat src_format, const Image &dst,
                   const ResizeParams &params, cudaStream_t stream) {
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
  const AntialiasPath path = antialias_path();
  TwoPassPlan plan;
  if (two_passes_match_alpha(src_format, layout)) {
    const cudaError_t planned =
        plan_two_passes(source, mapping, dst.width, dst.height, path, &plan);
    if (planned != cudaSuccess) return planned;
  }
  if (plan.runs) {
    bool done = false;
    const cudaError_t launched = run_two_passes(
        plan, params, path, stream,
        [&](auto method, const device::RowSums &sums) {
          return launch_two_pass<decltype(method)::value>(args, plan, sums, stream);
        },
        &done);
    if (done) return launched;
  }
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
  return with_oriented_source(src, params, [&](const auto &source) {
    return launch(source, src.format, dst, params, stream);
  });
}

namespace {

// use(request) for every kernel resize() may launch for such frames.
template <class Use>
cudaError_t for_resize_requests(PixelFormat src_format, const ResizeParams &params, Use &&use) {
  return with_each_possible_source(src_format, params.orientation, [&](const auto &source) {
    using Source = std::decay_t<decltype(source)>;
    return with_sampler(params.interpolation, params.antialias, [&](auto method, auto antialiased) {
      constexpr Interpolation kMethod = decltype(method)::value;
      cudaError_t err = use(resize_request<kMethod, decltype(antialiased)::value, Source>());
      // Antialiased: the two passes too, which a frame's geometry may choose.
      if constexpr (decltype(antialiased)::value) {
        if (err == cudaSuccess) err = use(row_sums_request<kMethod, Source>());
        if (err == cudaSuccess) err = use(resize_two_pass_request<kMethod>());
      }
      return err;
    });
  });
}

}  // namespace

cudaError_t prepare_resize(PixelFormat src_format, const ResizeParams &params) {
  const cudaError_t err = for_resize_requests(src_format, params, runtime::prepare_kernel);
  if (err != cudaSuccess || !params.antialias) return err;
  return prepare_row_sums_pool();
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
