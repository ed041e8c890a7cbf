#include "cudaprep/tensor.h"

#include "image_errors.h"

namespace cudaprep {

std::string planar_image_error(const PlanarImage &image) {
  const std::string error = size_error("planar frame", image.width, image.height);
  if (!error.empty()) return error;
  if (image.channels < 1 || image.channels > kMaxChannels) {
    return "a planar frame has 1 to 3 channels";
  }
  if (image.dtype != DataType::kFloat32 && image.dtype != DataType::kFloat16) {
    return "a planar frame holds float32 or float16";
  }
  const size_t element_bytes = data_type_size(image.dtype);
  if (image.pitch_bytes < static_cast<size_t>(image.width) * element_bytes) {
    return "the planar frame's pitch is smaller than a row";
  }
  if (image.pitch_bytes % element_bytes != 0) {
    return "the planar frame's pitch is not a multiple of its element size";
  }
  for (int c = 0; c < image.channels; ++c) {
    if (image.planes[c] == nullptr) return "a plane of the planar frame has no memory";
    if (reinterpret_cast<uintptr_t>(image.planes[c]) % element_bytes != 0) {
      return "a plane of the planar frame is not aligned to its element size";
    }
  }
  return {};
}

std::string interleaved_image_error(const Image &image, ChannelOrder order,
                                    InterleavedChannelMap *map) {
  if (!interleaved_channel_map(image.format, order, map)) {
    if (order == ChannelOrder::kGray) return "GRAY output needs a GRAY8 source";
    return "the source is not an 8-bit interleaved format (RGB, BGR, RGBA, BGRA, RGBx, BGRx, "
           "GRAY8)";
  }
  return image_error("source", image);
}

}  // namespace cudaprep
