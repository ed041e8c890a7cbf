// cudabatch: N sources into one batch tensor.
//  - CPU: properties (ranges, defaults, latency-budget is the aggregator's
//    latency), request pads sink_N, the tensor caps it offers.
//  - GPU: four sources of different sizes and formats batched into one
//    tensor equal each source's own single-stream tensor (cudatensorize
//    batch-size=1 after the same chain), bit for bit, with the source index
//    and PTS of every item; EOS on one source does not stall the others; a
//    live source that stops leaves a partial batch after latency-budget, and
//    the latency includes that wait; new caps upstream mid-batch lose and
//    duplicate no frame; a flush mid-batch drops the partial batch and
//    every later frame comes out once with its PTS.
//  - Regions: test_batch_regions.cpp.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/gstaggregator.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gst/cudaprep/gstcudaprepbox.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "base/gstcudapreppixelmetas.h"
#include "base/gstcudaprepregion.h"
#include "common/cuda_test.h"
#ifdef CUDAPREP_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif
#include "common/gst_frames.h"
#include "common/batch_rig.h"

namespace {

using namespace cudaprep::test;

struct Source {
  const char *format;
  int width, height;
};

const Source kSources[] = {
    {"NV12", 160, 90}, {"RGBA", 128, 128}, {"I420", 100, 60}, {"YUY2", 90, 70}};
// chain() behind a live appsrc that stamps frames as they are pushed.
std::string live_chain(const std::string &caps, const std::string &appsrc_name) {
  std::string text = chain(appsrc_name, caps);
  return text.replace(text.find("format=time"), 11,
                      "format=time is-live=true do-timestamp=true min-latency=0");
}

TEST(BatchCpu, PropertiesPadsAndCaps) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  ASSERT_NE(batch, nullptr);
  guint batch_size = 0;
  guint64 budget = 0, latency = 0, old_name = 0;
  guint max_source_frames = 1;
  g_object_get(batch, "batch-size", &batch_size, "latency-budget", &budget, "max-source-frames",
               &max_source_frames, nullptr);
  EXPECT_EQ(batch_size, 4u);
  EXPECT_EQ(budget, 40 * GST_MSECOND);
  EXPECT_EQ(max_source_frames, 0u) << "no limit by default";
  g_object_set(batch, "latency-budget", static_cast<guint64>(7 * GST_MSECOND), nullptr);
  g_object_get(batch, "latency", &latency, "batch-timeout", &old_name, nullptr);
  EXPECT_EQ(latency, 7 * GST_MSECOND) << "latency-budget is the aggregator's latency";
  EXPECT_EQ(old_name, 7 * GST_MSECOND) << "batch-timeout is its old name";
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
  std::vector<std::vector<Item>> expected(4);
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
      EXPECT_EQ(item.region, GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME);
      const size_t at = first_difference(item.bytes, expected[item.source][f].bytes);
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

// A camera whose resolution changes mid-stream (a decoder's renegotiation
// after a reconnect: RGBA 128x128, then 200x120) goes on at its new size
// beside a steady one, and no frame of either is lost: each frame of both
// is one item, equal to what a fresh chain makes of it.
TEST(BatchGpu, ACameraChangingResolutionLosesNoFrameOfAnySource) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kFrames = 6, kChangeAt = 3;
  const std::string steady = caps_string("NV12", 160, 90);
  const std::string before = caps_string("RGBA", 128, 128), after = caps_string("RGBA", 200, 120);
  const std::string description = "cudabatch name=b batch-size=2 ! appsink name=out sync=false " +
                                  chain("src0", steady) + " ! b.sink_0 " + chain("src1", before) +
                                  " ! b.sink_1";
  std::mt19937 rng(41);
  std::vector<GstBuffer *> frames0, frames1_before, frames1_after;
  for (int f = 0; f < kFrames; ++f) {
    frames0.push_back(frame_at(steady, rng, f * 33 * GST_MSECOND));
    (f < kChangeAt ? frames1_before : frames1_after)
        .push_back(frame_at(f < kChangeAt ? before : after, rng, f * 33 * GST_MSECOND));
  }
  std::vector<Item> expected[2] = {single_stream_items(steady, frames0),
                                   single_stream_items(before, frames1_before)};
  for (const Item &item : single_stream_items(after, frames1_after)) expected[1].push_back(item);
  ASSERT_EQ(expected[0].size(), static_cast<size_t>(kFrames));
  ASSERT_EQ(expected[1].size(), static_cast<size_t>(kFrames));
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstAppSrc *src0 = GST_APP_SRC(by_name(pipeline, "src0"));
  GstAppSrc *src1 = GST_APP_SRC(by_name(pipeline, "src1"));
  for (int f = 0; f < kFrames; ++f) {
    ASSERT_EQ(gst_app_src_push_buffer(src0, gst_buffer_ref(frames0[f])), GST_FLOW_OK);
    if (f == kChangeAt) {
      GstCaps *caps = gst_caps_from_string(after.c_str());
      gst_app_src_set_caps(src1, caps);  // the new caps go before the next frame
      gst_caps_unref(caps);
    }
    GstBuffer *frame = f < kChangeAt ? frames1_before[f] : frames1_after[f - kChangeAt];
    ASSERT_EQ(gst_app_src_push_buffer(src1, gst_buffer_ref(frame)), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream(src0);
  gst_app_src_end_of_stream(src1);
  std::set<std::pair<int, GstClockTime>> seen;
  for (const Batch &batch : pull_batches(by_name(pipeline, "out"))) {
    for (const Item &item : batch.items) {
      ASSERT_GE(item.source, 0);
      ASSERT_LT(item.source, 2);
      const int f = static_cast<int>(item.pts / (33 * GST_MSECOND));
      ASSERT_LT(f, kFrames);
      EXPECT_TRUE(seen.insert({item.source, item.pts}).second)
          << "source " << item.source << " frame " << f << " twice";
      const size_t at = first_difference(item.bytes, expected[item.source][f].bytes);
      EXPECT_EQ(at, SIZE_MAX) << "source " << item.source << " frame " << f
                              << " differs from its single-stream tensor at byte " << at;
    }
  }
  EXPECT_EQ(seen.size(), 2u * kFrames) << "every frame of both sources exactly once";
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  for (auto *list : {&frames0, &frames1_before, &frames1_after})
    for (GstBuffer *frame : *list) gst_buffer_unref(frame);
}

// Two sources of `caps` frames through `chain` into cudabatch batch-size=2
// ! appsink "out", playing; NULL (and a test failure) if it cannot start.
GstElement *play_two_sources(const std::string &caps) {
  const std::string description = "cudabatch name=b batch-size=2 ! appsink name=out sync=false " +
                                  chain("src0", caps) + " ! b.sink_0 " + chain("src1", caps) +
                                  " ! b.sink_1";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << error->message;
  if (pipeline == nullptr) return nullptr;
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    ADD_FAILURE() << "the pipeline did not start";
    gst_object_unref(pipeline);
    return nullptr;
  }
  return pipeline;
}

// Source 1 ends after one frame; source 0 goes on and its frames fill the
// next batches alone; the last, partial batch leaves at EOS.
TEST(BatchGpu, EosOnOneSourceDoesNotStallTheOthers) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  GstElement *pipeline = play_two_sources(caps);
  ASSERT_NE(pipeline, nullptr);
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

// Issue 23: a GAP event on a source (qtdemux edit lists, a decoder after
// packet loss) is no frame: no item, no error, every real frame once.
TEST(BatchGpu, AGapOnOneSourceGivesNoItemAndNoError) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  GstElement *pipeline = play_two_sources(caps);
  ASSERT_NE(pipeline, nullptr);
  std::mt19937 rng(6);
  GstAppSrc *src0 = GST_APP_SRC(by_name(pipeline, "src0"));
  GstAppSrc *src1 = GST_APP_SRC(by_name(pipeline, "src1"));
  for (int f = 0; f < 3; ++f) {
    ASSERT_EQ(gst_app_src_push_buffer(src0, frame_at(caps, rng, f * 33 * GST_MSECOND)),
              GST_FLOW_OK);
    if (f == 1) {
      // appsrc queues serialized events in order with its buffers.
      ASSERT_TRUE(gst_element_send_event(GST_ELEMENT(src1),
                                         gst_event_new_gap(33 * GST_MSECOND, 33 * GST_MSECOND)));
    } else {
      ASSERT_EQ(gst_app_src_push_buffer(src1, frame_at(caps, rng, f * 33 * GST_MSECOND)),
                GST_FLOW_OK);
    }
  }
  gst_app_src_end_of_stream(src0);
  gst_app_src_end_of_stream(src1);
  const std::vector<Batch> batches = pull_batches(by_name(pipeline, "out"));
  std::set<std::pair<int, GstClockTime>> seen;
  for (const Batch &batch : batches)
    for (const Item &item : batch.items) EXPECT_TRUE(seen.insert({item.source, item.pts}).second);
  EXPECT_EQ(seen.size(), 5u) << "three frames of source 0, two of source 1";
  EXPECT_EQ(seen.count({1, 33 * GST_MSECOND}), 0u) << "the gap became an item";
  GstMessage *message = gst_bus_pop_filtered(GST_ELEMENT_BUS(pipeline), GST_MESSAGE_ERROR);
  EXPECT_EQ(message, nullptr) << "the gap posted an error";
  if (message != nullptr) gst_message_unref(message);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Issue 23: a flush on one source (its own seek, a decoder reset) drops the
// items that source's frames already became in the waiting batch, and
// nothing of the other source's.
TEST(BatchGpu, AFlushOnOneSourceDropsOnlyThatSourcesItems) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  const std::string description = "cudabatch name=b batch-size=4 ! appsink name=out sync=false " +
                                  chain("src0", caps) + " ! b.sink_0 " + chain("src1", caps) +
                                  " ! b.sink_1";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  GstElement *batch = by_name(pipeline, "b");
  GstPad *pads[2] = {gst_element_get_static_pad(batch, "sink_0"),
                     gst_element_get_static_pad(batch, "sink_1")};
  std::atomic<int> consumed[2] = {0, 0};
  for (int source = 0; source < 2; ++source) {
    g_object_set(pads[source], "emit-signals", TRUE, nullptr);
    g_signal_connect(pads[source], "buffer-consumed",
                     G_CALLBACK(+[](GstAggregatorPad *, GstBuffer *, gpointer count) {
                       ++*static_cast<std::atomic<int> *>(count);
                     }),
                     &consumed[source]);
  }
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  std::mt19937 rng(7);
  GstAppSrc *sources[2] = {GST_APP_SRC(by_name(pipeline, "src0")),
                           GST_APP_SRC(by_name(pipeline, "src1"))};
  for (GstAppSrc *source : sources)
    ASSERT_EQ(gst_app_src_push_buffer(source, frame_at(caps, rng, 0)), GST_FLOW_OK);
  // Both frames taken into the batch (2 of 4 items: it waits).
  for (int waited = 0; (consumed[0] < 1 || consumed[1] < 1) && waited < 500; ++waited)
    g_usleep(10000);
  ASSERT_TRUE(consumed[0] == 1 && consumed[1] == 1) << "the batch did not take both frames";

  // Source 1 flushes, as a seek of its own makes its chain do.
  GstPad *upstream = gst_pad_get_peer(pads[1]);
  ASSERT_TRUE(gst_pad_push_event(upstream, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_pad_push_event(upstream, gst_event_new_flush_stop(TRUE)));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_pad_push_event(upstream, gst_event_new_segment(&segment)));
  gst_object_unref(upstream);

  for (int f = 1; f < 3; ++f)
    for (GstAppSrc *source : sources)
      ASSERT_EQ(gst_app_src_push_buffer(source, frame_at(caps, rng, f * 33 * GST_MSECOND)),
                GST_FLOW_OK);
  for (GstAppSrc *source : sources) gst_app_src_end_of_stream(source);
  std::set<std::pair<int, GstClockTime>> seen;
  for (const Batch &batch : pull_batches(by_name(pipeline, "out")))
    for (const Item &item : batch.items) EXPECT_TRUE(seen.insert({item.source, item.pts}).second);
  const std::set<std::pair<int, GstClockTime>> expected = {{0, 0},
                                                           {0, 33 * GST_MSECOND},
                                                           {0, 66 * GST_MSECOND},
                                                           {1, 33 * GST_MSECOND},
                                                           {1, 66 * GST_MSECOND}};
  EXPECT_EQ(seen, expected) << "source 1's frame before its flush must leave the batch; "
                               "source 0's stays";
  GstMessage *message = gst_bus_pop_filtered(GST_ELEMENT_BUS(pipeline), GST_MESSAGE_ERROR);
  EXPECT_EQ(message, nullptr) << "the flush posted an error";
  if (message != nullptr) gst_message_unref(message);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  for (GstPad *pad : pads) gst_object_unref(pad);
  gst_object_unref(pipeline);
}

// Issue 26: live batches do not wait for every camera. Frames join
// earliest first across the sources that have them; a full batch leaves at
// once though other sources sent nothing (was: it waited for every pad, or
// for the timeout); max-source-frames keeps one camera from filling a batch
// alone.
TEST(BatchGpu, LiveBatchesLeaveWhenFullEarliestFirstWithoutWaitingForEverySource) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  const auto play = [&](const std::string &batch_properties) {
    const std::string description =
        "cudabatch name=b batch-size=2 latency-budget=3000000000 " + batch_properties +
        " ! appsink name=out sync=false " + live_chain(caps, "src0") + " ! b.sink_0 " +
        live_chain(caps, "src1") + " ! b.sink_1 " + live_chain(caps, "src2") + " ! b.sink_2";
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    EXPECT_EQ(error, nullptr) << error->message;
    EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    EXPECT_NE(gst_element_get_state(pipeline, nullptr, nullptr, 5 * GST_SECOND),
              GST_STATE_CHANGE_FAILURE);
    return pipeline;
  };
  std::mt19937 rng(14);
  const auto push = [&](GstElement *pipeline, const char *name) {
    ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, name)),
                                      random_frame(video_info(caps), rng)),
              GST_FLOW_OK);
    g_usleep(20000);  // distinct timestamps, in this order
  };
  // The sources of the first batch to leave, in item order, and how long it
  // took (the budget is 3 s: a batch that waits for it is late).
  const auto first_batch = [](GstElement *pipeline, gint64 *waited_us) {
    const gint64 start = g_get_monotonic_time();
    GstSample *sample =
        gst_app_sink_try_pull_sample(GST_APP_SINK(by_name(pipeline, "out")), 2 * GST_SECOND);
    *waited_us = g_get_monotonic_time() - start;
    std::vector<int> sources;
    if (sample == nullptr) return sources;
    const GstCudaPrepTensor *tensor =
        gst_buffer_get_cuda_prep_tensor_meta(gst_sample_get_buffer(sample))->tensors[0];
    for (gsize i = 0; i < tensor->batch_filled; ++i)
      sources.push_back(tensor->items[i].source_index);
    gst_sample_unref(sample);
    return sources;
  };

  // Source 2 sends nothing; sources 1 then 0 send one frame each.
  GstElement *pipeline = play("");
  push(pipeline, "src1");
  push(pipeline, "src0");
  gint64 waited_us = 0;
  EXPECT_EQ(first_batch(pipeline, &waited_us), (std::vector<int>{1, 0}))
      << "a full batch, earliest first";
  EXPECT_LT(waited_us, GST_SECOND / GST_USECOND) << "the batch waited for source 2";
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);

  // Source 0 sends three frames, then source 1 one: at most one frame of a
  // source per batch, so the first batch takes source 0's first and source
  // 1's, at once.
  pipeline = play("max-source-frames=1");
  for (const char *name : {"src0", "src0", "src0", "src1"}) push(pipeline, name);
  EXPECT_EQ(first_batch(pipeline, &waited_us), (std::vector<int>{0, 1}));
  EXPECT_LT(waited_us, GST_SECOND / GST_USECOND) << "the fair batch waited for the budget";
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// A source's chain into 32x24 RGB planes with cudaresize `method`.
std::string small_tensor_chain(const std::string &name, const std::string &caps,
                               const std::string &method) {
  return "appsrc name=" + name + " format=time caps=\"" + caps +
         "\" ! cudaframeupload ! cudaresize method=" + method +
         " ! video/x-raw(memory:CUDAPitched),width=32,height=24,format=RGB ! "
         "cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\"";
}

// Two sources resized with different methods cannot share one launch: an
// error naming both sources and what to change, no batch.
TEST(BatchGpu, TwoSourcesResizedWithDifferentMethodsAreNamed) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  const std::string description = "cudabatch name=b batch-size=2 ! appsink name=out sync=false " +
                                  small_tensor_chain("src0", caps, "bicubic") + " ! b.sink_0 " +
                                  small_tensor_chain("src1", caps, "bilinear") + " ! b.sink_1";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  std::mt19937 rng(8);
  for (int i = 0; i < 2; ++i) {
    GstAppSrc *src = GST_APP_SRC(by_name(pipeline, "src" + std::to_string(i)));
    gst_app_src_push_buffer(src, frame_at(caps, rng, 0));
    gst_app_src_end_of_stream(src);
  }
  GstMessage *message =
      gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(pipeline), 10 * GST_SECOND, GST_MESSAGE_ERROR);
  ASSERT_NE(message, nullptr) << "no error";
  GError *posted = nullptr;
  gst_message_parse_error(message, &posted, nullptr);
  const std::string text = posted->message;
  // The first item of the batch names its source first.
  EXPECT_TRUE(text.find("Source 0 resizes with method bicubic but source 1 with bilinear") !=
                  std::string::npos ||
              text.find("Source 1 resizes with method bilinear but source 0 with bicubic") !=
                  std::string::npos)
      << text;
  EXPECT_NE(text.find("every source's cudaresize must use the same"), std::string::npos) << text;
  g_error_free(posted);
  gst_message_unref(message);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Issue 23: two chains that differ only in that one source already has the
// tensor's size (its cudaresize passes the frame through, so the pending
// work carries the default method) batch together; the passed-through
// frame equals its single-stream tensor, the resized one too.
TEST(BatchGpu, ASourceAlreadyAtTheTensorSizeBatchesWithResizedOnes) {
  CUDAPREP_REQUIRE_GPU();
  const auto bicubic_chain = [](const std::string &name, const std::string &caps) {
    return small_tensor_chain(name, caps, "bicubic");
  };
  const std::string caps[2] = {caps_string("RGBA", 64, 48), caps_string("RGBA", 32, 24)};
  std::mt19937 rng(7);
  GstBuffer *frames[2] = {frame_at(caps[0], rng, 0), frame_at(caps[1], rng, 0)};
  std::vector<guint8> expected[2];
  for (int i = 0; i < 2; ++i) {
    const std::string single =
        bicubic_chain("src", caps[i]) + " ! cudatensorize batch-size=1 ! appsink name=out";
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(single.c_str(), &error);
    ASSERT_EQ(error, nullptr) << error->message;
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    GstAppSrc *src = GST_APP_SRC(by_name(pipeline, "src"));
    ASSERT_EQ(gst_app_src_push_buffer(src, gst_buffer_ref(frames[i])), GST_FLOW_OK);
    gst_app_src_end_of_stream(src);
    const std::vector<Batch> batches = pull_batches(by_name(pipeline, "out"));
    ASSERT_EQ(batches.size(), 1u);
    expected[i] = batches[0].items.at(0).bytes;
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
  const std::string description = "cudabatch name=b batch-size=2 ! appsink name=out sync=false " +
                                  bicubic_chain("src0", caps[0]) + " ! b.sink_0 " +
                                  bicubic_chain("src1", caps[1]) + " ! b.sink_1";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (int i = 0; i < 2; ++i) {
    GstAppSrc *src = GST_APP_SRC(by_name(pipeline, "src" + std::to_string(i)));
    ASSERT_EQ(gst_app_src_push_buffer(src, gst_buffer_ref(frames[i])), GST_FLOW_OK);
    gst_app_src_end_of_stream(src);
  }
  const std::vector<Batch> batches = pull_batches(by_name(pipeline, "out"));
  ASSERT_EQ(batches.size(), 1u) << "the batch failed (see the log)";
  ASSERT_EQ(batches[0].items.size(), 2u);
  for (const Item &item : batches[0].items)
    EXPECT_EQ(first_difference(item.bytes, expected[item.source]), SIZE_MAX)
        << "source " << item.source;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  for (GstBuffer *frame : frames) gst_buffer_unref(frame);
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
  std::vector<Item> expected = single_stream_items(first_caps, first);
  for (const Item &item : single_stream_items(second_caps, second)) expected.push_back(item);
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
    EXPECT_EQ(first_difference(items[f]->bytes, expected[f].bytes), SIZE_MAX) << "frame " << f;
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Two live sources deliver one frame each and stop: the batch of 4 leaves
// after latency-budget with 2 items, both sources named; the latency
// reported downstream includes latency-budget.
TEST(BatchGpu, LiveSourcesThatStopLeaveAPartialBatchAfterTheTimeout) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  const std::string description =
      "cudabatch name=b batch-size=4 latency-budget=100000000 ! appsink name=out sync=false " +
      live_chain(caps, "src0") + " ! b.sink_0 " + live_chain(caps, "src1") + " ! b.sink_1";
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
  EXPECT_GE(min_latency, 100 * GST_MSECOND) << "the latency includes latency-budget";
  gst_query_unref(latency);
  gst_object_unref(src);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// A cudabatch flushed while it holds part of a batch: the partial batch is
// dropped, and every frame pushed after the flush comes out exactly once,
// in order, with its PTS (items and batch).
TEST(BatchGpu, FlushMidBatchLosesAndDuplicatesNoLaterFrame) {
  CUDAPREP_REQUIRE_GPU();
  GstHarness *harness =
      gst_harness_new_parse("cudaframeupload ! cudanormalize ! cudabatch batch-size=4");
  const std::string caps = caps_string("RGBA", 16, 8);
  gst_harness_set_src_caps_str(harness, caps.c_str());
  std::mt19937 rng(17);
  const auto push = [&](int first, int count) {
    for (int f = first; f < first + count; ++f)
      ASSERT_EQ(gst_harness_push(harness, frame_at(caps, rng, f * 33 * GST_MSECOND)), GST_FLOW_OK);
  };
  const auto item_pts = [](GstBuffer *buffer) {
    std::vector<GstClockTime> pts;
    const GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
    for (gsize i = 0; i < tensor->batch_filled; ++i) pts.push_back(tensor->items[i].pts);
    return pts;
  };
  const auto pts_range = [](int first, int count) {
    std::vector<GstClockTime> pts;
    for (int f = first; f < first + count; ++f) pts.push_back(f * 33 * GST_MSECOND);
    return pts;
  };
  push(0, 6);  // a batch of 0..3; 4 and 5 wait
  GstBuffer *first = gst_harness_pull(harness);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(item_pts(first), pts_range(0, 4));
  gst_buffer_unref(first);

  EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_flush_start()));
  EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_flush_stop(TRUE)));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_segment(&segment)));
  push(10, 8);
  for (int batch = 0; batch < 2; ++batch) {
    GstBuffer *buffer = gst_harness_pull(harness);
    ASSERT_NE(buffer, nullptr) << "batch " << batch << " after the flush";
    EXPECT_EQ(item_pts(buffer), pts_range(10 + 4 * batch, 4))
        << "frames 4 and 5 were flushed; every later one once, in order";
    EXPECT_EQ(GST_BUFFER_PTS(buffer), (10 + 4 * batch) * 33 * GST_MSECOND);
    gst_buffer_unref(buffer);
  }
  EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_eos()));
  GstEvent *event = nullptr;
  while ((event = gst_harness_pull_event(harness)) != nullptr &&
         GST_EVENT_TYPE(event) != GST_EVENT_EOS)
    gst_event_unref(event);
  ASSERT_NE(event, nullptr) << "EOS arrives";
  gst_event_unref(event);
  EXPECT_EQ(gst_harness_try_pull(harness), nullptr) << "nothing from before the flush";
  gst_harness_teardown(harness);
}
}  // namespace
