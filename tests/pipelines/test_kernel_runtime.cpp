// Kernels compiled at run time (kernels/runtime, docs/kernels.md): every
// chain the README and the benchmarks use compiles its kernels when its
// elements negotiate, so no frame waits for NVRTC (a frame that did is
// logged by the elements: base/gstcudaprepkernelwatch.h), and the result is
// the same with a cold disk cache and a warm one.
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "common/bus_log.h"
#include "common/cuda_test.h"
#include "common/kernel_cache_environment.h"

namespace {

using cudaprep::test::LogTap;

[[maybe_unused]] ::testing::Environment *const kernel_runtime_environment =
    ::testing::AddGlobalTestEnvironment(new cudaprep::test::OwnKernelCacheEnvironment);

// The elements' lines about kernels: "kernels ready" when they negotiated,
// the watch's warning when a frame compiled one.
class KernelLog {
 public:
  KernelLog() {
    gst_debug_set_threshold_for_name("cudaprepkernels", GST_LEVEL_WARNING);
    gst_debug_set_threshold_for_name("cudaprepbasetransform", GST_LEVEL_INFO);
  }
  ~KernelLog() {
    gst_debug_unset_threshold_for_name("cudaprepbasetransform");
    gst_debug_unset_threshold_for_name("cudaprepkernels");
  }
  std::vector<std::string> lines_of(const char *category) {
    std::lock_guard<std::mutex> guard(lock_);
    std::vector<std::string> found;
    for (const auto &[name, text] : lines_)
      if (name == category) found.push_back(text);
    return found;
  }

 private:
  std::mutex lock_;
  std::vector<std::pair<std::string, std::string>> lines_;
  LogTap tap_{[this](GstDebugCategory *category, GstDebugLevel level, const gchar *, const gchar *,
                     gint, GObject *object, GstDebugMessage *message) {
    const char *name = gst_debug_category_get_name(category);
    if (level > GST_LEVEL_INFO || (std::strcmp(name, "cudaprepkernels") != 0 &&
                                   std::strcmp(name, "cudaprepbasetransform") != 0))
      return;
    const gchar *text = gst_debug_message_get(message);
    std::lock_guard<std::mutex> guard(lock_);
    lines_.emplace_back(
        name, std::string(object && GST_IS_OBJECT(object) ? GST_OBJECT_NAME(object) : "") + ": " +
                  (text ? text : ""));
  }};
};

// Plays `pipeline` to EOS; "" or the error.
std::string play_to_eos(GstElement *pipeline) {
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    return "could not play";
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, 120 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  std::string error = message == nullptr ? "no EOS in 120 s" : "";
  if (message != nullptr && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError *gerror = nullptr;
    gst_message_parse_error(message, &gerror, nullptr);
    error = gerror->message;
    g_error_free(gerror);
  }
  if (message != nullptr) gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  return error;
}

struct Chain {
  const char *name;
  const char *launch;
};

const std::string kNv12 = "video/x-raw,format=NV12,width=1280,height=720 ! cudaframeupload ! ";
const std::string kLetterbox =
    "cudaresize add-borders=true ! "
    "video/x-raw(memory:CUDAPitched),format=RGB,width=640,height=640 ! ";

std::vector<std::string> chains() {
  const std::string source = "videotestsrc num-buffers=5 ! " + kNv12;
  return {
      // README's detector chain: one fused kernel per frame.
      source + kLetterbox + "cudanormalize ! cudatensorize ! fakesink",
      // The same, element by element.
      source + kLetterbox + "cudanormalize ! cudatensorize fuse=false ! fakesink",
      // Depth-style: antialiased bicubic, float16.
      source +
          "cudaresize method=bicubic antialias=true ! "
          "video/x-raw(memory:CUDAPitched),format=RGB,width=518,height=294 ! "
          "cudanormalize dtype=float16 ! cudatensorize ! fakesink",
      // Turned.
      source +
          "cudaresize video-direction=90r ! "
          "video/x-raw(memory:CUDAPitched),format=RGB,width=224,height=224 ! "
          "cudanormalize ! cudatensorize ! fakesink",
      // Resize alone, back to the host.
      "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=320,height=240 ! "
      "cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),width=160,height=120 ! "
      "cudaframedownload ! fakesink",
      // Two cameras into one batch: one preprocess_batch() per batch.
      "cudabatch name=b batch-size=2 ! fakesink "
      "videotestsrc num-buffers=4 ! " +
          kNv12 + kLetterbox +
          "cudanormalize ! b.sink_0 "
          "videotestsrc num-buffers=4 pattern=ball ! " +
          kNv12 + kLetterbox + "cudanormalize ! b.sink_1",
  };
}

class NoFrameWaits : public ::testing::TestWithParam<std::string> {};

// Twice: a cold cache (compiled by NVRTC at negotiation), then the same
// chain again (in memory).
TEST_P(NoFrameWaits, ForAKernelCompile) {
  CUDAPREP_REQUIRE_GPU();
  for (int run = 0; run < 2; ++run) {
    KernelLog log;
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(GetParam().c_str(), &error);
    ASSERT_NE(pipeline, nullptr) << (error ? error->message : "");
    EXPECT_EQ(play_to_eos(pipeline), "") << "run " << run;
    gst_object_unref(pipeline);
    const std::vector<std::string> waited = log.lines_of("cudaprepkernels");
    EXPECT_TRUE(waited.empty()) << "run " << run << ": " << waited.size()
                                << " frame(s) waited for a kernel, first: " << waited[0];
    size_t ready = 0;
    for (const std::string &line : log.lines_of("cudaprepbasetransform"))
      if (line.find("kernels ready") != std::string::npos) {
        ++ready;
        std::printf("run %d %s\n", run, line.c_str());
      }
    EXPECT_GE(ready, 1u) << "run " << run << ": no element prepared its kernels";
  }
}

INSTANTIATE_TEST_SUITE_P(Chains, NoFrameWaits, ::testing::ValuesIn(chains()));

}  // namespace
