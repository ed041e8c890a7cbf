// cudaprep::resize()'s identities on the GPU, bit for bit: same size and
// format returns the input with every method; a flip or rotation is the
// resize of the source turned on the CPU (and within +-1 of the CPU
// reference of the whole), and turned at its own size the turned source
// itself; a crop of a resize is the resize into the moved rectangle, with
// nothing written outside the crop's destination view; a bilinear shrink
// by odd whole numbers is the source's centre pixels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "common/resize_gpu_rig.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "reference/color_ref.h"
#include "reference/resize_ref.h"

namespace cudaprep {
namespace {

using ref::HostFrame;
using test::DeviceAllocations;
using namespace test::resize_gpu_rig;

// Same size, same format: every method returns the input unchanged.
TEST_F(ResizeGpu, OneToOneIsExact) {
  for (const PixelFormat format : {PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGB,
                                   PixelFormat::kBGR, PixelFormat::kGRAY8}) {
    for (const Interpolation method : kMethods) {
      DeviceAllocations allocations;
      SourceView source;
      make_source_view(format, 45, 27, 5, &allocations, &source);
      ASSERT_FALSE(HasFatalFailure());
      DestinationView destination;
      make_destination_view(format, 45, 27, &allocations, &destination);
      ASSERT_FALSE(HasFatalFailure());
      ResizeParams params;
      params.interpolation = method;
      CUDA_ASSERT_OK(resize_and_download(source.device, params, stream_, &destination));
      Comparison stats;
      ASSERT_TRUE(check_destination(
          destination, source.visible, 0,
          std::string("1:1 ") + pixel_format_name(format) + " " + interpolation_name(method),
          &stats));
    }
  }
}

const Orientation kOrientations[] = {
    Orientation::kIdentity,  Orientation::kRotate90,       Orientation::kRotate180,
    Orientation::kRotate270, Orientation::kFlipHorizontal, Orientation::kFlipVertical,
    Orientation::kTranspose, Orientation::kAntiTranspose,
};

// resize(src, params) into a fresh width x height destination of
// `dst_format`, copied back (the whole view).
HostFrame resized_on_gpu(const Image &src, PixelFormat dst_format, int width, int height,
                         const ResizeParams &params, cudaStream_t stream) {
  DeviceAllocations allocations;
  DestinationView destination;
  make_destination_view(dst_format, width, height, &allocations, &destination);
  EXPECT_EQ("", resize_params_error(src, destination.device, params));
  EXPECT_EQ(cudaSuccess, resize_and_download(src, params, stream, &destination));
  return window(destination.parent, ViewOffset{kGuardPixels, kGuardPixels}, width, height);
}

struct MethodCase {
  Interpolation method;
  bool antialias;
};
const MethodCase kAllSamplers[] = {
    {Interpolation::kNearest, false}, {Interpolation::kBilinear, false},
    {Interpolation::kBicubic, false}, {Interpolation::kArea, false},
    {Interpolation::kBilinear, true}, {Interpolation::kBicubic, true},
};

// A flip or rotation is the resize of the source oriented on the CPU
// (ref::orient, checked against cv::rotate/cv::flip), bit for bit: every
// orientation x every sampler (antialiased too) x RGB, RGBA (32-bit loads),
// GRAY8, NV12 and P010 views (odd pitch, offset), down and up, into a
// letterbox rectangle of the oriented aspect ratio; and within 1 of the
// CPU reference of the whole (decode, orient, resample, pad).
TEST_F(ResizeGpu, OrientedIsTheResizeOfTheOrientedSourceBitForBit) {
  const SizePair sizes[] = {{38, 26, 41, 41}, {38, 26, 90, 70}};
  Comparison stats;
  int cases = 0;
  for (const PixelFormat format : {PixelFormat::kRGB, PixelFormat::kRGBA, PixelFormat::kGRAY8,
                                   PixelFormat::kNV12, PixelFormat::kP010}) {
    for (const SizePair &size : sizes) {
      DeviceAllocations allocations;
      SourceView source;
      make_source_view(format, size.src_width, size.src_height, 77u + static_cast<unsigned>(format),
                       &allocations, &source);
      ASSERT_FALSE(HasFatalFailure());
      for (const Orientation orientation : kOrientations) {
        const HostFrame turned = ref::orient(source.visible, orientation);
        ASSERT_FALSE(HasFatalFailure());
        Image turned_view;
        upload_view(turned, ViewOffset{}, turned.width, turned.height, &allocations, &turned_view);
        ASSERT_FALSE(HasFatalFailure());
        for (const MethodCase &sampler : kAllSamplers) {
          ResizeParams params;
          params.interpolation = sampler.method;
          params.antialias = sampler.antialias;
          params.pad_value[0] = 114;
          std::string error;
          ASSERT_TRUE(letterbox_rect(turned.width, turned.height, size.dst_width, size.dst_height,
                                     LetterboxOptions{}, &params.dst_rect, &error))
              << error;
          std::ostringstream what;
          what << pixel_format_name(format) << " " << size.src_width << "x" << size.src_height
               << " " << orientation_name(orientation) << " -> " << size.dst_width << "x"
               << size.dst_height << " " << interpolation_name(sampler.method)
               << (sampler.antialias ? " antialiased" : "");
          SCOPED_TRACE(what.str());
          ResizeParams oriented_params = params;
          oriented_params.orientation = orientation;
          const HostFrame oriented =
              resized_on_gpu(source.device, PixelFormat::kRGB, size.dst_width, size.dst_height,
                             oriented_params, stream_);
          const HostFrame expected = resized_on_gpu(turned_view, PixelFormat::kRGB, size.dst_width,
                                                    size.dst_height, params, stream_);
          ASSERT_FALSE(HasFatalFailure());
          ASSERT_EQ(expected.planes[0], oriented.planes[0]);
          ++cases;
          if (format == PixelFormat::kP010) continue;  // 8-bit references only
          const HostFrame reference = ref::resize_reference(
              source.visible, PixelFormat::kRGB, size.dst_width, size.dst_height, oriented_params);
          for (size_t i = 0; i < reference.planes[0].size(); ++i) {
            const int diff = std::abs(int(reference.planes[0][i]) - int(oriented.planes[0][i]));
            ASSERT_LE(diff, 1) << "byte " << i << ": GPU " << int(oriented.planes[0][i])
                               << ", reference " << int(reference.planes[0][i]);
            ++stats.values;
            if (diff == 1) ++stats.off_by_one;
          }
        }
      }
    }
  }
  std::printf(
      "[ orientations ] %d cases bit for bit; %lld values against the reference, %lld off "
      "by one\n",
      cases, stats.values, stats.off_by_one);
}

// Turned at its own size (no resampling), every method gives the oriented
// source itself: the CPU definition, byte for byte.
TEST_F(ResizeGpu, OrientationAloneEqualsTheDefinition) {
  for (const PixelFormat format : {PixelFormat::kRGB, PixelFormat::kBGRA, PixelFormat::kGRAY8}) {
    DeviceAllocations allocations;
    SourceView source;
    make_source_view(format, 45, 27, 9, &allocations, &source);
    ASSERT_FALSE(HasFatalFailure());
    for (const Orientation orientation : kOrientations) {
      const HostFrame expected = ref::orient(source.visible, orientation);
      for (const Interpolation method : kMethods) {
        ResizeParams params;
        params.interpolation = method;
        params.orientation = orientation;
        const HostFrame actual =
            resized_on_gpu(source.device, format, expected.width, expected.height, params, stream_);
        ASSERT_FALSE(HasFatalFailure());
        ASSERT_EQ(expected.planes[0], actual.planes[0])
            << pixel_format_name(format) << " " << orientation_name(orientation) << " "
            << interpolation_name(method);
      }
    }
  }
}

// A crop (x, y, w, h) of a resize into rectangle R is the resize into R
// moved by (-x, -y), in a w x h destination, bit for bit: what lets a crop
// after a pending resize fold into the fused kernel. Every sampler, both
// antialias intermediates, stretched and letterboxed (crops of the padding
// too), and the torchvision classifier's geometry (1080p to the short side
// 232, centre crop 224). Nothing outside the crop's destination is written.
TEST_F(ResizeGpu, ACropOfTheResizeIsTheMovedResizeBitForBit) {
  struct Sampler {
    Interpolation method;
    bool antialias;
    AntialiasIntermediate intermediate;
  };
  const Sampler samplers[] = {
      {Interpolation::kNearest, false, AntialiasIntermediate::kFloat},
      {Interpolation::kBilinear, false, AntialiasIntermediate::kFloat},
      {Interpolation::kBicubic, false, AntialiasIntermediate::kFloat},
      {Interpolation::kArea, false, AntialiasIntermediate::kFloat},
      {Interpolation::kBilinear, true, AntialiasIntermediate::kFloat},
      {Interpolation::kBicubic, true, AntialiasIntermediate::kFloat},
      {Interpolation::kBilinear, true, AntialiasIntermediate::kUint8},
      {Interpolation::kBicubic, true, AntialiasIntermediate::kUint8},
  };
  struct Geometry {
    int src_width, src_height, width, height;
    PixelRect rect;  // of the whole resize; 0x0: the whole frame
    std::vector<PixelRect> crops;
  };
  const Geometry geometries[] = {
      {96, 54, 64, 48, PixelRect{}, {{10, 7, 20, 13}, {0, 0, 64, 48}, {49, 40, 15, 8}}},
      {96, 54, 64, 48, PixelRect{0, 6, 64, 36}, {{3, 0, 30, 10}, {0, 0, 64, 5}, {20, 20, 44, 28}}},
      {1920, 1080, 412, 232, PixelRect{}, {{94, 4, 224, 224}}},
  };
  int compared = 0;
  for (const Sampler &sampler : samplers) {
    for (const PixelFormat src_format : {PixelFormat::kNV12, PixelFormat::kRGBA}) {
      for (const Geometry &geometry : geometries) {
        DeviceAllocations allocations;
        SourceView source;
        make_source_view(src_format, geometry.src_width, geometry.src_height,
                         31u * geometry.src_width + static_cast<unsigned>(src_format), &allocations,
                         &source);
        ASSERT_FALSE(HasFatalFailure());
        Case whole{src_format,     geometry.src_width, geometry.src_height, PixelFormat::kRGB,
                   geometry.width, geometry.height,    ResizeParams{}};
        whole.params.interpolation = sampler.method;
        whole.params.antialias = sampler.antialias;
        whole.params.antialias_intermediate = sampler.intermediate;
        whole.params.dst_rect = geometry.rect;
        const uint8_t pad[4] = {114, 20, 250, 77};
        std::copy(pad, pad + 4, whole.params.pad_value);
        SCOPED_TRACE(describe(whole));
        DestinationView full;
        make_destination_view(PixelFormat::kRGB, geometry.width, geometry.height, &allocations,
                              &full);
        ASSERT_FALSE(HasFatalFailure());
        CUDA_ASSERT_OK(resize_and_download(source.device, whole.params, stream_, &full));
        const PixelRect rect = geometry.rect.width > 0
                                   ? geometry.rect
                                   : PixelRect{0, 0, geometry.width, geometry.height};
        for (const PixelRect &crop : geometry.crops) {
          ResizeParams moved = whole.params;
          moved.dst_rect = PixelRect{rect.x - crop.x, rect.y - crop.y, rect.width, rect.height};
          DestinationView cropped;
          make_destination_view(PixelFormat::kRGB, crop.width, crop.height, &allocations, &cropped);
          ASSERT_FALSE(HasFatalFailure());
          ASSERT_EQ("", resize_params_error(source.device, cropped.device, moved));
          CUDA_ASSERT_OK(resize_and_download(source.device, moved, stream_, &cropped));
          const HostFrame expected =
              window(full.parent, ViewOffset{kGuardPixels + crop.x, kGuardPixels + crop.y},
                     crop.width, crop.height);
          Comparison stats;
          ASSERT_TRUE(check_destination(
              cropped, expected, 0,
              "crop " + std::to_string(crop.width) + "x" + std::to_string(crop.height) + " at (" +
                  std::to_string(crop.x) + ", " + std::to_string(crop.y) + ")",
              &stats));
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(8 * 2 * 7, compared);
}

// A bilinear shrink by an odd whole number k along an axis samples at
// (d + 0.5) k - 0.5 = d k + (k - 1) / 2, a whole pixel, where bilinear is
// that pixel alone (the samplers then read it alone: resample_ops.cuh's
// whole_pixels). RGBA, RGB and GRAY8 views (odd pitches), 1x, 3x and 5x per
// axis, stretched and letterboxed: bit for bit the source's centre pixels,
// the pad around them.
TEST_F(ResizeGpu, OddWholeNumberBilinearShrinkIsTheCentrePixels) {
  struct Geometry {
    int width, height;  // of the destination
    PixelRect rect;     // the resampled source in it; 0x0: the whole destination
  };
  const Geometry geometries[] = {
      {25, 15, PixelRect{}},
      {15, 9, PixelRect{}},
      {25, 9, PixelRect{}},
      {75, 9, PixelRect{}},
      {25, 21, PixelRect{0, 3, 25, 15}},
      {31, 15, PixelRect{6, 0, 25, 15}},
  };
  const uint8_t pad[4] = {114, 20, 250, 77};
  for (const PixelFormat format : {PixelFormat::kRGBA, PixelFormat::kRGB, PixelFormat::kGRAY8}) {
    const int bytes_per_pixel = format == PixelFormat::kRGBA  ? 4
                                : format == PixelFormat::kRGB ? 3
                                                              : 1;
    for (const Geometry &geometry : geometries) {
      DeviceAllocations allocations;
      SourceView source;
      make_source_view(format, 75, 45, 7u + static_cast<unsigned>(format), &allocations, &source);
      ASSERT_FALSE(HasFatalFailure());
      ResizeParams params;
      params.interpolation = Interpolation::kBilinear;
      params.dst_rect = geometry.rect;
      std::copy(pad, pad + 4, params.pad_value);
      const PixelRect rect = geometry.rect.width > 0
                                 ? geometry.rect
                                 : PixelRect{0, 0, geometry.width, geometry.height};
      const int step_x = 75 / rect.width, step_y = 45 / rect.height;
      HostFrame expected(format, geometry.width, geometry.height);
      for (int y = 0; y < geometry.height; ++y) {
        for (int x = 0; x < geometry.width; ++x) {
          uint8_t *out = expected.row(0, y) + x * bytes_per_pixel;
          const int rect_x = x - rect.x, rect_y = y - rect.y;
          if (rect_x < 0 || rect_y < 0 || rect_x >= rect.width || rect_y >= rect.height) {
            std::copy(pad, pad + bytes_per_pixel, out);
            // A gray destination's pad is the pad colour's luma (cv::cvtColor).
            if (format == PixelFormat::kGRAY8)
              out[0] = static_cast<uint8_t>(std::lround(ref::rgb_to_gray({114, 20, 250, 77})));
            continue;
          }
          const uint8_t *centre = source.visible.row(0, rect_y * step_y + (step_y - 1) / 2) +
                                  (rect_x * step_x + (step_x - 1) / 2) * bytes_per_pixel;
          std::copy(centre, centre + bytes_per_pixel, out);
        }
      }
      DestinationView destination;
      make_destination_view(format, geometry.width, geometry.height, &allocations, &destination);
      ASSERT_FALSE(HasFatalFailure());
      ASSERT_EQ("", resize_params_error(source.device, destination.device, params));
      CUDA_ASSERT_OK(resize_and_download(source.device, params, stream_, &destination));
      Comparison stats;
      ASSERT_TRUE(check_destination(
          destination, expected, 0,
          std::string(pixel_format_name(format)) + " 75x45 -> " + std::to_string(rect.width) + "x" +
              std::to_string(rect.height) + " in " + std::to_string(geometry.width) + "x" +
              std::to_string(geometry.height),
          &stats));
    }
  }
}

}  // namespace
}  // namespace cudaprep
