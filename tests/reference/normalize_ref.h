// CPU reference of normalize and tensorize, written from the definitions
// (not from the kernels' code), and IEEE binary16 conversions written from
// the IEEE 754 definition (not from cuda_fp16).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cudaprep/image.h"
#include "cudaprep/tensor.h"
#include "cudaprep/tensor.h"

namespace cudaprep::reference {

// The binary16 bit pattern nearest to `value`, ties to even; overflow gives
// infinity, NaN a quiet NaN.
uint16_t float_to_half_rne(float value);

// The exact value of binary16 `bits`.
float half_to_float(uint16_t bits);

// `value` rounded to binary16 and back: what a float16 element holds.
inline float round_to_half(float value) {
  return half_to_float(float_to_half_rne(value));
}

// An 8-bit interleaved image in host memory; rows are pitch_bytes apart.
struct HostImage {
  PixelFormat format = PixelFormat::kRGBA;
  int width = 0;
  int height = 0;
  size_t pitch_bytes = 0;
  std::vector<uint8_t> bytes;  // height * pitch_bytes
};

// Bytes per pixel of the 8-bit interleaved formats.
int bytes_per_pixel(PixelFormat format);

// The 8-bit value of output channel `channel` (in `order`) of pixel (x, y).
uint8_t channel_value(const HostImage &image, ChannelOrder order, int channel, int x, int y);

// y = (x * scale - mean[c]) / std[c], each operation in float32, as CHW:
// channel c's plane is width * height floats starting at c * width * height.
std::vector<float> normalize(const HostImage &image, const NormalizeParams &params);

// The same in double precision: the "true" value the float32 result approximates.
std::vector<double> normalize_double(const HostImage &image, const NormalizeParams &params);

// The channels of `image` in `order`, unchanged, as CHW bytes.
std::vector<uint8_t> extract_channels(const HostImage &image, ChannelOrder order);

// Writes a CHW frame (channels x height x width values) into item
// `batch_index` of the tensor whose bytes are `tensor_bytes`, converting each
// value to desc.dtype (float16: round to nearest even; uint8: the value must
// be an integer in [0, 255]). Other bytes are left as they are.
void tensorize(const std::vector<float> &chw, int channels, int height, int width,
               const TensorDesc &desc, int batch_index, std::vector<uint8_t> *tensor_bytes);

// Byte offset of element (n, c, y, x) in a tensor of `desc`, from the layout's
// definition: NCHW indexes dims in the order n, c, y, x; NHWC in n, y, x, c.
int64_t element_offset(const TensorDesc &desc, int n, int c, int y, int x);

}  // namespace cudaprep::reference
