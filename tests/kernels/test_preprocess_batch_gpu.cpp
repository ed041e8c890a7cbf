// preprocess_batch() (one launch for many items) against preprocess() run
// once per item (test_preprocess_gpu checks that one against the unfused
// chain and the CPU references): bit for bit over the whole tensor
// allocation plus guard bytes. Both tensors start poisoned with 0xff bytes
// (a NaN in float32 and float16, which no normalised value equals), so a
// different value, a missed element, a write into a slot no item names or
// past the end all show.
// Cases: items of every source format, size, pitch, crop offset, letterbox,
// pad, colorimetry, normalisation and orientation (NHWC batches: all eight)
// mixed in one batch, in shuffled slots
// with empty slots between; every method x dtype x layout x channel order;
// more items than one launch carries; camera-sized batches (W1 x 8, 64
// regions of one frame); 1000 regions of every reader, bilinear and
// bicubic, into tensors that take the run shape and ones that do not; runs
// ending inside padded rows.
// The checker's refusals are CPU tests.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/preprocess_batch.h"
#include "cudaprep/resize_geometry.h"

namespace cudaprep {
namespace {

using test::DeviceAllocations;
using test::fake_image;
using test::make_random_frame;

constexpr uint8_t kPoison = 0xff;
constexpr size_t kGuardBytes = 256;

std::string describe(const PreprocessItem &item) {
  std::ostringstream out;
  const PixelRect &rect = item.resize_params.dst_rect;
  out << pixel_format_name(item.src.format) << " " << item.src.width << "x" << item.src.height
      << " pitch " << item.src.planes[0].pitch_bytes << " -> slot " << item.batch_index << " rect "
      << rect.width << "x" << rect.height << " at " << rect.x << "," << rect.y << ", "
      << orientation_name(item.resize_params.orientation);
  if (item.resize_params.antialias) {
    out << ", antialiased, "
        << antialias_intermediate_name(item.resize_params.antialias_intermediate)
        << " intermediate";
  }
  return out.str();
}

// Runs `items` batched and one by one into two poisoned copies of `desc`'s
// tensor and compares every byte.
void expect_batch_equals_items(const std::vector<PreprocessItem> &items, const TensorDesc &desc,
                               cudaStream_t stream) {
  DeviceAllocations allocations;
  const size_t bytes = tensor_span_bytes(desc) + kGuardBytes;
  uint8_t *batched = nullptr, *single = nullptr;
  CUDA_ASSERT_OK(allocations.allocate(bytes, &batched));
  CUDA_ASSERT_OK(allocations.allocate(bytes, &single));
  CUDA_ASSERT_OK(cudaMemsetAsync(batched, kPoison, bytes, stream));
  CUDA_ASSERT_OK(cudaMemsetAsync(single, kPoison, bytes, stream));
  ASSERT_EQ("",
            preprocess_batch_error(items.data(), static_cast<int>(items.size()), batched, desc));
  CUDA_ASSERT_OK(
      preprocess_batch(items.data(), static_cast<int>(items.size()), batched, desc, stream));
  for (const PreprocessItem &item : items) {
    CUDA_ASSERT_OK(preprocess(item.src, item.resize_params, item.normalize_params, single, desc,
                              item.batch_index, stream));
  }
  CUDA_ASSERT_OK(cudaStreamSynchronize(stream));
  std::vector<uint8_t> batched_bytes(bytes), single_bytes(bytes);
  CUDA_ASSERT_OK(cudaMemcpy(batched_bytes.data(), batched, bytes, cudaMemcpyDeviceToHost));
  CUDA_ASSERT_OK(cudaMemcpy(single_bytes.data(), single, bytes, cudaMemcpyDeviceToHost));
  const auto mismatch =
      std::mismatch(batched_bytes.begin(), batched_bytes.end(), single_bytes.begin());
  if (mismatch.first == batched_bytes.end()) return;
  const size_t offset = static_cast<size_t>(mismatch.first - batched_bytes.begin());
  std::ostringstream failure;
  failure << "batched and single-item tensors differ first at byte " << offset << " of " << bytes;
  if (offset < tensor_span_bytes(desc)) {
    const int64_t slot = static_cast<int64_t>(offset) / tensor_strides_bytes(desc).batch;
    failure << ", in slot " << slot;
    for (const PreprocessItem &item : items) {
      if (item.batch_index == slot) failure << " (" << describe(item) << ")";
    }
  } else {
    failure << " (a guard byte past the tensor)";
  }
  failure << ": batched 0x" << std::hex << int(*mismatch.first) << ", single 0x"
          << int(*mismatch.second);
  FAIL() << failure.str();
}

NormalizeParams normalization(ChannelOrder order, int variant) {
  NormalizeParams params;
  params.channel_order = order;
  params.scale = 1.0f / 255.0f * (1.0f + 0.25f * variant);
  for (int c = 0; c < 3; ++c) {
    params.mean[c] = 0.4f + 0.03f * c + 0.01f * variant;
    params.std[c] = 0.22f + 0.005f * c - 0.002f * variant;
  }
  return params;
}

class PreprocessBatchGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    CUDAPREP_REQUIRE_GPU();
    CUDA_ASSERT_OK(cudaStreamCreate(&stream_));
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(cudaSuccess, cudaStreamDestroy(stream_));
    }
  }
  cudaStream_t stream_ = nullptr;
};

// Ten items, one per source format, each different in every per-item
// setting, in shuffled slots of a 13-slot tensor (three slots stay empty),
// for every method x dtype x layout x channel order (48 batches).
TEST_F(PreprocessBatchGpu, MixedItemsEqualSingleItemPreprocessForEverySetting) {
  const PixelFormat formats[] = {PixelFormat::kRGBA,  PixelFormat::kBGRA, PixelFormat::kRGBx,
                                 PixelFormat::kBGRx,  PixelFormat::kRGB,  PixelFormat::kBGR,
                                 PixelFormat::kGRAY8, PixelFormat::kNV12, PixelFormat::kI420,
                                 PixelFormat::kYUY2};
  const Colorimetry colorimetries[] = {{ColorMatrix::kBT601, ColorRange::kLimited},
                                       {ColorMatrix::kBT709, ColorRange::kLimited},
                                       {ColorMatrix::kBT709, ColorRange::kFull}};
  constexpr int kOutWidth = 37, kOutHeight = 29, kSlots = 13;
  DeviceAllocations allocations;
  std::vector<Image> frames;
  int index = 0;
  for (const PixelFormat format : formats) {
    Image frame;
    // Sizes below, above and around the output; 16 extra bytes keep 4-byte
    // rows (the 32-bit reader) for half of them, 13 breaks them.
    make_random_frame(format, 40 + 11 * index, 24 + 7 * index, index % 2 ? 16 : 13, 101u + index,
                      &allocations, &frame);
    ASSERT_FALSE(HasFatalFailure());
    frames.push_back(frame);
    ++index;
  }
  std::vector<int> slots(kSlots);
  for (int i = 0; i < kSlots; ++i) slots[i] = i;
  std::shuffle(slots.begin(), slots.end(), std::mt19937(5));
  int batches = 0;
  for (const Interpolation method : {Interpolation::kNearest, Interpolation::kBilinear,
                                     Interpolation::kBicubic, Interpolation::kArea}) {
    for (const ChannelOrder order : {ChannelOrder::kRGB, ChannelOrder::kBGR, ChannelOrder::kGray}) {
      for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
        for (const TensorLayout layout : {TensorLayout::kNCHW, TensorLayout::kNHWC}) {
          const TensorDesc desc = make_contiguous_tensor_desc(layout, kSlots, channel_count(order),
                                                              kOutHeight, kOutWidth, dtype);
          std::vector<PreprocessItem> items;
          for (size_t i = 0; i < frames.size(); ++i) {
            const Image &frame = frames[i];
            PreprocessItem item;
            // A crop at an offset the format allows (even for subsampled chroma).
            const int step = is_chroma_subsampled(frame.format) ? 2 : 1;
            const int left = step * static_cast<int>(i % 3), top = step * static_cast<int>(i % 2);
            item.src = sub_image(frame, left, top, frame.width - left - static_cast<int>(i),
                                 frame.height - top - 2);
            item.resize_params.interpolation = method;
            item.resize_params.source_colorimetry = colorimetries[i % 3];
            // NHWC batches turn their items, each its own way (all eight).
            if (layout == TensorLayout::kNHWC)
              item.resize_params.orientation = static_cast<Orientation>((i + 1) % 8);
            const bool swapped = swaps_axes(item.resize_params.orientation);
            if (i % 2 == 0) {
              std::string error;
              ASSERT_TRUE(letterbox_rect(swapped ? item.src.height : item.src.width,
                                         swapped ? item.src.width : item.src.height, kOutWidth,
                                         kOutHeight, LetterboxOptions{},
                                         &item.resize_params.dst_rect, &error))
                  << error;
              const uint8_t pad[4] = {static_cast<uint8_t>(10 * i), 200, 33, 7};
              std::copy(pad, pad + 4, item.resize_params.pad_value);
            }
            item.normalize_params = normalization(order, static_cast<int>(i % 4));
            item.batch_index = slots[i];
            items.push_back(item);
          }
          SCOPED_TRACE(std::string(interpolation_name(method)) + " " + channel_order_name(order) +
                       " " + data_type_name(dtype) + " " + tensor_layout_name(layout));
          expect_batch_equals_items(items, desc, stream_);
          if (HasFatalFailure()) return;
          ++batches;
        }
      }
    }
  }
  EXPECT_EQ(batches, 48);
}

// More items than one launch carries: the batch is split into launches and
// every item still lands in its slot.
TEST_F(PreprocessBatchGpu, MoreItemsThanOneLaunchCarries) {
  DeviceAllocations allocations;
  Image frame;
  make_random_frame(PixelFormat::kNV12, 96, 64, 8, 7u, &allocations, &frame);
  ASSERT_FALSE(HasFatalFailure());
  const int count = kMaxPreprocessBatchItems * 2 + 3;
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, count, 3, 6, 8, DataType::kFloat32);
  std::vector<PreprocessItem> items;
  for (int i = 0; i < count; ++i) {
    PreprocessItem item;
    item.src = sub_image(frame, 2 * (i % 20), 2 * (i % 13), 16 + i % 17, 10 + i % 11);
    item.normalize_params = normalization(ChannelOrder::kRGB, i % 3);
    item.batch_index = count - 1 - i;
    items.push_back(item);
  }
  expect_batch_equals_items(items, desc, stream_);
}

// Antialiased items with either intermediate between the passes, beside
// unantialiased ones, in one batch (the kernel that may tile): each item is
// bit for bit its single-item result.
TEST_F(PreprocessBatchGpu, AntialiasedItemsWithEitherIntermediate) {
  DeviceAllocations allocations;
  Image nv12, rgb;
  make_random_frame(PixelFormat::kNV12, 640, 360, 0, 41u, &allocations, &nv12);
  ASSERT_FALSE(HasFatalFailure());
  make_random_frame(PixelFormat::kRGB, 331, 197, 13, 42u, &allocations, &rgb);
  ASSERT_FALSE(HasFatalFailure());
  constexpr int kItems = 6;
  for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    std::vector<PreprocessItem> items;
    for (int i = 0; i < kItems; ++i) {
      PreprocessItem item;
      item.src = i % 2 ? rgb : nv12;
      item.resize_params.interpolation = method;
      item.resize_params.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
      item.resize_params.antialias = i % 3 != 2;
      item.resize_params.antialias_intermediate =
          i % 3 == 1 ? AntialiasIntermediate::kUint8 : AntialiasIntermediate::kFloat;
      item.normalize_params = normalization(ChannelOrder::kRGB, i % 4);
      item.batch_index = kItems - 1 - i;
      items.push_back(item);
    }
    SCOPED_TRACE(interpolation_name(method));
    expect_batch_equals_items(
        items,
        make_contiguous_tensor_desc(TensorLayout::kNCHW, kItems, 3, 64, 96, DataType::kFloat32),
        stream_);
    if (HasFatalFailure()) return;
  }
}

// The benchmark's shapes: eight 1080p NV12 cameras letterboxed to 640x640
// (W1) and 64 regions of one 1080p RGBA frame to 224x224 (the classifier).
TEST_F(PreprocessBatchGpu, CameraSizedBatches) {
  DeviceAllocations allocations;
  std::vector<PreprocessItem> cameras;
  for (int i = 0; i < 8; ++i) {
    Image frame;
    make_random_frame(PixelFormat::kNV12, 1920, 1080, 64, 300u + i, &allocations, &frame);
    ASSERT_FALSE(HasFatalFailure());
    PreprocessItem item;
    item.src = frame;
    item.resize_params.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
    std::string error;
    ASSERT_TRUE(letterbox_rect(1920, 1080, 640, 640, LetterboxOptions{},
                               &item.resize_params.dst_rect, &error))
        << error;
    item.normalize_params = normalization(ChannelOrder::kRGB, 0);
    item.batch_index = i;
    cameras.push_back(item);
  }
  expect_batch_equals_items(
      cameras, make_contiguous_tensor_desc(TensorLayout::kNCHW, 8, 3, 640, 640, DataType::kFloat32),
      stream_);
  if (HasFatalFailure()) return;

  Image frame;
  make_random_frame(PixelFormat::kRGBA, 1920, 1080, 0, 77u, &allocations, &frame);
  ASSERT_FALSE(HasFatalFailure());
  std::vector<PreprocessItem> regions;
  for (int i = 0; i < 64; ++i) {
    PreprocessItem item;
    // Spread over the frame, every region inside it (compute-sanitizer found
    // the last column of regions reaching past the frame's right and bottom).
    const int x = (i % 8) * 230 + i, y = (i / 8) * 130 + i % 5;
    item.src =
        sub_image(frame, x, y, std::min(60 + 3 * i, 1920 - x), std::min(50 + 2 * i, 1080 - y));
    item.normalize_params = normalization(ChannelOrder::kRGB, 1);
    item.batch_index = i;
    regions.push_back(item);
  }
  expect_batch_equals_items(
      regions,
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 64, 3, 224, 224, DataType::kFloat16),
      stream_);
}

// An NCHW tensor whose rows hold `row_elements` elements (at least width):
// the padding between rows is never written (both tensors keep the poison).
TensorDesc padded_rows_desc(int count, int channels, int height, int width, int row_elements,
                            DataType dtype) {
  TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, count, channels, height, width, dtype);
  const int64_t element = static_cast<int64_t>(data_type_size(dtype));
  desc.strides_bytes[3] = element;
  desc.strides_bytes[2] = element * row_elements;
  desc.strides_bytes[1] = desc.strides_bytes[2] * height;
  desc.strides_bytes[0] = desc.strides_bytes[1] * channels;
  return desc;
}

struct FrameShape {
  PixelFormat format;
  int width, height;
  size_t extra_pitch_bytes;
};

// A random frame of each shape, seeds counting up from `seed`.
std::vector<Image> random_frames(std::initializer_list<FrameShape> shapes, unsigned seed,
                                 DeviceAllocations *allocations) {
  std::vector<Image> frames;
  for (const FrameShape &shape : shapes) {
    Image frame;
    make_random_frame(shape.format, shape.width, shape.height, shape.extra_pitch_bytes, seed++,
                      allocations, &frame);
    frames.push_back(frame);
  }
  return frames;
}

// `count` detector-like regions (sides 1 to 300, origins even) of `frames`
// in turn, sampled by `method`, each item different in what an item may
// change: letterboxed
// (portrait boxes pad left and right) or stretched, rounding, float
// intermediate, colorimetry, and a normalisation that the reciprocal
// division cannot take (scale below 2^-20) for some.
std::vector<PreprocessItem> many_regions(const std::vector<Image> &frames, int count,
                                         Interpolation method, ChannelOrder order, int out_width,
                                         int out_height) {
  std::mt19937 generator(17);
  std::vector<PreprocessItem> items;
  for (int i = 0; i < count; ++i) {
    const Image &frame = frames[i % frames.size()];
    PreprocessItem item;
    const int width = 1 + static_cast<int>(generator() % std::min(300, frame.width));
    const int height = 1 + static_cast<int>(generator() % std::min(300, frame.height));
    const int x = static_cast<int>(generator() % (frame.width - width + 1)) & ~1;
    const int y = static_cast<int>(generator() % (frame.height - height + 1)) & ~1;
    item.src = sub_image(frame, x, y, width, height);
    item.resize_params.interpolation = method;
    item.resize_params.source_colorimetry = {i % 2 ? ColorMatrix::kBT709 : ColorMatrix::kBT601,
                                             i % 3 ? ColorRange::kLimited : ColorRange::kFull};
    item.resize_params.round_half_up = i % 5 == 1;
    item.resize_params.float_intermediate = i % 7 == 3;
    if (i % 4 == 2) {
      std::string error;
      EXPECT_TRUE(letterbox_rect(width, height, out_width, out_height, LetterboxOptions{},
                                 &item.resize_params.dst_rect, &error))
          << error;
      const uint8_t pad[4] = {static_cast<uint8_t>(i), 114, 250, 0};
      std::copy(pad, pad + 4, item.resize_params.pad_value);
    }
    item.normalize_params = normalization(order, i % 4);
    if (i % 11 == 5) item.normalize_params.scale = 1e-7f;
    item.batch_index = count - 1 - i;
    items.push_back(item);
  }
  return items;
}

// 1000 regions of NV12, P010 and RGBA frames (4-byte rows and, with 13
// extra bytes of pitch, byte-aligned ones: four readers) in one call,
// several launches: every item bit for bit its single-item result, bilinear
// and bicubic, for each channel order and dtype, in contiguous tensors whose
// rows take the run shape (16 and 224 wide) and in ones that do not (37
// wide).
TEST_F(PreprocessBatchGpu, ManyRegionsOfEveryReaderEqualSingleItemPreprocess) {
  DeviceAllocations allocations;
  const std::vector<Image> frames = random_frames({{PixelFormat::kNV12, 640, 360, 0},
                                                   {PixelFormat::kRGBA, 500, 333, 0},
                                                   {PixelFormat::kRGBA, 401, 299, 13},
                                                   {PixelFormat::kP010, 320, 180, 0}},
                                                  51u, &allocations);
  ASSERT_FALSE(HasFatalFailure());
  const struct {
    int count, width, height;
  } shapes[] = {{1000, 16, 12}, {130, 224, 224}, {200, 37, 21}};
  for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    for (const auto &shape : shapes) {
      for (const ChannelOrder order :
           {ChannelOrder::kRGB, ChannelOrder::kBGR, ChannelOrder::kGray}) {
        for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
          const std::vector<PreprocessItem> items =
              many_regions(frames, shape.count, method, order, shape.width, shape.height);
          SCOPED_TRACE(std::to_string(shape.count) + " regions into " +
                       std::to_string(shape.width) + "x" + std::to_string(shape.height) + " " +
                       interpolation_name(method) + " " + channel_order_name(order) + " " +
                       data_type_name(dtype));
          expect_batch_equals_items(
              items,
              make_contiguous_tensor_desc(TensorLayout::kNCHW, shape.count, channel_count(order),
                                          shape.height, shape.width, dtype),
              stream_);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// Rows padded past a width that is no multiple of a run (1, 2, 3, 5, 37,
// 226), bilinear and bicubic: the run shape stores each row's last run
// element by element and never touches the padding, whose poison must
// survive.
TEST_F(PreprocessBatchGpu, RunsEndingInsidePaddedRowsStoreOnlyTheRow) {
  DeviceAllocations allocations;
  const std::vector<Image> frames = random_frames(
      {{PixelFormat::kNV12, 320, 240, 0}, {PixelFormat::kRGBA, 300, 200, 0}}, 61u, &allocations);
  ASSERT_FALSE(HasFatalFailure());
  for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    for (const int width : {1, 2, 3, 5, 37, 226}) {
      for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
        // Rows rounded up to 8 elements: every run starts aligned for its wide store.
        const int row_elements = (width + 7) / 8 * 8;
        const std::vector<PreprocessItem> items =
            many_regions(frames, 24, method, ChannelOrder::kRGB, width, 9);
        SCOPED_TRACE(std::to_string(width) + " wide in rows of " + std::to_string(row_elements) +
                     " " + interpolation_name(method) + " " + data_type_name(dtype));
        expect_batch_equals_items(items, padded_rows_desc(24, 3, 9, width, row_elements, dtype),
                                  stream_);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The checker names the item and the problem; nothing launches.
TEST(PreprocessBatchErrors, NamesTheItemAndTheProblem) {
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 4, 3, 16, 16, DataType::kFloat32);
  alignas(16) static uint8_t tensor[4];
  std::vector<PreprocessItem> items(3);
  for (int i = 0; i < 3; ++i) {
    items[i].src = fake_image(PixelFormat::kRGBA, 32, 32);
    items[i].batch_index = i;
  }
  EXPECT_EQ("", preprocess_batch_error(items.data(), 3, tensor, desc));
  EXPECT_EQ("", preprocess_batch_error(nullptr, 0, tensor, desc));
  EXPECT_NE("", preprocess_batch_error(items.data(), -1, tensor, desc));

  auto error_with = [&](auto change) {
    std::vector<PreprocessItem> changed = items;
    change(&changed[2]);
    return preprocess_batch_error(changed.data(), 3, tensor, desc);
  };
  const std::string mixed_method = error_with(
      [](PreprocessItem *item) { item->resize_params.interpolation = Interpolation::kArea; });
  EXPECT_NE(std::string::npos, mixed_method.find("item 2")) << mixed_method;
  EXPECT_NE(std::string::npos, mixed_method.find("interpolation")) << mixed_method;
  const std::string mixed_order = error_with(
      [](PreprocessItem *item) { item->normalize_params.channel_order = ChannelOrder::kBGR; });
  EXPECT_NE(std::string::npos, mixed_order.find("channel order")) << mixed_order;
  const std::string same_slot = error_with([](PreprocessItem *item) { item->batch_index = 0; });
  EXPECT_NE(std::string::npos, same_slot.find("slot 0")) << same_slot;
  const std::string outside = error_with([](PreprocessItem *item) { item->batch_index = 4; });
  EXPECT_NE(std::string::npos, outside.find("item 2: preprocess: ")) << outside;
  const std::string bad_std =
      error_with([](PreprocessItem *item) { item->normalize_params.std[1] = 0.0f; });
  EXPECT_NE(std::string::npos, bad_std.find("std")) << bad_std;
  EXPECT_EQ(cudaErrorInvalidValue, preprocess_batch(items.data(), -1, tensor, desc, nullptr));
}

}  // namespace
}  // namespace cudaprep
