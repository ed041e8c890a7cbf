// gst_cuda_prep_warm_kernels (gstcudaprepwarm.h): a pipeline brought up
// once so that its elements compile their kernels. Without a GPU: lines
// that do not parse, plain GStreamer pipelines (prerolled, live ones
// played), errors carrying the element's words, EOS before any buffer,
// no sink, timeouts. With a GPU (WarmKernelsGpu): a real chain fills an
// empty kernel cache, and a second call compiles nothing.
#include <dirent.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <gst/cudaprep/gstcudaprepwarm.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "common/bus_log.h"
#include "common/cuda_test.h"
#include "common/kernel_cache_environment.h"

namespace {

using cudaprep::test::LogTap;

[[maybe_unused]] ::testing::Environment *const warm_environment =
    ::testing::AddGlobalTestEnvironment(new cudaprep::test::OwnKernelCacheEnvironment);

// The lines of one debug category at up to `level`, while it lives.
class CategoryLog {
 public:
  CategoryLog(const char *category, GstDebugLevel level) : category_(category), level_(level) {
    gst_debug_set_threshold_for_name(category, level);
  }
  ~CategoryLog() { gst_debug_unset_threshold_for_name(category_.c_str()); }
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> guard(lock_);
    return lines_;
  }

 private:
  std::string category_;
  GstDebugLevel level_;
  std::mutex lock_;
  std::vector<std::string> lines_;
  LogTap tap_{[this](GstDebugCategory *category, GstDebugLevel level, const gchar *, const gchar *,
                     gint, GObject *object, GstDebugMessage *message) {
    if (level > level_ || category_ != gst_debug_category_get_name(category)) return;
    const gchar *text = gst_debug_message_get(message);
    std::lock_guard<std::mutex> guard(lock_);
    lines_.push_back(std::string(object && GST_IS_OBJECT(object) ? GST_OBJECT_NAME(object) : "") +
                     ": " + (text ? text : ""));
  }};
};

// What one call returned, and how long it took.
struct Warmed {
  gboolean ok = FALSE;
  GQuark domain = 0;
  int code = 0;
  std::string message;
  double seconds = 0;
};

Warmed warm(const char *launch, guint timeout_seconds) {
  Warmed result;
  GError *error = nullptr;
  const auto start = std::chrono::steady_clock::now();
  result.ok = gst_cuda_prep_warm_kernels(launch, timeout_seconds, &error);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.ok, error == nullptr) << "a failure sets the GError, a success leaves it";
  if (error != nullptr) {
    result.domain = error->domain;
    result.code = error->code;
    result.message = error->message;
    g_error_free(error);
  }
  return result;
}

bool contains(const std::string &text, const char *part) {
  return text.find(part) != std::string::npos;
}

TEST(WarmKernels, ALineThatDoesNotParseIsTheParsersError) {
  const Warmed warmed = warm("videotestsrc ! nosuchelementwarm ! fakesink", 10);
  EXPECT_FALSE(warmed.ok);
  EXPECT_EQ(warmed.domain, GST_PARSE_ERROR);
  EXPECT_TRUE(contains(warmed.message, "cannot build the pipeline")) << warmed.message;
  EXPECT_TRUE(contains(warmed.message, "nosuchelementwarm")) << warmed.message;
}

TEST(WarmKernels, APipelineOfNoCudaprepElementComesUp) {
  const Warmed warmed = warm("videotestsrc num-buffers=1 ! fakesink", 10);
  EXPECT_TRUE(warmed.ok) << warmed.message;
  EXPECT_LT(warmed.seconds, 5.0);
}

TEST(WarmKernels, EverySinkOfATeeHasABuffer) {
  const Warmed warmed = warm(
      "videotestsrc num-buffers=1 ! tee name=t t. ! queue ! fakesink t. ! queue ! fakesink", 10);
  EXPECT_TRUE(warmed.ok) << warmed.message;
}

// A live source does not preroll: PAUSED says NO_PREROLL, and only PLAYING
// brings a buffer to the sink.
TEST(WarmKernels, ALivePipelineComesUpByPlaying) {
  CategoryLog log("cudaprepwarm", GST_LEVEL_DEBUG);
  const Warmed warmed = warm("videotestsrc is-live=true num-buffers=3 ! fakesink", 10);
  EXPECT_TRUE(warmed.ok) << warmed.message;
  bool played = false;
  for (const std::string &line : log.lines()) played = played || contains(line, "live: playing");
  EXPECT_TRUE(played) << "the live path was not taken";
}

TEST(WarmKernels, AnElementsErrorCarriesItsMessage) {
  const Warmed warmed =
      warm("filesrc name=reader location=/nonexistent/cudaprep-warm.mp4 ! fakesink", 10);
  EXPECT_FALSE(warmed.ok);
  EXPECT_EQ(warmed.domain, GST_RESOURCE_ERROR);
  EXPECT_TRUE(contains(warmed.message, "reader: ")) << warmed.message;
  EXPECT_TRUE(contains(warmed.message, "/nonexistent/cudaprep-warm.mp4")) << warmed.message;
}

// Links that parse (tee answers each branch alone) but caps that cannot be
// agreed on once data flows.
TEST(WarmKernels, CapsThatCannotBeNegotiatedAreNamed) {
  const Warmed warmed = warm(
      "videotestsrc ! tee name=t t. ! queue ! video/x-raw,format=RGB ! fakesink "
      "t. ! queue ! video/x-raw,format=NV12 ! fakesink",
      10);
  EXPECT_FALSE(warmed.ok);
  EXPECT_TRUE(contains(warmed.message, "not-negotiated")) << warmed.message;
}

TEST(WarmKernels, EndOfStreamBeforeAnyBufferIsAFailure) {
  const Warmed warmed = warm("videotestsrc num-buffers=0 ! fakesink name=out", 10);
  EXPECT_FALSE(warmed.ok);
  EXPECT_EQ(warmed.domain, GST_STREAM_ERROR);
  EXPECT_EQ(warmed.code, GST_STREAM_ERROR_FAILED);
  EXPECT_TRUE(contains(warmed.message, "out:sink")) << warmed.message;
}

TEST(WarmKernels, APipelineWithoutASinkIsRefused) {
  const Warmed warmed = warm("videotestsrc", 10);
  EXPECT_FALSE(warmed.ok);
  EXPECT_TRUE(contains(warmed.message, "no sink element")) << warmed.message;
}

// appsrc with nothing pushed: neither pipeline ever has a buffer.
TEST(WarmKernels, NoAnswerWithinTheTimeout) {
  for (const char *launch : {"appsrc ! fakesink", "appsrc is-live=true ! fakesink"}) {
    const Warmed warmed = warm(launch, 1);
    EXPECT_FALSE(warmed.ok) << launch;
    EXPECT_EQ(warmed.domain, GST_CORE_ERROR) << launch;
    EXPECT_EQ(warmed.code, GST_CORE_ERROR_STATE_CHANGE) << launch;
    EXPECT_TRUE(contains(warmed.message, "no answer in 1 s")) << warmed.message;
    EXPECT_GE(warmed.seconds, 0.9) << launch;
    EXPECT_LT(warmed.seconds, 5.0) << launch;
  }
}

// *.module files in `directory`.
size_t module_count(const std::string &directory) {
  size_t count = 0;
  DIR *dir = opendir(directory.c_str());
  if (dir == nullptr) return 0;
  while (const dirent *entry = readdir(dir)) {
    const size_t length = std::strlen(entry->d_name);
    count += length > 7 && std::strcmp(entry->d_name + length - 7, ".module") == 0;
  }
  closedir(dir);
  return count;
}

// The elements' "kernels ready: N compiled in S s, M loaded from the
// cache" lines (gstcudaprepbasetransform.cpp) of one call.
std::vector<std::string> ready_lines(CategoryLog &log) {
  std::vector<std::string> ready;
  for (const std::string &line : log.lines())
    if (contains(line, "kernels ready")) ready.push_back(line);
  return ready;
}

TEST(WarmKernelsGpu, FillsAnEmptyCacheThenCompilesNothingTheSecondTime) {
  CUDAPREP_REQUIRE_GPU();
  const char *launch =
      "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=320,height=240 ! "
      "cudaframeupload ! cudaresize ! "
      "video/x-raw(memory:CUDAPitched),width=64,height=64,format=RGB ! cudanormalize ! "
      "cudatensorize ! fakesink";
  const std::string &directory = cudaprep::test::OwnKernelCacheEnvironment::directory();
  ASSERT_EQ(module_count(directory), 0u) << directory << " is not empty";
  {
    CategoryLog log("cudaprepbasetransform", GST_LEVEL_INFO);
    const Warmed warmed = warm(launch, 0);
    ASSERT_TRUE(warmed.ok) << warmed.message;
    std::printf("first call: %.2f s\n", warmed.seconds);
    EXPECT_FALSE(ready_lines(log).empty()) << "no element prepared its kernels";
  }
  const size_t modules = module_count(directory);
  EXPECT_GE(modules, 1u) << directory << " holds no module after the first call";
  {
    CategoryLog log("cudaprepbasetransform", GST_LEVEL_INFO);
    const Warmed warmed = warm(launch, 0);
    ASSERT_TRUE(warmed.ok) << warmed.message;
    std::printf("second call: %.2f s\n", warmed.seconds);
    const std::vector<std::string> ready = ready_lines(log);
    EXPECT_FALSE(ready.empty()) << "no element prepared its kernels";
    for (const std::string &line : ready) {
      std::printf("%s\n", line.c_str());
      EXPECT_TRUE(contains(line, "kernels ready: 0 compiled") ||
                  contains(line, "downstream's fused kernel): 0 compiled"))
          << line;
    }
  }
  EXPECT_EQ(module_count(directory), modules) << "the second call added modules";
}

}  // namespace
