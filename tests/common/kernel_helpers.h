// Helpers for the suites that call the kernels (cudaprep/*.h) directly.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "cudaprep/image.h"
#include "cudaprep/tensor.h"
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

// A random `format` frame of width x height on the device, rows padded by
// `extra_pitch_bytes` (odd padding: views no wide load may read).
inline void make_random_frame(PixelFormat format, int width, int height, size_t extra_pitch_bytes,
                              unsigned seed, DeviceAllocations *allocations, Image *frame) {
  std::mt19937 generator(seed);
  frame->format = format;
  frame->width = width;
  frame->height = height;
  for (int plane = 0; plane < format_info(format).num_planes; ++plane) {
    const size_t pitch = plane_row_bytes(format, plane, width) + extra_pitch_bytes;
    std::vector<uint8_t> bytes(pitch * plane_height(format, plane, height));
    for (uint8_t &byte : bytes) byte = static_cast<uint8_t>(generator());
    uint8_t *data = nullptr;
    CUDA_ASSERT_OK(allocations->allocate(bytes.size(), &data));
    CUDA_ASSERT_OK(cudaMemcpy(data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    frame->planes[plane] = {data, pitch};
  }
  // Pageable cudaMemcpy and cudaMemset may return before the device holds
  // the bytes, and kernels on non-blocking streams do not wait for them.
  CUDA_ASSERT_OK(cudaDeviceSynchronize());
}

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

// Where byte `offset` of the tensor allocation lies, in words.
inline std::string tensor_location(const TensorDesc &desc, size_t offset) {
  std::ostringstream text;
  if (offset >= tensor_span_bytes(desc)) {
    text << "guard byte " << offset - tensor_span_bytes(desc) << " after the tensor";
    return text.str();
  }
  const char *names = desc.layout == TensorLayout::kNCHW ? "NCHW" : "NHWC";
  int64_t rest = static_cast<int64_t>(offset);
  for (int axis = 0; axis < kTensorRank; ++axis) {
    text << names[axis] << "=" << rest / desc.strides_bytes[axis] << " ";
    rest %= desc.strides_bytes[axis];
  }
  return text.str();
}

}  // namespace cudaprep::test
