// Checks of image views shared by the operations' *_error() functions, so
// that every operation refuses the same bad view with the same sentence.
// `role` names the image in it ("source", "destination").
#pragma once

#include <cstdint>
#include <string>

#include "cudaprep/image.h"

namespace cudaprep {

inline std::string size_error(const char *role, int width, int height) {
  if (width > 0 && height > 0) return {};
  return std::string(role) + " size " + std::to_string(width) + "x" + std::to_string(height) +
         " is empty";
}

inline std::string plane_error(const char *role, const Image &image, int plane) {
  const ImagePlane &view = image.planes[plane];
  // Built for a refusal only: the checks run for every frame.
  const auto where = [&] {
    return std::string(role) + " plane " + std::to_string(plane) + " (" +
           pixel_format_name(image.format) + ")";
  };
  if (view.data == nullptr) return where() + " has no data pointer";
  const size_t row_bytes = plane_row_bytes(image.format, plane, image.width);
  if (view.pitch_bytes < row_bytes) {
    return where() + " pitch " + std::to_string(view.pitch_bytes) + " is shorter than its row of " +
           std::to_string(row_bytes) + " bytes";
  }
  // 16-bit samples are read with 16-bit loads.
  if (bits_per_sample(image.format) > 8 &&
      (reinterpret_cast<uintptr_t>(view.data) % 2 != 0 || view.pitch_bytes % 2 != 0)) {
    return where() + " must start on an even address and have an even pitch (16-bit samples)";
  }
  return {};
}

// The size, then every plane of the image's format.
inline std::string image_error(const char *role, const Image &image) {
  std::string error = size_error(role, image.width, image.height);
  for (int plane = 0; error.empty() && plane < format_info(image.format).num_planes; ++plane) {
    error = plane_error(role, image, plane);
  }
  return error;
}

}  // namespace cudaprep
