// normalize and tensorize on the GPU against the CPU reference, for every
// 8-bit interleaved source format, channel order, element type and layout.
//
// Every comparison is bit-exact: the kernels evaluate (x*scale - mean)/std
// with one IEEE float32 rounding per operation (no FMA contraction), as the
// reference does, and convert to float16 with round-to-nearest-even, as the
// reference's IEEE conversion does; float16 -> float32 is exact.
//
// Outputs are poisoned before each run and compared byte for byte with the
// poison plus the reference's writes, so an element not written, a write
// into row padding, into another batch item or past the end (guard bytes)
// all show. Each case runs with two poisons, so no reference value can
// happen to equal the poison in both.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/normalize.h"
#include "cudaprep/tensor.h"
#include "cudaprep/tensorize.h"
#include "reference/normalize_ref.h"

namespace cudaprep {
namespace {

using test::tensor_location;

constexpr size_t kGuardBytes = 256;  // poisoned bytes after each output
constexpr uint8_t kPoisons[] = {0xff, 0x00};

class DeviceMemory {
 public:
  explicit DeviceMemory(size_t bytes) : bytes_(bytes) { error_ = cudaMalloc(&data_, bytes); }
  ~DeviceMemory() {
    if (data_ != nullptr) {
      EXPECT_EQ(cudaSuccess, cudaFree(data_));
    }
  }
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  cudaError_t error() const { return error_; }
  uint8_t *data() const { return static_cast<uint8_t *>(data_); }
  size_t bytes() const { return bytes_; }

 private:
  void *data_ = nullptr;
  size_t bytes_;
  cudaError_t error_;
};

class Stream {
 public:
  Stream() { error_ = cudaStreamCreate(&stream_); }
  ~Stream() {
    if (error_ == cudaSuccess) {
      EXPECT_EQ(cudaSuccess, cudaStreamDestroy(stream_));
    }
  }
  cudaError_t error() const { return error_; }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
  cudaError_t error_;
};

// An 8-bit source frame on the device as a *view*: a window at (3, 2) of a
// larger random image whose rows are an odd number of bytes apart, so the
// view's pitch differs from width * bpp and its rows are unaligned.
struct DeviceSource {
  std::unique_ptr<DeviceMemory> memory;
  Image view;
  reference::HostImage host_view;  // the same pixels on the host
};

void make_device_source(PixelFormat format, int width, int height, uint32_t seed,
                        DeviceSource *source) {
  constexpr int kViewX = 3, kViewY = 2;
  const int bpp = reference::bytes_per_pixel(format);
  const int full_width = width + 2 * kViewX + 1, full_height = height + 2 * kViewY;
  const size_t host_pitch = static_cast<size_t>(full_width) * bpp;
  std::vector<uint8_t> full(host_pitch * full_height);
  std::mt19937 rng(seed);
  for (uint8_t &byte : full) byte = static_cast<uint8_t>(rng());

  const size_t device_pitch = host_pitch + 13;
  source->memory = std::make_unique<DeviceMemory>(device_pitch * full_height);
  CUDA_ASSERT_OK(source->memory->error());
  CUDA_ASSERT_OK(cudaMemcpy2D(source->memory->data(), device_pitch, full.data(), host_pitch,
                              host_pitch, full_height, cudaMemcpyHostToDevice));
  // Pageable cudaMemcpy and cudaMemset may return before the device holds
  // the bytes, and kernels on non-blocking streams do not wait for them.
  CUDA_ASSERT_OK(cudaDeviceSynchronize());
  source->view.format = format;
  source->view.width = width;
  source->view.height = height;
  source->view.planes[0].data = source->memory->data() + kViewY * device_pitch + kViewX * bpp;
  source->view.planes[0].pitch_bytes = device_pitch;

  reference::HostImage &host = source->host_view;
  host.format = format;
  host.width = width;
  host.height = height;
  host.pitch_bytes = static_cast<size_t>(width) * bpp;
  host.bytes.resize(host.pitch_bytes * height);
  for (int y = 0; y < height; ++y) {
    std::memcpy(&host.bytes[y * host.pitch_bytes], &full[(y + kViewY) * host_pitch + kViewX * bpp],
                host.pitch_bytes);
  }
}

// A planar frame in one allocation: planes one after another, each row
// padded by 24 bytes, then guard bytes.
struct DevicePlanar {
  std::unique_ptr<DeviceMemory> memory;
  PlanarImage image;
  size_t plane_bytes = 0;
};

void make_device_planar(int width, int height, int channels, DataType dtype, DevicePlanar *planar) {
  const size_t element_bytes = data_type_size(dtype);
  planar->image.pitch_bytes = width * element_bytes + 24;
  planar->plane_bytes = planar->image.pitch_bytes * height;
  planar->memory = std::make_unique<DeviceMemory>(planar->plane_bytes * channels + kGuardBytes);
  CUDA_ASSERT_OK(planar->memory->error());
  for (int c = 0; c < channels; ++c) {
    planar->image.planes[c] = planar->memory->data() + c * planar->plane_bytes;
  }
  planar->image.width = width;
  planar->image.height = height;
  planar->image.channels = channels;
  planar->image.dtype = dtype;
}

void store_element(DataType dtype, float value, uint8_t *where) {
  if (dtype == DataType::kFloat32) {
    std::memcpy(where, &value, sizeof(value));
  } else {
    const uint16_t bits = reference::float_to_half_rne(value);
    std::memcpy(where, &bits, sizeof(bits));
  }
}

std::string element_text(DataType dtype, const uint8_t *where) {
  std::ostringstream text;
  if (dtype == DataType::kFloat32) {
    float value;
    std::memcpy(&value, where, sizeof(value));
    uint32_t bits;
    std::memcpy(&bits, where, sizeof(bits));
    text.precision(9);
    text << value << " (0x" << std::hex << bits << ")";
  } else if (dtype == DataType::kFloat16) {
    uint16_t bits;
    std::memcpy(&bits, where, sizeof(bits));
    text << reference::half_to_float(bits) << " (0x" << std::hex << bits << ")";
  } else {
    text << static_cast<int>(*where);
  }
  return text.str();
}

// Compares byte for byte; on a difference reports how many bytes differ and
// the first differing element: where it is (from `locate`) and both values.
template <typename Locate>
void expect_same_bytes(const std::vector<uint8_t> &expected, const std::vector<uint8_t> &actual,
                       DataType dtype, Locate locate) {
  ASSERT_EQ(expected.size(), actual.size());
  size_t first = expected.size(), differing = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != actual[i]) {
      if (differing++ == 0) first = i;
    }
  }
  if (differing == 0) return;
  const size_t element_bytes = data_type_size(dtype);
  const size_t element_start = first - first % element_bytes;
  const bool whole_element = element_start + element_bytes <= expected.size();
  ADD_FAILURE() << differing << " of " << expected.size() << " bytes differ; first at byte "
                << first << ", " << locate(element_start) << ": expected "
                << (whole_element ? element_text(dtype, &expected[element_start]) : "?") << ", got "
                << (whole_element ? element_text(dtype, &actual[element_start]) : "?");
}

std::vector<uint8_t> download(const DeviceMemory &memory) {
  std::vector<uint8_t> bytes(memory.bytes());
  EXPECT_EQ(cudaSuccess,
            cudaMemcpy(bytes.data(), memory.data(), bytes.size(), cudaMemcpyDeviceToHost));
  return bytes;
}

std::string planar_location(const DevicePlanar &planar, size_t offset) {
  const PlanarImage &image = planar.image;
  std::ostringstream text;
  if (offset >= planar.plane_bytes * image.channels) {
    text << "guard byte " << offset - planar.plane_bytes * image.channels << " after the planes";
    return text.str();
  }
  const size_t channel = offset / planar.plane_bytes;
  const size_t y = offset % planar.plane_bytes / image.pitch_bytes;
  const size_t row_byte = offset % planar.plane_bytes % image.pitch_bytes;
  const size_t element_bytes = data_type_size(image.dtype);
  if (row_byte >= image.width * element_bytes) {
    text << "row padding of channel " << channel << " row " << y;
  } else {
    text << "channel " << channel << " y " << y << " x " << row_byte / element_bytes;
  }
  return text.str();
}

// Normalises `source` on the GPU into a planar frame of `planar_dtype` and
// checks it; returns in `values` the planar values (CHW) as the frame holds
// them, for the tensorize step.
void run_normalize(const DeviceSource &source, const NormalizeParams &params, DataType planar_dtype,
                   cudaStream_t stream, DevicePlanar *planar, std::vector<float> *values) {
  const int channels = channel_count(params.channel_order);
  const int width = source.view.width, height = source.view.height;
  ASSERT_NO_FATAL_FAILURE(make_device_planar(width, height, channels, planar_dtype, planar));

  std::vector<float> reference_values = reference::normalize(source.host_view, params);
  if (planar_dtype == DataType::kFloat16) {
    for (float &value : reference_values) value = reference::round_to_half(value);
  }
  const size_t element_bytes = data_type_size(planar_dtype);
  for (const uint8_t poison : kPoisons) {
    SCOPED_TRACE(testing::Message() << "poison 0x" << std::hex << static_cast<int>(poison));
    CUDA_ASSERT_OK(
        cudaMemsetAsync(planar->memory->data(), poison, planar->memory->bytes(), stream));
    CUDA_ASSERT_OK(normalize(source.view, planar->image, params, stream));
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream));

    std::vector<uint8_t> expected(planar->memory->bytes(), poison);
    for (int c = 0; c < channels; ++c) {
      for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
          store_element(planar_dtype,
                        reference_values[(static_cast<size_t>(c) * height + y) * width + x],
                        &expected[c * planar->plane_bytes + y * planar->image.pitch_bytes +
                                  x * element_bytes]);
        }
      }
    }
    const std::vector<uint8_t> actual = download(*planar->memory);
    ASSERT_NO_FATAL_FAILURE(expect_same_bytes(expected, actual, planar_dtype, [&](size_t offset) {
      return planar_location(*planar, offset);
    }));
  }
  *values = reference_values;
}

void run_tensorize_planar(const DevicePlanar &planar, const std::vector<float> &values,
                          TensorLayout layout, DataType tensor_dtype, int batch_size,
                          int batch_index, cudaStream_t stream) {
  const PlanarImage &image = planar.image;
  const TensorDesc desc = make_contiguous_tensor_desc(layout, batch_size, image.channels,
                                                      image.height, image.width, tensor_dtype);
  DeviceMemory tensor(tensor_span_bytes(desc) + kGuardBytes);
  CUDA_ASSERT_OK(tensor.error());
  for (const uint8_t poison : kPoisons) {
    SCOPED_TRACE(testing::Message() << "poison 0x" << std::hex << static_cast<int>(poison));
    CUDA_ASSERT_OK(cudaMemsetAsync(tensor.data(), poison, tensor.bytes(), stream));
    CUDA_ASSERT_OK(tensorize_planar(image, tensor.data(), desc, batch_index, stream));
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream));

    std::vector<uint8_t> expected(tensor.bytes(), poison);
    reference::tensorize(values, image.channels, image.height, image.width, desc, batch_index,
                         &expected);
    const std::vector<uint8_t> actual = download(tensor);
    ASSERT_NO_FATAL_FAILURE(expect_same_bytes(expected, actual, tensor_dtype, [&](size_t offset) {
      return tensor_location(desc, offset);
    }));
  }
}

void run_tensorize_interleaved(const DeviceSource &source, ChannelOrder order, TensorLayout layout,
                               int batch_size, int batch_index, cudaStream_t stream) {
  const int channels = channel_count(order);
  const int width = source.view.width, height = source.view.height;
  const TensorDesc desc =
      make_contiguous_tensor_desc(layout, batch_size, channels, height, width, DataType::kUInt8);
  DeviceMemory tensor(tensor_span_bytes(desc) + kGuardBytes);
  CUDA_ASSERT_OK(tensor.error());
  const std::vector<uint8_t> channel_bytes = reference::extract_channels(source.host_view, order);
  const std::vector<float> values(channel_bytes.begin(), channel_bytes.end());
  for (const uint8_t poison : kPoisons) {
    SCOPED_TRACE(testing::Message() << "poison 0x" << std::hex << static_cast<int>(poison));
    CUDA_ASSERT_OK(cudaMemsetAsync(tensor.data(), poison, tensor.bytes(), stream));
    CUDA_ASSERT_OK(
        tensorize_interleaved(source.view, order, tensor.data(), desc, batch_index, stream));
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream));

    std::vector<uint8_t> expected(tensor.bytes(), poison);
    reference::tensorize(values, channels, height, width, desc, batch_index, &expected);
    const std::vector<uint8_t> actual = download(tensor);
    ASSERT_NO_FATAL_FAILURE(
        expect_same_bytes(expected, actual, DataType::kUInt8,
                          [&](size_t offset) { return tensor_location(desc, offset); }));
  }
}

NormalizeParams imagenet_params(ChannelOrder order) {
  NormalizeParams params;
  params.channel_order = order;
  if (order == ChannelOrder::kGray) {
    params.mean[0] = 0.449f;
    params.std[0] = 0.226f;
    return params;
  }
  const float mean_rgb[3] = {0.485f, 0.456f, 0.406f};
  const float std_rgb[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) {
    params.mean[c] = order == ChannelOrder::kBGR ? mean_rgb[2 - c] : mean_rgb[c];
    params.std[c] = order == ChannelOrder::kBGR ? std_rgb[2 - c] : std_rgb[c];
  }
  return params;
}

struct FormatOrders {
  PixelFormat format;
  std::vector<ChannelOrder> orders;
};

const std::vector<FormatOrders> &all_formats() {
  static const std::vector<FormatOrders> formats = {
      {PixelFormat::kRGBA, {ChannelOrder::kRGB, ChannelOrder::kBGR}},
      {PixelFormat::kBGRA, {ChannelOrder::kRGB, ChannelOrder::kBGR}},
      {PixelFormat::kRGBx, {ChannelOrder::kRGB, ChannelOrder::kBGR}},
      {PixelFormat::kBGRx, {ChannelOrder::kRGB, ChannelOrder::kBGR}},
      {PixelFormat::kRGB, {ChannelOrder::kRGB, ChannelOrder::kBGR}},
      {PixelFormat::kBGR, {ChannelOrder::kRGB, ChannelOrder::kBGR}},
      {PixelFormat::kGRAY8, {ChannelOrder::kGray, ChannelOrder::kRGB, ChannelOrder::kBGR}},
  };
  return formats;
}

TEST(NormalizeGpu, EveryFormatOrderDtypeAndLayoutMatchesReference) {
  CUDAPREP_REQUIRE_GPU();
  Stream stream;
  CUDA_ASSERT_OK(stream.error());
  constexpr int kWidth = 37, kHeight = 23, kBatch = 3, kBatchIndex = 2;
  uint32_t seed = 1;
  for (const FormatOrders &entry : all_formats()) {
    DeviceSource source;
    ASSERT_NO_FATAL_FAILURE(make_device_source(entry.format, kWidth, kHeight, seed++, &source));
    for (const ChannelOrder order : entry.orders) {
      for (const DataType planar_dtype : {DataType::kFloat32, DataType::kFloat16}) {
        SCOPED_TRACE(testing::Message()
                     << "source " << pixel_format_name(entry.format) << " " << kWidth << "x"
                     << kHeight << ", order " << channel_order_name(order) << ", planar "
                     << data_type_name(planar_dtype));
        DevicePlanar planar;
        std::vector<float> values;
        ASSERT_NO_FATAL_FAILURE(run_normalize(source, imagenet_params(order), planar_dtype,
                                              stream.get(), &planar, &values));
        for (const TensorLayout layout : {TensorLayout::kNCHW, TensorLayout::kNHWC}) {
          for (const DataType tensor_dtype : {DataType::kFloat32, DataType::kFloat16}) {
            SCOPED_TRACE(testing::Message() << "tensor " << tensor_layout_name(layout) << " "
                                            << data_type_name(tensor_dtype) << ", batch item "
                                            << kBatchIndex << " of " << kBatch);
            ASSERT_NO_FATAL_FAILURE(run_tensorize_planar(planar, values, layout, tensor_dtype,
                                                         kBatch, kBatchIndex, stream.get()));
          }
        }
      }
    }
  }
}

TEST(NormalizeGpu, RangeMinusOneToOneAndLargeOddFrame) {
  CUDAPREP_REQUIRE_GPU();
  Stream stream;
  CUDA_ASSERT_OK(stream.error());
  // Larger than one grid row of blocks in both directions, odd sizes.
  DeviceSource source;
  ASSERT_NO_FATAL_FAILURE(make_device_source(PixelFormat::kBGRx, 1283, 727, 99, &source));
  NormalizeParams params;
  params.scale = 1.0f / 127.5f;
  params.mean[0] = params.mean[1] = params.mean[2] = 1.0f;
  params.channel_order = ChannelOrder::kRGB;
  for (const DataType planar_dtype : {DataType::kFloat32, DataType::kFloat16}) {
    SCOPED_TRACE(testing::Message()
                 << "source BGRx 1283x727, order RGB, planar " << data_type_name(planar_dtype));
    DevicePlanar planar;
    std::vector<float> values;
    ASSERT_NO_FATAL_FAILURE(
        run_normalize(source, params, planar_dtype, stream.get(), &planar, &values));
    SCOPED_TRACE("tensor NCHW float16, batch item 0 of 1");
    ASSERT_NO_FATAL_FAILURE(run_tensorize_planar(planar, values, TensorLayout::kNCHW,
                                                 DataType::kFloat16, 1, 0, stream.get()));
  }
}

TEST(TensorizeGpu, Uint8EveryFormatOrderAndLayoutMatchesReference) {
  CUDAPREP_REQUIRE_GPU();
  Stream stream;
  CUDA_ASSERT_OK(stream.error());
  constexpr int kWidth = 41, kHeight = 19, kBatch = 3, kBatchIndex = 1;
  uint32_t seed = 100;
  for (const FormatOrders &entry : all_formats()) {
    DeviceSource source;
    ASSERT_NO_FATAL_FAILURE(make_device_source(entry.format, kWidth, kHeight, seed++, &source));
    for (const ChannelOrder order : entry.orders) {
      for (const TensorLayout layout : {TensorLayout::kNCHW, TensorLayout::kNHWC}) {
        SCOPED_TRACE(testing::Message()
                     << "source " << pixel_format_name(entry.format) << " " << kWidth << "x"
                     << kHeight << ", order " << channel_order_name(order) << ", tensor "
                     << tensor_layout_name(layout) << " uint8, batch item " << kBatchIndex << " of "
                     << kBatch);
        ASSERT_NO_FATAL_FAILURE(
            run_tensorize_interleaved(source, order, layout, kBatch, kBatchIndex, stream.get()));
      }
    }
  }
}

// A whole batch: three different frames into items 0, 1, 2 of one tensor.
TEST(TensorizeGpu, FillsEveryItemOfABatch) {
  CUDAPREP_REQUIRE_GPU();
  Stream stream;
  CUDA_ASSERT_OK(stream.error());
  constexpr int kWidth = 29, kHeight = 31, kBatch = 3;
  const NormalizeParams params = imagenet_params(ChannelOrder::kBGR);
  for (const TensorLayout layout : {TensorLayout::kNCHW, TensorLayout::kNHWC}) {
    SCOPED_TRACE(testing::Message() << "source RGB " << kWidth << "x" << kHeight
                                    << ", order BGR, planar float32, tensor "
                                    << tensor_layout_name(layout) << " float32");
    const TensorDesc desc =
        make_contiguous_tensor_desc(layout, kBatch, 3, kHeight, kWidth, DataType::kFloat32);
    DeviceMemory tensor(tensor_span_bytes(desc) + kGuardBytes);
    CUDA_ASSERT_OK(tensor.error());
    CUDA_ASSERT_OK(cudaMemsetAsync(tensor.data(), 0xff, tensor.bytes(), stream.get()));
    std::vector<uint8_t> expected(tensor.bytes(), 0xff);
    for (int item = 0; item < kBatch; ++item) {
      DeviceSource source;
      ASSERT_NO_FATAL_FAILURE(
          make_device_source(PixelFormat::kRGB, kWidth, kHeight, 500 + item, &source));
      DevicePlanar planar;
      std::vector<float> values;
      ASSERT_NO_FATAL_FAILURE(
          run_normalize(source, params, DataType::kFloat32, stream.get(), &planar, &values));
      CUDA_ASSERT_OK(tensorize_planar(planar.image, tensor.data(), desc, item, stream.get()));
      // The planar frame is freed at the end of this iteration: finish first.
      CUDA_ASSERT_OK(cudaStreamSynchronize(stream.get()));
      reference::tensorize(values, 3, kHeight, kWidth, desc, item, &expected);
    }
    const std::vector<uint8_t> actual = download(tensor);
    ASSERT_NO_FATAL_FAILURE(
        expect_same_bytes(expected, actual, DataType::kFloat32,
                          [&](size_t offset) { return tensor_location(desc, offset); }));
  }
}

}  // namespace
}  // namespace cudaprep
