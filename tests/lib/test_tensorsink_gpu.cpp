// cudatensorsink with tensors (device memory from cudatensorize; each test
// skips without a GPU): a clip tensor leaving the sample API at rank 5,
// gst-launch-1.0 running to EOS with nobody pulling, who takes the tensors
// (consumer=auto/application, a new_tensor callback or signal handler),
// wait-on-eos, drop/max-buffers, a flush or a pause with tensors queued,
// the files written (complete when their tensor is pulled, named by the
// location pattern) and the errors of files that cannot be written.
//
// The sink's edges that need no tensor are test_tensorsink.cpp's.
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepmeta-private.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "common/tensorsink_rig.h"

namespace {

using cudaprep::test::caps_string;
using cudaprep::test::random_frame;
using cudaprep::test::video_info;
using cudaprep::test::tensorsink_rig::Clock;
using cudaprep::test::tensorsink_rig::count_eos_signal;
using cudaprep::test::tensorsink_rig::EosCounts;
using cudaprep::test::tensorsink_rig::Pipeline;
using cudaprep::test::tensorsink_rig::seconds_since;

// appsrc of small RGBA frames through the chain into the sink.
std::string tensor_pipeline(const std::string &sink_properties) {
  return "appsrc name=src format=time caps=\"" + caps_string("RGBA", 16, 8) +
         "\" ! cudaframeupload ! cudanormalize ! cudatensorize ! cudatensorsink name=sink " +
         sink_properties;
}

void push_frames(Pipeline &run, int first, int count) {
  const GstVideoInfo info = video_info(caps_string("RGBA", 16, 8));
  std::mt19937 rng(first);
  for (int i = first; i < first + count; ++i) run.push(random_frame(info, rng), i);
}

// The frame index a pulled tensor came from (its PTS / 10 ms), -1 for NULL.
int frame_of(GstSample *sample) {
  if (sample == nullptr) return -1;
  return static_cast<int>(GST_BUFFER_PTS(gst_sample_get_buffer(sample)) / (10 * GST_MSECOND));
}

// Pulls until NULL (each pull waits at most 10 s): the frames pulled.
std::vector<int> pull_all(Pipeline &run) {
  std::vector<int> frames;
  GstSample *sample = nullptr;
  while ((sample = gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 10 * GST_SECOND)) !=
         nullptr) {
    frames.push_back(frame_of(sample));
    gst_sample_unref(sample);
  }
  return frames;
}

std::vector<int> range(int first, int count) {
  std::vector<int> values;
  for (int i = first; i < first + count; ++i) values.push_back(i);
  return values;
}

bool file_exists(const std::string &path) {
  return g_file_test(path.c_str(), G_FILE_TEST_IS_REGULAR);
}

// A clip tensor (NCTHW uint8, 3 clips of 2 frames of 1 x 2 x 3, two
// filled) in cudaprep memory leaves the sample API at rank 5, N cut to the
// filled clips: the download's bytes and DLPack's shape and strides.
TEST(TensorSinkGpu, AClipTensorLeavesAtRankFive) {
  CUDAPREP_REQUIRE_GPU();
  const cudaprep::ClipDesc clip = cudaprep::make_contiguous_clip_desc(
      cudaprep::ClipLayout::kNCTHW, 3, 2, 1, 2, 3, cudaprep::DataType::kUInt8);
  const size_t bytes = cudaprep::clip_span_bytes(clip);  // 36
  std::vector<guint8> pattern(bytes);
  for (size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<guint8>(i * 3 + 1);
  GstAllocator *allocator = gst_cuda_prep_allocator_get(0);
  GstMemory *memory = gst_allocator_alloc(allocator, bytes, nullptr);
  gst_object_unref(allocator);
  ASSERT_NE(memory, nullptr);
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, memory);
  guint8 *device = gst_cuda_prep_memory_get_device_pointer(gst_buffer_peek_memory(buffer, 0));
  CUDA_ASSERT_OK(cudaMemcpy(device, pattern.data(), bytes, cudaMemcpyHostToDevice));
  GstCudaPrepTensorMeta *meta = gst_buffer_add_cuda_prep_tensor_meta(buffer, 1);
  ASSERT_TRUE(
      gst_cuda_prep_tensor_set_from_clip_desc(meta->tensors[0], 0, clip, device, 0, nullptr));
  meta->tensors[0]->batch_filled = 2;
  GstSample *sample = gst_sample_new(buffer, nullptr, nullptr, nullptr);
  gst_buffer_unref(buffer);

  const size_t filled_bytes = 2 * 1 * 2 * 2 * 3;
  ASSERT_EQ(filled_bytes, gst_cuda_prep_tensor_sink_sample_get_size(sample));
  std::vector<guint8> host(filled_bytes);
  CUDA_ASSERT_OK(gst_cuda_prep_tensor_sink_sample_download(sample, host.data(), host.size()));
  EXPECT_TRUE(std::equal(host.begin(), host.end(), pattern.begin()));
  DLManagedTensor *managed = gst_cuda_prep_tensor_sink_sample_to_dlpack(sample, nullptr);
  ASSERT_NE(managed, nullptr);
  ASSERT_EQ(managed->dl_tensor.ndim, 5);
  const int64_t shape[5] = {2, 1, 2, 2, 3}, strides[5] = {12, 12, 6, 3, 1};
  for (int axis = 0; axis < 5; ++axis) {
    EXPECT_EQ(managed->dl_tensor.shape[axis], shape[axis]) << "axis " << axis;
    EXPECT_EQ(managed->dl_tensor.strides[axis], strides[axis]) << "axis " << axis;
  }
  managed->deleter(managed);
  gst_sample_unref(sample);
}

// gst-launch-1.0 with default properties and nobody pulling: the pipeline
// runs to EOS and every tensor is written.
TEST(TensorSinkGpu, GstLaunchWithLocationAndNobodyPullingCompletes) {
  CUDAPREP_REQUIRE_GPU();
  gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  const std::string pattern = std::string(dir) + "/t-%03d.npy";
  {
    Pipeline run(
        "videotestsrc num-buffers=6 ! video/x-raw,format=RGBA,width=16,height=8 ! "
        "cudaframeupload ! cudanormalize ! cudatensorize ! cudatensorsink name=sink "
        "location=\"" +
        pattern + "\"");
    ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
    EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  }
  for (int i = 0; i < 7; ++i) {
    const std::string path = std::string(dir) + "/t-00" + std::to_string(i) + ".npy";
    EXPECT_EQ(file_exists(path), i < 6) << path;
    g_remove(path.c_str());
  }
  g_rmdir(dir);
  g_free(dir);

  Pipeline plain(
      "videotestsrc num-buffers=6 ! video/x-raw,format=RGBA,width=16,height=8 ! cudaframeupload "
      "! cudanormalize ! cudatensorize ! cudatensorsink name=sink");
  ASSERT_TRUE(plain.set_state(GST_STATE_PLAYING));
  EXPECT_EQ(plain.wait_end(30 * GST_SECOND), "eos");
}

// consumer=auto and nobody has pulled yet: a full queue drops its oldest
// tensor, EOS does not wait; an application arriving late gets the newest.
TEST(TensorSinkGpu, AutoWithoutAConsumerKeepsTheNewestAndDoesNotWaitAtEos) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline(""));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 4);
  run.end();
  EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  EXPECT_EQ(pull_all(run), std::vector<int>{3});
}

// An application that has pulled once (here: a try-pull that returns at
// once) takes every tensor with the defaults max-buffers=1 drop=false.
TEST(TensorSinkGpu, AnApplicationThatPullsLosesNothing) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline(""));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  EXPECT_EQ(gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 0), nullptr);
  push_frames(run, 0, 8);  // appsrc queues them; the sink waits for the pulls
  run.end();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(run.wait_end(0), "") << "EOS came before the tensors were pulled";
  EXPECT_EQ(pull_all(run), range(0, 8));
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
}

// consumer=application: the pipeline waits for the application from the
// first tensor on, though it has not pulled yet.
TEST(TensorSinkGpu, ConsumerApplicationWaitsForTheFirstPull) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("consumer=application"));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 5);
  run.end();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(run.wait_end(0), "");
  EXPECT_EQ(pull_all(run), range(0, 5));
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
}

// wait-on-eos=true: eos (signal and message) after the last tensor is
// pulled; false: at once, the tensors still there to pull.
TEST(TensorSinkGpu, WaitOnEosHoldsEosUntilTheQueueIsEmpty) {
  CUDAPREP_REQUIRE_GPU();
  for (const bool wait : {true, false}) {
    Pipeline run(tensor_pipeline(std::string("consumer=application max-buffers=0 wait-on-eos=") +
                                 (wait ? "true" : "false")));
    EosCounts counts;
    g_signal_connect(run.sink, "eos", G_CALLBACK(count_eos_signal), &counts);
    ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
    push_frames(run, 0, 2);
    run.end();
    if (wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      EXPECT_EQ(run.wait_end(0), "");
      EXPECT_EQ(counts.signal.load(), 0);
    } else {
      EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
    }
    EXPECT_EQ(pull_all(run), range(0, 2)) << "wait-on-eos=" << wait;
    if (wait) {
      EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
    }
    EXPECT_EQ(counts.signal.load(), 1);
  }
}

// drop=true with an application: the newest max-buffers tensors stay.
TEST(TensorSinkGpu, DropKeepsTheNewestMaxBuffers) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("consumer=application drop=true max-buffers=2 wait-on-eos=false"));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 5);
  run.end();
  EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  EXPECT_EQ(pull_all(run), range(3, 2));
}

struct TensorCounts {
  std::atomic<int> tensors{0};
  std::atomic<int> eos{0};
};

GstFlowReturn take_tensor(GstCudaPrepTensorSink *sink, gpointer data) {
  GstSample *sample = gst_cuda_prep_tensor_sink_try_pull_tensor(sink, 0);
  if (sample == nullptr) return GST_FLOW_ERROR;
  static_cast<TensorCounts *>(data)->tensors++;
  gst_sample_unref(sample);
  return GST_FLOW_OK;
}

// A new_tensor callback makes the application the consumer: it gets every
// tensor, then eos once.
TEST(TensorSinkGpu, NewTensorCallbackTakesEveryTensor) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline(""));
  TensorCounts counts;
  GstCudaPrepTensorSinkCallbacks callbacks = {};
  callbacks.new_tensor = take_tensor;
  callbacks.eos = [](GstCudaPrepTensorSink *, gpointer data) {
    static_cast<TensorCounts *>(data)->eos++;
  };
  gst_cuda_prep_tensor_sink_set_callbacks(run.tensor_sink(), &callbacks, &counts, nullptr);
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 6);
  run.end();
  EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  EXPECT_EQ(counts.tensors.load(), 6);
  EXPECT_EQ(counts.eos.load(), 1);
}

GstFlowReturn take_tensor_signal(GstCudaPrepTensorSink *sink, gpointer data) {
  return take_tensor(sink, data);
}

TEST(TensorSinkGpu, NewTensorSignalHandlerTakesEveryTensor) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("emit-signals=true"));
  TensorCounts counts;
  g_signal_connect(run.sink, "new-tensor", G_CALLBACK(take_tensor_signal), &counts);
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 6);
  run.end();
  EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos");
  EXPECT_EQ(counts.tensors.load(), 6);
}

GstFlowReturn count_only(GstCudaPrepTensorSink *, gpointer data) {
  static_cast<TensorCounts *>(data)->tensors++;
  return GST_FLOW_OK;
}

// A flush discards the queued tensors: pulls after it find none.
TEST(TensorSinkGpu, FlushDiscardsQueuedTensors) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("consumer=application max-buffers=0 emit-signals=true"));
  TensorCounts counts;
  g_signal_connect(run.sink, "new-tensor", G_CALLBACK(count_only), &counts);
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 3);
  const auto start = Clock::now();
  while (counts.tensors.load() < 3 && seconds_since(start) < 30)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(counts.tensors.load(), 3) << run.wait_end(0);
  run.send_flush();
  EXPECT_EQ(gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 200 * GST_MSECOND),
            nullptr);
}

// Paused while it waits for room, the sink resumes on PLAYING and loses
// nothing (it used to return FLUSHING, which ended the stream).
TEST(TensorSinkGpu, PauseWhileWaitingForRoomLosesNothing) {
  CUDAPREP_REQUIRE_GPU();
  Pipeline run(tensor_pipeline("consumer=application"));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 4);
  run.end();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(run.set_state(GST_STATE_PAUSED));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  EXPECT_EQ(pull_all(run), range(0, 4));
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
}

// A file that cannot be written is an element error naming it; the tensor
// was queued for the application first.
TEST(TensorSinkGpu, UnwritableFileIsAnErrorNamingThePath) {
  CUDAPREP_REQUIRE_GPU();
  {
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    Pipeline run(tensor_pipeline("location=/dev/full"));
    ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
    EXPECT_EQ(gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 0), nullptr);
    push_frames(run, 0, 1);
    const std::string end = run.wait_end(30 * GST_SECOND);
    EXPECT_NE(end.find("Could not write tensor file \"/dev/full\""), std::string::npos) << end;
    // Files are written before queueing: a tensor without its file is not queued.
    GstSample *sample = gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), GST_SECOND);
    EXPECT_EQ(frame_of(sample), -1) << "a tensor whose file failed was queued";
    if (sample != nullptr) gst_sample_unref(sample);
  }
  {
    // The directory disappears after the sink started.
    gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
    ASSERT_NE(dir, nullptr);
    const std::string missing = std::string(dir) + "/gone";
    ASSERT_EQ(g_mkdir(missing.c_str(), 0700), 0);
    Pipeline run(tensor_pipeline("location=\"" + missing + "/t-%d.npy\""));
    ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
    ASSERT_EQ(g_rmdir(missing.c_str()), 0);
    push_frames(run, 0, 1);
    const std::string end = run.wait_end(30 * GST_SECOND);
    EXPECT_NE(end.find("\"" + missing + "/t-0.npy\""), std::string::npos) << end;
    g_rmdir(dir);
    g_free(dir);
  }
}

// An application reading file N as soon as it pulls tensor N finds it
// complete, equal to the tensor (the file is written before the tensor is
// queued).
TEST(TensorSinkGpu, EachFileIsCompleteWhenItsTensorIsPulled) {
  CUDAPREP_REQUIRE_GPU();
  gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  const std::string d(dir);
  Pipeline run(tensor_pipeline("consumer=application location=\"" + d + "/t-%d.npy\""));
  ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
  push_frames(run, 0, 6);
  run.end();
  int pulled = 0;
  while (GstSample *sample =
             gst_cuda_prep_tensor_sink_try_pull_tensor(run.tensor_sink(), 10 * GST_SECOND)) {
    const gsize size = gst_cuda_prep_tensor_sink_sample_get_size(sample);
    std::vector<guint8> tensor(size);
    ASSERT_EQ(gst_cuda_prep_tensor_sink_sample_download(sample, tensor.data(), size), cudaSuccess);
    const std::string path = d + "/t-" + std::to_string(pulled) + ".npy";
    gchar *contents = nullptr;
    gsize length = 0;
    ASSERT_TRUE(g_file_get_contents(path.c_str(), &contents, &length, nullptr)) << path;
    // The .npy header, then exactly the tensor's bytes.
    ASSERT_GE(length, size) << path;
    EXPECT_EQ(std::memcmp(contents + (length - size), tensor.data(), size), 0) << path;
    g_free(contents);
    g_remove(path.c_str());
    gst_sample_unref(sample);
    ++pulled;
  }
  EXPECT_EQ(pulled, 6);
  EXPECT_EQ(run.wait_end(10 * GST_SECOND), "eos");
  g_rmdir(dir);
  g_free(dir);
}

// The index goes where the conversion is, with its width; without one the
// file holds the last tensor.
TEST(TensorSinkGpu, LocationPatternsNameTheFiles) {
  CUDAPREP_REQUIRE_GPU();
  gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  const std::string d(dir);
  struct Case {
    std::string pattern;
    std::vector<std::string> files;
  };
  const Case cases[] = {
      {"a-%u.npy", {"a-0.npy", "a-1.npy"}},
      {"b%%-%03i.npy", {"b%-000.npy", "b%-001.npy"}},
      {"c-%4d.npy", {"c-   0.npy", "c-   1.npy"}},
      {"d.npy", {"d.npy"}},
  };
  for (const Case &c : cases) {
    {
      Pipeline run(tensor_pipeline("location=\"" + d + "/" + c.pattern + "\""));
      ASSERT_TRUE(run.set_state(GST_STATE_PLAYING));
      push_frames(run, 0, 2);
      run.end();
      EXPECT_EQ(run.wait_end(30 * GST_SECOND), "eos") << c.pattern;
    }
    GDir *listing = g_dir_open(dir, 0, nullptr);
    std::vector<std::string> names;
    for (const gchar *name = g_dir_read_name(listing); name != nullptr;
         name = g_dir_read_name(listing))
      names.push_back(name);
    g_dir_close(listing);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, c.files) << c.pattern;
    for (const std::string &name : names) g_remove((d + "/" + name).c_str());
  }
  g_rmdir(dir);
  g_free(dir);
}

}  // namespace
