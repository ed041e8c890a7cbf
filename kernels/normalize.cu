#include "cudaprep/normalize.h"

#include "normalize_kernel.cuh"
#include "runtime/kernel_variants.h"
#include "runtime/runtime_kernels.h"
#include "tensor_launch.cuh"
#include "tensor_ops.cuh"

namespace cudaprep {
namespace {

template <typename Out, int kBytesPerPixel, int kChannels>
const runtime::KernelRequest &normalize_request() {
  static const runtime::KernelRequest request{
      "normalize_kernel.cuh", std::string("cudaprep::normalize_kernel<") +
                                  element_type_name<Out>() + ", " + std::to_string(kBytesPerPixel) +
                                  ", " + std::to_string(kChannels) + ">"};
  return request;
}

template <typename Out, int kBytesPerPixel, int kChannels>
cudaError_t launch_normalize(const Image &src, const PlanarImage &dst,
                             const InterleavedChannelMap &map,
                             const device::ChannelNormalization &norm, cudaStream_t stream) {
  const ImagePlane &plane = src.planes[0];
  const bool wide_loads = is_aligned(plane.data, static_cast<int64_t>(plane.pitch_bytes),
                                     device::pixel_run_alignment(kBytesPerPixel));
  bool wide_stores = true;
  for (int c = 0; c < kChannels; ++c) {
    wide_stores = wide_stores && is_aligned(dst.planes[c], static_cast<int64_t>(dst.pitch_bytes),
                                            device::kRunLength * sizeof(Out));
  }
  const LaunchShape shape = launch_shape_2d(dst.width, dst.height, device::kRunLength);
  const NormalizeArgs args{plane.data, plane.pitch_bytes, map, dst, norm, wide_loads, wide_stores};
  return runtime::launch_kernel(normalize_request<Out, kBytesPerPixel, kChannels>(), shape, 0,
                                stream, args);
}

// Calls with_variant(Out{}, bytes per pixel, channels) with the kernel's
// template arguments as std::integral_constant, for `map` and `dtype`.
template <class WithVariant>
cudaError_t with_normalize_variant(const InterleavedChannelMap &map, DataType dtype,
                                   WithVariant &&with_variant) {
  return with_float_type(dtype, [&](auto out) {
    switch (map.bytes_per_pixel) {
      case 4:
        return with_variant(out, std::integral_constant<int, 4>(),
                            std::integral_constant<int, 3>());
      case 3:
        return with_variant(out, std::integral_constant<int, 3>(),
                            std::integral_constant<int, 3>());
      default:  // GRAY8: one channel, or its luma in all three
        if (map.num_channels == 1) {
          return with_variant(out, std::integral_constant<int, 1>(),
                              std::integral_constant<int, 1>());
        }
        return with_variant(out, std::integral_constant<int, 1>(),
                            std::integral_constant<int, 3>());
    }
  });
}

}  // namespace

std::string normalize_error(const Image &src, const PlanarImage &dst,
                            const NormalizeParams &params) {
  InterleavedChannelMap map;
  std::string reason = interleaved_image_error(src, params.channel_order, &map);
  if (!reason.empty()) return reason;
  reason = planar_image_error(dst);
  if (!reason.empty()) return reason;
  if (dst.width != src.width || dst.height != src.height) {
    return "the normalized frame's size differs from the source's";
  }
  if (dst.channels != map.num_channels) {
    return "the normalized frame's channel count does not match the channel order (RGB/BGR: 3, "
           "GRAY: 1)";
  }
  return normalize_constants_error(params);
}

cudaError_t normalize(const Image &src, const PlanarImage &dst, const NormalizeParams &params,
                      cudaStream_t stream) {
  if (!normalize_error(src, dst, params).empty()) return cudaErrorInvalidValue;
  InterleavedChannelMap map;
  interleaved_channel_map(src.format, params.channel_order, &map);
  const device::ChannelNormalization norm = channel_normalization(params);
  return with_normalize_variant(map, dst.dtype, [&](auto out, auto bytes, auto channels) {
    return launch_normalize<decltype(out), decltype(bytes)::value, decltype(channels)::value>(
        src, dst, map, norm, stream);
  });
}

cudaError_t prepare_normalize(PixelFormat src_format, ChannelOrder order, DataType dtype) {
  InterleavedChannelMap map;
  if (!interleaved_channel_map(src_format, order, &map) ||
      (dtype != DataType::kFloat32 && dtype != DataType::kFloat16)) {
    return cudaErrorInvalidValue;
  }
  return with_normalize_variant(map, dtype, [&](auto out, auto bytes, auto channels) {
    return runtime::prepare_kernel(
        normalize_request<decltype(out), decltype(bytes)::value, decltype(channels)::value>());
  });
}

void runtime::append_normalize_variants(std::vector<KernelRequest> *requests) {
  for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
    for (const PixelFormat format : {PixelFormat::kRGBA, PixelFormat::kRGB, PixelFormat::kGRAY8}) {
      for (const ChannelOrder order : {ChannelOrder::kRGB, ChannelOrder::kGray}) {
        InterleavedChannelMap map;
        if (!interleaved_channel_map(format, order, &map)) continue;
        with_normalize_variant(map, dtype, [&](auto out, auto bytes, auto channels) {
          requests->push_back(normalize_request<decltype(out), decltype(bytes)::value,
                                                decltype(channels)::value>());
          return cudaSuccess;
        });
      }
    }
  }
}

}  // namespace cudaprep
