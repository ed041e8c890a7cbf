// Launch side of the batched fused preprocess (its kernel:
// preprocess_batch_kernel.cuh). The per-item constants are built
// by the same host helpers as preprocess() (resize_mapping,
// channel_normalization, with_oriented_source), so each item is bit for bit
// the single-item result.
#include "cudaprep/preprocess_batch.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "cudaprep/preprocess.h"
#include "preprocess_batch_kernel.cuh"
#include "resize_launch.cuh"
#include "runtime/kernel_variants.h"
#include "runtime/runtime_kernels.h"
#include "tensor_launch.cuh"

namespace cudaprep {
namespace {

// Threads of a block of the run shape.
constexpr unsigned kRunBlockThreads = kBlockWidth * kBlockHeight;
static_assert(kRunBlockThreads == kBatchBlockThreads,
              "both shapes launch the blocks the kernel's launch bounds name");

// Kernel parameters may take 32764 bytes on sm_70 and later (CUDA 12.1).
static_assert(sizeof(BatchArgs<kMaxPreprocessBatchItems>) <= 32764,
              "the item list must fit the kernel parameters");

// Every reader of ResizeSource, spelled for a name expression, in the
// variant's order (bit i of a reader set is reader i).
template <class... Sources>
std::vector<std::string> reader_names_of(const SourceVariant<Sources...> *) {
  return {reader_name<Sources>()...};
}

const std::vector<std::string> &reader_names() {
  static const std::vector<std::string> names =
      reader_names_of(static_cast<const ResizeSource *>(nullptr));
  return names;
}

// The readers items of `format` seen through `orientation` may hold, as a
// set of ResizeSource indices, whatever their views' alignment:
// prepare_preprocess_batch() compiles a kernel for each, so that the one an
// item's reader needs is ready (item_reader()).
uint32_t possible_readers(PixelFormat format, Orientation orientation) {
  constexpr int kFormats = static_cast<int>(PixelFormat::kP016) + 1;
  constexpr int kOrientations = static_cast<int>(Orientation::kAntiTranspose) + 1;
  static const auto table = [] {
    std::vector<uint32_t> readers(kFormats * kOrientations, 0);
    for (int f = 0; f < kFormats; ++f) {
      for (int o = 0; o < kOrientations; ++o) {
        with_each_possible_source(static_cast<PixelFormat>(f), static_cast<Orientation>(o),
                                  [&](const auto &source) {
                                    ResizeSource variant;
                                    variant.set(source);
                                    readers[f * kOrientations + o] |= 1u << variant.index();
                                    return cudaSuccess;
                                  });
      }
    }
    return readers;
  }();
  const int f = static_cast<int>(format), o = static_cast<int>(orientation);
  if (f < 0 || f >= kFormats || o < 0 || o >= kOrientations) return 0;
  return table[f * kOrientations + o];
}

// The reader with_oriented_source() picks for `item` (a validated view), as
// its ResizeSource index: the kernel a batch launches is compiled for its
// items' one reader, which is faster than one that visits the format's
// others too (RGBA's byte reader beside its 32-bit one).
int item_reader(const PreprocessItem &item) {
  int reader = 0;
  with_oriented_source(item.src, item.resize_params, [&](const auto &source) {
    ResizeSource variant;
    variant.set(source);
    reader = variant.index();
    return cudaSuccess;
  });
  return reader;
}

struct BatchVariant {
  Interpolation method;
  bool antialias;
  DataType dtype;
  int capacity;
  int reader;  // the kernel's one reader, a ResizeSource index
};

// The request of `variant`, made once per process. A launch finds it with
// one atomic load in a table indexed by the variant (no lock, no name).
const runtime::KernelRequest &batch_request(const BatchVariant &variant) {
  constexpr int kReaders = 32;  // above every ResizeSource index (possible_readers()' bits)
  constexpr int kMethods = static_cast<int>(Interpolation::kArea) + 1;
  constexpr int kDataTypes = static_cast<int>(DataType::kFloat32) + 1;
  constexpr int kCapacities = 3;  // capacity_for()'s lists
  static std::atomic<const runtime::KernelRequest *>
      table[kReaders * kMethods * 2 * kDataTypes * kCapacities];
  const int reader = variant.reader;
  const int capacity = variant.capacity <= 8 ? 0 : variant.capacity <= 32 ? 1 : 2;
  const size_t slot =
      (((static_cast<size_t>(reader) * kMethods + static_cast<int>(variant.method)) * 2 +
        variant.antialias) *
           kDataTypes +
       static_cast<int>(variant.dtype)) *
          kCapacities +
      capacity;
  if (const runtime::KernelRequest *request = table[slot].load(std::memory_order_acquire)) {
    return *request;
  }
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (const runtime::KernelRequest *request = table[slot].load(std::memory_order_relaxed)) {
    return *request;
  }
  std::string name = "cudaprep::preprocess_batch_kernel<" +
                     sampler_arguments(variant.method, variant.antialias) + ", " +
                     (variant.dtype == DataType::kFloat16 ? "__half" : "float") + ", " +
                     std::to_string(variant.capacity) + ", " + reader_names()[reader] + ">";
  // Made once per variant and kept for the process, as the kernels they name.
  const auto *request = new runtime::KernelRequest("preprocess_batch_kernel.cuh", name);
  table[slot].store(request, std::memory_order_release);
  return *request;
}

// The smallest item list that holds `count` items.
int capacity_for(int count) {
  if (count <= 8) return 8;
  if (count <= 32) return 32;
  return kMaxPreprocessBatchItems;
}

// Whether a batch launches in the run shape (preprocess_batch_kernel.cuh):
// a kernel that may (batch_kernel_runs()), into rows of contiguous elements
// whose runs all start aligned for one wide store, with every run index of
// an item within an int.
bool takes_runs(Interpolation method, bool antialiased, const void *tensor,
                const device::TensorStrides &strides, DataType dtype, int width, int height) {
  const int64_t element = static_cast<int64_t>(data_type_size(dtype));
  const int64_t runs_per_row = (width + device::kRunLength - 1) / device::kRunLength;
  return batch_kernel_runs(method, antialiased) && strides.width == element &&
         is_aligned(tensor, strides.batch | strides.channel | strides.height,
                    static_cast<size_t>(device::kRunLength * element)) &&
         runs_per_row * height <= INT_MAX - static_cast<int64_t>(kRunBlockThreads);
}

// The run shape's grid: each item's runs in one-dimensional blocks, one row
// of blocks per item.
LaunchShape run_launch_shape(int width, int height, int count) {
  const int64_t runs =
      static_cast<int64_t>((width + device::kRunLength - 1) / device::kRunLength) * height;
  const auto blocks = static_cast<unsigned>((runs + kRunBlockThreads - 1) / kRunBlockThreads);
  return {dim3(blocks, static_cast<unsigned>(count)), dim3(kRunBlockThreads)};
}

// items[0..count), count <= kCapacity, all validated.
template <int kCapacity>
cudaError_t launch_batch(const PreprocessItem *items, int count, void *tensor_data,
                         const TensorDesc &desc, cudaStream_t stream) {
  const TensorShape shape = tensor_shape(desc);
  const int width = static_cast<int>(shape.width);
  const int height = static_cast<int>(shape.height);
  // Static: tens of KiB are more than a streaming thread's stack should hold, and
  // the launch copies it into the parameters before returning.
  thread_local BatchArgs<kCapacity> args;
  device::TileCapacity tile{};
  BatchVariant variant{items[0].resize_params.interpolation, false, desc.dtype, kCapacity, 0};
  for (int i = 0; i < count; ++i) {
    const PreprocessItem &item = items[i];
    BatchItem &out = args.items[i];
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
    variant.antialias =
        variant.antialias || item.resize_params.antialias;  // the kernel that may tile
    variant.reader = out.source.index();  // the same for every item (launch_items())
    out.norm = channel_normalization(item.normalize_params);
    out.batch_index = item.batch_index;
  }
  args.capacity = tile;
  args.width = width;
  args.height = height;
  args.order = items[0].normalize_params.channel_order;
  args.tensor = tensor_data;
  args.strides = logical_strides(desc);
  variant.antialias = variant.antialias && (variant.method == Interpolation::kBilinear ||
                                            variant.method == Interpolation::kBicubic);
  args.by_runs = takes_runs(variant.method, variant.antialias, tensor_data, args.strides,
                            desc.dtype, width, height);
  LaunchShape launch = launch_shape_2d(width, height, 1);
  launch.grid.z = static_cast<unsigned>(count);
  if (args.by_runs) launch = run_launch_shape(width, height, count);
  return runtime::launch_kernel(batch_request(variant), launch, tile_shared_bytes(tile), stream,
                                args);
}

cudaError_t launch_list(const PreprocessItem *items, int count, void *tensor_data,
                        const TensorDesc &desc, cudaStream_t stream) {
  switch (capacity_for(count)) {
    case 8:
      return launch_batch<8>(items, count, tensor_data, desc, stream);
    case 32:
      return launch_batch<32>(items, count, tensor_data, desc, stream);
    default:
      return launch_batch<kMaxPreprocessBatchItems>(items, count, tensor_data, desc, stream);
  }
}

// items[0..count) of one reader, validated: a launch per
// kMaxPreprocessBatchItems.
cudaError_t launch_items(const PreprocessItem *items, int count, void *tensor_data,
                         const TensorDesc &desc, cudaStream_t stream) {
  for (int first = 0; first < count; first += kMaxPreprocessBatchItems) {
    const int chunk = std::min(count - first, kMaxPreprocessBatchItems);
    const cudaError_t err = launch_list(items + first, chunk, tensor_data, desc, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace

std::string preprocess_batch_error(const PreprocessItem *items, int count, const void *tensor_data,
                                   const TensorDesc &desc) {
  const char *prefix = "preprocess_batch: ";
  if (count < 0) return prefix + ("negative item count " + std::to_string(count));
  if (count > 0 && items == nullptr) return std::string(prefix) + "no item list";
  // Checked for every batch: no string is built unless an item is refused.
  std::vector<bool> filled;  // by slot, once the first item's slot is known valid
  for (int i = 0; i < count; ++i) {
    const PreprocessItem &item = items[i];
    const auto which = [&] { return prefix + ("item " + std::to_string(i) + ": "); };
    const std::string error = preprocess_params_error(
        item.src, item.resize_params, item.normalize_params, tensor_data, desc, item.batch_index);
    if (!error.empty()) return which() + error;
    if (item.resize_params.interpolation != items[0].resize_params.interpolation) {
      return which() + "interpolation " + interpolation_name(item.resize_params.interpolation) +
             " differs from item 0's " + interpolation_name(items[0].resize_params.interpolation) +
             " (one method per batch)";
    }
    if (item.normalize_params.channel_order != items[0].normalize_params.channel_order) {
      return which() + "channel order " + channel_order_name(item.normalize_params.channel_order) +
             " differs from item 0's " +
             channel_order_name(items[0].normalize_params.channel_order);
    }
    // (preprocess_params_error() checked the slot lies in the tensor's batch.)
    if (filled.empty()) filled.resize(tensor_shape(desc).batch);
    if (filled[item.batch_index]) {
      return which() + "slot " + std::to_string(item.batch_index) +
             " is already filled by an earlier item";
    }
    filled[item.batch_index] = true;
  }
  return {};
}

cudaError_t preprocess_batch(const PreprocessItem *items, int count, void *tensor_data,
                             const TensorDesc &desc, cudaStream_t stream) {
  if (!preprocess_batch_error(items, count, tensor_data, desc).empty()) {
    return cudaErrorInvalidValue;
  }
  if (count == 0) return cudaSuccess;
  // Each item's reader, found once: the kernel is compiled for one reader.
  thread_local std::vector<int> item_readers;
  item_readers.resize(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) item_readers[i] = item_reader(items[i]);
  const bool one_reader = std::all_of(item_readers.begin(), item_readers.end(),
                                      [&](int reader) { return reader == item_readers[0]; });
  if (one_reader) return launch_items(items, count, tensor_data, desc, stream);
  // Formats, turns or alignments mixed: one set of launches per reader, each
  // with a kernel its own chains prepared (item order within a set kept).
  std::vector<int> readers;
  for (const int reader : item_readers) {
    if (std::find(readers.begin(), readers.end(), reader) == readers.end())
      readers.push_back(reader);
  }
  std::vector<PreprocessItem> group;
  for (const int reader : readers) {
    group.clear();
    for (int i = 0; i < count; ++i) {
      if (item_readers[i] == reader) group.push_back(items[i]);
    }
    const cudaError_t err =
        launch_items(group.data(), static_cast<int>(group.size()), tensor_data, desc, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

namespace {

// use(request) for every kernel preprocess_batch() may launch for such
// batches.
template <class Use>
cudaError_t for_batch_requests(const PixelFormat *formats, int format_count,
                               const ResizeParams &resize_params, DataType dtype, int max_items,
                               Use &&use) {
  if (format_count <= 0 || formats == nullptr || max_items <= 0 ||
      (dtype != DataType::kFloat32 && dtype != DataType::kFloat16)) {
    return cudaErrorInvalidValue;
  }
  BatchVariant variant{
      resize_params.interpolation,
      resize_params.antialias && (resize_params.interpolation == Interpolation::kBilinear ||
                                  resize_params.interpolation == Interpolation::kBicubic),
      dtype, 0, 0};
  for (int i = 0; i < format_count; ++i) {
    if (!is_resize_source_format(formats[i])) return cudaErrorInvalidValue;
  }
  // Partial batches take the smaller lists: every capacity up to the largest.
  const int largest = capacity_for(std::min(max_items, kMaxPreprocessBatchItems));
  for (int i = 0; i < format_count; ++i) {
    const uint32_t possible = possible_readers(formats[i], resize_params.orientation);
    for (int reader = 0; reader < 32; ++reader) {
      if ((possible & (1u << reader)) == 0) continue;
      variant.reader = reader;
      for (const int capacity : {8, 32, kMaxPreprocessBatchItems}) {
        if (capacity > largest) break;
        variant.capacity = capacity;
        const cudaError_t err = use(batch_request(variant));
        if (err != cudaSuccess) return err;
      }
    }
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t prepare_preprocess_batch(const PixelFormat *formats, int format_count,
                                     const ResizeParams &resize_params, DataType dtype,
                                     int max_items) {
  return for_batch_requests(formats, format_count, resize_params, dtype, max_items,
                            runtime::prepare_kernel);
}

void runtime::append_preprocess_batch_variants(std::vector<KernelRequest> *requests) {
  for (const PixelFormat format : kEveryResizeSourceFormat) {
    for (const ResizeParams &params : every_sampler_and_reader_orientation()) {
      for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
        for_batch_requests(&format, 1, params, dtype, kMaxPreprocessBatchItems,
                           [&](const KernelRequest &request) {
                             requests->push_back(request);
                             return cudaSuccess;
                           });
      }
    }
  }
}

}  // namespace cudaprep
