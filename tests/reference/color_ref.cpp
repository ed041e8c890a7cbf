#include "reference/color_ref.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cudaprep::ref {
namespace {

struct LumaCoefficients {
  double kr, kg, kb;
};

// Rec. ITU-R BT.601-7, BT.709-6 and BT.2020-2, item "derivation of
// luminance signal" (the matrix is named by its preset, not trusted for
// its numbers).
LumaCoefficients luma_coefficients(ColorMatrix matrix) {
  if (matrix == ColorMatrix::kBT709) return {0.2126, 0.7152, 0.0722};
  if (matrix == ColorMatrix::kBT2020) return {0.2627, 0.6780, 0.0593};
  if (matrix == ColorMatrix::kBT601) return {0.299, 0.587, 0.114};
  throw std::invalid_argument("luma_coefficients: not a BT.601, BT.709 or BT.2020 matrix");
}

// Code values of black, white luma and the chroma excursion on 8 bits.
struct CodeRange {
  double luma_black, luma_span, chroma_span;
};

// BT.2100 / BT.709 item 4: n-bit limited codes are the 8-bit ones times
// 2^(n-8); full range spans 0 .. 2^n - 1 with chroma centred on 2^(n-1).
CodeRange code_range(ColorRange range, int bits = 8) {
  const double step = std::ldexp(1.0, bits - 8);
  if (range == ColorRange::kLimited) return {16.0 * step, 219.0 * step, 224.0 * step};
  return {0.0, std::ldexp(1.0, bits) - 1.0, std::ldexp(1.0, bits) - 1.0};
}

double clamp_channel(double value) {
  return std::clamp(value, 0.0, 255.0);
}

// Nearest, ties to even, or with `ties_up` ties up; saturated.
uint8_t round_to_byte(double value, bool ties_up) {
  const double rounded = ties_up ? std::floor(value + 0.5) : std::nearbyint(value);
  return static_cast<uint8_t>(std::clamp(rounded, 0.0, 255.0));
}

}  // namespace

HostFrame::HostFrame(PixelFormat frame_format, int frame_width, int frame_height,
                     size_t extra_pitch_bytes)
    : format(frame_format), width(frame_width), height(frame_height) {
  for (int plane = 0; plane < format_info(format).num_planes; ++plane) {
    pitch_bytes[plane] = plane_row_bytes(format, plane, width) + extra_pitch_bytes;
    planes[plane].assign(pitch_bytes[plane] * plane_height(format, plane, height), 0);
  }
}

RgbaPixel yuv_to_rgb(double y, double u, double v, const Colorimetry &colorimetry) {
  return yuv_to_rgb_bits(y, u, v, 8, colorimetry);
}

RgbaPixel yuv_to_rgb_bits(double y, double u, double v, int bits, const Colorimetry &colorimetry) {
  const LumaCoefficients k = luma_coefficients(colorimetry.matrix);
  const CodeRange range = code_range(colorimetry.range, bits);
  const double chroma_zero = std::ldexp(128.0, bits - 8);
  // Normalised signals: E'Y in [0, 1], E'Pb and E'Pr in [-0.5, 0.5].
  const double luma = (y - range.luma_black) / range.luma_span;
  const double pb = (u - chroma_zero) / range.chroma_span;
  const double pr = (v - chroma_zero) / range.chroma_span;
  const double red = luma + 2.0 * (1.0 - k.kr) * pr;
  const double blue = luma + 2.0 * (1.0 - k.kb) * pb;
  const double green = (luma - k.kr * red - k.kb * blue) / k.kg;
  RgbaPixel pixel;
  pixel.r = clamp_channel(255.0 * red);
  pixel.g = clamp_channel(255.0 * green);
  pixel.b = clamp_channel(255.0 * blue);
  return pixel;
}

void rgb_to_yuv(double r, double g, double b, const Colorimetry &colorimetry, double *y, double *u,
                double *v) {
  const LumaCoefficients k = luma_coefficients(colorimetry.matrix);
  const CodeRange range = code_range(colorimetry.range);
  const double red = r / 255.0, green = g / 255.0, blue = b / 255.0;
  const double luma = k.kr * red + k.kg * green + k.kb * blue;
  const double pb = (blue - luma) / (2.0 * (1.0 - k.kb));
  const double pr = (red - luma) / (2.0 * (1.0 - k.kr));
  *y = range.luma_black + range.luma_span * luma;
  *u = 128.0 + range.chroma_span * pb;
  *v = 128.0 + range.chroma_span * pr;
}

double rgb_to_gray(const RgbaPixel &pixel) {
  return 0.299 * pixel.r + 0.587 * pixel.g + 0.114 * pixel.b;
}

std::vector<RgbaPixel> decode_to_rgba(const HostFrame &frame, const Colorimetry &colorimetry) {
  std::vector<RgbaPixel> pixels(static_cast<size_t>(frame.width) * frame.height);
  for (int y = 0; y < frame.height; ++y) {
    const uint8_t *row = frame.row(0, y);
    for (int x = 0; x < frame.width; ++x) {
      RgbaPixel &out = pixels[static_cast<size_t>(y) * frame.width + x];
      switch (frame.format) {
        case PixelFormat::kRGBA:
          out = {double(row[4 * x]), double(row[4 * x + 1]), double(row[4 * x + 2]),
                 double(row[4 * x + 3])};
          break;
        case PixelFormat::kBGRA:
          out = {double(row[4 * x + 2]), double(row[4 * x + 1]), double(row[4 * x]),
                 double(row[4 * x + 3])};
          break;
        case PixelFormat::kRGBx:
          out = {double(row[4 * x]), double(row[4 * x + 1]), double(row[4 * x + 2]), 255.0};
          break;
        case PixelFormat::kBGRx:
          out = {double(row[4 * x + 2]), double(row[4 * x + 1]), double(row[4 * x]), 255.0};
          break;
        case PixelFormat::kRGB:
          out = {double(row[3 * x]), double(row[3 * x + 1]), double(row[3 * x + 2]), 255.0};
          break;
        case PixelFormat::kBGR:
          out = {double(row[3 * x + 2]), double(row[3 * x + 1]), double(row[3 * x]), 255.0};
          break;
        case PixelFormat::kGRAY8:
          out = {double(row[x]), double(row[x]), double(row[x]), 255.0};
          break;
        case PixelFormat::kNV12: {
          const uint8_t *chroma_row = frame.row(1, y / 2);
          const int pair = x / 2;
          out = yuv_to_rgb(row[x], chroma_row[2 * pair], chroma_row[2 * pair + 1], colorimetry);
          break;
        }
        case PixelFormat::kI420:
          out = yuv_to_rgb(row[x], frame.row(1, y / 2)[x / 2], frame.row(2, y / 2)[x / 2],
                           colorimetry);
          break;
        case PixelFormat::kYUY2: {
          // Y0 U0 Y1 V0: luma at every even byte, chroma of the pair after it.
          const int pair_start = 4 * (x / 2);
          out = yuv_to_rgb(row[2 * x], row[pair_start + 1], row[pair_start + 3], colorimetry);
          break;
        }
        case PixelFormat::kP010:
        case PixelFormat::kP012:
        case PixelFormat::kP016: {
          // 16-bit little-endian words, significant bits at the top.
          const int bits = bits_per_sample(frame.format);
          const auto sample = [bits](const uint8_t *word) {
            return double((word[0] | word[1] << 8) >> (16 - bits));
          };
          const uint8_t *chroma_row = frame.row(1, y / 2) + 4 * (x / 2);
          out = yuv_to_rgb_bits(sample(row + 2 * x), sample(chroma_row), sample(chroma_row + 2),
                                bits, colorimetry);
          break;
        }
      }
    }
  }
  return pixels;
}

void encode_rgba_pixel(HostFrame *frame, int x, int y, const RgbaPixel &pixel, bool ties_up) {
  uint8_t *row = frame->row(0, y);
  switch (frame->format) {
    case PixelFormat::kRGBA:
    case PixelFormat::kRGBx:
      row[4 * x] = round_to_byte(pixel.r, ties_up);
      row[4 * x + 1] = round_to_byte(pixel.g, ties_up);
      row[4 * x + 2] = round_to_byte(pixel.b, ties_up);
      row[4 * x + 3] = frame->format == PixelFormat::kRGBx ? 255 : round_to_byte(pixel.a, ties_up);
      break;
    case PixelFormat::kBGRA:
    case PixelFormat::kBGRx:
      row[4 * x] = round_to_byte(pixel.b, ties_up);
      row[4 * x + 1] = round_to_byte(pixel.g, ties_up);
      row[4 * x + 2] = round_to_byte(pixel.r, ties_up);
      row[4 * x + 3] = frame->format == PixelFormat::kBGRx ? 255 : round_to_byte(pixel.a, ties_up);
      break;
    case PixelFormat::kRGB:
      row[3 * x] = round_to_byte(pixel.r, ties_up);
      row[3 * x + 1] = round_to_byte(pixel.g, ties_up);
      row[3 * x + 2] = round_to_byte(pixel.b, ties_up);
      break;
    case PixelFormat::kBGR:
      row[3 * x] = round_to_byte(pixel.b, ties_up);
      row[3 * x + 1] = round_to_byte(pixel.g, ties_up);
      row[3 * x + 2] = round_to_byte(pixel.r, ties_up);
      break;
    case PixelFormat::kGRAY8:
      row[x] = round_to_byte(rgb_to_gray(pixel), ties_up);
      break;
    default:
      throw std::invalid_argument("encode_rgba_pixel: YUV destinations are not references");
  }
}

}  // namespace cudaprep::ref
