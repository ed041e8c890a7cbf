// GStreamer's analytics results (>= 1.24) under the coordinate rule
// (base/gstcudapreppixelmetas.h): detections move with the pixels, the
// results tied to them (classification, tracking) and their relations
// stay, what cannot move is removed; and the detections cudabatch takes as
// regions. Pure meta work: no GPU. Built only against GStreamer >= 1.24.
#include <gst/analytics/analytics.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <vector>

#include "cudaprep/geometry.h"
#include "base/gstcudapreppixelmetas.h"

namespace {

struct Box {
  gint x, y, w, h;
  bool operator==(const Box &other) const {
    return x == other.x && y == other.y && w == other.w && h == other.h;
  }
};

// Each detection of `buffer`: its type and box, in order.
std::vector<std::pair<std::string, Box>> detections_of(GstBuffer *buffer) {
  std::vector<std::pair<std::string, Box>> found;
  GstAnalyticsRelationMeta *meta = gst_buffer_get_analytics_relation_meta(buffer);
  if (meta == nullptr) return found;
  gpointer state = nullptr;
  GstAnalyticsODMtd od;
  while (
      gst_analytics_relation_meta_iterate(meta, &state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
    Box box{};
    gfloat confidence;
    EXPECT_TRUE(
        gst_analytics_od_mtd_get_location(&od, &box.x, &box.y, &box.w, &box.h, &confidence));
    found.emplace_back(g_quark_to_string(gst_analytics_od_mtd_get_obj_type(&od)), box);
  }
  return found;
}

// A frame's results: a car (id 0) with its class (1) and track (2), the car
// related to both; a person (3) that lies at the frame's left edge.
GstBuffer *frame_with_results() {
  GstBuffer *buffer = gst_buffer_new();
  GstAnalyticsRelationMeta *meta = gst_buffer_add_analytics_relation_meta(buffer);
  GstAnalyticsODMtd car, person;
  GstAnalyticsClsMtd cls;
  GstAnalyticsTrackingMtd track;
  gfloat level = 0.75f;
  GQuark sedan = g_quark_from_static_string("sedan");
  EXPECT_TRUE(gst_analytics_relation_meta_add_od_mtd(meta, g_quark_from_static_string("car"), 200,
                                                     120, 80, 40, 0.9f, &car));
  EXPECT_TRUE(gst_analytics_relation_meta_add_cls_mtd(meta, 1, &level, &sedan, &cls));
  EXPECT_TRUE(gst_analytics_relation_meta_add_tracking_mtd(meta, 42, 1000, &track));
  EXPECT_TRUE(gst_analytics_tracking_mtd_update_last_seen(&track, 5000));
  EXPECT_TRUE(gst_analytics_relation_meta_add_od_mtd(meta, g_quark_from_static_string("person"), 0,
                                                     10, 30, 60, 0.4f, &person));
  EXPECT_TRUE(gst_analytics_relation_meta_set_relation(meta, GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                       gst_analytics_mtd_get_id(&car),
                                                       gst_analytics_mtd_get_id(&cls)));
  EXPECT_TRUE(gst_analytics_relation_meta_set_relation(meta, GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                       gst_analytics_mtd_get_id(&car),
                                                       gst_analytics_mtd_get_id(&track)));
  return buffer;
}

TEST(Analytics, IsBuiltAgainstAGStreamerThatHasIt) {
  EXPECT_TRUE(gst_cuda_prep_has_analytics());
}

// A crop at (150, 100) of 400x300: the car's box moves by the crop; the
// person, left of the crop, is removed; the class and the track stay, tied
// to the moved car.
TEST(Analytics, DetectionsMoveWithACropAndTheirResultsStayTiedToThem) {
  GstBuffer *buffer = frame_with_results();
  cudaprep::FrameGeometry crop;
  crop.crop_x = 150;
  crop.crop_y = 100;
  gst_cuda_prep_buffer_move_pixel_metas(buffer, buffer, crop, 400, 300,
                                        GstCudaPrepPixelMove::kNewFrame);
  const auto found = detections_of(buffer);
  ASSERT_EQ(found.size(), 1u) << "the person lies outside the crop";
  EXPECT_EQ(found[0].first, "car");
  EXPECT_EQ(found[0].second, (Box{200 - 150, 120 - 100, 80, 40}));

  GstAnalyticsRelationMeta *meta = gst_buffer_get_analytics_relation_meta(buffer);
  ASSERT_NE(meta, nullptr);
  gpointer state = nullptr;
  GstAnalyticsODMtd car;
  ASSERT_TRUE(
      gst_analytics_relation_meta_iterate(meta, &state, gst_analytics_od_mtd_get_mtd_type(), &car));
  GstAnalyticsClsMtd cls;
  state = nullptr;
  ASSERT_TRUE(gst_analytics_relation_meta_get_direct_related(
      meta, gst_analytics_mtd_get_id(&car), GST_ANALYTICS_REL_TYPE_RELATE_TO,
      gst_analytics_cls_mtd_get_mtd_type(), &state, &cls))
      << "the car's class lost its relation";
  ASSERT_EQ(gst_analytics_cls_mtd_get_length(&cls), 1u);
  EXPECT_STREQ(g_quark_to_string(gst_analytics_cls_mtd_get_quark(&cls, 0)), "sedan");
  EXPECT_FLOAT_EQ(gst_analytics_cls_mtd_get_level(&cls, 0), 0.75f);
  GstAnalyticsTrackingMtd track;
  state = nullptr;
  ASSERT_TRUE(gst_analytics_relation_meta_get_direct_related(
      meta, gst_analytics_mtd_get_id(&car), GST_ANALYTICS_REL_TYPE_RELATE_TO,
      gst_analytics_tracking_mtd_get_mtd_type(), &state, &track));
  guint64 tracking_id = 0;
  GstClockTime first_seen = 0, last_seen = 0;
  gboolean lost = TRUE;
  ASSERT_TRUE(
      gst_analytics_tracking_mtd_get_info(&track, &tracking_id, &first_seen, &last_seen, &lost));
  EXPECT_EQ(tracking_id, 42u);
  EXPECT_EQ(first_seen, 1000u);
  EXPECT_EQ(last_seen, 5000u);
  EXPECT_FALSE(lost);
  gst_buffer_unref(buffer);
}

// A resize by 0.5 (and a second buffer as the output): boxes scale with it,
// the person, at the left edge, keeps its pixels; the input keeps its own.
TEST(Analytics, DetectionsScaleWithAResizeOntoAnotherBuffer) {
  GstBuffer *in = frame_with_results();
  GstBuffer *out = gst_buffer_copy(in);
  cudaprep::FrameGeometry half;
  half.scale_x = 0.5;
  half.scale_y = 0.5;
  gst_cuda_prep_buffer_move_pixel_metas(in, out, half, 320, 180, GstCudaPrepPixelMove::kNewFrame);
  const auto moved = detections_of(out);
  ASSERT_EQ(moved.size(), 2u);
  EXPECT_EQ(moved[0].second, (Box{100, 60, 40, 20}));
  EXPECT_EQ(moved[1].second, (Box{0, 5, 15, 30}));
  const auto original = detections_of(in);
  ASSERT_EQ(original.size(), 2u);
  EXPECT_EQ(original[0].second, (Box{200, 120, 80, 40}));
  gst_buffer_unref(out);
  gst_buffer_unref(in);
}

// Pending work (fusion) leaves the results in the source frame's pixels,
// where cudabatch reads them.
TEST(Analytics, PendingWorkLeavesTheResultsInTheSourcePixels) {
  GstBuffer *buffer = frame_with_results();
  cudaprep::FrameGeometry half;
  half.scale_x = 0.5;
  half.scale_y = 0.5;
  gst_cuda_prep_buffer_move_pixel_metas(buffer, buffer, half, 320, 180,
                                        GstCudaPrepPixelMove::kPending);
  const auto found = detections_of(buffer);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].second, (Box{200, 120, 80, 40}));
  gst_buffer_unref(buffer);
}

// What cudabatch's region-source=detections takes: type and confidence
// filters, ids of the results.
TEST(Analytics, DetectionsAsRegionsFilterByTypeAndConfidence) {
  GstBuffer *buffer = frame_with_results();
  const auto every = gst_cuda_prep_buffer_detections(buffer, 0, 0.0);
  ASSERT_EQ(every.size(), 2u);
  EXPECT_EQ(every[0].id, 0u);
  EXPECT_EQ(every[1].id, 3u);
  EXPECT_EQ(every[1].rect.x, 0);
  EXPECT_EQ(every[1].rect.height, 60);
  const auto confident = gst_cuda_prep_buffer_detections(buffer, 0, 0.5);
  ASSERT_EQ(confident.size(), 1u);
  EXPECT_STREQ(g_quark_to_string(confident[0].type), "car");
  EXPECT_TRUE(
      gst_cuda_prep_buffer_detections(buffer, g_quark_from_static_string("person"), 0.5).empty());
  EXPECT_EQ(
      gst_cuda_prep_buffer_detections(buffer, g_quark_from_static_string("person"), 0.0).size(),
      1u);
  gst_buffer_unref(buffer);
}

}  // namespace
