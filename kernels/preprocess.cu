// The fused preprocess kernel: the per-pixel functions of resize
// (resample_ops.cuh, store_ops.cuh) and of normalize/tensorize (tensor_ops.cuh) composed
// in one thread per tensor pixel (preprocess_ops.cuh), with the host-side constants built by the
// same helpers the unfused launches use (resize_launch.cuh,
// tensor_launch.cuh). Nothing here re-implements a formula: that is what
// makes the result bit-identical to resize -> normalize -> tensorize.
#include "cudaprep/preprocess.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "antialias_two_pass_run.cuh"
#include "preprocess_kernel.cuh"
#include "resize_launch.cuh"
#include "runtime/kernel_variants.h"
#include "runtime/runtime_kernels.h"
#include "tensor_launch.cuh"

namespace cudaprep {
namespace {

template <Interpolation kMethod, bool kAntialiased, class Source, typename Out>
const runtime::KernelRequest &preprocess_request() {
  static const runtime::KernelRequest request{
      "preprocess_kernel.cuh", "cudaprep::preprocess_kernel<" +
                                   sampler_arguments(kMethod, kAntialiased) + ", " +
                                   reader_name<Source>() + ", " + element_type_name<Out>() + ">"};
  return request;
}

// Pass 2 of the two passes (antialias_two_pass_kernel.cuh) into tensors;
// kMethod antialiased bilinear or bicubic.
template <Interpolation kMethod, class Source, typename Out>
const runtime::KernelRequest &two_pass_output_request() {
  static const runtime::KernelRequest request{
      "antialias_two_pass_kernel.cuh",
      "cudaprep::preprocess_two_pass_kernel<" + interpolation_argument(kMethod) +
          (device::is_high_bit_depth_source<Source>::value ? ", true, " : ", false, ") +
          element_type_name<Out>() + ">"};
  return request;
}

// Both passes (antialias_two_pass_ops.cuh) for the `count` tensors into
// `sums`: one launch of pass 1, one of pass 2 per kMaxPreprocessCopies
// tensors.
template <Interpolation kMethod, typename Out, class Source>
cudaError_t launch_two_pass(const PreprocessArgs<Source> &single, const TwoPassPlan &plan,
                            const device::RowSums &sums, void *const *tensors, int count,
                            cudaStream_t stream) {
  cudaError_t launched =
      launch_row_sums<kMethod>(single.src, single.mapping.axes, plan, sums, stream);
  PreprocessTwoPassArgs args;
  args.sums = sums;
  args.mapping = single.mapping;
  args.capacity = plan.band;
  args.width = single.width;
  args.height = single.height;
  args.order = single.order;
  args.norm = single.norm;
  args.strides = single.strides;
  args.batch_index = single.batch_index;
  for (int first = 0; first < count && launched == cudaSuccess; first += kMaxPreprocessCopies) {
    args.copies = std::min(count - first, kMaxPreprocessCopies);
    for (int copy = 0; copy < args.copies; ++copy) args.tensors[copy] = tensors[first + copy];
    launched = runtime::launch_kernel(two_pass_output_request<kMethod, Source, Out>(),
                                      plan.output_launch, plan.band_shared_bytes, stream, args);
  }
  return launched;
}

// One launch per kMaxPreprocessCopies of the `count` tensors, or the two
// passes where two_pass_plan() says so and the device has memory pools
// (else, unless the two passes are forced, the single pass).
template <typename Out, class Source>
cudaError_t launch_preprocess(const Source &source, const ResizeParams &resize_params,
                              const NormalizeParams &normalize_params, void *const *tensors,
                              int count, const TensorDesc &desc, int batch_index,
                              cudaStream_t stream) {
  const TensorShape shape = tensor_shape(desc);
  const int width = static_cast<int>(shape.width);
  const int height = static_cast<int>(shape.height);
  PreprocessArgs<Source> args;
  args.src = source;
  args.mapping = resize_mapping(source.width, source.height, width, height, resize_params);
  args.capacity = tile_capacity<Source>(args.mapping.axes);
  args.width = width;
  args.height = height;
  args.order = normalize_params.channel_order;
  args.norm = channel_normalization(normalize_params);
  args.strides = logical_strides(desc);
  args.batch_index = batch_index;
  const AntialiasPath path = antialias_path();
  TwoPassPlan plan;
  const cudaError_t planned = plan_two_passes(source, args.mapping, width, height, path, &plan);
  if (planned != cudaSuccess) return planned;
  if (plan.runs) {
    bool done = false;
    const cudaError_t launched = run_two_passes(
        plan, resize_params, path, stream,
        [&](auto method, const device::RowSums &sums) {
          return launch_two_pass<decltype(method)::value, Out>(args, plan, sums, tensors, count,
                                                               stream);
        },
        &done);
    if (done) return launched;
  }
  const LaunchShape launch = launch_shape_2d(width, height, 1);
  cudaError_t launched = cudaSuccess;
  for (int first = 0; first < count && launched == cudaSuccess; first += kMaxPreprocessCopies) {
    args.copies = std::min(count - first, kMaxPreprocessCopies);
    for (int copy = 0; copy < args.copies; ++copy) args.tensors[copy] = tensors[first + copy];
    launched = with_sampler(resize_params.interpolation, resize_params.antialias,
                            [&](auto method, auto antialiased) {
                              return runtime::launch_kernel(
                                  preprocess_request<decltype(method)::value,
                                                     decltype(antialiased)::value, Source, Out>(),
                                  launch, tile_shared_bytes(args.capacity), stream, args);
                            });
  }
  return launched;
}

}  // namespace

std::string preprocess_params_error(const Image &src, const ResizeParams &resize_params,
                                    const NormalizeParams &normalize_params,
                                    const void *tensor_data, const TensorDesc &desc,
                                    int batch_index) {
  const std::string prefix = "preprocess: ";
  if (desc.dtype != DataType::kFloat32 && desc.dtype != DataType::kFloat16) {
    return prefix + "the tensor must hold float32 or float16, not " + data_type_name(desc.dtype);
  }
  switch (normalize_params.channel_order) {
    case ChannelOrder::kRGB:
    case ChannelOrder::kBGR:
    case ChannelOrder::kGray:
      break;
    default:
      return prefix + "unknown channel order";
  }
  // The output size is the tensor's own, so only its range needs checking.
  const TensorShape shape = tensor_shape(desc);
  if (shape.width > INT_MAX || shape.height > INT_MAX) {
    return prefix + "the tensor's width or height exceeds " + std::to_string(INT_MAX);
  }
  for (const std::string &reason :
       {tensor_item_error(tensor_data, desc, batch_index, static_cast<int>(shape.width),
                          static_cast<int>(shape.height),
                          channel_count(normalize_params.channel_order)),
        normalize_constants_error(normalize_params),
        resize_source_error(src, static_cast<int>(shape.width), static_cast<int>(shape.height),
                            resize_params)}) {
    if (!reason.empty()) return prefix + reason;
  }
  return {};
}

cudaError_t preprocess(const Image &src, const ResizeParams &resize_params,
                       const NormalizeParams &normalize_params, void *tensor_data,
                       const TensorDesc &desc, int batch_index, cudaStream_t stream) {
  return preprocess_into_each(src, resize_params, normalize_params, &tensor_data, 1, desc,
                              batch_index, stream);
}

cudaError_t preprocess_into_each(const Image &src, const ResizeParams &resize_params,
                                 const NormalizeParams &normalize_params, void *const *tensors,
                                 int count, const TensorDesc &desc, int batch_index,
                                 cudaStream_t stream) {
  if (tensors == nullptr || count < 1) return cudaErrorInvalidValue;
  for (int copy = 0; copy < count; ++copy) {
    if (!preprocess_params_error(src, resize_params, normalize_params, tensors[copy], desc,
                                 batch_index)
             .empty())
      return cudaErrorInvalidValue;
  }
  return with_oriented_source(src, resize_params, [&](const auto &source) {
    return with_float_type(desc.dtype, [&](auto out) {
      return launch_preprocess<decltype(out)>(source, resize_params, normalize_params, tensors,
                                              count, desc, batch_index, stream);
    });
  });
}

cudaError_t preprocess_chooses_two_passes(const Image &src, const ResizeParams &resize_params,
                                          int width, int height, bool *two_passes) {
  *two_passes = false;
  return with_oriented_source(src, resize_params, [&](const auto &source) {
    TwoPassPlan plan;
    const cudaError_t planned = plan_two_passes(
        source, resize_mapping(source.width, source.height, width, height, resize_params), width,
        height, AntialiasPath::kChosen, &plan);
    *two_passes = plan.runs;
    return planned;
  });
}

namespace {

// use(request) for every kernel preprocess() may launch for such frames.
template <class Use>
cudaError_t for_preprocess_requests(PixelFormat src_format, const ResizeParams &resize_params,
                                    DataType dtype, Use &&use) {
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat16) return cudaErrorInvalidValue;
  return with_each_possible_source(src_format, resize_params.orientation, [&](const auto &source) {
    using Source = std::decay_t<decltype(source)>;
    return with_float_type(dtype, [&](auto out) {
      return with_sampler(
          resize_params.interpolation, resize_params.antialias, [&](auto method, auto antialiased) {
            constexpr Interpolation kMethod = decltype(method)::value;
            using Out = decltype(out);
            cudaError_t err =
                use(preprocess_request<kMethod, decltype(antialiased)::value, Source, Out>());
            // Antialiased: the two passes too, which a frame's geometry may choose.
            if constexpr (decltype(antialiased)::value) {
              if (err == cudaSuccess) err = use(row_sums_request<kMethod, Source>());
              if (err == cudaSuccess) err = use(two_pass_output_request<kMethod, Source, Out>());
            }
            return err;
          });
    });
  });
}

}  // namespace

cudaError_t prepare_preprocess(PixelFormat src_format, const ResizeParams &resize_params,
                               DataType dtype) {
  const cudaError_t err =
      for_preprocess_requests(src_format, resize_params, dtype, runtime::prepare_kernel);
  if (err != cudaSuccess || !resize_params.antialias) return err;
  return prepare_row_sums_pool();
}

void runtime::append_preprocess_variants(std::vector<KernelRequest> *requests) {
  for (const PixelFormat format : kEveryResizeSourceFormat) {
    for (const ResizeParams &params : every_sampler_and_reader_orientation()) {
      for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
        for_preprocess_requests(format, params, dtype, [&](const KernelRequest &request) {
          requests->push_back(request);
          return cudaSuccess;
        });
      }
    }
  }
}

}  // namespace cudaprep
