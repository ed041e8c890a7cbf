// cudabatch: N sources into one batch tensor.
//  - CPU: properties (ranges, defaults, batch-timeout is the aggregator's
//    latency), request pads sink_N, the tensor caps it offers.
//  - GPU: four sources of different sizes and formats batched into one
//    tensor equal each source's own single-stream tensor (cudatensorize
//    batch-size=1 after the same chain), bit for bit, with the source index
//    and PTS of every item; EOS on one source does not stall the others; a
//    live source that stops leaves a partial batch after batch-timeout, and
//    the latency includes that wait; new caps upstream mid-batch lose and
//    duplicate no frame.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "gstcudaprepmeta.h"

namespace {

using namespace cudaprep::test;

constexpr int kOutWidth = 96, kOutHeight = 64;

struct Source {
  const char *format;
  int width, height;
};

const Source kSources[] = {
    {"NV12", 160, 90}, {"RGBA", 128, 128}, {"I420", 100, 60}, {"YUY2", 90, 70}};

// The chain each source runs through before the batch (or, for the
// reference, before cudatensorize batch-size=1).
std::string chain(const std::string &appsrc_name, const std::string &caps) {
  return "appsrc name=" + appsrc_name + " format=time caps=\"" + caps +
         "\" ! cudaframeupload ! cudaresize method=bilinear add-borders=true ! "
         "video/x-raw(memory:CUDAPitched),width=" +
         std::to_string(kOutWidth) + ",height=" + std::to_string(kOutHeight) +
         ",format=RGB ! cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\"";
}

struct Item {
  int source;
  GstClockTime pts;
  std::vector<guint8> bytes;
};

struct Batch {
  GstClockTime pts;
  size_t size, filled;
  std::vector<Item> items;  // the filled ones
};

GstBuffer *frame_at(const std::string &caps, std::mt19937 &rng, GstClockTime pts) {
  GstBuffer *buffer = random_frame(video_info(caps), rng);
  GST_BUFFER_PTS(buffer) = pts;
  GST_BUFFER_DURATION(buffer) = 33 * GST_MSECOND;
  return buffer;
}

// The batches `sink` receives until EOS (10 s at most).
std::vector<Batch> pull_batches(GstElement *sink) {
  std::vector<Batch> batches;
  while (GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND)) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
    EXPECT_NE(meta, nullptr);
    if (meta == nullptr) {
      gst_sample_unref(sample);
      break;
    }
    const GstCudaPrepTensor *tensor = meta->tensors[0];
    const std::vector<guint8> bytes = tensor_bytes(buffer);
    const size_t item_bytes = bytes.size() / tensor->batch_size;
    Batch batch{GST_BUFFER_PTS(buffer), tensor->batch_size, tensor->batch_filled, {}};
    for (size_t i = 0; i < tensor->batch_filled; ++i) {
      EXPECT_EQ(tensor->items[i].region_id, GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME);
      batch.items.push_back(Item{tensor->items[i].source_index, tensor->items[i].pts,
                                 std::vector<guint8>(bytes.begin() + i * item_bytes,
                                                     bytes.begin() + (i + 1) * item_bytes)});
    }
    // Slots no frame fills are zeros.
    for (size_t i = tensor->batch_filled * item_bytes; i < bytes.size(); ++i) {
      if (bytes[i] != 0) {
        ADD_FAILURE() << "byte " << i << " of an unfilled slot is " << int(bytes[i]);
        break;
      }
    }
    batches.push_back(std::move(batch));
    gst_sample_unref(sample);
  }
  return batches;
}

GstElement *by_name(GstElement *pipeline, const std::string &name) {
  GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline), name.c_str());
  gst_object_unref(element);  // the pipeline keeps it
  return element;
}

// Item bytes of `caps` frames through the chain into cudatensorize
// batch-size=1, one per frame, in order.
std::vector<std::vector<guint8>> single_stream_items(const std::string &caps,
                                                     const std::vector<GstBuffer *> &frames) {
  const std::string description =
      chain("src", caps) + " ! cudatensorize batch-size=1 ! appsink name=out sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error ? error->message : "");
  std::vector<std::vector<guint8>> items;
  if (pipeline == nullptr) return items;
  EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (GstBuffer *frame : frames)
    EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, "src")), gst_buffer_ref(frame)),
              GST_FLOW_OK);
  gst_app_src_end_of_stream(GST_APP_SRC(by_name(pipeline, "src")));
  for (const Batch &batch : pull_batches(by_name(pipeline, "out")))
    for (const Item &item : batch.items) items.push_back(item.bytes);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return items;
}

TEST(BatchCpu, PropertiesPadsAndCaps) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  ASSERT_NE(batch, nullptr);
  guint batch_size = 0;
  guint64 timeout = 0, latency = 0;
  g_object_get(batch, "batch-size", &batch_size, "batch-timeout", &timeout, nullptr);
  EXPECT_EQ(batch_size, 4u);
  EXPECT_EQ(timeout, 40 * GST_MSECOND);
  g_object_set(batch, "batch-timeout", static_cast<guint64>(7 * GST_MSECOND), nullptr);
  g_object_get(batch, "latency", &latency, nullptr);
  EXPECT_EQ(latency, 7 * GST_MSECOND) << "batch-timeout is the aggregator's latency";
  GParamSpecUInt *size_spec =
      G_PARAM_SPEC_UINT(g_object_class_find_property(G_OBJECT_GET_CLASS(batch), "batch-size"));
  EXPECT_EQ(size_spec->minimum, 1u);
  EXPECT_EQ(size_spec->maximum, 1024u);
  for (const char *name : {"source-policy", "layout", "device-id", "cuda-stream"})
    EXPECT_NE(g_object_class_find_property(G_OBJECT_GET_CLASS(batch), name), nullptr) << name;
  GstPad *first = gst_element_request_pad_simple(batch, "sink_%u");
  GstPad *second = gst_element_request_pad_simple(batch, "sink_%u");
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_STREQ(GST_PAD_NAME(first), "sink_0");
  EXPECT_STREQ(GST_PAD_NAME(second), "sink_1");
  GstCaps *accepted = gst_pad_query_caps(first, nullptr);
  GstCaps *video = gst_caps_from_string("video/x-raw(memory:CUDAPitched),format=RGB");
  EXPECT_FALSE(gst_caps_can_intersect(accepted, video)) << "only planar frames";
  gst_caps_unref(video);
  gst_caps_unref(accepted);
  gst_element_release_request_pad(batch, first);
  gst_element_release_request_pad(batch, second);
  gst_object_unref(first);
  gst_object_unref(second);
  gst_object_unref(batch);
}

// Four sources of different sizes and formats: every item equals its
// source's own single-stream tensor, and every frame appears exactly once.
TEST(BatchGpu, FourSourcesEqualTheirSingleStreamTensors) {
  CUDAPREP_REQUIRE_GPU();
  std::string description = "cudabatch name=b batch-size=4 ! appsink name=out sync=false";
  std::vector<std::string> caps;
  for (size_t i = 0; i < 4; ++i) {
    caps.push_back(caps_string(kSources[i].format, kSources[i].width, kSources[i].height));
    description +=
        " " + chain("src" + std::to_string(i), caps[i]) + " ! b.sink_" + std::to_string(i);
  }
  std::mt19937 rng(3);
  constexpr int kFrames = 3;
  std::vector<std::vector<GstBuffer *>> frames(4);
  std::vector<std::vector<std::vector<guint8>>> expected(4);
  for (size_t i = 0; i < 4; ++i) {
    for (int f = 0; f < kFrames; ++f)
      frames[i].push_back(frame_at(caps[i], rng, f * 33 * GST_MSECOND));
    expected[i] = single_stream_items(caps[i], frames[i]);
    ASSERT_EQ(expected[i].size(), static_cast<size_t>(kFrames)) << kSources[i].format;
  }
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (int f = 0; f < kFrames; ++f)
    for (size_t i = 0; i < 4; ++i)
      ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, "src" + std::to_string(i))),
                                        gst_buffer_ref(frames[i][f])),
                GST_FLOW_OK);
  for (size_t i = 0; i < 4; ++i)
    gst_app_src_end_of_stream(GST_APP_SRC(by_name(pipeline, "src" + std::to_string(i))));
  const std::vector<Batch> batches = pull_batches(by_name(pipeline, "out"));
  std::set<std::pair<int, GstClockTime>> seen;
  for (const Batch &batch : batches) {
    EXPECT_EQ(batch.size, 4u);
    for (const Item &item : batch.items) {
      ASSERT_GE(item.source, 0);
      ASSERT_LT(item.source, 4);
      EXPECT_TRUE(seen.insert({item.source, item.pts}).second)
          << "source " << item.source << " frame at " << item.pts << " twice";
      const int f = static_cast<int>(item.pts / (33 * GST_MSECOND));
      ASSERT_LT(f, kFrames);
      const size_t at = first_difference(item.bytes, expected[item.source][f]);
      EXPECT_EQ(at, SIZE_MAX) << kSources[item.source].format << " frame " << f
                              << " differs from its single-stream tensor at byte " << at;
    }
  }
  EXPECT_EQ(seen.size(), 4u * kFrames) << "every frame exactly once";
  EXPECT_EQ(batches.size(), 3u);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  for (auto &list : frames)
    for (GstBuffer *frame : list) gst_buffer_unref(frame);
}

// Source 1 ends after one frame; source 0 goes on and its frames fill the
// next batches alone; the last, partial batch leaves at EOS.
TEST(BatchGpu, EosOnOneSourceDoesNotStallTheOthers) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  const std::string description = "cudabatch name=b batch-size=2 ! appsink name=out sync=false " +
                                  chain("src0", caps) + " ! b.sink_0 " + chain("src1", caps) +
                                  " ! b.sink_1";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  std::mt19937 rng(5);
  GstAppSrc *src0 = GST_APP_SRC(by_name(pipeline, "src0"));
  GstAppSrc *src1 = GST_APP_SRC(by_name(pipeline, "src1"));
  ASSERT_EQ(gst_app_src_push_buffer(src1, frame_at(caps, rng, 0)), GST_FLOW_OK);
  gst_app_src_end_of_stream(src1);
  for (int f = 0; f < 4; ++f)
    ASSERT_EQ(gst_app_src_push_buffer(src0, frame_at(caps, rng, f * 33 * GST_MSECOND)),
              GST_FLOW_OK);
  gst_app_src_end_of_stream(src0);
  const std::vector<Batch> batches = pull_batches(by_name(pipeline, "out"));
  std::vector<std::pair<int, GstClockTime>> items;
  for (const Batch &batch : batches)
    for (const Item &item : batch.items) items.push_back({item.source, item.pts});
  ASSERT_EQ(items.size(), 5u) << "four frames of source 0 and one of source 1";
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches.back().filled, 1u) << "the last batch leaves partly filled at EOS";
  std::vector<GstClockTime> source0;
  for (const auto &[source, pts] : items)
    if (source == 0) source0.push_back(pts);
  ASSERT_EQ(source0.size(), 4u);
  for (int f = 0; f < 4; ++f) EXPECT_EQ(source0[f], f * 33 * GST_MSECOND) << "in order, once each";
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// New caps upstream (another format and size) in the middle of a batch of
// one source: the batch goes on with every frame once, each equal to its
// single-stream tensor, PTS in order.
TEST(BatchGpu, UpstreamRenegotiationMidBatchLosesNoFrame) {
  CUDAPREP_REQUIRE_GPU();
  const std::string first_caps = caps_string("NV12", 160, 90);
  const std::string second_caps = caps_string("RGBA", 128, 128);
  std::mt19937 rng(9);
  std::vector<GstBuffer *> first = {frame_at(first_caps, rng, 0),
                                    frame_at(first_caps, rng, 33 * GST_MSECOND)};
  std::vector<GstBuffer *> second = {frame_at(second_caps, rng, 66 * GST_MSECOND),
                                     frame_at(second_caps, rng, 99 * GST_MSECOND)};
  std::vector<std::vector<guint8>> expected = single_stream_items(first_caps, first);
  for (auto &bytes : single_stream_items(second_caps, second)) expected.push_back(bytes);
  ASSERT_EQ(expected.size(), 4u);
  const std::string description = "cudabatch name=b batch-size=4 ! appsink name=out sync=false " +
                                  chain("src", first_caps) + " ! b.sink_0";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstAppSrc *src = GST_APP_SRC(by_name(pipeline, "src"));
  for (GstBuffer *frame : first) ASSERT_EQ(gst_app_src_push_buffer(src, frame), GST_FLOW_OK);
  GstCaps *caps = gst_caps_from_string(second_caps.c_str());
  gst_app_src_set_caps(src, caps);
  gst_caps_unref(caps);
  for (GstBuffer *frame : second) ASSERT_EQ(gst_app_src_push_buffer(src, frame), GST_FLOW_OK);
  gst_app_src_end_of_stream(src);
  const std::vector<Batch> batches = pull_batches(by_name(pipeline, "out"));
  std::vector<const Item *> items;
  for (const Batch &batch : batches)
    for (const Item &item : batch.items) items.push_back(&item);
  ASSERT_EQ(items.size(), 4u) << "no frame lost or duplicated";
  for (size_t f = 0; f < items.size(); ++f) {
    EXPECT_EQ(items[f]->pts, f * 33 * GST_MSECOND);
    EXPECT_EQ(first_difference(items[f]->bytes, expected[f]), SIZE_MAX) << "frame " << f;
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Two live sources deliver one frame each and stop: the batch of 4 leaves
// after batch-timeout with 2 items, both sources named; the latency
// reported downstream includes batch-timeout.
TEST(BatchGpu, LiveSourcesThatStopLeaveAPartialBatchAfterTheTimeout) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  auto live_chain = [&](const std::string &name) {
    std::string text = chain(name, caps);
    return text.replace(text.find("format=time"), 11,
                        "format=time is-live=true do-timestamp=true min-latency=0");
  };
  const std::string description =
      "cudabatch name=b batch-size=4 batch-timeout=100000000 ! appsink name=out sync=false " +
      live_chain("src0") + " ! b.sink_0 " + live_chain("src1") + " ! b.sink_1";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_NE(gst_element_get_state(pipeline, nullptr, nullptr, 5 * GST_SECOND),
            GST_STATE_CHANGE_FAILURE);
  std::mt19937 rng(13);
  for (const char *name : {"src0", "src1"}) {
    GstBuffer *frame = random_frame(video_info(caps), rng);
    ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, name)), frame), GST_FLOW_OK);
  }
  GstSample *sample =
      gst_app_sink_try_pull_sample(GST_APP_SINK(by_name(pipeline, "out")), 5 * GST_SECOND);
  ASSERT_NE(sample, nullptr) << "no partial batch after the timeout";
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(gst_sample_get_buffer(sample));
  ASSERT_NE(meta, nullptr);
  const GstCudaPrepTensor *tensor = meta->tensors[0];
  EXPECT_EQ(tensor->batch_size, 4u);
  EXPECT_EQ(tensor->batch_filled, 2u);
  std::set<int> sources;
  for (size_t i = 0; i < tensor->batch_filled; ++i) sources.insert(tensor->items[i].source_index);
  EXPECT_EQ(sources, (std::set<int>{0, 1}));
  gst_sample_unref(sample);
  GstQuery *latency = gst_query_new_latency();
  GstPad *src = gst_element_get_static_pad(by_name(pipeline, "b"), "src");
  ASSERT_TRUE(gst_pad_query(src, latency));
  gboolean live = FALSE;
  GstClockTime min_latency = 0;
  gst_query_parse_latency(latency, &live, &min_latency, nullptr);
  EXPECT_TRUE(live);
  EXPECT_GE(min_latency, 100 * GST_MSECOND) << "the latency includes batch-timeout";
  gst_query_unref(latency);
  gst_object_unref(src);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

}  // namespace
