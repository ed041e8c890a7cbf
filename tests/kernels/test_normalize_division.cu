// The division the normalising kernels do through a reciprocal
// (divide_by_reciprocal(), tensor_ops.cuh), on the CPU: within the ranges
// reciprocal_division_safe() accepts, it must give the bits of an IEEE
// float32 division, for every byte of every channel and for centred values
// across the whole range those constants allow. No GPU needed: the same
// function runs on the host with std::fmaf.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "tensor_launch.cuh"

namespace cudaprep {
namespace {

uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// x * scale - mean as the kernels round it (two roundings, no FMA).
float centred(float x, float scale, float mean) {
  return std::fmaf(x, scale, -0.0f) - mean;
}

NormalizeParams params_of(float scale, const float mean[3], const float std[3]) {
  NormalizeParams params;
  params.scale = scale;
  for (int c = 0; c < 3; ++c) {
    params.mean[c] = mean[c];
    params.std[c] = std[c];
  }
  return params;
}

// Every byte of every channel through the reciprocal equals the division.
void expect_every_byte_exact(const NormalizeParams &params, const std::string &which) {
  const device::ChannelNormalization norm = channel_normalization(params);
  ASSERT_TRUE(norm.by_reciprocal) << which;
  for (int c = 0; c < 3; ++c) {
    ASSERT_EQ(bits_of(1.0f / params.std[c]), bits_of(norm.inverse_std[c])) << which;
    for (int byte = 0; byte < 256; ++byte) {
      const float value = centred(static_cast<float>(byte), params.scale, params.mean[c]);
      const float divided = value / params.std[c];
      const float through_reciprocal =
          device::divide_by_reciprocal(value, params.std[c], norm.inverse_std[c]);
      ASSERT_EQ(bits_of(divided), bits_of(through_reciprocal))
          << which << ", channel " << c << ", byte " << byte << ": " << value << " / "
          << params.std[c] << " = " << divided << ", through the reciprocal " << through_reciprocal;
    }
  }
}

TEST(ReciprocalDivision, ModelConstantsGiveTheDivisionsBits) {
  const float imagenet_mean[3] = {0.485f, 0.456f, 0.406f};
  const float imagenet_std[3] = {0.229f, 0.224f, 0.225f};
  expect_every_byte_exact(params_of(1.0f / 255.0f, imagenet_mean, imagenet_std), "ImageNet");
  const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  expect_every_byte_exact(params_of(1.0f / 255.0f, zero, one), "x / 255");
  const float half[3] = {127.5f, 127.5f, 127.5f};
  expect_every_byte_exact(params_of(1.0f, half, half), "(x - 127.5) / 127.5");
  const float clip_mean[3] = {0.48145466f, 0.4578275f, 0.40821073f};
  const float clip_std[3] = {0.26862954f, 0.26130258f, 0.27577711f};
  expect_every_byte_exact(params_of(1.0f / 255.0f, clip_mean, clip_std), "CLIP");
  const float caffe_mean[3] = {103.939f, 116.779f, 123.68f};
  expect_every_byte_exact(params_of(1.0f, caffe_mean, one), "Caffe BGR means");
}

// Random constants anywhere in the accepted ranges (log-uniform), every byte.
TEST(ReciprocalDivision, RandomConstantsGiveTheDivisionsBits) {
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> exponent(-20.0f, 20.0f);
  std::uniform_int_distribution<int> coin(0, 3);
  const auto magnitude = [&] { return std::exp2(exponent(generator)); };
  const auto signed_magnitude = [&] { return coin(generator) == 0 ? -magnitude() : magnitude(); };
  for (int trial = 0; trial < 3000; ++trial) {
    float mean[3], std[3];
    for (int c = 0; c < 3; ++c) {
      mean[c] = coin(generator) == 0 ? 0.0f : signed_magnitude();
      std[c] = signed_magnitude();
    }
    const float scale = coin(generator) == 0 ? 1.0f : magnitude();
    expect_every_byte_exact(params_of(scale, mean, std), "trial " + std::to_string(trial));
    if (HasFatalFailure()) return;
  }
}

// Centred values of every magnitude the accepted constants can produce
// (2^-43 .. 2^48), against random divisors in range.
TEST(ReciprocalDivision, CentredValuesAcrossTheirRange) {
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> value_exponent(-43.0f, 48.0f);
  std::uniform_real_distribution<float> divisor_exponent(-20.0f, 20.0f);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  for (int trial = 0; trial < 2000000; ++trial) {
    const float value =
        std::ldexp(mantissa(generator), static_cast<int>(value_exponent(generator)));
    const float divisor =
        std::ldexp(mantissa(generator), static_cast<int>(divisor_exponent(generator)));
    const float inverse = 1.0f / divisor;
    ASSERT_EQ(bits_of(value / divisor),
              bits_of(device::divide_by_reciprocal(value, divisor, inverse)))
        << value << " / " << divisor;
    ASSERT_EQ(bits_of(-value / divisor),
              bits_of(device::divide_by_reciprocal(-value, divisor, inverse)))
        << -value << " / " << divisor;
  }
}

TEST(ReciprocalDivision, ConstantsOutsideTheRangesDivide) {
  const float mean[3] = {0.5f, 0.5f, 0.5f}, std[3] = {0.25f, 0.25f, 0.25f};
  EXPECT_TRUE(reciprocal_division_safe(params_of(1.0f, mean, std)));
  const float tiny_std[3] = {0.25f, 1e-7f, 0.25f};
  EXPECT_FALSE(reciprocal_division_safe(params_of(1.0f, mean, tiny_std)));
  const float huge_std[3] = {0.25f, 0.25f, 1e7f};
  EXPECT_FALSE(reciprocal_division_safe(params_of(1.0f, mean, huge_std)));
  const float tiny_mean[3] = {1e-9f, 0.5f, 0.5f};
  EXPECT_FALSE(reciprocal_division_safe(params_of(1.0f, tiny_mean, std)));
  EXPECT_FALSE(reciprocal_division_safe(params_of(1e9f, mean, std)));
  EXPECT_FALSE(channel_normalization(params_of(1e9f, mean, std)).by_reciprocal);
}

}  // namespace
}  // namespace cudaprep
