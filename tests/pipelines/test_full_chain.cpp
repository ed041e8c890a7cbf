// The whole preprocessing of two real model inputs, element by element on
// the GPU, against a CPU reference of the same preprocessing written from
// the definitions (tests/reference): YOLO-style letterbox, Depth-Anything and
// a classifier's resize and centre crop, straight and turned
// (video-direction), fused and element by element.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "cudaprep/resize_geometry.h"
#include "base/gstcudapreppendingmeta.h"
#include "reference/normalize_ref.h"
#include "reference/resize_ref.h"

namespace {

using namespace cudaprep;
using namespace cudaprep::test;

struct ModelInput {
  const char *name;
  std::string elements;  // between the capsfilter of the input and the end
  Interpolation method;
  bool letterbox;
  int short_side;     // 0: fixed size below
  int width, height;  // the resized frame's
  float mean[3], std[3];
  bool fuse;  // cudatensorize's property: one kernel, or every element's own
  Orientation orientation = Orientation::kIdentity;  // cudaresize's video-direction
  // cudaresize float-intermediate: the fused kernel normalises the unrounded
  // sample, which differs from the 8-bit reference by up to half a step.
  bool float_intermediate = false;
  bool antialias = false;  // cudaresize antialias=true
  // A cudacrop of the resized frame (0x0: none): the tensor's size.
  PixelRect crop = {};
};

// Within this of the unrounded reference with float-intermediate. The
// kernel places samples in float: test_preprocess_gpu bounds that at 0.05
// steps (0.02 measured) for 1280-wide sources; the error grows with x, and
// these are 1920 wide. Rounding alone would be off by up to 0.5 everywhere,
// and clamping bicubic's overshoot on these noise frames by up to 107.
constexpr double kFloatIntermediateSteps = 0.1;

// `crop` of a width x height planar image of `channels` planes.
std::vector<float> crop_planes(const std::vector<float> &planes, int channels, int width,
                               int height, const PixelRect &crop) {
  std::vector<float> out(static_cast<size_t>(channels) * crop.width * crop.height);
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < crop.height; ++y)
      for (int x = 0; x < crop.width; ++x)
        out[(static_cast<size_t>(c) * crop.height + y) * crop.width + x] =
            planes[(static_cast<size_t>(c) * height + crop.y + y) * width + crop.x + x];
  return out;
}

// The chain's definition: resize to 8-bit RGB (rounded, clamped), normalise.
std::vector<float> rounded_reference(const ref::HostFrame &source, int width, int height,
                                     const ResizeParams &resize, const NormalizeParams &normalize) {
  const ref::HostFrame resized =
      ref::resize_reference(source, PixelFormat::kRGB, width, height, resize);
  reference::HostImage rgb;
  rgb.format = PixelFormat::kRGB;
  rgb.width = width;
  rgb.height = height;
  rgb.pitch_bytes = resized.pitch_bytes[0];
  rgb.bytes = resized.planes[0];
  return reference::normalize(rgb, normalize);
}

// float-intermediate's definition: the resampled values normalised as they
// are (no rounding, no clamping of bicubic's overshoot), planar RGB.
std::vector<float> unrounded_reference(const ref::HostFrame &source, int width, int height,
                                       const ResizeParams &resize,
                                       const NormalizeParams &normalize) {
  ref::RgbaImage decoded;
  decoded.width = source.width;
  decoded.height = source.height;
  decoded.pixels = ref::decode_to_rgba(source, resize.source_colorimetry);
  const ref::RgbaImage resampled =
      ref::resample(decoded, width, height, resize.interpolation, resize.antialias);
  std::vector<float> planes(static_cast<size_t>(3) * width * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const ref::RgbaPixel &pixel = resampled.at(x, y);
      const double rgb[3] = {pixel.r, pixel.g, pixel.b};
      for (int c = 0; c < 3; ++c) {
        planes[(static_cast<size_t>(c) * height + y) * width + x] =
            static_cast<float>((rgb[c] * normalize.scale - normalize.mean[c]) / normalize.std[c]);
      }
    }
  }
  return planes;
}

// Runs 1920x1080 NV12 BT.709 frames through cudaframeupload and `input`'s
// elements and compares every tensor element with the reference.
//
// Tolerance: the resize kernels agree with the reference within 1 on the
// 8-bit scale (test_resize_gpu), and normalisation is monotonic and
// correctly rounded, so an element may differ from the reference by at most
// scale / std[c] (one 8-bit step after normalisation) plus float rounding.
// Anything more, or more than 2% of elements off at all, is a defect. With
// float-intermediate the reference is unrounded (kFloatIntermediateSteps).
void check_model_input(const ModelInput &input) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("NV12", 1920, 1080) + ",colorimetry=bt709";
  const std::string description =
      "cudaframeupload ! " + input.elements + (input.fuse ? " fuse=true" : " fuse=false");
  GstHarness *harness = gst_harness_new_parse(description.c_str());
  gst_harness_set_src_caps_str(harness, caps.c_str());
  // Counts the frames that reach cudatensorize with their resize and
  // normalisation still pending: the fused path.
  int fused_frames = 0;
  GstElement *tensorize = gst_bin_get_by_name(GST_BIN(harness->element), "tensorize");
  ASSERT_NE(tensorize, nullptr);
  GstPad *tensorize_sink = gst_element_get_static_pad(tensorize, "sink");
  gst_pad_add_probe(
      tensorize_sink, GST_PAD_PROBE_TYPE_BUFFER,
      [](GstPad *, GstPadProbeInfo *info, gpointer data) {
        const GstCudaPrepPendingMeta *pending =
            gst_buffer_get_cuda_prep_pending_meta(GST_PAD_PROBE_INFO_BUFFER(info));
        if (pending != nullptr && pending->has_resize && pending->has_normalize)
          ++*static_cast<int *>(data);
        return GST_PAD_PROBE_OK;
      },
      &fused_frames, nullptr);
  gst_object_unref(tensorize_sink);
  gst_object_unref(tensorize);
  const GstVideoInfo info = video_info(caps);

  int width = input.width, height = input.height;
  std::string error;
  // The turned frame is what is sized and letterboxed.
  const bool swapped = swaps_axes(input.orientation);
  const int turned_width = swapped ? 1080 : 1920, turned_height = swapped ? 1920 : 1080;
  if (input.short_side > 0) {
    ASSERT_TRUE(short_side_multiple_size(turned_width, turned_height, input.short_side, 14, &width,
                                         &height, &error))
        << error;
  }
  ResizeParams resize;
  resize.interpolation = input.method;
  resize.orientation = input.orientation;
  resize.antialias = input.antialias;
  resize.source_colorimetry = {ColorMatrix::kBT709, ColorRange::kLimited};
  for (int c = 0; c < 3; ++c) resize.pad_value[c] = 114;
  if (input.letterbox) {
    ASSERT_TRUE(letterbox_rect(turned_width, turned_height, width, height, LetterboxOptions{},
                               &resize.dst_rect, &error))
        << error;
  }
  NormalizeParams normalize;
  for (int c = 0; c < 3; ++c) {
    normalize.mean[c] = input.mean[c];
    normalize.std[c] = input.std[c];
  }

  // The tensor's size: the crop's, or the resized frame's.
  const int tensor_width = input.crop.width > 0 ? input.crop.width : width;
  const int tensor_height = input.crop.width > 0 ? input.crop.height : height;
  std::mt19937 rng(31);
  for (int frame = 0; frame < 2; ++frame) {
    GstBuffer *nv12 = random_frame(info, rng);
    ref::HostFrame source(PixelFormat::kNV12, 1920, 1080);
    for (int plane = 0; plane < 2; ++plane) source.planes[plane] = plane_bytes(nv12, info, plane);
    ASSERT_EQ(gst_harness_push(harness, nv12), GST_FLOW_OK);
    GstBuffer *output = gst_harness_pull(harness);
    ASSERT_NE(output, nullptr);
    const std::vector<guint8> bytes = tensor_bytes(output);
    gst_buffer_unref(output);

    std::vector<float> expected =
        input.float_intermediate ? unrounded_reference(source, width, height, resize, normalize)
                                 : rounded_reference(source, width, height, resize, normalize);
    if (input.crop.width > 0) expected = crop_planes(expected, 3, width, height, input.crop);
    ASSERT_EQ(bytes.size(), sizeof(float) * expected.size()) << input.name;

    std::vector<float> actual(expected.size());
    std::memcpy(actual.data(), bytes.data(), bytes.size());
    size_t off = 0, beyond_tolerance = 0, first_beyond = expected.size();
    double worst_steps = 0;
    const size_t plane = static_cast<size_t>(tensor_width) * tensor_height;
    const double tolerance = input.float_intermediate ? kFloatIntermediateSteps : 1.0 + 1e-4;
    for (size_t i = 0; i < expected.size(); ++i) {
      const double step = normalize.scale / normalize.std[i / plane];
      const double steps = std::fabs(actual[i] - expected[i]) / step;
      if (actual[i] != expected[i]) ++off;
      worst_steps = std::max(worst_steps, steps);
      if (!(steps <= tolerance)) {
        if (beyond_tolerance++ == 0) first_beyond = i;
      }
    }
    std::printf(
        "[ %s ] %dx%d tensor: %zu of %zu elements differ from the reference, at most "
        "%.3f 8-bit steps\n",
        input.name, tensor_width, tensor_height, off, expected.size(), worst_steps);
    EXPECT_EQ(beyond_tolerance, 0u)
        << input.name << ": element " << first_beyond << " (c " << first_beyond / plane << ", y "
        << first_beyond % plane / tensor_width << ", x " << first_beyond % tensor_width << ") is "
        << (first_beyond < actual.size() ? actual[first_beyond] : 0.0f) << ", reference "
        << (first_beyond < expected.size() ? expected[first_beyond] : 0.0f);
    if (!input.float_intermediate) {
      EXPECT_LE(off, expected.size() / 50) << input.name << ": too many elements off by one step";
    }
  }
  EXPECT_EQ(fused_frames, input.fuse ? 2 : 0)
      << input.name
      << (input.fuse ? ": the chain did not fuse into one kernel" : ": fuse=false still fused");
  gst_harness_teardown(harness);
}

ModelInput yolo_input(bool fuse) {
  return {"YOLO letterbox",
          "cudaresize method=bilinear add-borders=true pad-value=\"<114,114,114>\" ! "
          "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB ! "
          "cudanormalize ! cudatensorize name=tensorize layout=nchw dtype=float32",
          Interpolation::kBilinear,
          true,
          0,
          640,
          640,
          {0, 0, 0},
          {1, 1, 1},
          fuse};
}

ModelInput depth_anything_input(bool fuse) {
  return {"Depth-Anything",
          "cudaresize method=bicubic short-side=518 multiple-of=14 ! "
          "video/x-raw(memory:CUDAPitched),format=RGB ! "
          "cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\" ! "
          "cudatensorize name=tensorize layout=nchw dtype=float32",
          Interpolation::kBicubic,
          false,
          518,
          0,
          0,
          {0.485f, 0.456f, 0.406f},
          {0.229f, 0.224f, 0.225f},
          fuse};
}

// A portrait camera mounted sideways: its frames turned clockwise, then
// letterboxed for YOLO.
ModelInput turned_yolo_input(bool fuse) {
  ModelInput input = yolo_input(fuse);
  input.name = "YOLO letterbox, turned 90r";
  input.elements =
      "cudaresize method=bicubic video-direction=90r add-borders=true "
      "pad-value=\"<114,114,114>\" ! "
      "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB ! "
      "cudanormalize ! cudatensorize name=tensorize layout=nchw dtype=float32";
  input.method = Interpolation::kBicubic;
  input.orientation = Orientation::kRotate90;
  return input;
}

// Depth-Anything's size rule on a frame mirrored over its anti-diagonal.
ModelInput turned_depth_anything_input(bool fuse) {
  ModelInput input = depth_anything_input(fuse);
  input.name = "Depth-Anything, turned ur-ll";
  input.elements =
      "cudaresize method=bicubic short-side=518 multiple-of=14 video-direction=ur-ll ! "
      "video/x-raw(memory:CUDAPitched),format=RGB ! "
      "cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\" ! "
      "cudatensorize name=tensorize layout=nchw dtype=float32";
  input.orientation = Orientation::kAntiTranspose;
  return input;
}

TEST(FullChain, TurnedYoloInputFused) {
  check_model_input(turned_yolo_input(true));
}
TEST(FullChain, TurnedYoloInputElementByElement) {
  check_model_input(turned_yolo_input(false));
}
TEST(FullChain, TurnedDepthAnythingInputFused) {
  check_model_input(turned_depth_anything_input(true));
}
TEST(FullChain, TurnedDepthAnythingInputElementByElement) {
  check_model_input(turned_depth_anything_input(false));
}

// float-intermediate through the real elements: every frame runs fused (the
// element used to refuse its own settings from the first frame on).
ModelInput depth_anything_float_input() {
  ModelInput input = depth_anything_input(true);
  input.name = "Depth-Anything, float intermediate";
  input.elements.replace(0, std::strlen("cudaresize"), "cudaresize float-intermediate=true");
  input.float_intermediate = true;
  return input;
}

// torchvision's classifier eval transform (ResNet50 IMAGENET1K_V2):
// Resize(232) of 1080p is 412x232, CenterCrop(224) at (94, 4). Fused, the
// crop folds into the one kernel (no 8-bit frame between the resize and the
// crop); with float-intermediate nothing is rounded before the tensor.
ModelInput classifier_input(bool fuse) {
  ModelInput input{"classifier resize and centre crop",
                   "cudaresize method=bilinear antialias=true ! "
                   "video/x-raw(memory:CUDAPitched),width=412,height=232,format=RGB ! "
                   "cudacrop x=94 y=4 width=224 height=224 ! "
                   "cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\" ! "
                   "cudatensorize name=tensorize layout=nchw dtype=float32",
                   Interpolation::kBilinear,
                   false,
                   0,
                   412,
                   232,
                   {0.485f, 0.456f, 0.406f},
                   {0.229f, 0.224f, 0.225f},
                   fuse};
  input.antialias = true;
  input.crop = PixelRect{94, 4, 224, 224};
  return input;
}

ModelInput classifier_float_input() {
  ModelInput input = classifier_input(true);
  input.name = "classifier resize and centre crop, float intermediate";
  input.elements.replace(0, std::strlen("cudaresize"), "cudaresize float-intermediate=true");
  input.float_intermediate = true;
  return input;
}

TEST(FullChain, ClassifierCropInputFused) {
  check_model_input(classifier_input(true));
}
TEST(FullChain, ClassifierCropInputElementByElement) {
  check_model_input(classifier_input(false));
}
TEST(FullChain, ClassifierCropInputFloatIntermediate) {
  check_model_input(classifier_float_input());
}

TEST(FullChain, YoloLetterboxInputFused) {
  check_model_input(yolo_input(true));
}
TEST(FullChain, YoloLetterboxInputElementByElement) {
  check_model_input(yolo_input(false));
}
TEST(FullChain, DepthAnythingInputFused) {
  check_model_input(depth_anything_input(true));
}
TEST(FullChain, DepthAnythingInputElementByElement) {
  check_model_input(depth_anything_input(false));
}
TEST(FullChain, DepthAnythingInputFloatIntermediate) {
  check_model_input(depth_anything_float_input());
}

}  // namespace
