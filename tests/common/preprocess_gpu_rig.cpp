#include "common/preprocess_gpu_rig.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/normalize.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/resize.h"
#include "cudaprep/tensorize.h"
#include "reference/color_ref.h"
#include "reference/normalize_ref.h"
#include "reference/resize_ref.h"

namespace cudaprep::test::preprocess_gpu_rig {

using ref::HostFrame;

namespace {

constexpr uint8_t kPoison = 0xff;
constexpr size_t kGuardBytes = 256;

// resize's destination format in the chain preprocess() is defined by.
PixelFormat intermediate_format(ChannelOrder order) {
  return order == ChannelOrder::kGray ? PixelFormat::kGRAY8 : PixelFormat::kRGB;
}

float element_value(const std::vector<uint8_t> &bytes, int64_t offset, DataType dtype) {
  if (dtype == DataType::kFloat32) {
    float value;
    std::memcpy(&value, &bytes[offset], sizeof(value));
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, &bytes[offset], sizeof(bits));
  return reference::half_to_float(bits);
}

std::string element_text(const std::vector<uint8_t> &bytes, int64_t offset, DataType dtype) {
  std::ostringstream text;
  text.precision(9);
  uint32_t bits = 0;
  std::memcpy(&bits, &bytes[offset], data_type_size(dtype));
  text << element_value(bytes, offset, dtype) << " (0x" << std::hex << bits << ")";
  return text.str();
}

struct ElementIndex {
  int64_t batch, channel, y, x;
};

// The logical indices of the element at byte `offset` (inside the span).
ElementIndex element_index(const TensorDesc &desc, int64_t offset) {
  int64_t index[kTensorRank];
  for (int axis = 0; axis < kTensorRank; ++axis) {
    index[axis] = offset / desc.strides_bytes[axis];
    offset %= desc.strides_bytes[axis];
  }
  const TensorAxes axes = tensor_axes(desc.layout);
  return {index[axes.batch], index[axes.channel], index[axes.height], index[axes.width]};
}

// `image` with every byte moved by `step` (+1 or -1), saturated.
reference::HostImage shifted(const reference::HostImage &image, int step) {
  reference::HostImage out = image;
  for (uint8_t &byte : out.bytes) byte = static_cast<uint8_t>(std::clamp(byte + step, 0, 255));
  return out;
}

// Item `batch_index` of a tensor holding the reference's normalisation of
// `image`, as the tensor's bytes.
std::vector<uint8_t> reference_tensor(const reference::HostImage &image, const Case &c,
                                      const TensorDesc &desc, size_t bytes) {
  std::vector<uint8_t> tensor(bytes, kPoison);
  reference::tensorize(reference::normalize(image, c.normalize),
                       channel_count(c.normalize.channel_order), image.height, image.width, desc,
                       c.batch_index, &tensor);
  return tensor;
}

}  // namespace

std::string describe(const Case &c) {
  std::ostringstream out;
  out << pixel_format_name(c.format) << " " << c.src_width << "x" << c.src_height << " view at ("
      << c.crop_left << ", " << c.crop_top << ") pitch +" << c.extra_pitch_bytes << " -> "
      << c.out_width << "x" << c.out_height << " " << interpolation_name(c.resize.interpolation)
      << (c.letterbox ? ", letterbox" : "")
      << (c.resize.antialias
              ? std::string(", antialiased, ") +
                    antialias_intermediate_name(c.resize.antialias_intermediate) + " intermediate"
              : "")
      << ", turned " << orientation_name(c.resize.orientation) << ", "
      << channel_order_name(c.normalize.channel_order) << " " << data_type_name(c.dtype) << " "
      << tensor_layout_name(c.layout) << ", item " << c.batch_index << " of " << c.batch;
  if (c.format == PixelFormat::kNV12 || c.format == PixelFormat::kI420 ||
      c.format == PixelFormat::kYUY2) {
    const Colorimetry &colorimetry = c.resize.source_colorimetry;
    out << ", " << (colorimetry.matrix == ColorMatrix::kBT709 ? "BT.709" : "BT.601")
        << (colorimetry.range == ColorRange::kFull ? " full" : " limited") << " range";
  }
  const PixelRect &rect = c.resize.dst_rect;
  if (c.letterbox) {
    out << " (rect " << rect.width << "x" << rect.height << " at " << rect.x << "," << rect.y
        << ")";
  }
  return out.str();
}

void make_source(const Case &c, unsigned seed, DeviceAllocations *allocations, Image *view,
                 HostFrame *visible) {
  HostFrame parent(c.format, c.src_width + c.crop_left + 5, c.src_height + c.crop_top + 3,
                   c.extra_pitch_bytes);
  std::mt19937 generator(seed);
  for (auto &plane : parent.planes) {
    for (uint8_t &value : plane) value = static_cast<uint8_t>(generator());
  }
  *visible = window(parent, c.crop_left, c.crop_top, c.src_width, c.src_height);
  view->format = c.format;
  view->width = c.src_width;
  view->height = c.src_height;
  for (int plane = 0; plane < format_info(c.format).num_planes; ++plane) {
    const PlaneLayout layout = format_info(c.format).planes[plane];
    uint8_t *base = nullptr;
    CUDA_ASSERT_OK(allocations->allocate(parent.planes[plane].size(), &base));
    CUDA_ASSERT_OK(cudaMemcpy(base, parent.planes[plane].data(), parent.planes[plane].size(),
                              cudaMemcpyHostToDevice));
    view->planes[plane].data =
        base + (c.crop_top / layout.height_divisor) * parent.pitch_bytes[plane] +
        static_cast<size_t>(c.crop_left / layout.pixels_per_unit) * layout.unit_bytes;
    view->planes[plane].pitch_bytes = parent.pitch_bytes[plane];
  }
  // Pageable cudaMemcpy and cudaMemset may return before the device holds
  // the bytes, and kernels on non-blocking streams do not wait for them.
  CUDA_ASSERT_OK(cudaDeviceSynchronize());
}

void run_case(const Case &c, cudaStream_t stream, Stats *stats) {
  const std::string what = describe(c);
  SCOPED_TRACE(what);
  DeviceAllocations allocations;
  Image source;
  HostFrame visible;
  make_source(c, 7919u * c.src_width + 31u * c.src_height + static_cast<unsigned>(c.format),
              &allocations, &source, &visible);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());

  const ChannelOrder order = c.normalize.channel_order;
  const int channels = channel_count(order);
  const TensorDesc desc =
      make_contiguous_tensor_desc(c.layout, c.batch, channels, c.out_height, c.out_width, c.dtype);
  const size_t tensor_bytes = tensor_span_bytes(desc) + kGuardBytes;
  uint8_t *fused = nullptr, *chained = nullptr;
  CUDA_ASSERT_OK(allocations.allocate(tensor_bytes, &fused));
  CUDA_ASSERT_OK(allocations.allocate(tensor_bytes, &chained));
  CUDA_ASSERT_OK(cudaMemsetAsync(fused, kPoison, tensor_bytes, stream));
  CUDA_ASSERT_OK(cudaMemsetAsync(chained, kPoison, tensor_bytes, stream));

  // The fused kernel.
  ASSERT_EQ("", preprocess_params_error(source, c.resize, c.normalize, fused, desc, c.batch_index));
  CUDA_ASSERT_OK(preprocess(source, c.resize, c.normalize, fused, desc, c.batch_index, stream));

  // The chain it must equal: resize into an 8-bit frame, normalize into a
  // planar frame of the tensor's dtype, tensorize that into the item.
  Image resized;
  resized.format = intermediate_format(order);
  resized.width = c.out_width;
  resized.height = c.out_height;
  resized.planes[0].pitch_bytes = plane_row_bytes(resized.format, 0, c.out_width) + 3;
  CUDA_ASSERT_OK(
      allocations.allocate(resized.planes[0].pitch_bytes * c.out_height, &resized.planes[0].data));
  PlanarImage planar;
  planar.width = c.out_width;
  planar.height = c.out_height;
  planar.channels = channels;
  planar.dtype = c.dtype;
  planar.pitch_bytes = (c.out_width + 4) * data_type_size(c.dtype);
  uint8_t *planes = nullptr;
  CUDA_ASSERT_OK(allocations.allocate(planar.pitch_bytes * c.out_height * channels, &planes));
  for (int channel = 0; channel < channels; ++channel) {
    planar.planes[channel] = planes + channel * planar.pitch_bytes * c.out_height;
  }
  CUDA_ASSERT_OK(resize(source, resized, c.resize, stream));
  CUDA_ASSERT_OK(normalize(resized, planar, c.normalize, stream));
  CUDA_ASSERT_OK(tensorize_planar(planar, chained, desc, c.batch_index, stream));
  CUDA_ASSERT_OK(cudaStreamSynchronize(stream));

  std::vector<uint8_t> fused_bytes(tensor_bytes), chained_bytes(tensor_bytes);
  CUDA_ASSERT_OK(cudaMemcpy(fused_bytes.data(), fused, tensor_bytes, cudaMemcpyDeviceToHost));
  CUDA_ASSERT_OK(cudaMemcpy(chained_bytes.data(), chained, tensor_bytes, cudaMemcpyDeviceToHost));
  reference::HostImage gpu_resized;
  gpu_resized.format = resized.format;
  gpu_resized.width = c.out_width;
  gpu_resized.height = c.out_height;
  gpu_resized.pitch_bytes = plane_row_bytes(resized.format, 0, c.out_width);
  gpu_resized.bytes.resize(gpu_resized.pitch_bytes * c.out_height);
  CUDA_ASSERT_OK(cudaMemcpy2D(gpu_resized.bytes.data(), gpu_resized.pitch_bytes,
                              resized.planes[0].data, resized.planes[0].pitch_bytes,
                              gpu_resized.pitch_bytes, c.out_height, cudaMemcpyDeviceToHost));

  // 1. Bit for bit with the chain.
  size_t differing = 0, first = tensor_bytes;
  for (size_t i = 0; i < tensor_bytes; ++i) {
    if (fused_bytes[i] != chained_bytes[i] && differing++ == 0) first = i;
  }
  if (differing > 0) {
    const size_t element = first - first % data_type_size(c.dtype);
    std::ostringstream failure;
    failure << differing << " of " << tensor_bytes
            << " bytes differ from resize -> normalize -> tensorize; the first at byte " << first
            << ", " << tensor_location(desc, first);
    if (element + data_type_size(c.dtype) <= tensor_span_bytes(desc)) {
      failure << ": fused " << element_text(fused_bytes, element, c.dtype) << ", chain "
              << element_text(chained_bytes, element, c.dtype);
      const ElementIndex at = element_index(desc, static_cast<int64_t>(element));
      if (at.batch == c.batch_index) {
        // Tells a sampling difference (fused = N(byte +- 1)) from a
        // normalisation one.
        failure << "; the chain's resize wrote byte "
                << int(reference::channel_value(gpu_resized, order, static_cast<int>(at.channel),
                                                static_cast<int>(at.x), static_cast<int>(at.y)))
                << " for that channel and pixel";
      }
    }
    FAIL() << failure.str();
  }

  // 2. Within one 8-bit step of the CPU reference composition.
  const HostFrame expected =
      ref::resize_reference(visible, resized.format, c.out_width, c.out_height, c.resize);
  reference::HostImage reference_resized;
  reference_resized.format = resized.format;
  reference_resized.width = c.out_width;
  reference_resized.height = c.out_height;
  reference_resized.pitch_bytes = expected.pitch_bytes[0];
  reference_resized.bytes = expected.planes[0];
  const std::vector<uint8_t> exact = reference_tensor(reference_resized, c, desc, tensor_bytes);
  const std::vector<uint8_t> below =
      reference_tensor(shifted(reference_resized, -1), c, desc, tensor_bytes);
  const std::vector<uint8_t> above =
      reference_tensor(shifted(reference_resized, +1), c, desc, tensor_bytes);
  for (int channel = 0; channel < channels; ++channel) {
    const double step = std::fabs(c.normalize.scale / c.normalize.std[channel]);
    for (int y = 0; y < c.out_height; ++y) {
      for (int x = 0; x < c.out_width; ++x) {
        const int64_t offset = reference::element_offset(desc, c.batch_index, channel, y, x);
        const float value = element_value(fused_bytes, offset, c.dtype);
        const float low = element_value(below, offset, c.dtype);
        const float high = element_value(above, offset, c.dtype);
        const float middle = element_value(exact, offset, c.dtype);
        ++stats->elements;
        if (value != middle) ++stats->differing_from_reference;
        stats->worst_step_fraction =
            std::max(stats->worst_step_fraction, std::fabs(value - middle) / step);
        if (!(value >= std::min(low, high) && value <= std::max(low, high))) {
          const uint8_t reference_byte =
              reference::channel_value(reference_resized, order, channel, x, y);
          const uint8_t gpu_byte = reference::channel_value(gpu_resized, order, channel, x, y);
          FAIL() << "fused element (c " << channel << ", y " << y << ", x " << x << ") = " << value
                 << " is not within one 8-bit step of the reference: reference byte "
                 << int(reference_byte) << " (GPU resize byte " << int(gpu_byte)
                 << ") normalises to " << middle << ", its neighbours to " << low << " and "
                 << high;
        }
      }
    }
  }
  ++stats->cases;
}

void print_stats(const char *name, const Stats &stats) {
  std::printf(
      "[ %s ] %d cases, %lld elements, %lld differ from the CPU reference (its byte 1 off), "
      "largest difference %.3f of |scale/std|\n",
      name, stats.cases, stats.elements, stats.differing_from_reference, stats.worst_step_fraction);
}

NormalizeParams imagenet(ChannelOrder order) {
  NormalizeParams params;
  params.channel_order = order;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
  for (int channel = 0; channel < 3; ++channel) {
    params.mean[channel] = mean[channel];
    params.std[channel] = std[channel];
  }
  return params;
}

}  // namespace cudaprep::test::preprocess_gpu_rig
