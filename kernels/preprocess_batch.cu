// The batched fused preprocess kernel: a grid of (tiles x, tiles y, items),
// each block reading its item's source reader, mapping and constants from
// the kernel's parameters and running the pixel function of the single-item
// kernel (device::preprocess_block) on it. The per-item constants are built
// by the same host helpers as preprocess() (resize_mapping,
// channel_normalization, with_oriented_source), so each item is bit for bit
// the single-item result.
#include "cudaprep/preprocess_batch.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <unordered_set>

#include "cudaprep/preprocess.h"
#include "preprocess_ops.cuh"
#include "resize_launch.cuh"
#include "tensor_launch.cuh"

namespace cudaprep {
namespace {

// One item as the kernel reads it.
struct BatchItem {
  ResizeSource source;
  device::ResizeMapping mapping;
  device::ChannelNormalization norm;
  int batch_index;
};

// The launch copies the whole parameter block whatever the count (about
// 26 KiB for the largest list costs about 7 us of host time per launch on
// the H100), so
// small batches take a smaller list.
template <int kCapacity>
struct BatchItems {
  BatchItem items[kCapacity];
};

// Kernel parameters may take 32764 bytes on sm_70 and later (CUDA 12.1).
static_assert(sizeof(BatchItems<kMaxPreprocessBatchItems>) + 64 <= 32764,
              "the item list must fit the kernel parameters");

// __grid_constant__: items[blockIdx.z] is read in place from the parameter
// space; without it, indexing the array would copy it per thread.
// `capacity`: the largest tile any item's blocks need (resize_tile.cuh).
template <Interpolation kMethod, bool kAntialiased, typename Out, int kCapacity>
__global__ void preprocess_batch_kernel(const __grid_constant__ BatchItems<kCapacity> batch,
                                        device::TileCapacity capacity, int width, int height,
                                        ChannelOrder order, void *tensor,
                                        device::TensorStrides strides) {
  extern __shared__ device::Rgba tile_shared[];
  const BatchItem &item = batch.items[blockIdx.z];
  item.source.visit([&](const auto &source) {
    device::preprocess_block<kMethod, kAntialiased, Out>(source, item.mapping, capacity,
                                                         tile_shared, order, item.norm, tensor,
                                                         strides, item.batch_index, width, height);
  });
}

// items[0..count), count <= kCapacity, all validated.
template <typename Out, int kCapacity>
cudaError_t launch_batch(const PreprocessItem *items, int count, void *tensor_data,
                         const TensorDesc &desc, cudaStream_t stream) {
  const TensorShape shape = tensor_shape(desc);
  const int width = static_cast<int>(shape.width);
  const int height = static_cast<int>(shape.height);
  // Static: tens of KiB are more than a streaming thread's stack should hold, and
  // the launch copies it into the parameters before returning.
  thread_local BatchItems<kCapacity> batch;
  device::TileCapacity tile{};
  bool antialias = false;  // any item: the kernel that may tile
  for (int i = 0; i < count; ++i) {
    const PreprocessItem &item = items[i];
    BatchItem &out = batch.items[i];
    const cudaError_t err =
        with_oriented_source(item.src, item.resize_params, [&](const auto &source) {
          out.source.set(source);
          out.mapping =
              resize_mapping(source.width, source.height, width, height, item.resize_params);
          tile = merged_tile_capacity(
              tile, tile_capacity<std::decay_t<decltype(source)>>(out.mapping.axes));
          return cudaSuccess;
        });
    if (err != cudaSuccess) return err;
    antialias = antialias || item.resize_params.antialias;
    out.norm = channel_normalization(item.normalize_params);
    out.batch_index = item.batch_index;
  }
  LaunchShape launch = launch_shape_2d(width, height, 1);
  launch.grid.z = static_cast<unsigned>(count);
  const device::TensorStrides strides = logical_strides(desc);
  const ChannelOrder order = items[0].normalize_params.channel_order;
  with_sampler(items[0].resize_params.interpolation, antialias, [&](auto method, auto antialiased) {
    preprocess_batch_kernel<decltype(method)::value, decltype(antialiased)::value, Out, kCapacity>
        <<<launch.grid, launch.block, tile_shared_bytes(tile), stream>>>(
            batch, tile, width, height, order, tensor_data, strides);
  });
  return cudaGetLastError();
}

// The smallest item list that holds `count` items.
template <typename Out>
cudaError_t launch_batch(const PreprocessItem *items, int count, void *tensor_data,
                         const TensorDesc &desc, cudaStream_t stream) {
  if (count <= 8) return launch_batch<Out, 8>(items, count, tensor_data, desc, stream);
  if (count <= 32) return launch_batch<Out, 32>(items, count, tensor_data, desc, stream);
  return launch_batch<Out, kMaxPreprocessBatchItems>(items, count, tensor_data, desc, stream);
}

}  // namespace

std::string preprocess_batch_error(const PreprocessItem *items, int count, const void *tensor_data,
                                   const TensorDesc &desc) {
  const std::string prefix = "preprocess_batch: ";
  if (count < 0) return prefix + "negative item count " + std::to_string(count);
  if (count > 0 && items == nullptr) return prefix + "no item list";
  std::unordered_set<int> slots;
  for (int i = 0; i < count; ++i) {
    const PreprocessItem &item = items[i];
    const std::string which = "item " + std::to_string(i) + ": ";
    const std::string error = preprocess_params_error(
        item.src, item.resize_params, item.normalize_params, tensor_data, desc, item.batch_index);
    if (!error.empty()) return prefix + which + error;
    if (item.resize_params.interpolation != items[0].resize_params.interpolation) {
      return prefix + which + "interpolation " +
             interpolation_name(item.resize_params.interpolation) + " differs from item 0's " +
             interpolation_name(items[0].resize_params.interpolation) + " (one method per batch)";
    }
    if (item.normalize_params.channel_order != items[0].normalize_params.channel_order) {
      return prefix + which + "channel order " +
             channel_order_name(item.normalize_params.channel_order) + " differs from item 0's " +
             channel_order_name(items[0].normalize_params.channel_order);
    }
    if (!slots.insert(item.batch_index).second) {
      return prefix + which + "slot " + std::to_string(item.batch_index) +
             " is already filled by an earlier item";
    }
  }
  return {};
}

cudaError_t preprocess_batch(const PreprocessItem *items, int count, void *tensor_data,
                             const TensorDesc &desc, cudaStream_t stream) {
  if (!preprocess_batch_error(items, count, tensor_data, desc).empty()) {
    return cudaErrorInvalidValue;
  }
  for (int first = 0; first < count; first += kMaxPreprocessBatchItems) {
    const int chunk = std::min(count - first, kMaxPreprocessBatchItems);
    const cudaError_t err =
        desc.dtype == DataType::kFloat16
            ? launch_batch<__half>(items + first, chunk, tensor_data, desc, stream)
            : launch_batch<float>(items + first, chunk, tensor_data, desc, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace cudaprep
