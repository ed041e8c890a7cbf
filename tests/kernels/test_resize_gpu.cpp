// cudaprep::resize() on the GPU against the CPU reference (tests/reference),
// within +-1 per 8-bit value: every source format x destination format x
// interpolation, sizes up/down/odd/1-pixel, sources that are crops of a
// larger oddly-pitched allocation, letterbox padding, and no write outside
// the destination view (poisoned before each run); flips and rotations bit
// for bit the resize of the source turned on the CPU. Failures name the
// formats, method, sizes and the first bad pixel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "reference/color_ref.h"
#include "reference/resize_ref.h"

namespace cudaprep {
namespace {

using ref::HostFrame;
using test::DeviceAllocations;
using test::fake_image;

const PixelFormat kSourceFormats[] = {
    PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx,  PixelFormat::kBGRx,
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kGRAY8, PixelFormat::kNV12,
    PixelFormat::kI420, PixelFormat::kYUY2,
};
const PixelFormat kDestinationFormats[] = {
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kRGBA,  PixelFormat::kBGRA,
    PixelFormat::kRGBx, PixelFormat::kBGRx, PixelFormat::kGRAY8,
};
const Interpolation kMethods[] = {Interpolation::kNearest, Interpolation::kBilinear,
                                  Interpolation::kBicubic, Interpolation::kArea};

constexpr uint8_t kPoison = 0xA5;

// Where a view starts inside a larger frame, in pixels.
struct ViewOffset {
  int left = 0;
  int top = 0;
};

size_t plane_byte_offset(PixelFormat format, int plane, const ViewOffset &offset) {
  const PlaneLayout layout = format_info(format).planes[plane];
  return static_cast<size_t>(offset.left / layout.pixels_per_unit) * layout.unit_bytes;
}

int plane_row_offset(PixelFormat format, int plane, const ViewOffset &offset) {
  return offset.top / format_info(format).planes[plane].height_divisor;
}

// The width x height window of `frame` at `offset`, as a compact frame.
HostFrame window(const HostFrame &frame, const ViewOffset &offset, int width, int height) {
  HostFrame out(frame.format, width, height);
  for (int plane = 0; plane < format_info(frame.format).num_planes; ++plane) {
    const size_t column = plane_byte_offset(frame.format, plane, offset);
    const int first_row = plane_row_offset(frame.format, plane, offset);
    for (int y = 0; y < plane_height(frame.format, plane, height); ++y) {
      std::memcpy(out.row(plane, y), frame.row(plane, first_row + y) + column,
                  plane_row_bytes(frame.format, plane, width));
    }
  }
  return out;
}

// A device copy of `parent` (same pitches) and the view of it at `offset`.
void upload_view(const HostFrame &parent, const ViewOffset &offset, int width, int height,
                 DeviceAllocations *allocations, Image *view) {
  view->format = parent.format;
  view->width = width;
  view->height = height;
  for (int plane = 0; plane < format_info(parent.format).num_planes; ++plane) {
    uint8_t *base = nullptr;
    CUDA_ASSERT_OK(allocations->allocate(parent.planes[plane].size(), &base));
    CUDA_ASSERT_OK(cudaMemcpy(base, parent.planes[plane].data(), parent.planes[plane].size(),
                              cudaMemcpyHostToDevice));
    view->planes[plane].data =
        base + plane_row_offset(parent.format, plane, offset) * parent.pitch_bytes[plane] +
        plane_byte_offset(parent.format, plane, offset);
    view->planes[plane].pitch_bytes = parent.pitch_bytes[plane];
  }
  // Pageable cudaMemcpy and cudaMemset may return before the device holds
  // the bytes, and kernels on non-blocking streams do not wait for them.
  CUDA_ASSERT_OK(cudaDeviceSynchronize());
}

void fill_random(HostFrame *frame, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto &plane : frame->planes) {
    for (uint8_t &value : plane) value = static_cast<uint8_t>(byte(generator));
  }
}

// A source view: a crop at an offset (even for subsampled chroma) of a
// larger frame whose pitch is row bytes + 13, so rows start unaligned
// (+ 14 for 16-bit samples, which must stay 2-byte aligned).
struct SourceView {
  HostFrame visible;  // what the view shows, for the reference
  Image device;
};

void make_source_view(PixelFormat format, int width, int height, unsigned seed,
                      DeviceAllocations *allocations, SourceView *source) {
  const ViewOffset offset{is_chroma_subsampled(format) ? 4 : 3, 2};
  const bool sixteen_bit = bits_per_sample(format) > 8;
  HostFrame parent(format, width + offset.left + 5, height + offset.top + 3,
                   /*extra_pitch_bytes=*/sixteen_bit ? 14 : 13);
  fill_random(&parent, seed);
  source->visible = window(parent, offset, width, height);
  upload_view(parent, offset, width, height, allocations, &source->device);
}

// A destination view inside a poisoned frame with a border of
// kGuardPixels on every side and 7 spare bytes per row.
constexpr int kGuardPixels = 2;

struct DestinationView {
  HostFrame parent;  // downloaded after the run
  uint8_t *device_base = nullptr;
  Image device;
};

void make_destination_view(PixelFormat format, int width, int height,
                           DeviceAllocations *allocations, DestinationView *destination) {
  destination->parent = HostFrame(format, width + 2 * kGuardPixels, height + 2 * kGuardPixels, 7);
  const size_t bytes = destination->parent.planes[0].size();
  CUDA_ASSERT_OK(allocations->allocate(bytes, &destination->device_base));
  CUDA_ASSERT_OK(cudaMemset(destination->device_base, kPoison, bytes));
  // Pageable cudaMemcpy and cudaMemset may return before the device holds
  // the bytes, and kernels on non-blocking streams do not wait for them.
  CUDA_ASSERT_OK(cudaDeviceSynchronize());
  destination->device.format = format;
  destination->device.width = width;
  destination->device.height = height;
  destination->device.planes[0].pitch_bytes = destination->parent.pitch_bytes[0];
  destination->device.planes[0].data = destination->device_base +
                                       kGuardPixels * destination->parent.pitch_bytes[0] +
                                       plane_row_bytes(format, 0, kGuardPixels);
}

struct Comparison {
  long long values = 0;
  long long off_by_one = 0;
};

// The view must match `expected` within `tolerance`; every byte of the
// parent outside the view must still be poison.
::testing::AssertionResult check_destination(const DestinationView &destination,
                                             const HostFrame &expected, int tolerance,
                                             const std::string &what, Comparison *stats) {
  const HostFrame &parent = destination.parent;
  const int bytes_per_pixel = static_cast<int>(plane_row_bytes(parent.format, 0, 1));
  const size_t view_start = plane_row_bytes(parent.format, 0, kGuardPixels);
  const size_t view_bytes = plane_row_bytes(parent.format, 0, expected.width);
  for (int y = 0; y < parent.height; ++y) {
    const uint8_t *row = parent.row(0, y);
    const int view_y = y - kGuardPixels;
    const bool row_in_view = view_y >= 0 && view_y < expected.height;
    for (size_t i = 0; i < parent.pitch_bytes[0]; ++i) {
      const bool in_view = row_in_view && i >= view_start && i < view_start + view_bytes;
      if (!in_view) {
        if (row[i] != kPoison) {
          return ::testing::AssertionFailure()
                 << what << ": wrote outside the destination view at parent row " << y << ", byte "
                 << i << " (value " << int(row[i]) << ")";
        }
        continue;
      }
      const size_t view_i = i - view_start;
      const int expected_value = expected.row(0, view_y)[view_i];
      const int diff = std::abs(int(row[i]) - expected_value);
      ++stats->values;
      if (diff == 1) ++stats->off_by_one;
      if (diff > tolerance) {
        return ::testing::AssertionFailure()
               << what << ": first mismatch at pixel (x " << view_i / bytes_per_pixel << ", y "
               << view_y << "), byte " << view_i % bytes_per_pixel << " of the pixel: GPU "
               << int(row[i]) << ", reference " << expected_value << " (tolerance " << tolerance
               << ")";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

struct Case {
  PixelFormat src_format;
  int src_width, src_height;
  PixelFormat dst_format;
  int dst_width, dst_height;
  ResizeParams params;
};

std::string describe(const Case &c) {
  std::ostringstream out;
  out << pixel_format_name(c.src_format) << " " << c.src_width << "x" << c.src_height << " -> "
      << pixel_format_name(c.dst_format) << " " << c.dst_width << "x" << c.dst_height << ", "
      << interpolation_name(c.params.interpolation);
  if (c.params.antialias) {
    out << ", antialiased, " << antialias_intermediate_name(c.params.antialias_intermediate)
        << " intermediate";
  }
  const PixelRect &rect = c.params.dst_rect;
  if (rect.width != 0 || rect.height != 0) {
    out << ", into " << rect.width << "x" << rect.height << " at (" << rect.x << ", " << rect.y
        << ") padded with {" << int(c.params.pad_value[0]) << ", " << int(c.params.pad_value[1])
        << ", " << int(c.params.pad_value[2]) << ", " << int(c.params.pad_value[3]) << "}";
  }
  return out.str();
}

// Runs one case on the GPU (source view, poisoned destination view) and
// compares with the reference.
void run_case(const Case &c, cudaStream_t stream, Comparison *stats, int tolerance = 1) {
  DeviceAllocations allocations;
  SourceView source;
  make_source_view(c.src_format, c.src_width, c.src_height,
                   1000u * c.src_width + 10u * c.src_height + static_cast<unsigned>(c.src_format),
                   &allocations, &source);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  DestinationView destination;
  make_destination_view(c.dst_format, c.dst_width, c.dst_height, &allocations, &destination);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());

  const std::string what = describe(c);
  ASSERT_EQ("", resize_params_error(source.device, destination.device, c.params)) << what;
  CUDA_ASSERT_OK(resize(source.device, destination.device, c.params, stream));
  CUDA_ASSERT_OK(cudaStreamSynchronize(stream));
  CUDA_ASSERT_OK(cudaMemcpy(destination.parent.planes[0].data(), destination.device_base,
                            destination.parent.planes[0].size(), cudaMemcpyDeviceToHost));

  const HostFrame expected =
      ref::resize_reference(source.visible, c.dst_format, c.dst_width, c.dst_height, c.params);
  ASSERT_TRUE(check_destination(destination, expected, tolerance, what, stats));
}

class ResizeGpu : public test::GpuStreamTest {};

struct SizePair {
  int src_width, src_height, dst_width, dst_height;
};

// Odd sizes, up and down, non-integer ratios, same size, 1-pixel sides.
const SizePair kMatrixSizes[] = {
    {37, 23, 64, 48}, {101, 67, 33, 29}, {32, 24, 32, 24}, {1, 9, 5, 3},
    {16, 1, 3, 7},    {9, 13, 1, 1},     {24, 16, 8, 8},   {31, 17, 47, 9},
};

class ResizeGpuMatrix
    : public ResizeGpu,
      public ::testing::WithParamInterface<std::tuple<PixelFormat, Interpolation>> {};

TEST_P(ResizeGpuMatrix, EveryDestinationFormatAndSize) {
  const auto [src_format, method] = GetParam();
  Comparison stats;
  int cases = 0;
  for (const PixelFormat dst_format : kDestinationFormats) {
    for (const SizePair &size : kMatrixSizes) {
      Case c{src_format,     size.src_width,  size.src_height, dst_format,
             size.dst_width, size.dst_height, ResizeParams{}};
      c.params.interpolation = method;
      c.params.source_colorimetry = Colorimetry{ColorMatrix::kBT709, ColorRange::kLimited};
      run_case(c, stream_, &stats);
      if (HasFatalFailure()) return;
      ++cases;
    }
  }
  std::printf("[ %s %s ] %d cases, %lld values, %lld off by one\n", pixel_format_name(src_format),
              interpolation_name(method), cases, stats.values, stats.off_by_one);
}

INSTANTIATE_TEST_SUITE_P(AllSourcesAllMethods, ResizeGpuMatrix,
                         ::testing::Combine(::testing::ValuesIn(kSourceFormats),
                                            ::testing::ValuesIn(kMethods)),
                         [](const auto &info) {
                           return std::string(pixel_format_name(std::get<0>(info.param))) + "_" +
                                  interpolation_name(std::get<1>(info.param));
                         });

// Every colorimetry on every YUV format, at a mild downscale.
TEST_F(ResizeGpu, YuvColorimetries) {
  Comparison stats;
  for (const PixelFormat src_format :
       {PixelFormat::kNV12, PixelFormat::kI420, PixelFormat::kYUY2}) {
    for (const ColorMatrix matrix : {ColorMatrix::kBT601, ColorMatrix::kBT709}) {
      for (const ColorRange range : {ColorRange::kLimited, ColorRange::kFull}) {
        Case c{src_format, 66, 42, PixelFormat::kRGB, 51, 37, ResizeParams{}};
        c.params.interpolation = Interpolation::kBilinear;
        c.params.source_colorimetry = Colorimetry{matrix, range};
        run_case(c, stream_, &stats);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Letterbox rectangles from letterbox_rect(), centred and top-left, with a
// pad colour whose channels differ so that a swapped order shows.
TEST_F(ResizeGpu, LetterboxPadsOutsideTheRectangle) {
  Comparison stats;
  for (const LetterboxAlign align : {LetterboxAlign::kCenter, LetterboxAlign::kTopLeft}) {
    for (const PixelFormat dst_format : kDestinationFormats) {
      for (const PixelFormat src_format :
           {PixelFormat::kNV12, PixelFormat::kBGR, PixelFormat::kRGBA}) {
        for (const auto &[src_width, src_height] : {std::pair{96, 54}, {40, 70}}) {
          Case c{src_format, src_width, src_height, dst_format, 64, 48, ResizeParams{}};
          c.params.interpolation = Interpolation::kBilinear;
          LetterboxOptions options;
          options.align = align;
          std::string error;
          ASSERT_TRUE(letterbox_rect(src_width, src_height, c.dst_width, c.dst_height, options,
                                     &c.params.dst_rect, &error))
              << error;
          const uint8_t pad[4] = {114, 20, 250, 77};
          std::copy(pad, pad + 4, c.params.pad_value);
          run_case(c, stream_, &stats);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  // Any rectangle inside, including one touching no edge.
  Case c{PixelFormat::kRGB, 33, 21, PixelFormat::kRGBA, 40, 30, ResizeParams{}};
  c.params.interpolation = Interpolation::kBicubic;
  c.params.dst_rect = PixelRect{5, 3, 29, 17};
  run_case(c, stream_, &stats);
}

// Realistic frame sizes, where float coordinates have the least headroom.
TEST_F(ResizeGpu, CameraSizedFrames) {
  Comparison stats;
  for (const Interpolation method : kMethods) {
    for (const PixelFormat src_format : {PixelFormat::kNV12, PixelFormat::kRGBA}) {
      Case down{src_format, 1920, 1080, PixelFormat::kRGB, 640, 360, ResizeParams{}};
      down.params.interpolation = method;
      run_case(down, stream_, &stats);
      if (HasFatalFailure()) return;
      Case up{src_format, 300, 200, PixelFormat::kBGR, 1001, 667, ResizeParams{}};
      up.params.interpolation = method;
      run_case(up, stream_, &stats);
      if (HasFatalFailure()) return;
    }
  }
  // Depth-Anything: short side 518, multiple of 14, bicubic.
  int width = 0, height = 0;
  ASSERT_TRUE(short_side_multiple_size(1280, 720, 518, 14, &width, &height, nullptr));
  Case depth{PixelFormat::kI420, 1280, 720, PixelFormat::kRGB, width, height, ResizeParams{}};
  depth.params.interpolation = Interpolation::kBicubic;
  run_case(depth, stream_, &stats);
  std::printf("[ camera sizes ] %lld values, %lld off by one\n", stats.values, stats.off_by_one);
}

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
      CUDA_ASSERT_OK(resize(source.device, destination.device, params, stream_));
      CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
      CUDA_ASSERT_OK(cudaMemcpy(destination.parent.planes[0].data(), destination.device_base,
                                destination.parent.planes[0].size(), cudaMemcpyDeviceToHost));
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
  EXPECT_EQ(cudaSuccess, resize(src, destination.device, params, stream));
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(cudaSuccess, cudaMemcpy(destination.parent.planes[0].data(), destination.device_base,
                                    destination.parent.planes[0].size(), cudaMemcpyDeviceToHost));
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

// --- Validation: no GPU needed, nothing is launched ------------------------

// Antialiased bilinear and bicubic (the torchvision/PIL definition) against
// the reference, with either intermediate between the passes: every source
// format through an odd view, the downscales it is for (1080p and 4K to
// torchvision's Resize(256), odd factors), an upscale, one axis down and
// one up, and a letterbox.
TEST_F(ResizeGpu, AntialiasedMatchesTheReference) {
  const SizePair sizes[] = {{1920, 1080, 455, 256},
                            {3840, 2160, 455, 256},
                            {101, 67, 33, 29},
                            {37, 23, 64, 48},
                            {120, 30, 37, 71}};
  Comparison stats;
  for (const auto &[method, intermediate] :
       {std::pair{Interpolation::kBilinear, AntialiasIntermediate::kFloat},
        std::pair{Interpolation::kBicubic, AntialiasIntermediate::kFloat},
        std::pair{Interpolation::kBilinear, AntialiasIntermediate::kUint8},
        std::pair{Interpolation::kBicubic, AntialiasIntermediate::kUint8}}) {
    for (const PixelFormat src_format : kSourceFormats) {
      for (const SizePair &size : sizes) {
        // The big frames once per method in the formats decoders give.
        if (size.src_width > 1000 && src_format != PixelFormat::kNV12 &&
            src_format != PixelFormat::kRGBA)
          continue;
        Case c{src_format,     size.src_width,  size.src_height, PixelFormat::kRGB,
               size.dst_width, size.dst_height, ResizeParams{}};
        c.params.interpolation = method;
        c.params.antialias = true;
        c.params.antialias_intermediate = intermediate;
        run_case(c, stream_, &stats);
        if (HasFatalFailure()) return;
      }
    }
    Case letterbox{PixelFormat::kBGRx, 640, 360, PixelFormat::kBGR, 96, 96, ResizeParams{}};
    letterbox.params.interpolation = method;
    letterbox.params.antialias = true;
    letterbox.params.antialias_intermediate = intermediate;
    letterbox.params.dst_rect = PixelRect{0, 21, 96, 54};
    run_case(letterbox, stream_, &stats);
    if (HasFatalFailure()) return;
  }
  // Float against double: a byte off by one only where the value sits at .5.
  EXPECT_LT(stats.off_by_one * 100, stats.values) << stats.off_by_one << " of " << stats.values;
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
        CUDA_ASSERT_OK(resize(source.device, full.device, whole.params, stream_));
        CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
        CUDA_ASSERT_OK(cudaMemcpy(full.parent.planes[0].data(), full.device_base,
                                  full.parent.planes[0].size(), cudaMemcpyDeviceToHost));
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
          CUDA_ASSERT_OK(resize(source.device, cropped.device, moved, stream_));
          CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
          CUDA_ASSERT_OK(cudaMemcpy(cropped.parent.planes[0].data(), cropped.device_base,
                                    cropped.parent.planes[0].size(), cudaMemcpyDeviceToHost));
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

// A moved rectangle against the CPU reference (which places it the same
// way): within one step, like every resize.
TEST_F(ResizeGpu, AMovedRectangleMatchesTheReference) {
  Comparison stats;
  for (const Interpolation method : kMethods) {
    Case c{PixelFormat::kNV12, 96, 54, PixelFormat::kBGRA, 30, 20, ResizeParams{}};
    c.params.interpolation = method;
    c.params.dst_rect = PixelRect{-17, -9, 64, 36};
    run_case(c, stream_, &stats);
    if (HasFatalFailure()) return;
  }
}

// round_half_up: a 6:1 bilinear shrink puts every sample midway between two
// source pixels (weights 1/2, 1/2 on both axes): a value is the mean of four
// bytes, a tie (k + 1/2) for one sum in four, and the two roundings differ
// on the ties with k even, one value in eight. Exact in float, each value
// must equal the reference rounded the same way, with neither tolerance nor
// exception. 3:1 (whole pixels, no ties) and an antialiased shrink (whose
// own passes round half up) match the reference with it too.
TEST_F(ResizeGpu, RoundHalfUpRoundsTiesUpAndNothingElse) {
  Comparison stats;
  for (const PixelFormat src_format : {PixelFormat::kRGBA, PixelFormat::kRGB}) {
    for (const bool half_up : {false, true}) {
      Case c{src_format, 3840, 2160, PixelFormat::kRGB, 640, 360, ResizeParams{}};
      c.params.interpolation = Interpolation::kBilinear;
      c.params.round_half_up = half_up;
      run_case(c, stream_, &stats, 0);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(0, stats.off_by_one);
  HostFrame source(PixelFormat::kRGBA, 3840, 2160);
  fill_random(&source, 5);
  ResizeParams params;
  params.interpolation = Interpolation::kBilinear;
  const HostFrame even = ref::resize_reference(source, PixelFormat::kRGB, 640, 360, params);
  params.round_half_up = true;
  const HostFrame up = ref::resize_reference(source, PixelFormat::kRGB, 640, 360, params);
  long long ties = 0;
  for (size_t i = 0; i < even.planes[0].size(); ++i) ties += even.planes[0][i] != up.planes[0][i];
  EXPECT_GT(ties * 10, static_cast<long long>(even.planes[0].size()))
      << "the roundings of a 6:1 shrink of random bytes should differ on about one value in eight";

  for (const bool antialias : {false, true}) {
    Case c{PixelFormat::kRGBA, 1920, 1080, PixelFormat::kRGB, 640, 360, ResizeParams{}};
    c.params.interpolation = Interpolation::kBilinear;
    c.params.antialias = antialias;
    c.params.antialias_intermediate =
        antialias ? AntialiasIntermediate::kUint8 : AntialiasIntermediate::kFloat;
    c.params.round_half_up = true;
    run_case(c, stream_, &stats, antialias ? 1 : 0);
    if (HasFatalFailure()) return;
  }
}

void expect_rejected(const Image &src, const Image &dst, const ResizeParams &params,
                     const char *expected_words) {
  const std::string error = resize_params_error(src, dst, params);
  EXPECT_NE(std::string::npos, error.find(expected_words)) << "error was: \"" << error << "\"";
  EXPECT_EQ(cudaErrorInvalidValue, resize(src, dst, params, nullptr));
}

TEST(ResizeValidation, ImpossibleInputsAreRejectedWithReasons) {
  const Image src = fake_image(PixelFormat::kNV12, 64, 48);
  const Image dst = fake_image(PixelFormat::kRGB, 32, 32);
  ResizeParams params;
  EXPECT_EQ("", resize_params_error(src, dst, params));

  expect_rejected(src, fake_image(PixelFormat::kNV12, 32, 32), params, "cannot write NV12");
  expect_rejected(fake_image(PixelFormat::kNV12, 0, 48), dst, params, "source size 0x48");
  expect_rejected(src, fake_image(PixelFormat::kRGB, 32, -1), params, "destination size");

  Image no_chroma = src;
  no_chroma.planes[1].data = nullptr;
  expect_rejected(no_chroma, dst, params, "source plane 1 (NV12) has no data");
  Image short_pitch = dst;
  short_pitch.planes[0].pitch_bytes = 95;
  expect_rejected(src, short_pitch, params, "pitch 95 is shorter than its row of 96");

  // A rectangle reaching beyond the destination is a crop of the resized
  // frame (its inside part is written); one that counts past INT_MAX is not.
  for (const PixelRect rect :
       {PixelRect{1, 0, 32, 32}, PixelRect{-1, 0, 4, 4}, PixelRect{0, 30, 32, 3},
        PixelRect{-500, -700, 1920, 1080}, PixelRect{40, 40, 8, 8}}) {
    params.dst_rect = rect;
    EXPECT_EQ("", resize_params_error(src, dst, params));
  }
  for (const PixelRect rect : {PixelRect{0, 0, 0, 5}, PixelRect{2147483000, 0, 1000, 1},
                               PixelRect{-2147483640, 0, 4, 4}, PixelRect{0, -2147483640, 4, 4}}) {
    params.dst_rect = rect;
    expect_rejected(src, dst, params, "is empty or too far from the 32x32 destination");
  }
  params.dst_rect = PixelRect{};
  params.interpolation = static_cast<Interpolation>(17);
  expect_rejected(src, dst, params, "unknown interpolation");
  params.antialias = true;
  for (const Interpolation method : {Interpolation::kNearest, Interpolation::kArea}) {
    params.interpolation = method;
    expect_rejected(src, dst, params, "antialias applies to bilinear and bicubic");
  }
  params = ResizeParams{};
  params.antialias_intermediate = AntialiasIntermediate::kUint8;
  expect_rejected(src, dst, params, "uint8 antialias intermediate needs antialias");
  params.antialias_intermediate = static_cast<AntialiasIntermediate>(5);
  params.antialias = true;
  expect_rejected(src, dst, params, "unknown antialias intermediate 5");
  params = ResizeParams{};
  params.float_intermediate = true;
  expect_rejected(src, dst, params, "float_intermediate is for preprocess()");
  params = ResizeParams{};
  params.orientation = static_cast<Orientation>(8);
  expect_rejected(src, dst, params, "unknown orientation 8");
}

TEST(ResizeValidation, FormatSupport) {
  for (const PixelFormat format : kSourceFormats) EXPECT_TRUE(is_resize_source_format(format));
  for (const PixelFormat format : kDestinationFormats) {
    EXPECT_TRUE(is_resize_destination_format(format));
  }
  for (const PixelFormat format : {PixelFormat::kNV12, PixelFormat::kI420, PixelFormat::kYUY2}) {
    EXPECT_FALSE(is_resize_destination_format(format));
  }
}

}  // namespace
}  // namespace cudaprep
