#include "common/resize_gpu_rig.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "cudaprep/resize.h"
#include "reference/color_ref.h"

namespace cudaprep::test::resize_gpu_rig {

using ref::HostFrame;

namespace {

constexpr uint8_t kPoison = 0xA5;

size_t plane_byte_offset(PixelFormat format, int plane, const ViewOffset &offset) {
  const PlaneLayout layout = format_info(format).planes[plane];
  return static_cast<size_t>(offset.left / layout.pixels_per_unit) * layout.unit_bytes;
}

int plane_row_offset(PixelFormat format, int plane, const ViewOffset &offset) {
  return offset.top / format_info(format).planes[plane].height_divisor;
}

}  // namespace

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

cudaError_t resize_and_download(const Image &src, const ResizeParams &params, cudaStream_t stream,
                                DestinationView *destination) {
  cudaError_t status = resize(src, destination->device, params, stream);
  if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
  if (status != cudaSuccess) return status;
  return cudaMemcpy(destination->parent.planes[0].data(), destination->device_base,
                    destination->parent.planes[0].size(), cudaMemcpyDeviceToHost);
}

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

}  // namespace cudaprep::test::resize_gpu_rig
