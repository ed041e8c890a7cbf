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
//  - Regions (CPU): pad properties region-source, regions (parsed from
//    gst-launch's sink_N:: syntax), roi-type; settings that cannot work
//    are errors naming the pad at start; the allocation answer carries the
//    static regions' bounding box.
//  - Regions (GPU): 20 regions of interest on one frame give 20 items, each
//    equal (bit-exact, same geometry) to cudacrop + the same chain with
//    cudatensorize; static regions likewise, with the upload copying only
//    their bounding box; a 4K frame's tiles equal the same rectangles as
//    static regions, and a box on a tile maps back exactly; a frame's regions spill over batches
//    (8, 8, 4) with the right counts, PTS and ids; a frame with no region gives no item; a box maps
//    back through a region item within half a pixel.
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
// reference, before cudatensorize batch-size=1), its upload named
// <appsrc_name>_up; `crop` (cudacrop's properties) crops after the upload;
// `direction` is cudaresize's video-direction (empty: its default).
std::string chain(const std::string &appsrc_name, const std::string &caps,
                  const std::string &crop = "", const std::string &direction = "") {
  return "appsrc name=" + appsrc_name + " format=time caps=\"" + caps +
         "\" ! cudaframeupload name=" + appsrc_name + "_up ! " +
         (crop.empty() ? "" : "cudacrop " + crop + " ! ") +
         "cudaresize method=bilinear add-borders=true " +
         (direction.empty() ? "" : "video-direction=" + direction + " ") +
         "! "
         "video/x-raw(memory:CUDAPitched),width=" +
         std::to_string(kOutWidth) + ",height=" + std::to_string(kOutHeight) +
         ",format=RGB ! cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\"";
}

// chain() behind a live appsrc that stamps frames as they are pushed.
std::string live_chain(const std::string &caps, const std::string &appsrc_name) {
  std::string text = chain(appsrc_name, caps);
  return text.replace(text.find("format=time"), 11,
                      "format=time is-live=true do-timestamp=true min-latency=0");
}

struct Item {
  int source;
  GstClockTime pts;
  std::vector<guint8> bytes;
  int region;
  GstCudaPrepGeometry geometry;
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

// The batches `sink` receives until EOS (10 s at most); `inspect` sees
// each tensor first.
std::vector<Batch> pull_batches(
    GstElement *sink, const std::function<void(const GstCudaPrepTensor *)> &inspect = {}) {
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
    if (inspect) inspect(tensor);
    const std::vector<guint8> bytes = tensor_bytes(buffer);
    const size_t item_bytes = bytes.size() / tensor->batch_size;
    Batch batch{GST_BUFFER_PTS(buffer), tensor->batch_size, tensor->batch_filled, {}};
    for (size_t i = 0; i < tensor->batch_filled; ++i) {
      const GstCudaPrepTensorItem &item = tensor->items[i];
      batch.items.push_back(Item{
          item.source_index, item.pts,
          std::vector<guint8>(bytes.begin() + i * item_bytes, bytes.begin() + (i + 1) * item_bytes),
          item.region_id, item.geometry});
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

// Items of `caps` frames through the chain (after cudacrop `crop`, if set)
// into cudatensorize batch-size=1, one per frame, in order.
std::vector<Item> single_stream_items(const std::string &caps,
                                      const std::vector<GstBuffer *> &frames,
                                      const std::string &crop = "",
                                      const std::string &direction = "") {
  const std::string description = chain("src", caps, crop, direction) +
                                  " ! cudatensorize batch-size=1 ! appsink name=out sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error ? error->message : "");
  std::vector<Item> items;
  if (pipeline == nullptr) return items;
  EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (GstBuffer *frame : frames)
    EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, "src")), gst_buffer_ref(frame)),
              GST_FLOW_OK);
  gst_app_src_end_of_stream(GST_APP_SRC(by_name(pipeline, "src")));
  for (const Batch &batch : pull_batches(by_name(pipeline, "out")))
    for (const Item &item : batch.items) items.push_back(item);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return items;
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

// --- Regions ------------------------------------------------------------------

GstPad *request_sink_pad(GstElement *batch) {
  GstPad *pad = gst_element_request_pad_simple(batch, "sink_%u");
  EXPECT_NE(pad, nullptr);
  return pad;
}

TEST(BatchRegionsCpu, PadPropertiesDefaultsAndGstLaunchSyntax) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  ASSERT_NE(batch, nullptr);
  GstPad *pad = request_sink_pad(batch);
  gint source = -1;
  gchar *roi_type = nullptr;
  GValue regions = G_VALUE_INIT;
  g_value_init(&regions, GST_TYPE_ARRAY);
  g_object_get(pad, "region-source", &source, "roi-type", &roi_type, nullptr);
  g_object_get_property(G_OBJECT(pad), "regions", &regions);
  EXPECT_EQ(source, 0) << "whole frames by default";
  EXPECT_EQ(roi_type, nullptr);
  EXPECT_EQ(gst_value_array_get_size(&regions), 0u);
  g_value_unset(&regions);
  for (const char *name : {"region-source", "regions", "roi-type", "min-confidence"}) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(pad), name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_GT(strlen(g_param_spec_get_blurb(spec)), 20u) << name << " has a blurb";
  }
  // Through the element, as gst-launch sets them (sink_0::...).
  gst_util_set_object_arg(G_OBJECT(pad), "regions", "<<3,5,10,20>,<0,1,2,3>>");
  gst_child_proxy_set(GST_CHILD_PROXY(batch), "sink_0::roi-type", "car", nullptr);
  g_value_init(&regions, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(pad), "regions", &regions);
  const int expected[2][4] = {{3, 5, 10, 20}, {0, 1, 2, 3}};
  ASSERT_EQ(gst_value_array_get_size(&regions), 2u);
  for (guint i = 0; i < 2; ++i) {
    const GValue *rect = gst_value_array_get_value(&regions, i);
    ASSERT_EQ(gst_value_array_get_size(rect), 4u);
    for (guint n = 0; n < 4; ++n)
      EXPECT_EQ(g_value_get_int(gst_value_array_get_value(rect, n)), expected[i][n]);
  }
  g_value_unset(&regions);
  g_object_get(pad, "roi-type", &roi_type, nullptr);
  EXPECT_STREQ(roi_type, "car");
  g_free(roi_type);
  gst_element_release_request_pad(batch, pad);
  gst_object_unref(pad);
  gst_object_unref(batch);

  // A launch line sets a request pad's properties once the pad exists.
  GError *error = nullptr;
  GstElement *bin = gst_parse_launch(
      "cudabatch name=b sink_0::region-source=regions sink_0::regions=\"<<1,2,30,40>>\"", &error);
  ASSERT_EQ(error, nullptr) << error->message;
  GstElement *parsed = GST_IS_BIN(bin) ? by_name(bin, "b") : bin;
  GstPad *sink_0 = request_sink_pad(parsed);
  g_object_get(sink_0, "region-source", &source, nullptr);
  EXPECT_EQ(source, 1) << "region-source=regions";
  g_value_init(&regions, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(sink_0), "regions", &regions);
  ASSERT_EQ(gst_value_array_get_size(&regions), 1u);
  const GValue *rect = gst_value_array_get_value(&regions, 0);
  EXPECT_EQ(g_value_get_int(gst_value_array_get_value(rect, 2)), 30);
  g_value_unset(&regions);
  gst_element_release_request_pad(parsed, sink_0);
  gst_object_unref(sink_0);
  gst_object_unref(bin);
}

// Settings that cannot work stop the element at READY -> PAUSED with an
// error naming the pad and what to change; no GPU is needed to see them.
// min-confidence belongs to region-source=detections; a cudaprep built
// without GStreamer's analytics (1.22) names what detections need.
TEST(BatchRegionsCpu, SettingsThatCannotWorkAreNamedAtStart) {
  struct Case {
    const char *region_source, *regions, *roi_type;
    double min_confidence;
    const char *expected;
    int tile_width = 640;  // the default: no tile property set
    int tile_overlap_pixels = 0;
  };
  std::vector<Case> cases = {
      {"regions", "<<0,0,0,10>>", nullptr, 0.0, "regions entry 0"},
      {"regions", "<<0,0,4>>", nullptr, 0.0, "not <x, y, width, height>"},
      {"regions", "<<-2,0,4,4>>", nullptr, 0.0, "x, y >= 0"},
      {"regions", "<>", nullptr, 0.0, "regions property is empty"},
      {"frame", "<<0,0,4,4>>", nullptr, 0.0, "region-source is not regions"},
      {"regions", "<<0,0,4,4>>", "car", 0.0, "roi-type is set"},
      {"roi-meta", "<>", nullptr, 0.5,
       "min-confidence is set, but region-source is not detections"},
      {"frame", "<>", nullptr, 0.0, "a tile property is set, but region-source is not tiles", 320},
      {"tiles", "<>", nullptr, 0.0,
       "tile-overlap-pixels=400 is not smaller than the tile (tile-width=320, tile-height=640)",
       320, 400},
  };
  if (!gst_cuda_prep_has_analytics())
    cases.push_back(
        {"detections", "<>", nullptr, 0.0, "built without (it needs GStreamer >= 1.24"});
  for (const Case &c : cases) {
    GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
    GstPad *pad = request_sink_pad(batch);
    gst_util_set_object_arg(G_OBJECT(pad), "region-source", c.region_source);
    gst_util_set_object_arg(G_OBJECT(pad), "regions", c.regions);
    if (c.roi_type != nullptr) g_object_set(pad, "roi-type", c.roi_type, nullptr);
    g_object_set(pad, "min-confidence", c.min_confidence, "tile-width", c.tile_width,
                 "tile-overlap-pixels", c.tile_overlap_pixels, nullptr);
    GstStateChangeReturn result = GST_STATE_CHANGE_SUCCESS;
    const std::string message =
        posted_error(batch, [&] { result = gst_element_set_state(batch, GST_STATE_PAUSED); });
    EXPECT_EQ(result, GST_STATE_CHANGE_FAILURE) << c.region_source << " " << c.regions;
    EXPECT_NE(message.find("sink_0"), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    gst_element_set_state(batch, GST_STATE_NULL);
    gst_element_release_request_pad(batch, pad);
    gst_object_unref(pad);
    gst_object_unref(batch);
  }
}

// The allocation answer of a pad with static regions names their bounding
// box, origin rounded down to even (chroma-subsampled uploads copy by it);
// a roi-meta pad names a rectangle no frame fits (every pixel may be read:
// the chain's cudaresize must not announce its own rows, the upload copies
// whole frames); a whole-frame pad names none.
TEST(BatchRegionsCpu, AllocationAnswerCarriesTheStaticRegionsBoundingBox) {
  GstElement *batch = gst_element_factory_make("cudabatch", nullptr);
  GstPad *pad = request_sink_pad(batch);
  GstCaps *caps = gst_caps_from_string(
      "application/x-cudaprep-planar(memory:CUDAPitched),dtype=float32,channels=3,"
      "channel-order=RGB,width=32,height=32,framerate=30/1");
  const auto announced = [&](GstCudaPrepRegion *region, gint bound = 4096) {
    // The element's answer itself: an aggregator queues serialized queries
    // for its streaming thread, which a stopped element does not run.
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    EXPECT_TRUE(GST_AGGREGATOR_GET_CLASS(batch)->sink_query(GST_AGGREGATOR(batch),
                                                            GST_AGGREGATOR_PAD(pad), query));
    const gboolean found = gst_cuda_prep_query_find_region(query, bound, bound, region);
    gst_query_unref(query);
    return found;
  };
  GstCudaPrepRegion region;
  EXPECT_FALSE(announced(&region)) << "whole frames: no region";
  gst_util_set_object_arg(G_OBJECT(pad), "region-source", "regions");
  gst_util_set_object_arg(G_OBJECT(pad), "regions", "<<3,5,10,20>,<100,7,11,2>>");
  ASSERT_TRUE(announced(&region));
  EXPECT_EQ(region.rect.x, 2);
  EXPECT_EQ(region.rect.y, 4);
  EXPECT_EQ(region.rect.x + region.rect.width, 111);
  EXPECT_EQ(region.rect.y + region.rect.height, 25);
  EXPECT_EQ(region.rows.period, 0);
  gst_util_set_object_arg(G_OBJECT(pad), "regions", "<>");
  gst_util_set_object_arg(G_OBJECT(pad), "region-source", "roi-meta");
  EXPECT_FALSE(announced(&region)) << "no frame holds what roi-meta pads read";
  ASSERT_TRUE(announced(&region, G_MAXINT));
  EXPECT_EQ(region.rect.x, 0);
  EXPECT_EQ(region.rect.width, G_MAXINT);
  EXPECT_EQ(region.rect.height, G_MAXINT);
  gst_caps_unref(caps);
  gst_element_release_request_pad(batch, pad);
  gst_object_unref(pad);
  gst_object_unref(batch);
}

struct Region {
  int x, y, width, height, id;
};

// The batches of `frames` (their regions of interest attached, for
// roi-meta) through the chain into one cudabatch of `batch_size` whose pad
// has `pad_properties` (sink_0::...); `upload_probe` watches the upload's
// output.
std::vector<Batch> run_regions(const std::string &caps, const std::vector<GstBuffer *> &frames,
                               guint batch_size, const std::string &pad_properties,
                               const std::function<void(const GstCudaPrepTensor *)> &inspect = {},
                               GstPadProbeCallback upload_probe = nullptr,
                               gpointer probe_data = nullptr, const std::string &direction = "") {
  const std::string description = "cudabatch name=b batch-size=" + std::to_string(batch_size) +
                                  " " + pad_properties + " ! appsink name=out sync=false " +
                                  chain("src", caps, "", direction) + " ! b.sink_0";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error ? error->message : "");
  if (pipeline == nullptr) return {};
  if (upload_probe != nullptr) {
    GstPad *src = gst_element_get_static_pad(by_name(pipeline, "src_up"), "src");
    gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, upload_probe, probe_data, nullptr);
    gst_object_unref(src);
  }
  EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (GstBuffer *frame : frames)
    EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, "src")), gst_buffer_ref(frame)),
              GST_FLOW_OK);
  gst_app_src_end_of_stream(GST_APP_SRC(by_name(pipeline, "src")));
  std::vector<Batch> batches = pull_batches(by_name(pipeline, "out"), inspect);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return batches;
}

void attach_regions(GstBuffer *frame, const std::vector<Region> &regions) {
  for (const Region &r : regions) {
    GstVideoRegionOfInterestMeta *meta =
        gst_buffer_add_video_region_of_interest_meta(frame, "object", r.x, r.y, r.width, r.height);
    meta->id = r.id;
  }
}

// `count` regions of a width x height frame, ids from `first_id`: odd and
// even origins, tiny and large ones, some reaching past the right or bottom
// edge (the element clips them).
std::vector<Region> random_regions(int count, int width, int height, int first_id,
                                   std::mt19937 &rng) {
  std::vector<Region> regions;
  for (int i = 0; i < count; ++i) {
    const int x = std::uniform_int_distribution<int>(0, width - 1)(rng);
    const int y = std::uniform_int_distribution<int>(0, height - 1)(rng);
    const int max_side = i % 4 == 0 ? 3 : width;
    const int w = std::uniform_int_distribution<int>(1, max_side)(rng);
    const int h = std::uniform_int_distribution<int>(1, i % 4 == 0 ? 3 : height)(rng);
    regions.push_back(Region{x, y, w, h, first_id + i});
  }
  return regions;
}

// The item a region should give: its rectangle clipped to the frame,
// through cudacrop and the same chain into cudatensorize.
Item cropped_reference(const std::string &caps, GstBuffer *frame, const Region &r, int width,
                       int height, const std::string &direction = "") {
  const int w = std::min(r.x + r.width, width) - r.x;
  const int h = std::min(r.y + r.height, height) - r.y;
  const std::string crop = "x=" + std::to_string(r.x) + " y=" + std::to_string(r.y) +
                           " width=" + std::to_string(w) + " height=" + std::to_string(h);
  std::vector<Item> items = single_stream_items(caps, {frame}, crop, direction);
  EXPECT_EQ(items.size(), 1u) << crop;
  return items.empty() ? Item{} : items[0];
}

void expect_same_geometry(const GstCudaPrepGeometry &actual, const GstCudaPrepGeometry &expected,
                          int id) {
  EXPECT_NEAR(actual.crop_x, expected.crop_x, 1e-9) << "region " << id;
  EXPECT_NEAR(actual.crop_y, expected.crop_y, 1e-9) << "region " << id;
  EXPECT_NEAR(actual.scale_x, expected.scale_x, 1e-12) << "region " << id;
  EXPECT_NEAR(actual.scale_y, expected.scale_y, 1e-12) << "region " << id;
  EXPECT_NEAR(actual.pad_x, expected.pad_x, 1e-9) << "region " << id;
  EXPECT_NEAR(actual.pad_y, expected.pad_y, 1e-9) << "region " << id;
}

// 20 regions of interest on one NV12 frame (and one wholly outside it)
// give 20 items, each the bytes and geometry of cudacrop of that region
// through the same letterboxing chain, with the meta's id.
TEST(BatchRegionsGpu, TwentyRoiMetasEqualCudacropAndTheSameChain) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 320, kHeight = 180;
  const std::string caps = caps_string("NV12", kWidth, kHeight);
  std::mt19937 rng(21);
  GstBuffer *frame = frame_at(caps, rng, 0);
  std::vector<Region> regions = random_regions(20, kWidth, kHeight, 100, rng);
  std::vector<Region> attached = regions;
  attached.push_back(Region{kWidth + 5, 10, 20, 20, 999});  // outside: no item
  attach_regions(frame, attached);
  const std::vector<Batch> batches =
      run_regions(caps, {frame}, 32, "sink_0::region-source=roi-meta");
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].filled, 20u);
  EXPECT_EQ(batches[0].pts, 0u);
  std::map<int, const Item *> by_id;
  for (const Item &item : batches[0].items) {
    EXPECT_TRUE(by_id.emplace(item.region, &item).second) << "region " << item.region << " twice";
    EXPECT_EQ(item.source, 0);
    EXPECT_EQ(item.pts, 0u);
  }
  for (const Region &r : regions) {
    ASSERT_EQ(by_id.count(r.id), 1u) << "region " << r.id;
    const Item expected = cropped_reference(caps, frame, r, kWidth, kHeight);
    const Item &actual = *by_id[r.id];
    EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX)
        << "region " << r.id << " <" << r.x << "," << r.y << "," << r.width << "," << r.height
        << "> differs from cudacrop + the chain";
    expect_same_geometry(actual.geometry, expected.geometry, r.id);
  }
  gst_buffer_unref(frame);
}

// The pad's chain turns its frames (video-direction=90r, which swaps the
// axes): each region item is its region turned and letterboxed, equal to
// cudacrop + the same turned chain, geometry included.
TEST(BatchRegionsGpu, RegionsFollowThePadsVideoDirection) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 320, kHeight = 180;
  const std::string caps = caps_string("NV12", kWidth, kHeight);
  std::mt19937 rng(22);
  GstBuffer *frame = frame_at(caps, rng, 0);
  const std::vector<Region> regions = {
      {10, 20, 120, 40, 1}, {200, 4, 30, 150, 2}, {0, 0, kWidth, kHeight, 3}, {57, 91, 9, 3, 4}};
  attach_regions(frame, regions);
  const std::vector<Batch> batches =
      run_regions(caps, {frame}, 8, "sink_0::region-source=roi-meta", {}, nullptr, nullptr, "90r");
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].filled, regions.size());
  std::map<int, const Item *> by_id;
  for (const Item &item : batches[0].items) by_id.emplace(item.region, &item);
  for (const Region &r : regions) {
    ASSERT_EQ(by_id.count(r.id), 1u) << "region " << r.id;
    const Item &actual = *by_id[r.id];
    const Item expected = cropped_reference(caps, frame, r, kWidth, kHeight, "90r");
    EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX)
        << "region " << r.id << " differs from cudacrop + the turned chain";
    expect_same_geometry(actual.geometry, expected.geometry, r.id);
    EXPECT_EQ(actual.geometry.orientation, expected.geometry.orientation) << "region " << r.id;
  }
  gst_buffer_unref(frame);
}

struct RegionMetaSeen {
  int frames = 0;
  cudaprep::PixelRect rect{};
};

GstPadProbeReturn record_region_meta(GstPad *, GstPadProbeInfo *info, gpointer data) {
  auto *seen = static_cast<RegionMetaSeen *>(data);
  const GstCudaPrepRegionMeta *meta =
      gst_buffer_get_cuda_prep_region_meta(GST_PAD_PROBE_INFO_BUFFER(info));
  if (meta != nullptr) {
    ++seen->frames;
    seen->rect = meta->region.rect;
  }
  return GST_PAD_PROBE_OK;
}

// Static regions on two RGBA frames: ids 0..5 in order on each frame, each
// equal to cudacrop + the chain; the upload copied only their bounding box.
TEST(BatchRegionsGpu, StaticRegionsEqualCudacropAndTheUploadCopiesTheirBoundingBox) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 200, kHeight = 120;
  const std::string caps = caps_string("RGBA", kWidth, kHeight);
  const std::vector<Region> regions = {{3, 5, 40, 30, 0}, {50, 9, 17, 60, 1}, {120, 40, 79, 71, 2},
                                       {7, 80, 1, 1, 3},  {60, 60, 33, 8, 4}, {11, 13, 90, 50, 5}};
  std::string property = "sink_0::region-source=regions sink_0::regions=\"<";
  for (size_t i = 0; i < regions.size(); ++i) {
    const Region &r = regions[i];
    property += (i ? ",<" : "<") + std::to_string(r.x) + "," + std::to_string(r.y) + "," +
                std::to_string(r.width) + "," + std::to_string(r.height) + ">";
  }
  property += ">\"";
  std::mt19937 rng(23);
  std::vector<GstBuffer *> frames = {frame_at(caps, rng, 0), frame_at(caps, rng, 33 * GST_MSECOND)};
  RegionMetaSeen seen;
  const std::vector<Batch> batches =
      run_regions(caps, frames, 16, property, {}, record_region_meta, &seen);
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].filled, 12u);
  for (size_t f = 0; f < frames.size(); ++f) {
    for (size_t i = 0; i < regions.size(); ++i) {
      const Item &actual = batches[0].items[f * regions.size() + i];
      EXPECT_EQ(actual.region, static_cast<int>(i));
      EXPECT_EQ(actual.pts, f * 33 * GST_MSECOND);
      const Item expected = cropped_reference(caps, frames[f], regions[i], kWidth, kHeight);
      EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX)
          << "frame " << f << " region " << i;
      expect_same_geometry(actual.geometry, expected.geometry, static_cast<int>(i));
    }
  }
  EXPECT_EQ(seen.frames, 2) << "both frames uploaded in part";
  EXPECT_EQ(seen.rect.x, 2);
  EXPECT_EQ(seen.rect.y, 4);
  EXPECT_EQ(seen.rect.x + seen.rect.width, 199);
  EXPECT_EQ(seen.rect.y + seen.rect.height, 111);
  for (GstBuffer *frame : frames) gst_buffer_unref(frame);
}

// region-source=tiles on a 4K NV12 frame (640x640 tiles, 20 % overlap, the
// whole frame added): 33 items equal, byte for byte and in geometry, those
// of the same rectangles (worked out by hand: columns 0, 512, ..., 3072 and
// 3200, rows 0, 512, 1024 and 1520, then the frame) as static regions. A
// box the detector draws on an item's tensor maps back through
// gst_cuda_prep_tensor_box_to_source() to the source exactly: a tile is
// scaled by 64/640 and centred 16 pixels right, the frame by 96/3840 and
// centred 5 pixels down.
TEST(BatchRegionsGpu, TilesEqualTheSameRectanglesAsStaticRegions) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 3840, kHeight = 2160;
  const std::string caps = caps_string("NV12", kWidth, kHeight);
  std::vector<Region> rects;
  for (int y : {0, 512, 1024, 1520})
    for (int x : {0, 512, 1024, 1536, 2048, 2560, 3072, 3200})
      rects.push_back(Region{x, y, 640, 640, static_cast<int>(rects.size())});
  rects.push_back(Region{0, 0, kWidth, kHeight, 32});
  std::string property = "sink_0::region-source=regions sink_0::regions=\"<";
  for (const Region &r : rects)
    property += (r.id ? ",<" : "<") + std::to_string(r.x) + "," + std::to_string(r.y) + "," +
                std::to_string(r.width) + "," + std::to_string(r.height) + ">";
  property += ">\"";
  std::mt19937 rng(37);
  GstBuffer *frame = frame_at(caps, rng, 0);
  int mapped = 0;
  const std::vector<Batch> tiled = run_regions(
      caps, {frame}, 33,
      "sink_0::region-source=tiles sink_0::tile-width=640 sink_0::tile-height=640 "
      "sink_0::tile-overlap=0.2 sink_0::tile-whole-frame=true",
      [&](const GstCudaPrepTensor *tensor) {
        ASSERT_EQ(tensor->batch_filled, rects.size());
        for (const Region &r : rects) {
          const bool frame_item = r.id == 32;
          // The box (20, 10)-(50, 40) of the item's tensor, in the source.
          const double expected[4] = {
              frame_item ? 800.0 : r.x + 40.0, frame_item ? 200.0 : r.y + 100.0,
              frame_item ? 2000.0 : r.x + 340.0, frame_item ? 1400.0 : r.y + 400.0};
          double source[4];
          ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, r.id, 20, 10, 50, 40, kWidth,
                                                         kHeight, &source[0], &source[1],
                                                         &source[2], &source[3]));
          for (int n = 0; n < 4; ++n)
            EXPECT_NEAR(source[n], expected[n], 1e-6) << "item " << r.id << " corner " << n;
          ++mapped;
        }
      });
  const std::vector<Batch> listed = run_regions(caps, {frame}, 33, property);
  ASSERT_EQ(tiled.size(), 1u);
  ASSERT_EQ(listed.size(), 1u);
  ASSERT_EQ(tiled[0].filled, rects.size());
  ASSERT_EQ(listed[0].filled, rects.size());
  for (const Region &r : rects) {
    const Item &actual = tiled[0].items[r.id], &expected = listed[0].items[r.id];
    EXPECT_EQ(actual.region, r.id);
    EXPECT_EQ(expected.region, r.id);
    EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX) << "tile " << r.id;
    expect_same_geometry(actual.geometry, expected.geometry, r.id);
    EXPECT_DOUBLE_EQ(actual.geometry.crop_x, r.x);
    EXPECT_DOUBLE_EQ(actual.geometry.crop_y, r.y);
  }
  EXPECT_EQ(mapped, 33);
  gst_buffer_unref(frame);
}

// 20 regions with batch-size 8 leave as 8, 8 and 4 items (the last at EOS),
// all of the frame's PTS; a second frame's regions fill the rest of the
// third batch. Every region once, in meta order, each equal to the item of
// a batch large enough to hold them all.
TEST(BatchRegionsGpu, RegionsSpillIntoTheNextBatches) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 160, kHeight = 90;
  const std::string caps = caps_string("I420", kWidth, kHeight);
  std::mt19937 rng(25);
  GstBuffer *first = frame_at(caps, rng, 0);
  GstBuffer *second = frame_at(caps, rng, 33 * GST_MSECOND);
  attach_regions(first, random_regions(20, kWidth, kHeight, 0, rng));
  attach_regions(second, random_regions(5, kWidth, kHeight, 20, rng));

  std::vector<Batch> batches = run_regions(caps, {first}, 8, "sink_0::region-source=roi-meta");
  ASSERT_EQ(batches.size(), 3u);
  const size_t counts[] = {8, 8, 4};
  int next_id = 0;
  for (size_t b = 0; b < 3; ++b) {
    EXPECT_EQ(batches[b].size, 8u);
    EXPECT_EQ(batches[b].filled, counts[b]) << "batch " << b;
    EXPECT_EQ(batches[b].pts, 0u) << "batch " << b << " holds the frame at 0";
    for (const Item &item : batches[b].items) {
      EXPECT_EQ(item.region, next_id++) << "in meta order, each once";
      EXPECT_EQ(item.pts, 0u);
    }
  }
  EXPECT_EQ(next_id, 20);

  const std::vector<Batch> whole =
      run_regions(caps, {first, second}, 32, "sink_0::region-source=roi-meta");
  ASSERT_EQ(whole.size(), 1u);
  ASSERT_EQ(whole[0].filled, 25u);
  batches = run_regions(caps, {first, second}, 8, "sink_0::region-source=roi-meta");
  ASSERT_EQ(batches.size(), 4u);
  const size_t spilled_counts[] = {8, 8, 8, 1};
  const GstClockTime batch_pts[] = {0, 0, 0, 33 * GST_MSECOND};
  size_t index = 0;
  for (size_t b = 0; b < 4; ++b) {
    EXPECT_EQ(batches[b].filled, spilled_counts[b]) << "batch " << b;
    EXPECT_EQ(batches[b].pts, batch_pts[b]) << "batch " << b << ": its first item's frame";
    for (const Item &item : batches[b].items) {
      const Item &expected = whole[0].items[index++];
      EXPECT_EQ(item.region, expected.region);
      EXPECT_EQ(item.pts, item.region < 20 ? 0 : 33 * GST_MSECOND);
      EXPECT_EQ(first_difference(item.bytes, expected.bytes), SIZE_MAX) << "region " << item.region;
    }
  }
  EXPECT_EQ(index, 25u);
  gst_buffer_unref(first);
  gst_buffer_unref(second);
}

// region-source=roi-meta: a frame with no region gives no item, and a
// stream of such frames gives no batch at all.
TEST(BatchRegionsGpu, AFrameWithNoRegionGivesNoItem) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 64, 48);
  std::mt19937 rng(27);
  std::vector<GstBuffer *> frames;
  for (int f = 0; f < 3; ++f) frames.push_back(frame_at(caps, rng, f * 33 * GST_MSECOND));
  attach_regions(frames[0], {{0, 0, 10, 10, 1}, {5, 5, 20, 20, 2}});
  attach_regions(frames[2], {{30, 20, 30, 20, 3}});
  std::vector<Batch> batches = run_regions(caps, frames, 4, "sink_0::region-source=roi-meta");
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].filled, 3u);
  EXPECT_EQ(batches[0].items[0].pts, 0u);
  EXPECT_EQ(batches[0].items[1].pts, 0u);
  EXPECT_EQ(batches[0].items[2].pts, 66 * GST_MSECOND) << "the frame at 33 ms gave nothing";
  EXPECT_EQ(batches[0].items[2].region, 3);
  batches = run_regions(caps, {frames[1]}, 4, "sink_0::region-source=roi-meta");
  EXPECT_TRUE(batches.empty()) << "frames without regions: no batch at all";
  // roi-type: only the metas of that type.
  GstBuffer *faces = frame_at(caps, rng, 0);
  GstVideoRegionOfInterestMeta *face =
      gst_buffer_add_video_region_of_interest_meta(faces, "face", 1, 1, 8, 8);
  face->id = 7;
  attach_regions(faces, {{20, 20, 8, 8, 8}});  // roi_type "object"
  batches = run_regions(caps, {faces}, 4, "sink_0::region-source=roi-meta sink_0::roi-type=face");
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].filled, 1u);
  EXPECT_EQ(batches[0].items[0].region, 7);
  batches = run_regions(caps, {faces}, 4, "sink_0::region-source=roi-meta sink_0::roi-type=car");
  EXPECT_TRUE(batches.empty()) << "no region of that type: no batch";
  gst_buffer_unref(faces);
  for (GstBuffer *frame : frames) gst_buffer_unref(frame);
}

#ifdef CUDAPREP_HAVE_GST_ANALYTICS
// region-source=detections (GStreamer >= 1.24): a detector's results on the
// frame (GstAnalyticsODMtd) give the items the same rectangles give as ROI
// metas, byte for byte, geometry included, each item named by its result's
// id; roi-type and min-confidence keep only the cars of confidence >= 0.5
// (12 results: car/person alternating, confidence 0.9/0.3 by pairs).
TEST(BatchRegionsGpu, DetectionsEqualTheSameRectanglesAsRoiMetas) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 320, kHeight = 180;
  const std::string caps = caps_string("NV12", kWidth, kHeight);
  std::mt19937 rng(31);
  GstBuffer *detected = frame_at(caps, rng, 0);
  const std::vector<Region> rects = random_regions(12, kWidth, kHeight, 0, rng);
  GstAnalyticsRelationMeta *results = gst_buffer_add_analytics_relation_meta(detected);
  std::vector<Region> kept;
  for (size_t i = 0; i < rects.size(); ++i) {
    const bool car = i % 2 == 0, confident = (i / 2) % 2 == 0;
    GstAnalyticsODMtd od;
    ASSERT_TRUE(gst_analytics_relation_meta_add_od_mtd(
        results, g_quark_from_static_string(car ? "car" : "person"), rects[i].x, rects[i].y,
        rects[i].width, rects[i].height, confident ? 0.9f : 0.3f, &od));
    if (car && confident) {
      Region region = rects[i];
      region.id = static_cast<int>(gst_analytics_mtd_get_id(&od));
      kept.push_back(region);
    }
  }
  ASSERT_EQ(kept.size(), 3u);
  // The same pixels with the kept rectangles as ROI metas, ids alike.
  GstBuffer *with_rois = gst_buffer_new();
  ASSERT_TRUE(gst_buffer_copy_into(
      with_rois, detected,
      static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS |
                                      GST_BUFFER_COPY_DEEP | GST_BUFFER_COPY_MEMORY),
      0, -1));
  attach_regions(with_rois, kept);
  const std::vector<Batch> from_detections = run_regions(
      caps, {detected}, 8,
      "sink_0::region-source=detections sink_0::roi-type=car sink_0::min-confidence=0.5");
  const std::vector<Batch> from_rois =
      run_regions(caps, {with_rois}, 8, "sink_0::region-source=roi-meta");
  ASSERT_EQ(from_detections.size(), 1u);
  ASSERT_EQ(from_rois.size(), 1u);
  ASSERT_EQ(from_detections[0].filled, kept.size());
  ASSERT_EQ(from_rois[0].filled, kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    const Item &actual = from_detections[0].items[i], &expected = from_rois[0].items[i];
    EXPECT_EQ(actual.region, kept[i].id);
    EXPECT_EQ(expected.region, kept[i].id);
    EXPECT_EQ(first_difference(actual.bytes, expected.bytes), SIZE_MAX)
        << "detection " << kept[i].id << " differs from the same rectangle as a ROI meta";
    expect_same_geometry(actual.geometry, expected.geometry, kept[i].id);
  }
  gst_buffer_unref(with_rois);
  gst_buffer_unref(detected);
}
#endif

// A box drawn on the source frame inside a region, mapped into the region
// item's tensor pixels by the item's geometry (the forward definition) and
// back through gst_cuda_prep_tensor_box_to_source(), lands within half a
// pixel; the item's geometry is the crop and letterbox of its region.
TEST(BatchRegionsGpu, BoxRoundTripThroughARegionItem) {
  CUDAPREP_REQUIRE_GPU();
  constexpr int kWidth = 320, kHeight = 180;
  const std::string caps = caps_string("RGBA", kWidth, kHeight);
  std::mt19937 rng(29);
  GstBuffer *frame = frame_at(caps, rng, 0);
  const Region region{41, 30, 150, 80, 5};  // wider than the 96x64 item: pad above and below
  attach_regions(frame, {region});
  int checked = 0;
  run_regions(caps, {frame}, 2, "sink_0::region-source=roi-meta",
              [&](const GstCudaPrepTensor *tensor) {
                ASSERT_EQ(tensor->batch_filled, 1u);
                const GstCudaPrepGeometry &g = tensor->items[0].geometry;
                EXPECT_DOUBLE_EQ(g.crop_x, 41.0);
                EXPECT_DOUBLE_EQ(g.crop_y, 30.0);
                EXPECT_DOUBLE_EQ(g.scale_x, 96.0 / 150.0);
                EXPECT_GT(g.pad_y, 0.0) << "letterboxed vertically";
                std::uniform_real_distribution<double> x(41, 191), y(30, 110);
                for (int i = 0; i < 200; ++i) {
                  const double x0 = x(rng), y0 = y(rng);
                  const double x1 = std::min(191.0, x0 + 20), y1 = std::min(110.0, y0 + 15);
                  double tx0, ty0, tx1, ty1, sx0, sy0, sx1, sy1;
                  gst_cuda_prep_geometry_to_output(&g, x0, y0, &tx0, &ty0);
                  gst_cuda_prep_geometry_to_output(&g, x1, y1, &tx1, &ty1);
                  ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(
                      tensor, 0, tx0, ty0, tx1, ty1, kWidth, kHeight, &sx0, &sy0, &sx1, &sy1));
                  EXPECT_NEAR(sx0, x0, 0.5);
                  EXPECT_NEAR(sy0, y0, 0.5);
                  EXPECT_NEAR(sx1, x1, 0.5);
                  EXPECT_NEAR(sy1, y1, 0.5);
                  ++checked;
                }
                // A box in the letterbox pad above the region maps to nothing.
                EXPECT_FALSE(gst_cuda_prep_tensor_box_to_source(tensor, 0, 10, 0, 20, g.pad_y - 1,
                                                                kWidth, kHeight, nullptr, nullptr,
                                                                nullptr, nullptr));
              });
  EXPECT_EQ(checked, 200);
  gst_buffer_unref(frame);
}

// A static region that does not fit the source frame is an error naming
// it and the frame's size.
TEST(BatchRegionsGpu, AStaticRegionPastTheFrameIsAnError) {
  CUDAPREP_REQUIRE_GPU();
  const std::string message = pipeline_error(
      "cudabatch name=b sink_0::region-source=regions sink_0::regions=\"<<60,0,10,10>>\" ! "
      "fakesink videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),width=32,height=32,"
      "format=RGB ! cudanormalize ! b.sink_0");
  EXPECT_NE(message.find("region 0 <60,0,10,10> does not fit the 64x48"), std::string::npos)
      << message;
}

// A cudacrop between the pad's cudaresize and cudanormalize folds into the
// pending resize; regions of the source cannot follow it: an error naming
// the alternatives. Whole frames take it (the crop of each frame).
TEST(BatchRegionsGpu, ACropAfterThePendingResizeIsAnErrorForRegions) {
  CUDAPREP_REQUIRE_GPU();
  const std::string message = pipeline_error(
      "cudabatch name=b sink_0::region-source=regions sink_0::regions=\"<<0,0,10,10>>\" ! "
      "fakesink videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),width=40,height=40,"
      "format=RGB ! cudacrop x=4 y=4 width=32 height=32 ! cudanormalize ! b.sink_0");
  EXPECT_NE(message.find("a cudacrop after the cudaresize keeps only part of the resized frame"),
            std::string::npos)
      << message;
  EXPECT_EQ(
      pipeline_error("cudabatch name=b batch-size=1 ! fakesink videotestsrc num-buffers=2 ! "
                     "video/x-raw,format=RGBA,width=64,height=48 ! cudaframeupload ! cudaresize ! "
                     "video/x-raw(memory:CUDAPitched),width=40,height=40,format=RGB ! "
                     "cudacrop x=4 y=4 width=32 height=32 ! cudanormalize ! b.sink_0"),
      "");
}

}  // namespace
