// The two-pass antialiased shrink (kernels/antialias_two_pass_ops.cuh) against
// the per-pixel sampler of antialias_ops.cuh it replaces: pass 1 is the
// library's own kernel, launched here as compiled by nvcc; a kernel of this
// suite runs pass 2 and the per-pixel sampler for every destination
// pixel, and R, G and B must be equal bit for bit (alpha is not carried).
// Cases: every reader (32-bit and byte interleaved, gray, NV12, I420, YUY2,
// P010; aligned views, which pass 1 reads with 16-byte loads where the
// reader has them, and crops, which it reads pixel by pixel) x antialiased
// bilinear / bicubic x shrinks, enlargements, mixed axes, odd sizes, crops,
// letterbox rectangles and a rectangle reaching past the destination, each
// with either intermediate, with the plan's capacity (the Resize(256)
// shrinks: every pass-1 block walks its rows, counted), with no table
// (every pass-1 block sums from the source), with no pass-2 staging (every
// band reads its row sums from memory) and with the narrowest segments; turned
// sources; 4K NV12, I420 and P010 to 455x256. Then preprocess() itself,
// the two passes forced against the single pass: the same tensor bytes
// for every dtype, channel order, copy count and intermediate. And resize()
// likewise: the same destination bytes for every destination format, both
// roundings, letterbox pads, the alpha rule (an RGBA or BGRA source into a
// destination that keeps alpha: the single pass), its launches counted in
// a captured graph, prepare_resize() having compiled them all.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "antialias_two_pass.h"
#include "antialias_two_pass_kernel.cuh"
#include "antialias_two_pass_launch.cuh"
#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/kernel_runtime.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/resize.h"
#include "resize_launch.cuh"

namespace cudaprep {
namespace {

using device::Rgba;
using test::DeviceAllocations;
using test::make_random_frame;

// Pass-1 blocks, and those that walk their rows (walked), decided from the
// definition: the segment's taps, widened to whole chunks, within the
// table; no source pixel among the taps of more than walk_slots() of the
// segment's columns; no chunk holding more than kWalkEndingPerChunkMost
// columns' last taps.
template <Interpolation kMethod>
__global__ void count_walked_blocks(device::ResampleAxes axes, device::RowSums sums,
                                    device::RowWalkCapacity capacity, int blocks_x, int *counts) {
  const int block = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (block >= blocks_x) return;
  const int begin = sums.column_begin + block * capacity.segment_columns;
  const int end = min(begin + capacity.segment_columns, sums.column_begin + sums.columns);
  const int origin = device::antialias_span<kMethod>(begin, axes.antialias_x).first /
                     device::kWalkChunk * device::kWalkChunk;
  const int table_end = device::antialias_span<kMethod>(end - 1, axes.antialias_x).end;
  bool walks =
      (table_end + device::kWalkChunk - 1) / device::kWalkChunk * device::kWalkChunk - origin <=
      capacity.table_pixels;
  for (int x = origin; walks && x < table_end; ++x) {
    int covering = 0, ending_in_chunk = 0;
    const int chunk = x / device::kWalkChunk * device::kWalkChunk;
    for (int column = begin; column < end; ++column) {
      const auto span = device::antialias_span<kMethod>(column, axes.antialias_x);
      covering += span.first <= x && x < span.end;
      ending_in_chunk += span.end > chunk && span.end <= chunk + device::kWalkChunk;
    }
    walks = covering <= device::walk_slots<kMethod>() &&
            ending_in_chunk <= device::kWalkEndingPerChunkMost;
  }
  atomicAdd(&counts[0], 1);
  if (walks) atomicAdd(&counts[1], 1);
}

// Pass 2 as the library's kernels run it, its values unrounded, and the
// per-pixel sampler at the same pixels.
template <Interpolation kMethod, class Source>
__global__ void __launch_bounds__(device::kBandThreads)
    two_pass_and_per_pixel(Source src, device::ResizeMapping mapping, device::RowSums sums,
                           device::BandCapacity capacity, int width, int height, Rgba *two_pass,
                           Rgba *per_pixel) {
  extern __shared__ float4 band_shared[];
  device::sum_band_columns<kMethod>(
      sums, mapping, width, height, capacity, reinterpret_cast<float *>(band_shared),
      [&](int x, int y, const Rgba &value) {
        two_pass[y * width + x] = value;
        per_pixel[y * width + x] = device::resized_value<kMethod>(src, x, y, mapping);
      });
}

enum class Capacity { kPlan, kNoTable, kNoBandStaging, kNarrowSegments };

const char *capacity_name(Capacity capacity) {
  switch (capacity) {
    case Capacity::kPlan:
      return "plan's";
    case Capacity::kNoTable:
      return "no table";
    case Capacity::kNoBandStaging:
      return "no pass-2 staging";
    case Capacity::kNarrowSegments:
      return "narrowest segments";
  }
  return "?";
}

struct Geometry {
  int src_width, src_height;
  int crop_x, crop_y;  // the view's offset in a frame larger by twice as much
  int dst_width, dst_height;
  PixelRect rect;                  // 0x0: the whole destination
  bool every_block_walks = false;  // with the plan's capacity
};

const AntialiasIntermediate kIntermediates[] = {AntialiasIntermediate::kFloat,
                                                AntialiasIntermediate::kUint8};

bool channels_equal(const Rgba &a, const Rgba &b) {
  return std::memcmp(&a.x, &b.x, sizeof(float)) == 0 &&
         std::memcmp(&a.y, &b.y, sizeof(float)) == 0 && std::memcmp(&a.z, &b.z, sizeof(float)) == 0;
}

class AntialiasTwoPassGpu : public test::GpuStreamTest {
 protected:
  // Runs one case on `view`; *planned false (and nothing checked) where the
  // two passes do not fit.
  void run_case(const Image &view, const Geometry &geometry, Interpolation method,
                AntialiasIntermediate intermediate, Capacity capacity_mode, bool *planned,
                Orientation orientation = Orientation::kIdentity) {
    ResizeParams params;
    params.interpolation = method;
    params.antialias = true;
    params.antialias_intermediate = intermediate;
    params.orientation = orientation;
    params.dst_rect = geometry.rect;
    params.pad_value[0] = 114;
    params.source_colorimetry = Colorimetry{ColorMatrix::kBT709, ColorRange::kLimited};
    const int width = geometry.dst_width;
    const int height = geometry.dst_height;
    ASSERT_EQ("", resize_source_error(view, width, height, params));
    const std::string which =
        std::string(pixel_format_name(view.format)) + " " + std::to_string(view.width) + "x" +
        std::to_string(view.height) + " -> " + std::to_string(width) + "x" +
        std::to_string(height) + " " + interpolation_name(method) + " antialiased, " +
        antialias_intermediate_name(intermediate) + " intermediate, capacity " +
        capacity_name(capacity_mode) + ", " + orientation_name(orientation);
    DeviceAllocations allocations;
    const size_t pixels = static_cast<size_t>(width) * height;
    uint8_t *two_pass = nullptr, *per_pixel = nullptr, *counts = nullptr, *row_sums = nullptr;
    *planned = false;
    int block_counts[2] = {0, 0};
    const auto launch = [&](const auto &source) {
      using Source = std::decay_t<decltype(source)>;
      const device::ResizeMapping mapping =
          resize_mapping(source.width, source.height, width, height, params);
      RowSumsDevice device_limits;
      cudaError_t err = row_sums_device(&device_limits);
      if (err != cudaSuccess) return err;
      TwoPassPlan plan = two_pass_plan(mapping, width, height, two_pass_reader(source),
                                       AntialiasPath::kTwoPass, device_limits);
      if (!plan.runs) return cudaSuccess;
      *planned = true;
      if (capacity_mode == Capacity::kNoTable) plan.capacity.table_pixels = 1;
      if (capacity_mode == Capacity::kNoBandStaging) plan.band = {0};
      if (capacity_mode == Capacity::kNarrowSegments) {
        plan.capacity = {kWalkSegmentColumnsLeast,
                         tile_footprint_bound(mapping.axes.antialias_x, kWalkSegmentColumnsLeast) +
                             2 * device::kWalkChunk};
        plan.row_sums_launch.grid.x = static_cast<unsigned>(
            (plan.sums.columns + kWalkSegmentColumnsLeast - 1) / kWalkSegmentColumnsLeast);
      }
      const size_t row_sums_shared = device::row_walk_shared_layout(plan.capacity).bytes;
      const size_t band_shared = device::band_layout(plan.band).bytes;
      err = allocations.allocate(pixels * sizeof(Rgba), &two_pass);
      if (err == cudaSuccess) err = allocations.allocate(pixels * sizeof(Rgba), &per_pixel);
      if (err == cudaSuccess) err = allocations.allocate(2 * sizeof(int), &counts);
      if (err == cudaSuccess) err = allocations.allocate(plan.sums.bytes(), &row_sums);
      if (err == cudaSuccess) err = cudaMemsetAsync(two_pass, 0xff, pixels * sizeof(Rgba), stream_);
      if (err == cudaSuccess)
        err = cudaMemsetAsync(per_pixel, 0xfe, pixels * sizeof(Rgba), stream_);
      if (err == cudaSuccess) err = cudaMemsetAsync(counts, 0, 2 * sizeof(int), stream_);
      // NaN everywhere: a row sum pass 1 left out cannot pass unseen.
      if (err == cudaSuccess) err = cudaMemsetAsync(row_sums, 0xff, plan.sums.bytes(), stream_);
      if (err != cudaSuccess) return err;
      plan.sums.data = reinterpret_cast<float *>(row_sums);
      return with_interpolation(method, [&](auto kind) {
        constexpr Interpolation kMethod = decltype(kind)::value;
        if constexpr (kMethod == Interpolation::kBilinear || kMethod == Interpolation::kBicubic) {
          const RowSumsArgs<Source> args{source, mapping.axes, plan.sums, plan.capacity,
                                         device::row_walk_vector_loads(source)};
          antialias_row_sums_kernel<kMethod, Source>
              <<<plan.row_sums_launch.grid, plan.row_sums_launch.block, row_sums_shared, stream_>>>(
                  args);
          const int blocks_x = static_cast<int>(plan.row_sums_launch.grid.x);
          count_walked_blocks<kMethod><<<(blocks_x + 63) / 64, 64, 0, stream_>>>(
              mapping.axes, plan.sums, plan.capacity, blocks_x, reinterpret_cast<int *>(counts));
          two_pass_and_per_pixel<kMethod>
              <<<plan.output_launch.grid, plan.output_launch.block, band_shared, stream_>>>(
                  source, mapping, plan.sums, plan.band, width, height,
                  reinterpret_cast<Rgba *>(two_pass), reinterpret_cast<Rgba *>(per_pixel));
          return cudaGetLastError();
        }
        return cudaErrorInvalidValue;
      });
    };
    // A turned source runs in its own (turned) coordinates.
    CUDA_ASSERT_OK(with_oriented_source(view, params, launch));
    if (!*planned) return;
    std::vector<Rgba> two_pass_values(pixels), per_pixel_values(pixels);
    CUDA_ASSERT_OK(cudaMemcpyAsync(two_pass_values.data(), two_pass, pixels * sizeof(Rgba),
                                   cudaMemcpyDeviceToHost, stream_));
    CUDA_ASSERT_OK(cudaMemcpyAsync(per_pixel_values.data(), per_pixel, pixels * sizeof(Rgba),
                                   cudaMemcpyDeviceToHost, stream_));
    CUDA_ASSERT_OK(cudaMemcpyAsync(block_counts, counts, sizeof(block_counts),
                                   cudaMemcpyDeviceToHost, stream_));
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
    size_t differing = 0, first = pixels;
    for (size_t i = 0; i < pixels; ++i) {
      if (!channels_equal(two_pass_values[i], per_pixel_values[i]) && differing++ == 0) first = i;
    }
    EXPECT_EQ(0u, differing) << which << ": first at (" << first % width << ", " << first / width
                             << "): two-pass " << two_pass_values[first].x << " per pixel "
                             << per_pixel_values[first].x;
    EXPECT_GT(block_counts[0], 0) << which;
    if (capacity_mode == Capacity::kNoTable) {
      EXPECT_EQ(0, block_counts[1]) << which;
    } else if (geometry.every_block_walks) {
      EXPECT_EQ(block_counts[0], block_counts[1]) << which;
    }
    walked_blocks_ += block_counts[1];
    ++cases_;
  }

  int cases_ = 0;
  int walked_blocks_ = 0;
};

TEST_F(AntialiasTwoPassGpu, TwoPassEqualsPerPixelBitForBit) {
  const PixelFormat formats[] = {PixelFormat::kRGBA,  PixelFormat::kBGRx, PixelFormat::kRGB,
                                 PixelFormat::kGRAY8, PixelFormat::kNV12, PixelFormat::kI420,
                                 PixelFormat::kYUY2,  PixelFormat::kP010};
  const Geometry geometries[] = {
      {1920, 1080, 0, 0, 924, 518, {}},             // W2's 2.08x shrink
      {101, 67, 6, 4, 33, 29, {}},                  // odd sizes, a cropped view
      {37, 23, 2, 2, 64, 48, {}},                   // enlargement
      {300, 200, 0, 0, 600, 37, {}},                // up along x, down along y
      {640, 360, 4, 0, 96, 96, {0, 21, 96, 54}},    // letterbox
      {1920, 1080, 0, 0, 455, 256, {}, true},       // torchvision Resize(256)
      {2000, 1000, 0, 0, 9, 7, {}},                 // too steep: no plan
      {5, 3, 0, 0, 70, 50, {3, 5, 61, 40}},         // tiny source, rectangle off the origin
      {703, 411, 1, 3, 57, 45, {-13, -7, 90, 61}},  // a crop of the resized frame
  };
  unsigned seed = 17;
  int unplanned = 0;
  for (const PixelFormat format : formats) {
    for (const Geometry &geometry : geometries) {
      DeviceAllocations allocations;
      Image frame;
      const size_t extra_pitch = format == PixelFormat::kP010   ? 2
                                 : format == PixelFormat::kRGBA ? 0
                                 : format == PixelFormat::kNV12 ? 0
                                                                : 3;
      make_random_frame(format, geometry.src_width + 2 * geometry.crop_x,
                        geometry.src_height + 2 * geometry.crop_y, extra_pitch, seed++,
                        &allocations, &frame);
      if (HasFatalFailure()) return;
      const Image view = sub_image(frame, geometry.crop_x, geometry.crop_y, geometry.src_width,
                                   geometry.src_height);
      for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
        for (const AntialiasIntermediate intermediate : kIntermediates) {
          for (const Capacity capacity : {Capacity::kPlan, Capacity::kNoTable,
                                          Capacity::kNoBandStaging, Capacity::kNarrowSegments}) {
            bool planned = false;
            run_case(view, geometry, method, intermediate, capacity, &planned);
            if (HasFailure()) return;
            unplanned += !planned;
          }
        }
      }
    }
  }
  // Only 2000x1000 -> 9x7, for each format, method, intermediate and capacity.
  EXPECT_EQ(unplanned, 8 * 2 * 2 * 4);
  for (const PixelFormat format : {PixelFormat::kRGBA, PixelFormat::kNV12, PixelFormat::kP010}) {
    for (const Orientation orientation : {Orientation::kRotate90, Orientation::kAntiTranspose}) {
      DeviceAllocations allocations;
      Image frame;
      make_random_frame(format, 644, 364, 0, seed++, &allocations, &frame);
      if (HasFatalFailure()) return;
      const Image view = sub_image(frame, 4, 4, 636, 356);
      for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
        for (const AntialiasIntermediate intermediate : kIntermediates) {
          bool planned = false;
          run_case(view, Geometry{636, 356, 4, 4, 150, 227, {}}, method, intermediate,
                   Capacity::kPlan, &planned, orientation);
          if (HasFailure()) return;
          EXPECT_TRUE(planned);
        }
      }
    }
  }
  // 4K YUV, its views aligned: pass 1 reads them with 16-byte loads.
  for (const PixelFormat format : {PixelFormat::kNV12, PixelFormat::kI420, PixelFormat::kP010}) {
    DeviceAllocations allocations;
    Image frame;
    make_random_frame(format, 3840, 2160, 0, seed++, &allocations, &frame);
    if (HasFatalFailure()) return;
    for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
      for (const AntialiasIntermediate intermediate : kIntermediates) {
        bool planned = false;
        run_case(frame, Geometry{3840, 2160, 0, 0, 455, 256, {}, true}, method, intermediate,
                 Capacity::kPlan, &planned);
        if (HasFailure()) return;
        EXPECT_TRUE(planned);
      }
    }
  }
  std::printf("[ two-pass == per pixel ] %d cases, %d pass-1 blocks walked their rows\n", cases_,
              walked_blocks_);
}

// Restores the chosen path whatever a test forced.
class PathGuard {
 public:
  ~PathGuard() { set_antialias_path(AntialiasPath::kChosen); }
};

// preprocess() through the library's compiled kernels: the tensor the two
// passes write is the single pass's, byte for byte.
TEST_F(AntialiasTwoPassGpu, PreprocessWritesTheSinglePassBytes) {
  PathGuard guard;
  struct Case {
    PixelFormat format;
    int src_width, src_height, width, height;
    PixelRect rect;
    Orientation orientation;
  };
  const Case cases[] = {
      {PixelFormat::kNV12, 1920, 1080, 455, 256, {}, Orientation::kIdentity},
      {PixelFormat::kRGBA, 1280, 720, 224, 224, {0, 49, 224, 126}, Orientation::kIdentity},
      {PixelFormat::kP010, 960, 540, 101, 57, {}, Orientation::kIdentity},
      {PixelFormat::kI420, 640, 480, 90, 120, {}, Orientation::kRotate90},
      {PixelFormat::kRGB, 333, 211, 41, 29, {-5, -3, 50, 33}, Orientation::kIdentity},
  };
  unsigned seed = 5;
  int compared = 0;
  for (const Case &c : cases) {
    DeviceAllocations allocations;
    Image frame;
    make_random_frame(c.format, c.src_width, c.src_height, 0, seed++, &allocations, &frame);
    if (HasFatalFailure()) return;
    for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
      for (const AntialiasIntermediate intermediate : kIntermediates) {
        for (const bool float_intermediate : {false, true}) {
          for (const ChannelOrder order : {ChannelOrder::kRGB, ChannelOrder::kGray}) {
            for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
              ResizeParams params;
              params.interpolation = method;
              params.antialias = true;
              params.antialias_intermediate = intermediate;
              params.float_intermediate = float_intermediate;
              params.orientation = c.orientation;
              params.dst_rect = c.rect;
              params.pad_value[1] = 114;
              params.source_colorimetry = Colorimetry{ColorMatrix::kBT709, ColorRange::kLimited};
              NormalizeParams normalize;
              normalize.channel_order = order;
              for (int k = 0; k < 3; ++k) {
                normalize.mean[k] = 0.4f + 0.03f * k;
                normalize.std[k] = 0.2f + 0.01f * k;
              }
              const TensorDesc desc = make_contiguous_tensor_desc(
                  TensorLayout::kNCHW, 1, channel_count(order), c.height, c.width, dtype);
              const size_t bytes = tensor_span_bytes(desc);
              // Nine copies: two pass-2 launches (kMaxPreprocessCopies 8).
              constexpr int kCopies = 9;
              std::vector<void *> two_pass(kCopies), single(kCopies);
              for (int copy = 0; copy < kCopies; ++copy) {
                uint8_t *memory = nullptr;
                CUDA_ASSERT_OK(allocations.allocate(bytes, &memory));
                two_pass[copy] = memory;
                CUDA_ASSERT_OK(allocations.allocate(bytes, &memory));
                single[copy] = memory;
                CUDA_ASSERT_OK(cudaMemsetAsync(two_pass[copy], 0xab, bytes, stream_));
                CUDA_ASSERT_OK(cudaMemsetAsync(single[copy], 0xcd, bytes, stream_));
              }
              set_antialias_path(AntialiasPath::kTwoPass);
              CUDA_ASSERT_OK(preprocess_into_each(frame, params, normalize, two_pass.data(),
                                                  kCopies, desc, 0, stream_));
              set_antialias_path(AntialiasPath::kSinglePass);
              CUDA_ASSERT_OK(preprocess_into_each(frame, params, normalize, single.data(), kCopies,
                                                  desc, 0, stream_));
              std::vector<uint8_t> expected(bytes), actual(bytes);
              CUDA_ASSERT_OK(cudaMemcpyAsync(expected.data(), single[0], bytes,
                                             cudaMemcpyDeviceToHost, stream_));
              for (int copy = 0; copy < kCopies; ++copy) {
                CUDA_ASSERT_OK(cudaMemcpyAsync(actual.data(), two_pass[copy], bytes,
                                               cudaMemcpyDeviceToHost, stream_));
                CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
                ASSERT_TRUE(expected == actual)
                    << pixel_format_name(c.format) << " -> " << c.width << "x" << c.height << " "
                    << interpolation_name(method) << " "
                    << antialias_intermediate_name(intermediate) << " float intermediate "
                    << float_intermediate << " " << data_type_name(dtype) << " copy " << copy;
              }
              ++compared;
            }
          }
        }
      }
    }
  }
  std::printf("[ two-pass preprocess == single pass ] %d cases\n", compared);
}

// The kernels `enqueue` launches on `stream`, captured into a graph, which
// then runs (and is waited for).
int captured_kernels(cudaStream_t stream, const std::function<cudaError_t()> &enqueue) {
  int kernels = -1;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t enqueued = enqueue();
  EXPECT_EQ(cudaSuccess, cudaStreamEndCapture(stream, &graph));
  EXPECT_EQ(cudaSuccess, enqueued);
  if (enqueued != cudaSuccess || graph == nullptr) return kernels;
  size_t count = 0;
  EXPECT_EQ(cudaSuccess, cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  EXPECT_EQ(cudaSuccess, cudaGraphGetNodes(graph, nodes.data(), &count));
  kernels = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    EXPECT_EQ(cudaSuccess, cudaGraphNodeGetType(node, &type));
    kernels += type == cudaGraphNodeTypeKernel;
  }
  EXPECT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
  EXPECT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(cudaSuccess, cudaGraphExecDestroy(exec));
  EXPECT_EQ(cudaSuccess, cudaGraphDestroy(graph));
  return kernels;
}

// resize() through the library's compiled kernels: the pixels the two
// passes write are the single pass's, byte for byte, alpha and pads
// included; a destination that keeps an RGBA or BGRA source's alpha takes
// the single pass even when the two passes are forced.
TEST_F(AntialiasTwoPassGpu, ResizeWritesTheSinglePassBytes) {
  PathGuard guard;
  struct Case {
    PixelFormat format;
    size_t extra_pitch;
    int src_width, src_height;
    PixelFormat dst_format;
    int width, height;
    PixelRect rect;
    Orientation orientation;
  };
  const Case cases[] = {
      {PixelFormat::kNV12, 0, 1920, 1080, PixelFormat::kRGB, 455, 256, {}, Orientation::kIdentity},
      {PixelFormat::kNV12,
       0,
       1280,
       720,
       PixelFormat::kRGBA,
       224,
       224,
       {0, 49, 224, 126},
       Orientation::kIdentity},
      {PixelFormat::kRGBA, 0, 1280, 720, PixelFormat::kRGBA, 160, 90, {}, Orientation::kIdentity},
      {PixelFormat::kBGRA, 0, 999, 601, PixelFormat::kBGRx, 100, 61, {}, Orientation::kIdentity},
      {PixelFormat::kRGBA, 4, 640, 480, PixelFormat::kGRAY8, 61, 47, {}, Orientation::kIdentity},
      {PixelFormat::kP010, 0, 960, 540, PixelFormat::kBGR, 101, 57, {}, Orientation::kIdentity},
      {PixelFormat::kI420, 0, 640, 480, PixelFormat::kBGRA, 90, 120, {}, Orientation::kRotate90},
      {PixelFormat::kRGB,
       3,
       333,
       211,
       PixelFormat::kRGBA,
       41,
       29,
       {-5, -3, 50, 33},
       Orientation::kIdentity},
  };
  unsigned seed = 41;
  int compared = 0, two_pass_runs = 0;
  for (const Case &c : cases) {
    DeviceAllocations allocations;
    Image frame;
    make_random_frame(c.format, c.src_width, c.src_height, c.extra_pitch, seed++, &allocations,
                      &frame);
    if (HasFatalFailure()) return;
    // Five bytes of padding per row, which neither path writes.
    const size_t row_bytes = plane_row_bytes(c.dst_format, 0, c.width);
    const size_t pitch = row_bytes + 5;
    const size_t bytes = pitch * c.height;
    uint8_t *two_pass_data = nullptr, *single_data = nullptr;
    CUDA_ASSERT_OK(allocations.allocate(bytes, &two_pass_data));
    CUDA_ASSERT_OK(allocations.allocate(bytes, &single_data));
    Image two_pass{c.dst_format, c.width, c.height, {{two_pass_data, pitch}}};
    Image single{c.dst_format, c.width, c.height, {{single_data, pitch}}};
    const bool keeps_source_alpha =
        (c.format == PixelFormat::kRGBA || c.format == PixelFormat::kBGRA) &&
        (c.dst_format == PixelFormat::kRGBA || c.dst_format == PixelFormat::kBGRA);
    for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
      for (const AntialiasIntermediate intermediate : kIntermediates) {
        for (const bool round_half_up : {false, true}) {
          ResizeParams params;
          params.interpolation = method;
          params.antialias = true;
          params.antialias_intermediate = intermediate;
          params.round_half_up = round_half_up;
          params.orientation = c.orientation;
          params.dst_rect = c.rect;
          params.pad_value[1] = 114;
          params.pad_value[3] = 200;
          params.source_colorimetry = Colorimetry{ColorMatrix::kBT709, ColorRange::kLimited};
          ASSERT_EQ("", resize_params_error(frame, two_pass, params));
          CUDA_ASSERT_OK(prepare_resize(c.format, params));
          const KernelRuntimeStats prepared = kernel_runtime_stats();
          CUDA_ASSERT_OK(cudaMemsetAsync(two_pass_data, 0xab, bytes, stream_));
          CUDA_ASSERT_OK(cudaMemsetAsync(single_data, 0xcd, bytes, stream_));
          set_antialias_path(AntialiasPath::kTwoPass);
          const int kernels =
              captured_kernels(stream_, [&] { return resize(frame, two_pass, params, stream_); });
          EXPECT_EQ(kernels, keeps_source_alpha ? 1 : 2);
          // prepare_resize() compiled what the frame launched.
          EXPECT_EQ(kernel_runtime_stats().compiled, prepared.compiled);
          EXPECT_EQ(kernel_runtime_stats().loaded_from_disk, prepared.loaded_from_disk);
          set_antialias_path(AntialiasPath::kSinglePass);
          CUDA_ASSERT_OK(resize(frame, single, params, stream_));
          std::vector<uint8_t> expected(bytes), actual(bytes);
          CUDA_ASSERT_OK(cudaMemcpyAsync(expected.data(), single_data, bytes,
                                         cudaMemcpyDeviceToHost, stream_));
          CUDA_ASSERT_OK(cudaMemcpyAsync(actual.data(), two_pass_data, bytes,
                                         cudaMemcpyDeviceToHost, stream_));
          CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
          for (int y = 0; y < c.height; ++y) {
            const size_t row = y * pitch;
            ASSERT_EQ(0, std::memcmp(expected.data() + row, actual.data() + row, row_bytes))
                << pixel_format_name(c.format) << " -> " << pixel_format_name(c.dst_format) << " "
                << c.width << "x" << c.height << " " << interpolation_name(method) << " "
                << antialias_intermediate_name(intermediate) << " round half up " << round_half_up
                << ", row " << y;
          }
          ++compared;
          two_pass_runs += kernels == 2;
        }
      }
    }
  }
  std::printf("[ two-pass resize == single pass ] %d cases, %d in two passes\n", compared,
              two_pass_runs);
}

// The chosen path on torchvision's Resize(256) of 4K NV12 is the two passes
// (the plan says so; the pool is there on any GPU these tests run on), and
// its tensor is the single pass's.
TEST_F(AntialiasTwoPassGpu, ChosenPathOf4kResize256IsTheSinglePassTensor) {
  PathGuard guard;
  DeviceAllocations allocations;
  Image frame;
  make_random_frame(PixelFormat::kNV12, 3840, 2160, 0, 99, &allocations, &frame);
  if (HasFatalFailure()) return;
  ResizeParams params;
  params.interpolation = Interpolation::kBicubic;
  params.antialias = true;
  params.source_colorimetry = Colorimetry{ColorMatrix::kBT709, ColorRange::kLimited};
  bool two_passes = false;
  CUDA_ASSERT_OK(preprocess_chooses_two_passes(frame, params, 455, 256, &two_passes));
  ASSERT_TRUE(two_passes);
  // A view whose rows the 16-byte loads cannot read: the single pass.
  CUDA_ASSERT_OK(preprocess_chooses_two_passes(sub_image(frame, 2, 0, 3836, 2160), params, 455, 256,
                                               &two_passes));
  EXPECT_FALSE(two_passes);
  NormalizeParams normalize;
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 3, 256, 455, DataType::kFloat32);
  const size_t bytes = tensor_span_bytes(desc);
  uint8_t *chosen = nullptr, *single = nullptr;
  CUDA_ASSERT_OK(allocations.allocate(bytes, &chosen));
  CUDA_ASSERT_OK(allocations.allocate(bytes, &single));
  set_antialias_path(AntialiasPath::kChosen);
  for (int frame_index = 0; frame_index < 3; ++frame_index) {  // the pool's memory again
    CUDA_ASSERT_OK(preprocess(frame, params, normalize, chosen, desc, 0, stream_));
  }
  set_antialias_path(AntialiasPath::kSinglePass);
  CUDA_ASSERT_OK(preprocess(frame, params, normalize, single, desc, 0, stream_));
  std::vector<uint8_t> expected(bytes), actual(bytes);
  CUDA_ASSERT_OK(cudaMemcpyAsync(expected.data(), single, bytes, cudaMemcpyDeviceToHost, stream_));
  CUDA_ASSERT_OK(cudaMemcpyAsync(actual.data(), chosen, bytes, cudaMemcpyDeviceToHost, stream_));
  CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
  EXPECT_TRUE(expected == actual);
}

}  // namespace
}  // namespace cudaprep
