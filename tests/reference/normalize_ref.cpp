#include "reference/normalize_ref.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cudaprep::reference {
namespace {

// The channel letters of each byte of a pixel, from the format's name.
const char *pixel_layout(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRGBA:
      return "RGBA";
    case PixelFormat::kBGRA:
      return "BGRA";
    case PixelFormat::kRGBx:
      return "RGBx";
    case PixelFormat::kBGRx:
      return "BGRx";
    case PixelFormat::kRGB:
      return "RGB";
    case PixelFormat::kBGR:
      return "BGR";
    case PixelFormat::kGRAY8:
      return "Y";
    default:
      throw std::invalid_argument("not an 8-bit interleaved format");
  }
}

// Byte index of output channel `channel` of `order` within a pixel.
int channel_byte(PixelFormat format, ChannelOrder order, int channel) {
  const std::string layout = pixel_layout(format);
  if (format == PixelFormat::kGRAY8) return 0;  // one luma byte feeds every channel
  if (order == ChannelOrder::kGray) throw std::invalid_argument("GRAY output of a colour format");
  const char wanted = (order == ChannelOrder::kRGB ? "RGB" : "BGR")[channel];
  return static_cast<int>(layout.find(wanted));
}

int output_channels(ChannelOrder order) {
  return order == ChannelOrder::kGray ? 1 : 3;
}

void write_element(DataType dtype, float value, uint8_t *where) {
  switch (dtype) {
    case DataType::kFloat32:
      std::memcpy(where, &value, sizeof(value));
      break;
    case DataType::kFloat16: {
      const uint16_t bits = float_to_half_rne(value);
      std::memcpy(where, &bits, sizeof(bits));
      break;
    }
    case DataType::kUInt8:
      if (!(value >= 0.0f && value <= 255.0f) || value != std::floor(value)) {
        throw std::invalid_argument("uint8 element out of range: " + std::to_string(value));
      }
      *where = static_cast<uint8_t>(value);
      break;
  }
}

}  // namespace

uint16_t float_to_half_rne(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const int biased_exponent = static_cast<int>((bits >> 23) & 0xffu);
  const uint32_t fraction = bits & 0x7fffffu;
  if (biased_exponent == 0xff) {
    return fraction == 0 ? static_cast<uint16_t>(sign | 0x7c00u)
                         : static_cast<uint16_t>(sign | 0x7e00u);
  }
  // float32 subnormals and zero are below 2^-126: far under half the
  // smallest binary16 subnormal (2^-24), so they round to zero.
  if (biased_exponent == 0) return sign;

  // value = significand * 2^(exponent - 23), significand with its hidden bit.
  const int exponent = biased_exponent - 127;
  const uint32_t significand = fraction | 0x800000u;
  // binary16 keeps 10 fraction bits for normals (exponent >= -14); below,
  // the quantum is fixed at 2^-24, so more low bits go.
  const int dropped_bits = exponent >= -14 ? 13 : 13 + (-14 - exponent);
  if (dropped_bits > 24) return sign;  // below half of 2^-24: rounds to zero
  uint32_t kept = significand >> dropped_bits;
  const uint32_t remainder = significand & ((1u << dropped_bits) - 1u);
  const uint32_t halfway = 1u << (dropped_bits - 1);
  if (remainder > halfway || (remainder == halfway && (kept & 1u) != 0)) ++kept;

  if (exponent < -14) {
    // Subnormal: kept counts quanta of 2^-24; kept == 1024 is exactly the
    // smallest normal, whose encoding is the same number.
    return static_cast<uint16_t>(sign | kept);
  }
  // Normal: kept is 1.fraction in [1024, 2048]; 2048 carries into the
  // exponent, which adding to the exponent field does by itself.
  const uint32_t encoded = (static_cast<uint32_t>(exponent + 15) << 10) + (kept - 1024u);
  if (encoded >= 0x7c00u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow: infinity
  return static_cast<uint16_t>(sign | encoded);
}

float half_to_float(uint16_t bits) {
  const float sign = (bits & 0x8000u) != 0 ? -1.0f : 1.0f;
  const int biased_exponent = (bits >> 10) & 0x1f;
  const int fraction = bits & 0x3ff;
  if (biased_exponent == 0x1f) {
    return fraction == 0 ? sign * INFINITY : std::nanf("");
  }
  if (biased_exponent == 0) return sign * std::ldexp(static_cast<float>(fraction), -24);
  return sign * std::ldexp(static_cast<float>(1024 + fraction), biased_exponent - 25);
}

int bytes_per_pixel(PixelFormat format) {
  return static_cast<int>(std::strlen(pixel_layout(format)));
}

uint8_t channel_value(const HostImage &image, ChannelOrder order, int channel, int x, int y) {
  const size_t pixel =
      y * image.pitch_bytes + static_cast<size_t>(x) * bytes_per_pixel(image.format);
  return image.bytes[pixel + channel_byte(image.format, order, channel)];
}

std::vector<float> normalize(const HostImage &image, const NormalizeParams &params) {
  const int channels = output_channels(params.channel_order);
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  std::vector<float> chw(channels * plane);
  for (int c = 0; c < channels; ++c) {
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        // One float32 rounding per operation, as the definition reads. (x86-64
        // scalar SSE: no FMA contraction unless built for an FMA target.)
        const float scaled =
            static_cast<float>(channel_value(image, params.channel_order, c, x, y)) * params.scale;
        const float centred = scaled - params.mean[c];
        chw[c * plane + static_cast<size_t>(y) * image.width + x] = centred / params.std[c];
      }
    }
  }
  return chw;
}

std::vector<double> normalize_double(const HostImage &image, const NormalizeParams &params) {
  const int channels = output_channels(params.channel_order);
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  std::vector<double> chw(channels * plane);
  for (int c = 0; c < channels; ++c) {
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        const double value = channel_value(image, params.channel_order, c, x, y);
        chw[c * plane + static_cast<size_t>(y) * image.width + x] =
            (value * static_cast<double>(params.scale) - static_cast<double>(params.mean[c])) /
            static_cast<double>(params.std[c]);
      }
    }
  }
  return chw;
}

std::vector<uint8_t> extract_channels(const HostImage &image, ChannelOrder order) {
  const int channels = output_channels(order);
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  std::vector<uint8_t> chw(channels * plane);
  for (int c = 0; c < channels; ++c) {
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        chw[c * plane + static_cast<size_t>(y) * image.width + x] =
            channel_value(image, order, c, x, y);
      }
    }
  }
  return chw;
}

int64_t element_offset(const TensorDesc &desc, int n, int c, int y, int x) {
  const int64_t *s = desc.strides_bytes;
  if (desc.layout == TensorLayout::kNCHW) return n * s[0] + c * s[1] + y * s[2] + x * s[3];
  return n * s[0] + y * s[1] + x * s[2] + c * s[3];
}

void tensorize(const std::vector<float> &chw, int channels, int height, int width,
               const TensorDesc &desc, int batch_index, std::vector<uint8_t> *tensor_bytes) {
  const size_t plane = static_cast<size_t>(width) * height;
  const size_t element_bytes = data_type_size(desc.dtype);
  for (int c = 0; c < channels; ++c) {
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const int64_t offset = element_offset(desc, batch_index, c, y, x);
        if (offset < 0 || static_cast<size_t>(offset) + element_bytes > tensor_bytes->size()) {
          throw std::out_of_range("tensor element outside the tensor's bytes");
        }
        write_element(desc.dtype, chw[c * plane + static_cast<size_t>(y) * width + x],
                      tensor_bytes->data() + offset);
      }
    }
  }
}

}  // namespace cudaprep::reference
