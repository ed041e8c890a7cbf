// preprocess() (one fused kernel) against
//  1. the unfused chain resize -> normalize -> tensorize run on the GPU:
//     bit for bit, over the whole tensor allocation plus guard bytes, so a
//     different value, a missed element or a write into another batch item
//     or past the end all show (both tensors are poisoned with 0xff bytes,
//     a NaN in float32 and float16, which no normalised value equals);
//  2. the CPU reference composition (reference/resize_ref, then
//     reference/normalize_ref): resize is defined to within +-1 of its
//     reference per 8-bit value, so a fused element need not equal the
//     reference's. The bound it must meet: with b' the reference's byte and
//     N(b) the reference's normalisation of byte b (float32, then float16
//     when the tensor is), the fused element lies between N(b' - 1) and
//     N(b' + 1) (bytes saturated to [0, 255]). That holds because N is
//     monotonic in b: every step of (b * scale - mean) / std and the float16
//     rounding is a monotonic function correctly rounded, and rounding
//     preserves order. In numbers, |fused - N(b')| <= |scale / std[c]| plus
//     the rounding of the two values (a few ulps): with ImageNet constants,
//     1/255/0.224 = 0.0175 at most.
// Cases: formats x methods x letterbox on/off x float32/float16 x NCHW/NHWC,
// RGB/BGR/GRAY orders, crops at odd offsets (even for 4:2:0 chroma) of
// oddly pitched frames, 4-byte aligned RGBA/BGRx views (the 32-bit reader),
// batch index > 0. Failures name the case and the first bad element.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <iterator>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/normalize.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "cudaprep/tensorize.h"
#include "reference/color_ref.h"
#include "reference/normalize_ref.h"
#include "reference/resize_ref.h"

namespace cudaprep {
namespace {

using ref::HostFrame;
using test::DeviceAllocations;
using test::fake_image;
using test::tensor_location;
using test::window;

constexpr uint8_t kPoison = 0xff;
constexpr size_t kGuardBytes = 256;

struct Case {
  PixelFormat format = PixelFormat::kRGBA;
  int src_width = 0, src_height = 0;
  int crop_left = 0, crop_top = 0;  // where the view starts in its parent frame
  size_t extra_pitch_bytes = 13;    // 13: unaligned rows; 16: 4-byte aligned
  ResizeParams resize;
  bool letterbox = false;
  NormalizeParams normalize;
  DataType dtype = DataType::kFloat32;
  TensorLayout layout = TensorLayout::kNCHW;
  int out_width = 0, out_height = 0;
  int batch = 3, batch_index = 1;
};

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

// A random parent frame on the device and the case's view of it; `visible`
// is what the view shows, for the reference.
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

struct Stats {
  int cases = 0;
  long long elements = 0;
  long long differing_from_reference = 0;  // resize's byte 1 off the reference's
  double worst_step_fraction = 0.0;        // max |fused - N(b')| / |scale / std[c]|
};

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

class PreprocessGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    CUDAPREP_REQUIRE_GPU();
    // A blocking stream: it waits for the uploads on the legacy default stream.
    CUDA_ASSERT_OK(cudaStreamCreate(&stream_));
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(cudaSuccess, cudaStreamDestroy(stream_));
    }
  }
  cudaStream_t stream_ = nullptr;
};

void print_stats(const char *name, const Stats &stats) {
  std::printf(
      "[ %s ] %d cases, %lld elements, %lld differ from the CPU reference (its byte 1 off), "
      "largest difference %.3f of |scale/std|\n",
      name, stats.cases, stats.elements, stats.differing_from_reference, stats.worst_step_fraction);
}

void use_letterbox(Case *c) {
  c->letterbox = true;
  LetterboxOptions options;
  std::string error;
  const bool swapped = swaps_axes(c->resize.orientation);  // the turned source keeps its aspect
  ASSERT_TRUE(letterbox_rect(swapped ? c->src_height : c->src_width,
                             swapped ? c->src_width : c->src_height, c->out_width, c->out_height,
                             options, &c->resize.dst_rect, &error))
      << error;
  const uint8_t pad[4] = {114, 20, 250, 77};  // distinct channels: a swapped order shows
  std::copy(pad, pad + 4, c->resize.pad_value);
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

struct SizePair {
  int src_width, src_height, out_width, out_height;
};

// Every combination of the settings the fused kernel branches on: source
// format, with every colorimetry for the YUV formats (only their readers
// read it) and an unaligned and a 4-byte aligned view for the formats with a
// 32-bit reader (only those choose their reader by it; the others take the
// unaligned pitch); method; size ratio; letterbox or not; channel order;
// dtype; layout. 15 x 4 x 3 x 2 x 3 x 2 x 2 = 4320 small cases. Only the
// item of the batch written alternates between cases.
TEST_F(PreprocessGpu, EqualsTheUnfusedChainOverEveryCombination) {
  const PixelFormat formats[] = {PixelFormat::kRGBA, PixelFormat::kRGB,  PixelFormat::kBGRx,
                                 PixelFormat::kNV12, PixelFormat::kI420, PixelFormat::kYUY2,
                                 PixelFormat::kGRAY8};
  const Interpolation methods[] = {Interpolation::kNearest, Interpolation::kBilinear,
                                   Interpolation::kBicubic, Interpolation::kArea};
  // Down, up, and mixed non-integer ratios with odd sides.
  const SizePair sizes[] = {{61, 37, 29, 23}, {19, 13, 41, 33}, {45, 22, 31, 40}};
  const ChannelOrder orders[] = {ChannelOrder::kRGB, ChannelOrder::kBGR, ChannelOrder::kGray};
  const Colorimetry yuv_colorimetries[] = {{ColorMatrix::kBT601, ColorRange::kLimited},
                                           {ColorMatrix::kBT709, ColorRange::kLimited},
                                           {ColorMatrix::kBT709, ColorRange::kFull}};
  Stats stats;
  int index = 0;
  for (const PixelFormat format : formats) {
    const bool yuv = format == PixelFormat::kNV12 || format == PixelFormat::kI420 ||
                     format == PixelFormat::kYUY2;
    const bool reader_by_alignment = format == PixelFormat::kRGBA || format == PixelFormat::kBGRx;
    const std::vector<Colorimetry> colorimetries =
        yuv ? std::vector<Colorimetry>(std::begin(yuv_colorimetries), std::end(yuv_colorimetries))
            : std::vector<Colorimetry>{Colorimetry{}};
    // 13: rows and the view unaligned; 16: with the view's odd left of 3
    // pixels of 4 bytes, every row 4-byte aligned, so the 32-bit reader.
    const std::vector<size_t> extra_pitches =
        reader_by_alignment ? std::vector<size_t>{13, 16} : std::vector<size_t>{13};
    for (const Colorimetry &colorimetry : colorimetries) {
      for (const size_t extra_pitch : extra_pitches) {
        for (const Interpolation method : methods) {
          for (const SizePair &size : sizes) {
            for (const bool letterbox : {false, true}) {
              for (const ChannelOrder order : orders) {
                for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
                  for (const TensorLayout layout : {TensorLayout::kNCHW, TensorLayout::kNHWC}) {
                    Case c;
                    c.format = format;
                    c.src_width = size.src_width;
                    c.src_height = size.src_height;
                    c.out_width = size.out_width;
                    c.out_height = size.out_height;
                    // Odd offsets where the format allows them (4:2:0 chroma
                    // needs even ones, 4:2:2 an even left).
                    c.crop_left = is_chroma_subsampled(format) ? 2 : 3;
                    c.crop_top =
                        format == PixelFormat::kNV12 || format == PixelFormat::kI420 ? 2 : 1;
                    c.extra_pitch_bytes = extra_pitch;
                    c.resize.interpolation = method;
                    c.resize.source_colorimetry = colorimetry;
                    c.normalize = imagenet(order);
                    c.dtype = dtype;
                    c.layout = layout;
                    c.batch_index = 1 + index % 2;
                    if (letterbox) {
                      ASSERT_NO_FATAL_FAILURE(use_letterbox(&c));
                    }
                    run_case(c, stream_, &stats);
                    if (HasFatalFailure()) return;
                    ++index;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(stats.cases, 4320);
  print_stats("every combination", stats);
}

// Frames of the benchmark's workloads: wide grids, large coordinates.
TEST_F(PreprocessGpu, CameraSizedFrames) {
  Stats stats;
  Case detector;  // W1: NV12 1080p -> 640x640 letterbox, float32 NCHW
  detector.format = PixelFormat::kNV12;
  detector.src_width = 1920;
  detector.src_height = 1080;
  detector.crop_left = detector.crop_top = 0;
  detector.extra_pitch_bytes = 64;
  detector.out_width = detector.out_height = 640;
  detector.resize.interpolation = Interpolation::kBilinear;
  detector.resize.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
  detector.batch = 2;
  ASSERT_NO_FATAL_FAILURE(use_letterbox(&detector));
  run_case(detector, stream_, &stats);
  if (HasFatalFailure()) return;

  Case classifier;  // W3: a 512x512 crop at odd offsets of an RGBA frame -> 224x224 float16
  classifier.format = PixelFormat::kRGBA;
  classifier.src_width = classifier.src_height = 512;
  classifier.crop_left = 701;
  classifier.crop_top = 301;
  classifier.extra_pitch_bytes = 16;
  classifier.out_width = classifier.out_height = 224;
  classifier.normalize = imagenet(ChannelOrder::kRGB);
  classifier.dtype = DataType::kFloat16;
  classifier.batch = 4;
  classifier.batch_index = 3;
  run_case(classifier, stream_, &stats);
  if (HasFatalFailure()) return;

  Case depth;  // W2: I420 720p, short side 518 (multiple of 14), bicubic, NHWC BGR
  depth.format = PixelFormat::kI420;
  depth.src_width = 1280;
  depth.src_height = 720;
  depth.crop_left = depth.crop_top = 0;
  ASSERT_TRUE(
      short_side_multiple_size(1280, 720, 518, 14, &depth.out_width, &depth.out_height, nullptr));
  depth.resize.interpolation = Interpolation::kBicubic;
  depth.normalize = imagenet(ChannelOrder::kBGR);
  depth.layout = TensorLayout::kNHWC;
  depth.batch = 2;
  run_case(depth, stream_, &stats);
  print_stats("camera sizes", stats);
}

// Antialiased sampling goes through the fused kernel exactly as through
// resize(): bit for bit with the chain, within a step of the reference;
// with either intermediate between the passes.
TEST_F(PreprocessGpu, AntialiasedEqualsTheChain) {
  Stats stats;
  for (const auto &[method, intermediate] :
       {std::pair{Interpolation::kBilinear, AntialiasIntermediate::kFloat},
        std::pair{Interpolation::kBicubic, AntialiasIntermediate::kFloat},
        std::pair{Interpolation::kBilinear, AntialiasIntermediate::kUint8},
        std::pair{Interpolation::kBicubic, AntialiasIntermediate::kUint8}}) {
    Case classifier;  // 1080p NV12 -> torchvision's Resize(256) size
    classifier.format = PixelFormat::kNV12;
    classifier.src_width = 1920;
    classifier.src_height = 1080;
    classifier.crop_left = classifier.crop_top = 0;
    classifier.out_width = 455;
    classifier.out_height = 256;
    classifier.resize.interpolation = method;
    classifier.resize.antialias = true;
    classifier.resize.antialias_intermediate = intermediate;
    classifier.resize.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
    classifier.normalize = imagenet(ChannelOrder::kRGB);
    classifier.batch = 1;
    classifier.batch_index = 0;
    run_case(classifier, stream_, &stats);
    if (HasFatalFailure()) return;
    Case letterboxed;  // an odd RGB view, letterboxed, float16 NHWC BGR
    letterboxed.format = PixelFormat::kRGB;
    letterboxed.src_width = 331;
    letterboxed.src_height = 197;
    letterboxed.crop_left = 3;
    letterboxed.crop_top = 5;
    letterboxed.out_width = letterboxed.out_height = 64;
    letterboxed.resize.interpolation = method;
    letterboxed.resize.antialias = true;
    letterboxed.resize.antialias_intermediate = intermediate;
    letterboxed.normalize = imagenet(ChannelOrder::kBGR);
    letterboxed.dtype = DataType::kFloat16;
    letterboxed.layout = TensorLayout::kNHWC;
    ASSERT_NO_FATAL_FAILURE(use_letterbox(&letterboxed));
    run_case(letterboxed, stream_, &stats);
    if (HasFatalFailure()) return;
  }
  print_stats("antialiased", stats);
}

// Flips and rotations go through the fused kernel as through resize():
// bit for bit with the chain, within a step of the reference (which turns
// the decoded source, then resamples), for every orientation x every
// sampler, letterboxed into the turned aspect ratio or stretched, from the
// 32-bit reader, NV12 and GRAY8.
TEST_F(PreprocessGpu, OrientedEqualsTheChain) {
  struct Sampler {
    Interpolation method;
    bool antialias;
  };
  const Sampler samplers[] = {{Interpolation::kNearest, false},
                              {Interpolation::kBilinear, false},
                              {Interpolation::kBicubic, false},
                              {Interpolation::kArea, false},
                              {Interpolation::kBicubic, true}};
  Stats stats;
  int orientation_index = 0;
  for (const PixelFormat format : {PixelFormat::kRGBA, PixelFormat::kNV12, PixelFormat::kGRAY8}) {
    for (int o = 0; o <= static_cast<int>(Orientation::kAntiTranspose); ++o) {
      for (const Sampler &sampler : samplers) {
        Case c;
        c.format = format;
        c.src_width = 46;
        c.src_height = 30;
        c.crop_left = 2;
        c.crop_top = 4;
        c.extra_pitch_bytes = format == PixelFormat::kRGBA ? 16 : 13;
        c.out_width = 37;
        c.out_height = 29;
        c.resize.interpolation = sampler.method;
        c.resize.antialias = sampler.antialias;
        c.resize.orientation = static_cast<Orientation>(o);
        c.normalize =
            imagenet(format == PixelFormat::kGRAY8 ? ChannelOrder::kGray : ChannelOrder::kBGR);
        c.layout = orientation_index % 2 ? TensorLayout::kNHWC : TensorLayout::kNCHW;
        if (orientation_index++ % 3 != 0) {
          ASSERT_NO_FATAL_FAILURE(use_letterbox(&c));
        }
        run_case(c, stream_, &stats);
        if (HasFatalFailure()) return;
      }
    }
  }
  print_stats("orientations", stats);
}

// P010 keeps its extra bits in the fused kernel (no 8-bit step) when
// turned too: bit for bit the fused result of the source turned on the CPU.
TEST_F(PreprocessGpu, OrientedP010IsTheFusedResultOfTheTurnedSource) {
  Case c;
  c.format = PixelFormat::kP010;
  c.src_width = 46;
  c.src_height = 30;
  c.crop_left = 2;
  c.crop_top = 2;
  c.extra_pitch_bytes = 16;
  DeviceAllocations allocations;
  Image source;
  HostFrame visible;
  make_source(c, 3, &allocations, &source, &visible);
  ASSERT_FALSE(HasFatalFailure());
  const NormalizeParams normalize = imagenet(ChannelOrder::kRGB);
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 3, 33, 35, DataType::kFloat32);
  const size_t bytes = tensor_span_bytes(desc);
  for (int o = 0; o <= static_cast<int>(Orientation::kAntiTranspose); ++o) {
    const Orientation orientation = static_cast<Orientation>(o);
    SCOPED_TRACE(orientation_name(orientation));
    const HostFrame turned = ref::orient(visible, orientation);
    ASSERT_FALSE(HasFatalFailure());
    Image turned_view;
    turned_view.format = turned.format;
    turned_view.width = turned.width;
    turned_view.height = turned.height;
    for (int plane = 0; plane < format_info(turned.format).num_planes; ++plane) {
      uint8_t *data = nullptr;
      CUDA_ASSERT_OK(allocations.allocate(turned.planes[plane].size(), &data));
      CUDA_ASSERT_OK(cudaMemcpy(data, turned.planes[plane].data(), turned.planes[plane].size(),
                                cudaMemcpyHostToDevice));
      turned_view.planes[plane].data = data;
      turned_view.planes[plane].pitch_bytes = turned.pitch_bytes[plane];
    }
    CUDA_ASSERT_OK(cudaDeviceSynchronize());  // the pageable copies above may be in flight
    std::vector<uint8_t> results[2];
    for (int expected = 0; expected < 2; ++expected) {
      ResizeParams params;
      params.interpolation = Interpolation::kBicubic;
      params.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
      params.orientation = expected ? Orientation::kIdentity : orientation;
      uint8_t *tensor = nullptr;
      CUDA_ASSERT_OK(allocations.allocate(bytes, &tensor));
      CUDA_ASSERT_OK(
          preprocess(expected ? turned_view : source, params, normalize, tensor, desc, 0, stream_));
      results[expected].resize(bytes);
      CUDA_ASSERT_OK(cudaMemcpyAsync(results[expected].data(), tensor, bytes,
                                     cudaMemcpyDeviceToHost, stream_));
    }
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
    ASSERT_EQ(results[1], results[0]);
  }
}

// With float_intermediate the fused kernel normalises the unrounded sample:
// against the reference in double (resample, then (x * scale - mean) / std
// with no rounding to 8 bits), where the rounded chain is up to half a step
// off. Unantialiased bilinear and bicubic (Depth-Anything's
// cv2.resize(img / 255.0, INTER_CUBIC)) take the reference with cv2's float
// sample positions (SamplePositions::kOpenCvFloat, within 2.4e-4 step of
// cv2.resize of doubles: test_resize_reference_opencv) and must be within
// 0.01 of a step; with exact positions the kernel was 0.0107 to 0.0206 off
// on an H100 (a float scale misplaces samples by up to 6e-5 px at x = 1000,
// and bicubic's slope on noise makes that 0.02 step). Antialiased and area
// resampling keep exact positions and 0.05. One case is turned (90r).
TEST_F(PreprocessGpu, FloatIntermediateMatchesAFloatReference) {
  struct FloatCase {
    PixelFormat format;
    int src_width, src_height, out_width, out_height;
    Interpolation method;
    bool antialias;
    ChannelOrder order;
    Orientation orientation;
  };
  const FloatCase cases[] = {
      {PixelFormat::kRGB, 1280, 720, 924, 518, Interpolation::kBicubic, false, ChannelOrder::kRGB,
       Orientation::kIdentity},
      {PixelFormat::kNV12, 1920, 1080, 518, 924, Interpolation::kBicubic, false, ChannelOrder::kBGR,
       Orientation::kRotate90},
      {PixelFormat::kRGBA, 1280, 720, 1701, 997, Interpolation::kBilinear, false,
       ChannelOrder::kRGB, Orientation::kIdentity},
      {PixelFormat::kRGBA, 1920, 1080, 455, 256, Interpolation::kBilinear, true, ChannelOrder::kRGB,
       Orientation::kIdentity},
      {PixelFormat::kBGRx, 1920, 1080, 455, 256, Interpolation::kBicubic, true, ChannelOrder::kBGR,
       Orientation::kIdentity},
      {PixelFormat::kRGB, 97, 61, 33, 29, Interpolation::kArea, false, ChannelOrder::kGray,
       Orientation::kIdentity},
  };
  double worst_opencv_steps = 0.0, worst_exact_steps = 0.0, worst_rounded_steps = 0.0;
  for (const FloatCase &fc : cases) {
    const bool opencv_positions = !fc.antialias && fc.method != Interpolation::kArea;
    Case c;
    c.format = fc.format;
    c.src_width = fc.src_width;
    c.src_height = fc.src_height;
    c.crop_left = c.crop_top = 0;
    c.out_width = fc.out_width;
    c.out_height = fc.out_height;
    c.resize.interpolation = fc.method;
    c.resize.antialias = fc.antialias;
    c.resize.orientation = fc.orientation;
    c.normalize = imagenet(fc.order);
    c.batch = 1;
    c.batch_index = 0;
    SCOPED_TRACE(describe(c));
    DeviceAllocations allocations;
    Image source;
    HostFrame visible;
    make_source(c, 17u * c.src_width + c.out_width, &allocations, &source, &visible);
    ASSERT_FALSE(HasFatalFailure());
    const int channels = channel_count(fc.order);
    const TensorDesc desc = make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, channels,
                                                        c.out_height, c.out_width, c.dtype);
    uint8_t *tensors[2] = {nullptr, nullptr};  // float intermediate, rounded
    std::vector<float> host[2];
    for (int rounded = 0; rounded < 2; ++rounded) {
      ResizeParams params = c.resize;
      params.float_intermediate = rounded == 0;
      CUDA_ASSERT_OK(allocations.allocate(tensor_span_bytes(desc), &tensors[rounded]));
      ASSERT_EQ("",
                preprocess_params_error(source, params, c.normalize, tensors[rounded], desc, 0));
      CUDA_ASSERT_OK(preprocess(source, params, c.normalize, tensors[rounded], desc, 0, stream_));
      host[rounded].resize(tensor_span_bytes(desc) / sizeof(float));
      CUDA_ASSERT_OK(cudaMemcpyAsync(host[rounded].data(), tensors[rounded],
                                     tensor_span_bytes(desc), cudaMemcpyDeviceToHost, stream_));
    }
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));

    ref::RgbaImage decoded;
    decoded.width = visible.width;
    decoded.height = visible.height;
    decoded.pixels = ref::decode_to_rgba(visible, c.resize.source_colorimetry);
    const ref::RgbaImage resampled = ref::resample(
        ref::orient(decoded, fc.orientation), c.out_width, c.out_height, fc.method, fc.antialias,
        opencv_positions ? ref::SamplePositions::kOpenCvFloat : ref::SamplePositions::kExact);
    const double bound = opencv_positions ? 0.01 : 0.05;
    double &worst_steps = opencv_positions ? worst_opencv_steps : worst_exact_steps;
    for (int channel = 0; channel < channels; ++channel) {
      const double step = c.normalize.scale / c.normalize.std[channel];
      for (int y = 0; y < c.out_height; ++y) {
        for (int x = 0; x < c.out_width; ++x) {
          const ref::RgbaPixel &pixel = resampled.at(x, y);
          const double rgb[3] = {pixel.r, pixel.g, pixel.b};
          const int source_channel = fc.order == ChannelOrder::kBGR ? 2 - channel : channel;
          const double value =
              fc.order == ChannelOrder::kGray ? ref::rgb_to_gray(pixel) : rgb[source_channel];
          const double expected =
              (value * c.normalize.scale - c.normalize.mean[channel]) / c.normalize.std[channel];
          const size_t index = (static_cast<size_t>(channel) * c.out_height + y) * c.out_width + x;
          const double steps = std::fabs(host[0][index] - expected) / step;
          worst_rounded_steps =
              std::max(worst_rounded_steps, std::fabs(host[1][index] - expected) / step);
          worst_steps = std::max(worst_steps, steps);
          ASSERT_LE(steps, bound) << "(c " << channel << ", y " << y << ", x " << x << "): fused "
                                  << host[0][index] << ", reference " << expected;
        }
      }
    }
  }
  // The rounded path is what the float intermediate improves on.
  EXPECT_GT(worst_rounded_steps, 0.4);
  std::printf(
      "float intermediate: worst %.2g 8-bit steps from the reference with cv2's float positions "
      "(bilinear, bicubic), %.2g from the exact one (antialiased, area); rounded path: %.2f\n",
      worst_opencv_steps, worst_exact_steps, worst_rounded_steps);
}

// A crop composed into the resize (dst_rect moved by minus the crop's
// corner, the tensor the crop's size) through the fused kernel: bit for bit
// the same chain with resize() doing the same, within a step of the
// reference, for the chains model configs build (PIL's 8-bit antialias with
// a centre crop, plain bicubic, a letterbox whose crop cuts the padding,
// ties rounded up).
TEST_F(PreprocessGpu, ACropComposedIntoTheResizeEqualsTheChain) {
  Stats stats;
  Case pil;  // 1080p NV12, short side 256 (455x256), centre crop 224: (115, 16)
  pil.format = PixelFormat::kNV12;
  pil.src_width = 1920;
  pil.src_height = 1080;
  pil.crop_left = pil.crop_top = 0;
  pil.out_width = pil.out_height = 224;
  pil.resize.interpolation = Interpolation::kBicubic;
  pil.resize.antialias = true;
  pil.resize.antialias_intermediate = AntialiasIntermediate::kUint8;
  pil.resize.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
  pil.resize.dst_rect = PixelRect{-115, -16, 455, 256};
  pil.normalize = imagenet(ChannelOrder::kRGB);
  pil.batch = 1;
  pil.batch_index = 0;
  run_case(pil, stream_, &stats);
  if (HasFatalFailure()) return;

  Case bicubic = pil;  // an odd RGB view, plain bicubic, float16 NHWC BGR
  bicubic.format = PixelFormat::kRGB;
  bicubic.src_width = 331;
  bicubic.src_height = 197;
  bicubic.crop_left = 3;
  bicubic.crop_top = 5;
  bicubic.out_width = 57;
  bicubic.out_height = 41;
  bicubic.resize = ResizeParams{};
  bicubic.resize.interpolation = Interpolation::kBicubic;
  bicubic.resize.dst_rect = PixelRect{-13, -29, 120, 72};
  bicubic.normalize = imagenet(ChannelOrder::kBGR);
  bicubic.dtype = DataType::kFloat16;
  bicubic.layout = TensorLayout::kNHWC;
  run_case(bicubic, stream_, &stats);
  if (HasFatalFailure()) return;

  Case letterboxed = pil;  // 4K RGBA letterboxed to 640 (640x360 at y 140), ties up
  letterboxed.format = PixelFormat::kRGBA;
  letterboxed.src_width = 3840;
  letterboxed.src_height = 2160;
  letterboxed.out_width = 320;
  letterboxed.out_height = 200;
  letterboxed.resize = ResizeParams{};
  letterboxed.resize.interpolation = Interpolation::kBilinear;
  letterboxed.resize.round_half_up = true;
  letterboxed.resize.dst_rect = PixelRect{-100, 140 - 50, 640, 360};
  const uint8_t pad[4] = {114, 114, 114, 255};
  std::copy(pad, pad + 4, letterboxed.resize.pad_value);
  letterboxed.normalize = NormalizeParams{};
  run_case(letterboxed, stream_, &stats);
  print_stats("crop composed", stats);
}

// The same composition where nothing is rounded between the sampler and the
// tensor (float_intermediate, the configs whose library resizes floats), and
// where the 8-bit step is emulated (ties either way): each element of the
// crop's tensor is bit for bit the element of the whole frame's tensor at
// the crop's offset, so a resize followed by a crop loses nothing to the
// crop.
TEST_F(PreprocessGpu, ACropComposedIntoTheResizeIsTheCropOfTheFusedTensor) {
  struct CropCase {
    PixelFormat format;
    int src_width, src_height, width, height;
    PixelRect crop;
    Interpolation method;
    bool antialias, float_intermediate, round_half_up;
  };
  const CropCase cases[] = {
      // torchvision ResNet50 on a float tensor: 1080p -> 412x232, crop 224 at (94, 4).
      {PixelFormat::kNV12,
       1920,
       1080,
       412,
       232,
       {94, 4, 224, 224},
       Interpolation::kBilinear,
       true,
       true,
       false},
      {PixelFormat::kRGBA,
       3840,
       2160,
       412,
       232,
       {94, 4, 224, 224},
       Interpolation::kBicubic,
       true,
       true,
       false},
      {PixelFormat::kRGB,
       1280,
       720,
       924,
       518,
       {11, 7, 512, 500},
       Interpolation::kBicubic,
       false,
       true,
       false},
      {PixelFormat::kI420,
       1280,
       720,
       640,
       360,
       {30, 20, 300, 300},
       Interpolation::kArea,
       false,
       true,
       false},
      {PixelFormat::kRGBA,
       3840,
       2160,
       640,
       360,
       {64, 0, 512, 360},
       Interpolation::kBilinear,
       false,
       false,
       true},
      {PixelFormat::kNV12,
       1920,
       1080,
       455,
       256,
       {115, 16, 224, 224},
       Interpolation::kBilinear,
       true,
       false,
       false},
  };
  for (const CropCase &cc : cases) {
    Case c;
    c.format = cc.format;
    c.src_width = cc.src_width;
    c.src_height = cc.src_height;
    c.crop_left = c.crop_top = 0;
    c.resize.interpolation = cc.method;
    c.resize.antialias = cc.antialias;
    c.resize.float_intermediate = cc.float_intermediate;
    c.resize.round_half_up = cc.round_half_up;
    c.normalize = imagenet(ChannelOrder::kRGB);
    SCOPED_TRACE(describe(c) + (cc.float_intermediate ? ", float intermediate" : ", 8-bit step"));
    DeviceAllocations allocations;
    Image source;
    HostFrame visible;
    make_source(c, 13u * c.src_width + cc.crop.x, &allocations, &source, &visible);
    ASSERT_FALSE(HasFatalFailure());
    std::vector<float> tensors[2];  // whole, crop
    for (int cropped = 0; cropped < 2; ++cropped) {
      ResizeParams params = c.resize;
      const int width = cropped ? cc.crop.width : cc.width;
      const int height = cropped ? cc.crop.height : cc.height;
      if (cropped) params.dst_rect = PixelRect{-cc.crop.x, -cc.crop.y, cc.width, cc.height};
      const TensorDesc desc =
          make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 3, height, width, DataType::kFloat32);
      uint8_t *tensor = nullptr;
      CUDA_ASSERT_OK(allocations.allocate(tensor_span_bytes(desc), &tensor));
      ASSERT_EQ("", preprocess_params_error(source, params, c.normalize, tensor, desc, 0));
      CUDA_ASSERT_OK(preprocess(source, params, c.normalize, tensor, desc, 0, stream_));
      tensors[cropped].resize(tensor_span_bytes(desc) / sizeof(float));
      CUDA_ASSERT_OK(cudaMemcpyAsync(tensors[cropped].data(), tensor, tensor_span_bytes(desc),
                                     cudaMemcpyDeviceToHost, stream_));
    }
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
    long long compared = 0;
    for (int channel = 0; channel < 3; ++channel) {
      for (int y = 0; y < cc.crop.height; ++y) {
        for (int x = 0; x < cc.crop.width; ++x) {
          const float cropped =
              tensors[1][(static_cast<size_t>(channel) * cc.crop.height + y) * cc.crop.width + x];
          const float whole =
              tensors[0][(static_cast<size_t>(channel) * cc.height + y + cc.crop.y) * cc.width + x +
                         cc.crop.x];
          ASSERT_EQ(0, std::memcmp(&cropped, &whole, sizeof(float)))
              << "(c " << channel << ", y " << y << ", x " << x << "): crop " << cropped
              << ", whole frame " << whole;
          ++compared;
        }
      }
    }
    EXPECT_EQ(3LL * cc.crop.width * cc.crop.height, compared);
  }
}

// --- Validation: no GPU needed, nothing is launched ------------------------

TEST(PreprocessValidation, ImpossibleInputsAreRejectedWithReasons) {
  alignas(16) static uint8_t tensor_storage[16];
  void *const tensor = tensor_storage;
  const Image src = fake_image(PixelFormat::kNV12, 64, 48);
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 2, 3, 32, 40, DataType::kFloat32);
  const ResizeParams resize_params;
  const NormalizeParams normalize_params;
  EXPECT_EQ("", preprocess_params_error(src, resize_params, normalize_params, tensor, desc, 1));

  const auto expect_rejected = [&](const Image &image, const ResizeParams &rp,
                                   const NormalizeParams &np, void *data, const TensorDesc &d,
                                   int batch_index, const char *expected_words) {
    const std::string error = preprocess_params_error(image, rp, np, data, d, batch_index);
    EXPECT_NE(std::string::npos, error.find(expected_words)) << "error was: \"" << error << "\"";
    EXPECT_EQ(cudaErrorInvalidValue, preprocess(image, rp, np, data, d, batch_index, nullptr));
  };
  expect_rejected(src, resize_params, normalize_params, tensor,
                  make_contiguous_tensor_desc(TensorLayout::kNCHW, 2, 3, 32, 40, DataType::kUInt8),
                  0, "float32 or float16, not uint8");
  expect_rejected(src, resize_params, normalize_params, tensor, desc, 2, "batch index");
  expect_rejected(src, resize_params, normalize_params, nullptr, desc, 0, "no memory");
  NormalizeParams gray = normalize_params;
  gray.channel_order = ChannelOrder::kGray;
  expect_rejected(src, resize_params, gray, tensor, desc, 0, "channel count");
  NormalizeParams zero_std = normalize_params;
  zero_std.std[2] = 0.0f;
  expect_rejected(src, resize_params, zero_std, tensor, desc, 0, "std is 0");
  NormalizeParams nan_scale = normalize_params;
  nan_scale.scale = std::nanf("");
  expect_rejected(src, resize_params, nan_scale, tensor, desc, 0, "scale is not a finite");

  Image no_chroma = src;
  no_chroma.planes[1].data = nullptr;
  expect_rejected(no_chroma, resize_params, normalize_params, tensor, desc, 0,
                  "source plane 1 (NV12) has no data");
  expect_rejected(fake_image(PixelFormat::kNV12, 0, 48), resize_params, normalize_params, tensor,
                  desc, 0, "source size 0x48");
  ResizeParams empty = resize_params;
  empty.dst_rect = PixelRect{10, 0, 0, 32};
  expect_rejected(src, empty, normalize_params, tensor, desc, 0,
                  "is empty or too far from the 40x32 destination");
  ResizeParams unknown = resize_params;
  unknown.interpolation = static_cast<Interpolation>(17);
  expect_rejected(src, unknown, normalize_params, tensor, desc, 0, "unknown interpolation");
}

}  // namespace
}  // namespace cudaprep
