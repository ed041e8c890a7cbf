// Helpers for the suites that call the kernels (cudaprep/*.h) directly.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cudaprep/image.h"
#include "reference/resize_ref.h"

namespace cudaprep::test {

// Device allocations of one test or case, freed (and the frees checked) at
// its end.
class DeviceAllocations {
 public:
  DeviceAllocations() = default;
  DeviceAllocations(const DeviceAllocations &) = delete;
  DeviceAllocations &operator=(const DeviceAllocations &) = delete;
  ~DeviceAllocations() {
    for (void *pointer : pointers_) EXPECT_EQ(cudaSuccess, cudaFree(pointer));
  }
  cudaError_t allocate(size_t bytes, uint8_t **pointer) {
    const cudaError_t err = cudaMalloc(reinterpret_cast<void **>(pointer), bytes);
    if (err == cudaSuccess) pointers_.push_back(*pointer);
    return err;
  }

 private:
  std::vector<void *> pointers_;
};

// An Image of `format` and size whose planes point at one host byte: for
// validation tests, which fail before any launch and never dereference it.
inline Image fake_image(PixelFormat format, int width, int height) {
  static uint8_t storage[1];
  Image image;
  image.format = format;
  image.width = width;
  image.height = height;
  for (int plane = 0; plane < format_info(format).num_planes; ++plane) {
    image.planes[plane].data = storage;
    image.planes[plane].pitch_bytes = plane_row_bytes(format, plane, width);
  }
  return image;
}

// The width x height window of `frame` at (left, top), as a compact frame
// (left and top even where the format subsamples chroma).
inline ref::HostFrame window(const ref::HostFrame &frame, int left, int top, int width,
                             int height) {
  ref::HostFrame out(frame.format, width, height);
  for (int plane = 0; plane < format_info(frame.format).num_planes; ++plane) {
    const PlaneLayout layout = format_info(frame.format).planes[plane];
    const size_t column = static_cast<size_t>(left / layout.pixels_per_unit) * layout.unit_bytes;
    const int first_row = top / layout.height_divisor;
    for (int y = 0; y < plane_height(frame.format, plane, height); ++y) {
      std::memcpy(out.row(plane, y), frame.row(plane, first_row + y) + column,
                  plane_row_bytes(frame.format, plane, width));
    }
  }
  return out;
}

}  // namespace cudaprep::test
