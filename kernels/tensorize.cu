#include "cudaprep/tensorize.h"

#include <cstdint>

#include "runtime/kernel_variants.h"
#include "runtime/runtime_kernels.h"
#include "tensor_launch.cuh"
#include "tensor_ops.cuh"
#include "tensorize_kernel.cuh"

namespace cudaprep {
namespace {

// The widest way runs of `channels` channels of `Out` can be stored into
// item `batch_index` of the tensor.
template <typename Out>
RunStore run_store(const void *tensor_data, const TensorDesc &desc, int batch_index, int channels) {
  const device::TensorStrides strides = logical_strides(desc);
  constexpr size_t kRunBytes = device::kRunLength * sizeof(Out);
  const uint8_t *const item =
      static_cast<const uint8_t *>(tensor_data) + batch_index * strides.batch;
  if (!is_aligned(item, strides.height, kRunBytes)) return RunStore::kElements;
  const int64_t element = static_cast<int64_t>(sizeof(Out));
  if (strides.width == element && (channels == 1 || strides.channel % kRunBytes == 0)) {
    return RunStore::kRows;
  }
  if (channels == 3 && strides.channel == element && strides.width == 3 * element) {
    return RunStore::kPixels;
  }
  return RunStore::kElements;
}

template <typename In, typename Out>
const runtime::KernelRequest &planar_request() {
  static const runtime::KernelRequest request{
      "tensorize_kernel.cuh", std::string("cudaprep::tensorize_planar_kernel<") +
                                  element_type_name<In>() + ", " + element_type_name<Out>() + ">"};
  return request;
}

const runtime::KernelRequest &interleaved_request() {
  static const runtime::KernelRequest request{"tensorize_kernel.cuh",
                                              "cudaprep::tensorize_interleaved_kernel"};
  return request;
}

template <typename In, typename Out>
cudaError_t launch_tensorize_planar(const PlanarImage &src, void *tensor_data,
                                    const TensorDesc &desc, int batch_index, cudaStream_t stream) {
  bool wide_loads = true;
  for (int c = 0; c < src.channels; ++c) {
    wide_loads = wide_loads && is_aligned(src.planes[c], static_cast<int64_t>(src.pitch_bytes),
                                          device::kRunLength * sizeof(In));
  }
  const RunStore store = run_store<Out>(tensor_data, desc, batch_index, src.channels);
  const LaunchShape shape = launch_shape_2d(src.width, src.height, device::kRunLength);
  const TensorizePlanarArgs args{src,         tensor_data, logical_strides(desc),
                                 batch_index, wide_loads,  store};
  return runtime::launch_kernel(planar_request<In, Out>(), shape, 0, stream, args);
}

}  // namespace

std::string tensorize_planar_error(const PlanarImage &src, const void *tensor_data,
                                   const TensorDesc &desc, int batch_index) {
  const std::string reason = planar_image_error(src);
  if (!reason.empty()) return reason;
  if (desc.dtype != DataType::kFloat32 && desc.dtype != DataType::kFloat16) {
    return "a tensor made from a planar float frame holds float32 or float16";
  }
  return tensor_item_error(tensor_data, desc, batch_index, src.width, src.height, src.channels);
}

cudaError_t tensorize_planar(const PlanarImage &src, void *tensor_data, const TensorDesc &desc,
                             int batch_index, cudaStream_t stream) {
  if (!tensorize_planar_error(src, tensor_data, desc, batch_index).empty()) {
    return cudaErrorInvalidValue;
  }
  return with_float_type(src.dtype, [&](auto in) {
    return with_float_type(desc.dtype, [&](auto out) {
      return launch_tensorize_planar<decltype(in), decltype(out)>(src, tensor_data, desc,
                                                                  batch_index, stream);
    });
  });
}

cudaError_t prepare_tensorize_planar(DataType src_dtype, DataType dtype) {
  const auto is_float = [](DataType type) {
    return type == DataType::kFloat32 || type == DataType::kFloat16;
  };
  if (!is_float(src_dtype) || !is_float(dtype)) return cudaErrorInvalidValue;
  return with_float_type(src_dtype, [&](auto in) {
    return with_float_type(dtype, [&](auto out) {
      return runtime::prepare_kernel(planar_request<decltype(in), decltype(out)>());
    });
  });
}

std::string tensorize_interleaved_error(const Image &src, ChannelOrder channel_order,
                                        const void *tensor_data, const TensorDesc &desc,
                                        int batch_index) {
  InterleavedChannelMap map;
  const std::string reason = interleaved_image_error(src, channel_order, &map);
  if (!reason.empty()) return reason;
  if (desc.dtype != DataType::kUInt8) {
    return "a tensor made directly from 8-bit pixels holds uint8 (normalize first for floats)";
  }
  return tensor_item_error(tensor_data, desc, batch_index, src.width, src.height, map.num_channels);
}

cudaError_t tensorize_interleaved(const Image &src, ChannelOrder channel_order, void *tensor_data,
                                  const TensorDesc &desc, int batch_index, cudaStream_t stream) {
  if (!tensorize_interleaved_error(src, channel_order, tensor_data, desc, batch_index).empty()) {
    return cudaErrorInvalidValue;
  }
  InterleavedChannelMap map;
  interleaved_channel_map(src.format, channel_order, &map);
  const LaunchShape shape = launch_shape_2d(src.width, src.height, 1);
  const TensorizeInterleavedArgs args{
      src.planes[0].data, src.planes[0].pitch_bytes, src.width,  src.height, map,
      tensor_data,        logical_strides(desc),     batch_index};
  return runtime::launch_kernel(interleaved_request(), shape, 0, stream, args);
}

cudaError_t prepare_tensorize_interleaved() {
  return runtime::prepare_kernel(interleaved_request());
}

void runtime::append_tensorize_variants(std::vector<KernelRequest> *requests) {
  for (const DataType in : {DataType::kFloat32, DataType::kFloat16}) {
    for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
      with_float_type(in, [&](auto in_type) {
        return with_float_type(dtype, [&](auto out_type) {
          requests->push_back(planar_request<decltype(in_type), decltype(out_type)>());
          return cudaSuccess;
        });
      });
    }
  }
  requests->push_back(interleaved_request());
}

}  // namespace cudaprep
