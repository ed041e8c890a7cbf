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
// (A crop composed into the resize: test_preprocess_crop_gpu.cpp.)
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "common/preprocess_gpu_rig.h"
#include "cudaprep/preprocess.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "cudaprep/tensor.h"
#include "reference/color_ref.h"
#include "reference/resize_ref.h"

namespace cudaprep {
namespace {

using ref::HostFrame;
using test::DeviceAllocations;
using test::fake_image;
using namespace test::preprocess_gpu_rig;

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
