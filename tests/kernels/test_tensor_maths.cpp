// The maths of normalize and tensorize without a GPU: the CPU reference
// against double precision and the IEEE binary16 definition, tensor
// descriptors, the .npy writer and the DLPack export.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cudaprep/array.h"
#include "cudaprep/dlpack_export.h"
#include "cudaprep/normalize.h"
#include "cudaprep/npy.h"
#include "cudaprep/tensor.h"
#include "cudaprep/tensorize.h"
#include "reference/normalize_ref.h"

namespace cudaprep {
namespace {

using reference::float_to_half_rne;
using reference::half_to_float;

float float_from_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// --- binary16 round to nearest even ---------------------------------------

TEST(HalfConversion, KnownBitPatterns) {
  struct Case {
    float value;
    uint16_t bits;
    const char *what;
  };
  const Case cases[] = {
      {0.0f, 0x0000, "+0"},
      {-0.0f, 0x8000, "-0"},
      {1.0f, 0x3c00, "1"},
      {-2.0f, 0xc000, "-2"},
      {0.5f, 0x3800, "0.5"},
      {0.1f, 0x2e66, "0.1 (rounds down)"},
      {1.0f / 3.0f, 0x3555, "1/3 (rounds down)"},
      {65504.0f, 0x7bff, "largest finite"},
      {65519.0f, 0x7bff, "just below the overflow tie"},
      {65520.0f, 0x7c00, "tie between 65504 (odd) and 65536: to even, which overflows to inf"},
      {1.0e6f, 0x7c00, "overflow"},
      {-1.0e6f, 0xfc00, "negative overflow"},
      {INFINITY, 0x7c00, "+inf"},
      {-INFINITY, 0xfc00, "-inf"},
      {std::ldexp(1.0f, -14), 0x0400, "smallest normal"},
      {std::ldexp(1023.0f, -24), 0x03ff, "largest subnormal"},
      {std::ldexp(1.0f, -24), 0x0001, "smallest subnormal"},
      {std::ldexp(1.0f, -25), 0x0000, "tie between 0 (even) and the smallest subnormal"},
      {std::ldexp(1.0f, -25) * 1.0000001f, 0x0001, "just above that tie"},
      {std::ldexp(3.0f, -25), 0x0002, "tie between 1 and 2 quanta: to even 2"},
      {std::ldexp(5.0f, -25), 0x0002, "tie between 2 and 3 quanta: to even 2"},
      {std::ldexp(2047.0f, -25), 0x0400, "tie between largest subnormal and smallest normal"},
      {1.0f + std::ldexp(1.0f, -11), 0x3c00, "tie between 1 (even) and 1+2^-10"},
      {1.0f + std::ldexp(3.0f, -11), 0x3c02, "tie between 0x3c01 and 0x3c02 (even)"},
      {1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -23), 0x3c01, "just above a tie"},
      {2047.0f / 1024.0f + std::ldexp(1.0f, -11), 0x4000, "tie that carries into the exponent"},
      {std::ldexp(1.0f, -140), 0x0000, "float32 subnormal"},
      {-std::ldexp(1.0f, -140), 0x8000, "negative float32 subnormal"},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(c.bits, float_to_half_rne(c.value))
        << c.what << ": value " << c.value << std::hex << " expected 0x" << c.bits;
  }
  const uint16_t nan_bits = float_to_half_rne(std::nanf(""));
  EXPECT_EQ(0x7c00, nan_bits & 0x7c00) << "NaN keeps an all-ones exponent";
  EXPECT_NE(0, nan_bits & 0x03ff) << "NaN keeps a non-zero fraction";
}

TEST(HalfConversion, EveryHalfRoundTripsExactly) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const bool is_nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0;
    if (is_nan) continue;
    ASSERT_EQ(bits, float_to_half_rne(half_to_float(static_cast<uint16_t>(bits))))
        << std::hex << "0x" << bits;
  }
  EXPECT_EQ(65504.0f, half_to_float(0x7bff));
  EXPECT_EQ(std::ldexp(1.0f, -24), half_to_float(0x0001));
  EXPECT_EQ(-1.5f, half_to_float(0xbe00));
}

// Checks the definition directly: the result is a nearest binary16 value and
// on a tie the one with an even fraction.
TEST(HalfConversion, RandomFloatsRoundToNearestEven) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<uint32_t> exponent_bits(127 - 30, 127 + 14);
  std::uniform_int_distribution<uint32_t> any_bits;
  for (int i = 0; i < 200000; ++i) {
    // Exponents from far below the subnormals to the top of the finite range.
    const uint32_t bits = (any_bits(rng) & 0x807fffffu) | (exponent_bits(rng) << 23);
    const float value = float_from_bits(bits);
    const uint16_t result = float_to_half_rne(value);
    const uint16_t magnitude = result & 0x7fff;
    ASSERT_LT(magnitude, 0x7c00) << "finite input below 2^15 must stay finite: " << value;
    const double distance = std::fabs(static_cast<double>(half_to_float(result)) - value);
    for (const int step : {-1, 1}) {
      const int neighbour = magnitude + step;
      if (neighbour < 0 || neighbour >= 0x7c00) continue;
      const double neighbour_value =
          half_to_float(static_cast<uint16_t>((result & 0x8000) | neighbour));
      const double neighbour_distance = std::fabs(neighbour_value - value);
      ASSERT_LE(distance, neighbour_distance)
          << "value " << value << std::hex << " result 0x" << result;
      if (distance == neighbour_distance) {
        ASSERT_EQ(0, result & 1) << "tie not to even: value " << value << std::hex << " 0x"
                                 << result;
      }
    }
  }
}

// --- Reference normalize ----------------------------------------------------

reference::HostImage random_image(PixelFormat format, int width, int height, size_t row_padding,
                                  uint32_t seed) {
  reference::HostImage image;
  image.format = format;
  image.width = width;
  image.height = height;
  image.pitch_bytes = static_cast<size_t>(width) * reference::bytes_per_pixel(format) + row_padding;
  image.bytes.resize(image.pitch_bytes * height);
  std::mt19937 rng(seed);
  for (uint8_t &byte : image.bytes) byte = static_cast<uint8_t>(rng());
  return image;
}

NormalizeParams imagenet_params(ChannelOrder order) {
  NormalizeParams params;
  params.scale = 1.0f / 255.0f;
  const float mean_rgb[3] = {0.485f, 0.456f, 0.406f};
  const float std_rgb[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) {
    params.mean[c] = order == ChannelOrder::kBGR ? mean_rgb[2 - c] : mean_rgb[c];
    params.std[c] = order == ChannelOrder::kBGR ? std_rgb[2 - c] : std_rgb[c];
  }
  params.channel_order = order;
  return params;
}

// float32 evaluation of (x*scale - mean)/std rounds three times; each rounding
// errs by at most 2^-24 of the magnitudes involved, so the error is below
// 3 * 2^-24 * (|x*scale| + |mean|) / |std|. 1e-6 of that magnitude is ~5x the
// bound; "relative" is taken to the operands because x*scale - mean may cancel.
TEST(ReferenceNormalize, Float32MatchesDoubleWithin1e6Relative) {
  const PixelFormat formats[] = {PixelFormat::kRGBA, PixelFormat::kBGRx, PixelFormat::kRGB,
                                 PixelFormat::kBGR};
  for (const PixelFormat format : formats) {
    for (const ChannelOrder order : {ChannelOrder::kRGB, ChannelOrder::kBGR}) {
      const reference::HostImage image = random_image(format, 33, 17, 5, 7);
      const NormalizeParams params = imagenet_params(order);
      const std::vector<float> single = reference::normalize(image, params);
      const std::vector<double> exact = reference::normalize_double(image, params);
      ASSERT_EQ(exact.size(), single.size());
      const size_t plane = static_cast<size_t>(image.width) * image.height;
      for (size_t i = 0; i < exact.size(); ++i) {
        const int c = static_cast<int>(i / plane);
        const int x = static_cast<int>(i % plane) % image.width;
        const int y = static_cast<int>(i % plane) / image.width;
        const double magnitude =
            (reference::channel_value(image, order, c, x, y) * static_cast<double>(params.scale) +
             std::fabs(params.mean[c])) /
            std::fabs(params.std[c]);
        ASSERT_LE(std::fabs(single[i] - exact[i]), 1e-6 * magnitude)
            << "element " << i << " float " << single[i] << " double " << exact[i];
      }
    }
  }
}

TEST(ReferenceNormalize, PicksChannelsByOrderAndDropsAlpha) {
  reference::HostImage image;
  image.format = PixelFormat::kBGRA;
  image.width = 1;
  image.height = 1;
  image.pitch_bytes = 4;
  image.bytes = {10, 20, 30, 255};  // B G R A
  NormalizeParams params;
  params.scale = 1.0f;
  params.channel_order = ChannelOrder::kRGB;
  EXPECT_EQ((std::vector<float>{30.0f, 20.0f, 10.0f}), reference::normalize(image, params));
  params.channel_order = ChannelOrder::kBGR;
  params.mean[0] = 1.0f;
  params.std[0] = 2.0f;
  EXPECT_EQ((std::vector<float>{4.5f, 20.0f, 30.0f}), reference::normalize(image, params));

  image.format = PixelFormat::kGRAY8;
  image.bytes = {77};
  EXPECT_EQ((std::vector<uint8_t>{77}), reference::extract_channels(image, ChannelOrder::kGray));
  EXPECT_EQ((std::vector<uint8_t>{77, 77, 77}),
            reference::extract_channels(image, ChannelOrder::kBGR));
}

// The library's channel map (used by the kernels) agrees with the reference's
// reading of the format names.
TEST(ChannelMap, MatchesReferenceForEveryFormatAndOrder) {
  const PixelFormat formats[] = {PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx,
                                 PixelFormat::kBGRx, PixelFormat::kRGB,  PixelFormat::kBGR,
                                 PixelFormat::kGRAY8};
  for (const PixelFormat format : formats) {
    for (const ChannelOrder order : {ChannelOrder::kRGB, ChannelOrder::kBGR, ChannelOrder::kGray}) {
      InterleavedChannelMap map;
      const bool valid = interleaved_channel_map(format, order, &map);
      if (order == ChannelOrder::kGray && format != PixelFormat::kGRAY8) {
        EXPECT_FALSE(valid) << "colour formats cannot give GRAY";
        continue;
      }
      ASSERT_TRUE(valid);
      const int bpp = reference::bytes_per_pixel(format);
      ASSERT_EQ(bpp, map.bytes_per_pixel);
      ASSERT_EQ(channel_count(order), map.num_channels);
      // One pixel whose byte i holds i + 1: the value says which byte was read.
      reference::HostImage pixel{format, 1, 1, static_cast<size_t>(bpp), {}};
      for (int i = 0; i < bpp; ++i) pixel.bytes.push_back(static_cast<uint8_t>(i + 1));
      for (int c = 0; c < map.num_channels; ++c) {
        EXPECT_EQ(reference::channel_value(pixel, order, c, 0, 0), map.source_offset[c] + 1)
            << "format " << static_cast<int>(format) << " order " << channel_order_name(order)
            << " channel " << c;
      }
    }
  }
  InterleavedChannelMap map;
  EXPECT_FALSE(interleaved_channel_map(PixelFormat::kNV12, ChannelOrder::kRGB, &map));
}

// --- Tensor descriptors and the reference tensorize ----------------------

TEST(TensorDesc, ContiguousStridesNCHWAndNHWC) {
  const int64_t n = 2, c = 3, h = 5, w = 7;
  const TensorDesc nchw =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, n, c, h, w, DataType::kFloat32);
  const int64_t nchw_dims[4] = {n, c, h, w};
  const int64_t nchw_strides[4] = {c * h * w * 4, h * w * 4, w * 4, 4};
  const TensorDesc nhwc =
      make_contiguous_tensor_desc(TensorLayout::kNHWC, n, c, h, w, DataType::kFloat16);
  const int64_t nhwc_dims[4] = {n, h, w, c};
  const int64_t nhwc_strides[4] = {h * w * c * 2, w * c * 2, c * 2, 2};
  for (int axis = 0; axis < 4; ++axis) {
    EXPECT_EQ(nchw_dims[axis], nchw.dims[axis]) << "NCHW axis " << axis;
    EXPECT_EQ(nchw_strides[axis], nchw.strides_bytes[axis]) << "NCHW axis " << axis;
    EXPECT_EQ(nhwc_dims[axis], nhwc.dims[axis]) << "NHWC axis " << axis;
    EXPECT_EQ(nhwc_strides[axis], nhwc.strides_bytes[axis]) << "NHWC axis " << axis;
  }
  EXPECT_EQ(static_cast<size_t>(n * c * h * w * 4), tensor_span_bytes(nchw));
  EXPECT_EQ(static_cast<size_t>(n * c * h * w * 2), tensor_span_bytes(nhwc));
  EXPECT_EQ(n * c * h * w, tensor_element_count(nhwc));
  EXPECT_TRUE(tensor_is_contiguous(nchw));
  EXPECT_TRUE(tensor_is_contiguous(nhwc));

  const TensorShape shape = tensor_shape(nhwc);
  EXPECT_EQ(n, shape.batch);
  EXPECT_EQ(c, shape.channels);
  EXPECT_EQ(h, shape.height);
  EXPECT_EQ(w, shape.width);
  const TensorShape strides = tensor_strides_bytes(nhwc);
  EXPECT_EQ(2, strides.channels);
  EXPECT_EQ(c * 2, strides.width);

  TensorDesc padded_rows = nchw;
  padded_rows.strides_bytes[2] += 4;
  EXPECT_FALSE(tensor_is_contiguous(padded_rows));
  EXPECT_EQ(1u, data_type_size(DataType::kUInt8));
  EXPECT_EQ(2u, data_type_size(DataType::kFloat16));
  EXPECT_EQ(4u, data_type_size(DataType::kFloat32));
}

// io's measures of an array of any rank, on a clip: {2, 3, 4, 5, 6} float32.
TEST(ArrayDesc, CountSpanAndDensityOfAClip) {
  const ClipDesc clip =
      make_contiguous_clip_desc(ClipLayout::kNCTHW, 2, 4, 3, 5, 6, DataType::kFloat32);
  const ArrayDesc dense = array_desc(clip);
  ASSERT_EQ(5, dense.rank);
  EXPECT_EQ(2 * 3 * 4 * 5 * 6, array_element_count(dense));
  EXPECT_EQ(static_cast<size_t>(2 * 3 * 4 * 5 * 6 * 4), array_span_bytes(dense));
  EXPECT_TRUE(array_is_contiguous(dense));

  ArrayDesc padded = dense;
  padded.strides_bytes[3] = 32;  // rows of 24 bytes padded to 32
  padded.strides_bytes[2] = 32 * 5;
  padded.strides_bytes[1] = 32 * 5 * 4;
  padded.strides_bytes[0] = 32 * 5 * 4 * 3;
  EXPECT_FALSE(array_is_contiguous(padded));
  // The last row ends 24 bytes in, not 32.
  EXPECT_EQ(static_cast<size_t>(32 * 5 * 4 * 3 * 2 - 8), array_span_bytes(padded));

  ArrayDesc one_frame = dense;
  one_frame.dims[2] = 1;
  one_frame.strides_bytes[2] = 12345;  // a dim of one may have any stride
  one_frame.strides_bytes[1] = 5 * 6 * 4;
  one_frame.strides_bytes[0] = 3 * 5 * 6 * 4;
  EXPECT_TRUE(array_is_contiguous(one_frame));
  ArrayDesc empty = dense;
  empty.dims[4] = 0;
  EXPECT_EQ(0u, array_span_bytes(empty));
}

TEST(ReferenceTensorize, PlacesEveryElementByLayoutAndConvertsType) {
  const int c = 3, h = 4, w = 5, n = 3, batch_index = 2;
  std::vector<float> chw(c * h * w);
  for (size_t i = 0; i < chw.size(); ++i) chw[i] = 0.1f * static_cast<float>(i) - 2.0f;
  for (const TensorLayout layout : {TensorLayout::kNCHW, TensorLayout::kNHWC}) {
    for (const DataType dtype : {DataType::kFloat32, DataType::kFloat16}) {
      const TensorDesc desc = make_contiguous_tensor_desc(layout, n, c, h, w, dtype);
      std::vector<uint8_t> tensor(tensor_span_bytes(desc), 0xee);
      reference::tensorize(chw, c, h, w, desc, batch_index, &tensor);
      const size_t element_bytes = data_type_size(dtype);
      for (int ci = 0; ci < c; ++ci) {
        for (int y = 0; y < h; ++y) {
          for (int x = 0; x < w; ++x) {
            // Flat element index from the layout's nesting, independent of strides.
            const size_t flat = layout == TensorLayout::kNCHW
                                    ? ((static_cast<size_t>(batch_index) * c + ci) * h + y) * w + x
                                    : ((static_cast<size_t>(batch_index) * h + y) * w + x) * c + ci;
            const float expected = chw[(ci * h + y) * w + x];
            float stored;
            if (dtype == DataType::kFloat32) {
              std::memcpy(&stored, &tensor[flat * element_bytes], 4);
              ASSERT_EQ(expected, stored);
            } else {
              uint16_t bits;
              std::memcpy(&bits, &tensor[flat * element_bytes], 2);
              ASSERT_EQ(float_to_half_rne(expected), bits);
            }
          }
        }
      }
      // Items 0 and 1 are untouched.
      for (size_t i = 0; i < static_cast<size_t>(desc.strides_bytes[0]) * batch_index; ++i) {
        ASSERT_EQ(0xee, tensor[i]) << "byte " << i << " of another batch item was written";
      }
    }
  }
}

// --- Validation (host only, no GPU needed) ---------------------------------

TEST(Validation, NormalizeNamesTheProblem) {
  alignas(16) static uint8_t source_bytes[64];
  alignas(16) static float plane_storage[3][16];
  Image src;
  src.format = PixelFormat::kRGBA;
  src.width = 4;
  src.height = 1;
  src.planes[0] = {source_bytes, 16};
  PlanarImage dst;
  for (int c = 0; c < 3; ++c) dst.planes[c] = plane_storage[c];
  dst.pitch_bytes = 16 * sizeof(float);
  dst.width = 4;
  dst.height = 1;
  dst.channels = 3;
  dst.dtype = DataType::kFloat32;
  NormalizeParams params;
  EXPECT_EQ("", normalize_error(src, dst, params));

  NormalizeParams zero_std = params;
  zero_std.std[1] = 0.0f;
  EXPECT_NE("", normalize_error(src, dst, zero_std));
  EXPECT_EQ(cudaErrorInvalidValue, normalize(src, dst, zero_std, nullptr));

  Image nv12 = src;
  nv12.format = PixelFormat::kNV12;
  EXPECT_NE("", normalize_error(nv12, dst, params));

  NormalizeParams gray = params;
  gray.channel_order = ChannelOrder::kGray;
  EXPECT_NE("", normalize_error(src, dst, gray)) << "RGBA cannot give GRAY";

  PlanarImage wrong_size = dst;
  wrong_size.width = 3;
  EXPECT_NE("", normalize_error(src, wrong_size, params));

  PlanarImage one_channel = dst;
  one_channel.channels = 1;
  EXPECT_NE("", normalize_error(src, one_channel, params));

  PlanarImage uint8_planes = dst;
  uint8_planes.dtype = DataType::kUInt8;
  EXPECT_NE("", normalize_error(src, uint8_planes, params));

  Image short_pitch = src;
  short_pitch.planes[0].pitch_bytes = 15;
  EXPECT_NE("", normalize_error(short_pitch, dst, params));
}

TEST(Validation, TensorizeNamesTheProblem) {
  alignas(16) static float plane_storage[3][16];
  alignas(16) static float tensor_storage[2 * 3 * 16];
  PlanarImage src;
  for (int c = 0; c < 3; ++c) src.planes[c] = plane_storage[c];
  src.pitch_bytes = 16 * sizeof(float);
  src.width = 4;
  src.height = 2;
  src.channels = 3;
  src.dtype = DataType::kFloat32;
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 2, 3, 2, 4, DataType::kFloat16);
  EXPECT_EQ("", tensorize_planar_error(src, tensor_storage, desc, 1));
  EXPECT_NE("", tensorize_planar_error(src, tensor_storage, desc, 2)) << "batch index";
  EXPECT_NE("", tensorize_planar_error(src, tensor_storage, desc, -1)) << "batch index";
  EXPECT_NE("", tensorize_planar_error(src, nullptr, desc, 0)) << "no memory";
  EXPECT_EQ(cudaErrorInvalidValue, tensorize_planar(src, tensor_storage, desc, 2, nullptr));

  const TensorDesc wrong_width =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 2, 3, 2, 5, DataType::kFloat32);
  EXPECT_NE("", tensorize_planar_error(src, tensor_storage, wrong_width, 0));
  const TensorDesc uint8_desc =
      make_contiguous_tensor_desc(TensorLayout::kNHWC, 2, 3, 2, 4, DataType::kUInt8);
  EXPECT_NE("", tensorize_planar_error(src, tensor_storage, uint8_desc, 0));

  alignas(16) static uint8_t source_bytes[64];
  Image interleaved;
  interleaved.format = PixelFormat::kBGR;
  interleaved.width = 4;
  interleaved.height = 2;
  interleaved.planes[0] = {source_bytes, 12};
  EXPECT_EQ("", tensorize_interleaved_error(interleaved, ChannelOrder::kRGB, tensor_storage,
                                            uint8_desc, 1));
  EXPECT_NE("",
            tensorize_interleaved_error(interleaved, ChannelOrder::kRGB, tensor_storage, desc, 1))
      << "float tensor from raw pixels";
  EXPECT_NE("", tensorize_interleaved_error(interleaved, ChannelOrder::kGray, tensor_storage,
                                            uint8_desc, 1));
}

// --- .npy --------------------------------------------------------------------

std::string temp_path(const std::string &name) {
  const char *dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/cudaprep_test_" + name;
}

std::vector<uint8_t> read_file(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

// Reads back a written file and checks it byte by byte against the format
// description (NEP 1 / numpy.lib.format, version 1.0).
void check_npy_file(const std::string &path, const std::string &expected_dict,
                    const std::vector<uint8_t> &expected_data) {
  const std::vector<uint8_t> file = read_file(path);
  ASSERT_GE(file.size(), 10u);
  EXPECT_EQ(0, std::memcmp(file.data(), "\x93NUMPY", 6)) << "magic";
  EXPECT_EQ(1, file[6]) << "major version";
  EXPECT_EQ(0, file[7]) << "minor version";
  const size_t header_length = file[8] | (static_cast<size_t>(file[9]) << 8);  // little-endian
  const size_t data_start = 10 + header_length;
  EXPECT_EQ(0u, data_start % 64) << "data must start on a multiple of 64 bytes";
  ASSERT_EQ(data_start + expected_data.size(), file.size());
  const std::string header(file.begin() + 10, file.begin() + data_start);
  EXPECT_EQ('\n', header.back());
  const size_t dict_end = header.find('}') + 1;
  EXPECT_EQ(expected_dict, header.substr(0, dict_end));
  for (size_t i = dict_end; i + 1 < header.size(); ++i) {
    ASSERT_EQ(' ', header[i]) << "padding is spaces";
  }
  EXPECT_TRUE(std::equal(expected_data.begin(), expected_data.end(), file.begin() + data_start))
      << "data bytes";
}

TEST(Npy, WritesFloat32TensorWithAlignedHeader) {
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 2, 3, 4, 5, DataType::kFloat32);
  std::vector<float> values(tensor_element_count(desc));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f - 3.0f;
  const std::string path = temp_path("f32.npy");
  std::string error;
  ASSERT_TRUE(write_npy(path, values.data(), array_desc(desc), &error)) << error;
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  check_npy_file(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4, 5), }", bytes);
  std::remove(path.c_str());
}

TEST(Npy, WritesFloat16AndUint8AndOneDimensionalShapes) {
  const std::vector<uint16_t> halves = {0x3c00, 0xc000, 0x7bff};
  const std::string half_path = temp_path("f16.npy");
  std::string error;
  ASSERT_TRUE(write_npy(half_path, halves.data(), DataType::kFloat16, {3}, &error)) << error;
  check_npy_file(half_path, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }",
                 {0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b});
  std::remove(half_path.c_str());

  const std::vector<uint8_t> pixels = {1, 2, 3, 4, 5, 6};
  const std::string u8_path = temp_path("u8.npy");
  ASSERT_TRUE(write_npy(u8_path, pixels.data(), DataType::kUInt8, {1, 2, 3}, &error)) << error;
  check_npy_file(u8_path, "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2, 3), }", pixels);
  std::remove(u8_path.c_str());
}

TEST(Npy, HeaderLengthAlignsForEveryDictLength) {
  // Shapes whose dicts differ in length by one character each.
  for (int64_t dim = 1; dim < 1000000000; dim *= 10) {
    const std::string header = npy_header(DataType::kFloat32, {dim, dim});
    ASSERT_FALSE(header.empty());
    EXPECT_EQ(0u, header.size() % 64) << "dim " << dim;
    const size_t header_length =
        static_cast<uint8_t>(header[8]) | (static_cast<uint8_t>(header[9]) << 8);
    EXPECT_EQ(header.size(), 10 + header_length);
  }
}

TEST(Npy, ReportsErrors) {
  const float value = 1.0f;
  std::string error;
  EXPECT_FALSE(write_npy("/nonexistent-dir/x.npy", &value, DataType::kFloat32, {1}, &error));
  EXPECT_NE(std::string::npos, error.find("/nonexistent-dir/x.npy")) << error;
  TensorDesc strided =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 3, 2, 2, DataType::kFloat32);
  strided.strides_bytes[2] = 12;
  EXPECT_FALSE(write_npy(temp_path("strided.npy"), &value, array_desc(strided), &error));
  EXPECT_FALSE(error.empty());
}

// A clip tensor as the sink writes it: rank 5 in the header, the bytes in
// memory order; a padded one is refused like a padded image.
TEST(Npy, WritesAFiveDimensionalClip) {
  const ClipDesc clip = make_contiguous_clip_desc(ClipLayout::kNCTHW, 2, 4, 3, 2, 5,
                                                  DataType::kUInt8);  // {2, 3, 4, 2, 5}
  std::vector<uint8_t> values(2 * 3 * 4 * 2 * 5);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(i * 7 % 251);
  const std::string path = temp_path("clip.npy");
  std::string error;
  ASSERT_TRUE(write_npy(path, values.data(), array_desc(clip), &error)) << error;
  check_npy_file(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 4, 2, 5), }",
                 values);
  std::remove(path.c_str());

  ClipDesc padded = clip;
  padded.strides_bytes[3] = 8;  // rows of 5 bytes padded to 8
  EXPECT_FALSE(write_npy(temp_path("padded_clip.npy"), values.data(), array_desc(padded), &error));
  EXPECT_NE(std::string::npos, error.find("not contiguous")) << error;
}

// --- DLPack ------------------------------------------------------------------

struct ReleaseCounter {
  int calls = 0;
  void *seen_user_data = nullptr;
};

void count_release(void *user_data) {
  auto *counter = static_cast<ReleaseCounter *>(user_data);
  ++counter->calls;
  counter->seen_user_data = user_data;
}

TEST(DLPack, ShapeStridesInElementsTypeAndDevice) {
  // Rows padded to 64 bytes: strides that are not the contiguous ones.
  TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNHWC, 4, 3, 10, 20, DataType::kFloat16);
  desc.strides_bytes[1] = 128;
  desc.strides_bytes[0] = 128 * 10;
  int fake_device_memory;
  ReleaseCounter counter;
  DLManagedTensor *managed =
      export_dlpack(array_desc(desc), &fake_device_memory, 3, count_release, &counter);
  ASSERT_NE(nullptr, managed);
  const DLTensor &tensor = managed->dl_tensor;
  EXPECT_EQ(&fake_device_memory, tensor.data);
  EXPECT_EQ(kDLCUDA, tensor.device.device_type);
  EXPECT_EQ(3, tensor.device.device_id);
  ASSERT_EQ(4, tensor.ndim);
  EXPECT_EQ(kDLFloat, tensor.dtype.code);
  EXPECT_EQ(16, tensor.dtype.bits);
  EXPECT_EQ(1, tensor.dtype.lanes);
  EXPECT_EQ(0u, tensor.byte_offset);
  for (int axis = 0; axis < 4; ++axis) {
    EXPECT_EQ(desc.dims[axis], tensor.shape[axis]) << "axis " << axis;
    EXPECT_EQ(desc.strides_bytes[axis] / 2, tensor.strides[axis]) << "axis " << axis;
  }
  EXPECT_EQ(640, tensor.strides[0]);
  EXPECT_EQ(64, tensor.strides[1]);
  EXPECT_EQ(3, tensor.strides[2]);
  EXPECT_EQ(1, tensor.strides[3]);

  EXPECT_EQ(0, counter.calls) << "nothing released before the consumer is done";
  managed->deleter(managed);
  EXPECT_EQ(1, counter.calls);
  EXPECT_EQ(&counter, counter.seen_user_data);
}

// A clip of NTCHW float16 frames with rows padded to 32 bytes: five dims,
// strides in elements (the byte strides / 2).
TEST(DLPack, FiveDimensionalClipShapeAndStridesInElements) {
  ClipDesc clip = make_contiguous_clip_desc(ClipLayout::kNTCHW, 2, 8, 3, 6, 10,
                                            DataType::kFloat16);  // {2, 8, 3, 6, 10}
  clip.strides_bytes[3] = 32;
  clip.strides_bytes[2] = 32 * 6;
  clip.strides_bytes[1] = 32 * 6 * 3;
  clip.strides_bytes[0] = 32 * 6 * 3 * 8;
  int fake_device_memory;
  ReleaseCounter counter;
  DLManagedTensor *managed =
      export_dlpack(array_desc(clip), &fake_device_memory, 1, count_release, &counter);
  ASSERT_NE(nullptr, managed);
  const DLTensor &tensor = managed->dl_tensor;
  ASSERT_EQ(5, tensor.ndim);
  const int64_t shape[5] = {2, 8, 3, 6, 10};
  const int64_t strides[5] = {16 * 6 * 3 * 8, 16 * 6 * 3, 16 * 6, 16, 1};
  for (int axis = 0; axis < 5; ++axis) {
    EXPECT_EQ(shape[axis], tensor.shape[axis]) << "axis " << axis;
    EXPECT_EQ(strides[axis], tensor.strides[axis]) << "axis " << axis;
  }
  EXPECT_EQ(16, tensor.dtype.bits);
  EXPECT_EQ(1, tensor.device.device_id);
  managed->deleter(managed);
  EXPECT_EQ(1, counter.calls);
}

TEST(DLPack, DataTypeCodes) {
  const DLDataType u8 = dlpack_data_type(DataType::kUInt8);
  EXPECT_EQ(kDLUInt, u8.code);
  EXPECT_EQ(8, u8.bits);
  EXPECT_EQ(1, u8.lanes);
  const DLDataType f32 = dlpack_data_type(DataType::kFloat32);
  EXPECT_EQ(kDLFloat, f32.code);
  EXPECT_EQ(32, f32.bits);
  EXPECT_EQ(1, f32.lanes);
}

TEST(DLPack, RefusesInexpressibleDescWithoutReleasing) {
  TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 3, 4, 4, DataType::kFloat32);
  desc.strides_bytes[2] = 18;  // not a whole number of float32 elements
  int fake_device_memory;
  ReleaseCounter counter;
  EXPECT_EQ(nullptr,
            export_dlpack(array_desc(desc), &fake_device_memory, 0, count_release, &counter));
  desc = make_contiguous_tensor_desc(TensorLayout::kNCHW, 0, 3, 4, 4, DataType::kFloat32);
  EXPECT_EQ(nullptr,
            export_dlpack(array_desc(desc), &fake_device_memory, 0, count_release, &counter));
  ArrayDesc too_long =
      array_desc(make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 3, 4, 4, DataType::kFloat32));
  too_long.rank = kMaxArrayRank + 1;
  EXPECT_EQ(nullptr, export_dlpack(too_long, &fake_device_memory, 0, count_release, &counter));
  EXPECT_EQ(0, counter.calls);
}

TEST(DLPack, NullReleaseIsAllowed) {
  const TensorDesc desc =
      make_contiguous_tensor_desc(TensorLayout::kNCHW, 1, 1, 1, 1, DataType::kUInt8);
  int fake_device_memory;
  DLManagedTensor *managed =
      export_dlpack(array_desc(desc), &fake_device_memory, 0, nullptr, nullptr);
  ASSERT_NE(nullptr, managed);
  managed->deleter(managed);
}

}  // namespace
}  // namespace cudaprep
