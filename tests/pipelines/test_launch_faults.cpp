// Every error row of docs/faults.md as a user meets it: a gst-launch-1.0
// line, parsed, linked and set PLAYING, whose FIRST error is the element's
// own message, wherever the fault is found (a property at READY, the caps,
// the first buffer) and never a bare "could not link" or a source's
// "Internal data stream error" in its place (issue 35).
//
// Settings are checked at NULL -> READY, before any element chooses its
// device, so those rows run in CI; the rest need a GPU and skip without one.
// (The out-of-memory row is bad_input's OutOfMemory.*, the live camera's
// chain row rtsp_launch's RtspLaunch.AChainThatCannotWorkIsAnError: both
// launch lines asserting the first error too.)
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/cuda_test.h"
#include "common/launch_line.h"

namespace {

using cudaprep::test::first_error;
using cudaprep::test::FirstError;

// A source of small 8-bit frames and the chain into a tensor around `middle`
// (the elements under test), as the README's lines are.
std::string tensor_line(const std::string &middle, const std::string &sink = "cudatensorsink") {
  return "videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48 ! "
         "cudaframeupload ! " +
         middle + " ! " + sink;
}

// The first error of `line` is `expected` (a part of its message), posted
// by an element of `factory`.
void expect_first_error(const std::string &line, const char *factory, const std::string &expected) {
  const FirstError first = first_error(line);
  EXPECT_NE(first.message.find(expected), std::string::npos)
      << line << "\n first error, from " << first.source << ": " << first.message;
  EXPECT_EQ(first.source, factory) << line << ": " << first.message;
}

// --- Settings: errors at READY, before any device is chosen (CI) -------------

TEST(LaunchFaults, NormalizeSettingsThatCannotWork) {
  const struct {
    const char *settings, *expected;
  } cases[] = {
      {"std=\"<1e-50,1,1>\"",
       "Invalid cudanormalize settings: std[0]=1e-50 is 0 or too close to 0 for a 32-bit float: "
       "the channel would be divided by zero"},
      {"std=\"<0,1,1>\"", "std[0]=0 is 0 or too close to 0 for a 32-bit float"},
      {"mean=\"<inf,0,0>\"", "Invalid cudanormalize settings: mean[0]=inf is not a finite"},
      {"mean=\"<1e39,0,0>\"", "mean[0]=1e+39 is not a finite 32-bit float"},
      {"scale=inf", "Invalid cudanormalize settings: scale=inf is not a finite 32-bit float"},
  };
  for (const auto &c : cases)
    expect_first_error(tensor_line(std::string("cudanormalize ") + c.settings + " ! cudatensorize"),
                       "cudanormalize", c.expected);
}

// Was: gst_parse_launch's "could not link cudatensorize0 to
// cudatensorsink0" (the tensor caps carried batch=0).
TEST(LaunchFaults, BatchSizeOutOfRange) {
  for (const char *value : {"0", "100000"})
    expect_first_error(
        tensor_line(std::string("cudanormalize ! cudatensorize batch-size=") + value),
        "cudatensorize",
        std::string("Invalid cudatensorize settings: batch-size=") + value + " is outside 1..1024");
}

TEST(LaunchFaults, ClipSettingsThatCannotWork) {
  const struct {
    const char *settings, *expected;
  } cases[] = {
      {"clip-length=16",
       "Invalid cudatensorize settings: clip-length=16 makes clips, which need layout=ncthw or "
       "ntchw (not nchw)"},
      {"layout=ncthw",
       "Invalid cudatensorize settings: layout=ncthw is a clip layout: set "
       "clip-length to the frames per clip"},
      {"clip-length=8 layout=ntchw clip-frame-stride=0",
       "Invalid cudatensorize settings: clip-frame-stride=0 is outside 1..1000"},
  };
  for (const auto &c : cases)
    expect_first_error(tensor_line(std::string("cudanormalize ! cudatensorize ") + c.settings),
                       "cudatensorize", c.expected);
}

// cudabatch's clips: its own settings, and a pad's that its clips rule out.
TEST(LaunchFaults, BatchClipSettingsThatCannotWork) {
  const struct {
    const char *batch, *pad, *expected;
  } cases[] = {
      {"clip-length=16", "",
       "clip-length=16 makes clips, which need layout=ncthw or ntchw (not nchw)"},
      {"layout=ntchw", "", "layout=ntchw is a clip layout: set clip-length to the frames per clip"},
      {"clip-length=8 layout=ncthw source-policy=latest", "",
       "clip-length=8 with source-policy=latest: a clip holds every frame of its source"},
      {"clip-length=8 layout=ncthw max-source-frames=2", "",
       "clip-length=8 with max-source-frames=2: a clip takes a slot when it begins"},
      {"clip-length=8 layout=ncthw", "sink_0::region-source=tiles",
       "sink_0 takes regions, but clip-length=8 makes clips of whole frames: set its "
       "region-source=frame"},
  };
  for (const auto &c : cases)
    expect_first_error(std::string("cudabatch name=b ") + c.batch + " " + c.pad +
                           " ! cudatensorsink " +
                           tensor_line("cudaresize ! video/x-raw(memory:CUDAPitched),width=32,"
                                       "height=32,format=RGB ! cudanormalize",
                                       "b.sink_0"),
                       "cudabatch", c.expected);
}

TEST(LaunchFaults, ResizePadValuesThatCannotWork) {
  const struct {
    const char *pad_value, *expected;
  } cases[] = {
      {"<300>", "Invalid cudaresize settings: pad-value[0]=300 is outside 0..255"},
      {"<1,2,3,4,5>", "Invalid cudaresize settings: pad-value takes 1 to 4 values"},
  };
  for (const auto &c : cases)
    expect_first_error(tensor_line(std::string("cudaresize pad-value=\"") + c.pad_value +
                                   "\" ! video/x-raw(memory:CUDAPitched),width=32,height=32 ! "
                                   "cudatensorize"),
                       "cudaresize", c.expected);
}

TEST(LaunchFaults, TensorSinkLocationWithAConversionOtherThanOneInteger) {
  for (const char *location : {"/tmp/%s%s%s.npy", "/tmp/t-%n.npy"})
    expect_first_error(
        tensor_line("cudatensorize", std::string("cudatensorsink location=") + location),
        "cudatensorsink", std::string("Invalid location \"") + location + "\"");
}

TEST(LaunchFaults, TensorSinkLocationInAMissingDirectory) {
  expect_first_error(
      tensor_line("cudatensorize", "cudatensorsink location=/nonexistent-cudaprep-dir/t-%05d.npy"),
      "cudatensorsink", "\"/nonexistent-cudaprep-dir/t-00000.npy\"");
}

// GStreamer's parser reads caps only between elements: bare caps ending a
// chain are taken for an element named "video".
TEST(LaunchFaults, SourceChainEndingInBareCaps) {
  expect_first_error(
      "cudaprepsrc uri=rtsp://127.0.0.1:1/none chain=\"videoconvert ! video/x-raw,width=160\" ! "
      "fakesink",
      "cudaprepsrc", "no element \"video\"");
}

// Lines whose crop leaves no pixels of the frame; the crop names it when
// the caps arrive (LaunchFaultsGpu.ACropThatLeavesNoPixels).
const char *const kCropsWithNoPixels[] = {
    // The line (raw frames parsed), and a source of that one size.
    "videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=671,height=48 ! "
    "rawvideoparse use-sink-caps=true ! cudaframeupload ! cudacrop left=335 right=336 ! "
    "cudaframedownload ! fakesink",
    "videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=671,height=48 ! "
    "cudaframeupload ! cudacrop left=335 right=336 ! cudaframedownload ! fakesink",
};

// Was, behind the source of one size: "could not link cudacrop0 to
// cudaframedownload0" (the crop offered no output caps).
TEST(LaunchFaults, ACropThatLeavesNoPixelsLinks) {
  for (const char *line : kCropsWithNoPixels) {
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(line, &error);
    EXPECT_EQ(error, nullptr) << line << ": " << error->message;
    g_clear_error(&error);
    if (pipeline != nullptr) gst_object_unref(pipeline);
  }
}

// Without a GPU (CI): the first element to start names it.
TEST(LaunchFaults, NoUsableDevice) {
  if (cudaprep::test::cuda_unavailable_reason().empty())
    GTEST_SKIP() << "a CUDA device is present: this test covers machines without one";
  expect_first_error(tensor_line("cudanormalize ! cudatensorize"), "cudatensorize",
                     "No usable CUDA device (no GPU, or no NVIDIA driver loaded)");
}

// --- Faults found at start, in the caps or on the first frame (GPU) ----------

TEST(LaunchFaultsGpu, ADeviceIdThatDoesNotExist) {
  CUDAPREP_REQUIRE_GPU();
  for (const char *property : {"device-id=5000", "cuda-device-id=5000"})
    expect_first_error(tensor_line(std::string("cudanormalize ") + property + " ! cudatensorize"),
                       "cudanormalize",
                       "device-id=5000: CUDA device 5000 does not exist, this machine has");
}

// Was, for the line: the source's "Internal data stream error"
// (the crop's accept-caps refused the frame, so the crop never saw its caps).
TEST(LaunchFaultsGpu, ACropThatLeavesNoPixels) {
  CUDAPREP_REQUIRE_GPU();
  for (const char *line : kCropsWithNoPixels)
    expect_first_error(line, "cudacrop",
                       "Impossible crop: crop left=335 right=336 top=0 bottom=0 removes the whole "
                       "671x48 input frame");
  expect_first_error(
      "videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! cudaframeupload ! "
      "cudacrop x=10 y=10 width=60 height=20 ! fakesink",
      "cudacrop",
      "Impossible crop: crop region x=10 y=10 width=60 height=20 does not fit the 64x48 input "
      "frame");
}

TEST(LaunchFaultsGpu, EightBitVideoIntoAFloatTensor) {
  CUDAPREP_REQUIRE_GPU();
  expect_first_error(tensor_line("cudatensorize dtype=float32"), "cudatensorize",
                     "cudatensorize receives 8-bit video, which gives uint8 tensors only, but "
                     "dtype=float32: put cudanormalize before cudatensorize");
}

TEST(LaunchFaultsGpu, BatchSourcesResizedWithDifferentMethods) {
  CUDAPREP_REQUIRE_GPU();
  auto source = [](const char *method, const char *pad) {
    return std::string(
               "videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48 ! "
               "cudaframeupload ! cudaresize method=") +
           method + " ! video/x-raw(memory:CUDAPitched),width=32,height=24,format=RGB ! " +
           "cudanormalize ! b." + pad + " ";
  };
  const FirstError first = first_error("cudabatch name=b batch-size=2 ! fakesink " +
                                       source("bicubic", "sink_0") + source("bilinear", "sink_1"));
  // The first item of the batch names its source first.
  EXPECT_TRUE(first.message.find("Source 0 resizes with method bicubic but source 1 with "
                                 "bilinear") != std::string::npos ||
              first.message.find("Source 1 resizes with method bilinear but source 0 with "
                                 "bicubic") != std::string::npos)
      << first.source << ": " << first.message;
  EXPECT_NE(first.message.find("every source's cudaresize must use the same"), std::string::npos)
      << first.message;
  EXPECT_EQ(first.source, "cudabatch") << first.message;
}

// (A child process: NVRTC is loaded once per process. An empty kernel
// directory, of the child's own: no module comes from a cache.)
TEST(LaunchFaultsGpu, NoNvrtcToCompileTheFirstKernel) {
  CUDAPREP_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        gchar *empty = g_dir_make_tmp("cudaprep-no-kernels-XXXXXX", nullptr);
        if (empty == nullptr) std::exit(2);
        setenv("CUDAPREP_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", 1);
        setenv("CUDAPREP_KERNEL_CACHE_DIR", empty, 1);
        setenv("CUDAPREP_PRECOMPILED_KERNEL_DIR", empty, 1);
        const FirstError first = first_error(tensor_line("cudanormalize ! cudatensorize"));
        std::fprintf(stderr, "%s: %s\n", first.source.c_str(), first.message.c_str());
        g_rmdir(empty);  // (nothing was compiled into it)
        std::exit(first.source == "cudanormalize" || first.source == "cudatensorize" ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "No CUDA kernel for this GPU: cudaprep compiles its CUDA kernels at run time with NVRTC, "
      "and no NVRTC library could be loaded");
}

}  // namespace
