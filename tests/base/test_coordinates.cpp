// The coordinate rule (base/gstcudapreppixelmetas.h): every meta that names
// pixels moves with the pixels, in one function. Pure meta work: no GPU.
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include "cudaprep/resize_geometry.h"
#include "base/gstcudapreppixelmetas.h"
#include "base/gstcudaprepregion.h"

namespace {

cudaprep::FrameGeometry crop_step(int x, int y) {
  cudaprep::FrameGeometry crop;
  crop.crop_x = x;
  crop.crop_y = y;
  return crop;
}

GstCudaPrepRegionMeta *add_region(GstBuffer *buffer, int x, int y, int width, int height) {
  GstCudaPrepRegion region{};
  region.rect = cudaprep::PixelRect{x, y, width, height};
  return gst_buffer_add_cuda_prep_region_meta(buffer, &region);
}

struct Roi {
  int x, y, w, h;
};

Roi only_roi(GstBuffer *buffer) {
  const GstVideoRegionOfInterestMeta *roi = gst_buffer_get_video_region_of_interest_meta(buffer);
  EXPECT_NE(roi, nullptr);
  if (roi == nullptr) return Roi{-1, -1, -1, -1};
  return Roi{static_cast<int>(roi->x), static_cast<int>(roi->y), static_cast<int>(roi->w),
             static_cast<int>(roi->h)};
}

int count_rois(GstBuffer *buffer) {
  int count = 0;
  gpointer state = nullptr;
  while (gst_buffer_iterate_meta_filtered(buffer, &state,
                                          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) != nullptr)
    ++count;
  return count;
}

// The defect of issue 23: two crops as views. The upload wrote (100,50)
// 400x300 of the frame; the first view starts at (120,60), so the written
// pixels start at its (0,0); the second view's rectangle must be found in
// the written region in the second view's own pixels.
TEST(CoordinateRule, AViewOfAViewFindsTheWrittenPixelsInItsOwnCoordinates) {
  GstBuffer *buffer = gst_buffer_new();
  add_region(buffer, 100, 50, 400, 300);
  gst_cuda_prep_buffer_move_pixel_metas(buffer, buffer, crop_step(120, 60), 300, 200,
                                        GstCudaPrepPixelMove::kView);
  const GstCudaPrepRegionMeta *meta = gst_buffer_get_cuda_prep_region_meta(buffer);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->region.rect.x, 0);
  EXPECT_EQ(meta->region.rect.y, 0);
  EXPECT_EQ(meta->region.rect.width, 300);   // 100 + 400 - 120 = 380, clipped to the view
  EXPECT_EQ(meta->region.rect.height, 200);  // 50 + 300 - 60 = 290, clipped
  EXPECT_TRUE(gst_cuda_prep_buffer_holds_rect(buffer, cudaprep::PixelRect{10, 20, 64, 64}));
  gst_cuda_prep_buffer_move_pixel_metas(buffer, buffer, crop_step(10, 20), 64, 64,
                                        GstCudaPrepPixelMove::kView);
  EXPECT_TRUE(gst_cuda_prep_buffer_holds_rect(buffer, cudaprep::PixelRect{0, 0, 64, 64}));
  double x, y;
  gst_cuda_prep_buffer_get_geometry(buffer).to_source(0, 0, &x, &y);
  EXPECT_EQ(x, 130);
  EXPECT_EQ(y, 80);
  gst_buffer_unref(buffer);
}

// A view over pixels the upload did not write holds no reader's pixels.
TEST(CoordinateRule, AViewOutsideTheWrittenRegionHoldsNothing) {
  GstBuffer *buffer = gst_buffer_new();
  add_region(buffer, 0, 0, 100, 100);
  gst_cuda_prep_buffer_move_pixel_metas(buffer, buffer, crop_step(200, 0), 50, 50,
                                        GstCudaPrepPixelMove::kView);
  EXPECT_FALSE(gst_cuda_prep_buffer_holds_rect(buffer, cudaprep::PixelRect{0, 0, 1, 1}));
  gst_buffer_unref(buffer);
}

// A new frame is written whole: the upload's region does not follow it.
TEST(CoordinateRule, ANewFrameCarriesNoWrittenRegion) {
  GstBuffer *in = gst_buffer_new(), *out = gst_buffer_new();
  add_region(in, 100, 50, 400, 300);
  add_region(out, 100, 50, 400, 300);  // as a copy of the input's metas would
  gst_cuda_prep_buffer_move_pixel_metas(in, out, crop_step(120, 60), 300, 200,
                                        GstCudaPrepPixelMove::kNewFrame);
  EXPECT_EQ(gst_buffer_get_cuda_prep_region_meta(out), nullptr);
  EXPECT_NE(gst_buffer_get_cuda_prep_region_meta(in), nullptr);
  gst_buffer_unref(in);
  gst_buffer_unref(out);
}

TEST(CoordinateRule, RegionsOfInterestFollowACropKeepingIdsAndParams) {
  GstBuffer *in = gst_buffer_new(), *out = gst_buffer_new();
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta(in, "car", 150, 100, 40, 30);
  roi->id = 7;
  roi->parent_id = 3;
  gst_video_region_of_interest_meta_add_param(
      roi, gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, 0.9, nullptr));
  gst_cuda_prep_buffer_move_pixel_metas(in, out, crop_step(120, 60), 300, 200,
                                        GstCudaPrepPixelMove::kNewFrame);
  const Roi moved = only_roi(out);
  EXPECT_EQ(moved.x, 30);
  EXPECT_EQ(moved.y, 40);
  EXPECT_EQ(moved.w, 40);
  EXPECT_EQ(moved.h, 30);
  GstVideoRegionOfInterestMeta *out_roi = gst_buffer_get_video_region_of_interest_meta(out);
  ASSERT_NE(out_roi, nullptr);
  EXPECT_EQ(out_roi->id, 7);
  EXPECT_EQ(out_roi->parent_id, 3);
  EXPECT_STREQ(g_quark_to_string(out_roi->roi_type), "car");
  const GstStructure *param = gst_video_region_of_interest_meta_get_param(out_roi, "detection");
  ASSERT_NE(param, nullptr);
  double confidence = 0;
  EXPECT_TRUE(gst_structure_get_double(param, "confidence", &confidence));
  EXPECT_EQ(confidence, 0.9);
  EXPECT_EQ(count_rois(in), 1);  // the input keeps its own
  gst_buffer_unref(in);
  gst_buffer_unref(out);
}

// Half in, half out: clipped to the view; wholly out: removed.
TEST(CoordinateRule, RegionsOfInterestAreClippedOrRemovedNeverMisplaced) {
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_add_video_region_of_interest_meta(buffer, "a", 100, 100, 50, 50);
  gst_buffer_add_video_region_of_interest_meta(buffer, "b", 0, 0, 10, 10);
  gst_cuda_prep_buffer_move_pixel_metas(buffer, buffer, crop_step(120, 110), 200, 200,
                                        GstCudaPrepPixelMove::kView);
  ASSERT_EQ(count_rois(buffer), 1);
  const Roi clipped = only_roi(buffer);
  EXPECT_EQ(clipped.x, 0);
  EXPECT_EQ(clipped.y, 0);
  EXPECT_EQ(clipped.w, 30);
  EXPECT_EQ(clipped.h, 40);
  gst_buffer_unref(buffer);
}

// A resize into a letterbox, turned 90 degrees clockwise: 1920x1080 ->
// 640x640 stretches the turned 1080x1920 by 1/3 into a 360x640 box at
// x = 140. A source point (sx, sy) turns to (1080 - sy, sx), then scales
// and shifts: (140 + (1080 - sy) / 3, sx / 3). Written from that definition.
TEST(CoordinateRule, RegionsOfInterestFollowATurnedLetterboxedResize) {
  cudaprep::PixelRect box;
  std::string error;
  ASSERT_TRUE(
      cudaprep::letterbox_rect(1080, 1920, 640, 640, cudaprep::LetterboxOptions(), &box, &error))
      << error;
  ASSERT_EQ(box.x, 140);
  ASSERT_EQ(box.width, 360);
  const cudaprep::FrameGeometry step =
      cudaprep::resize_frame_geometry(1920, 1080, box, cudaprep::Orientation::kRotate90);
  GstBuffer *in = gst_buffer_new(), *out = gst_buffer_new();
  gst_buffer_add_video_region_of_interest_meta(in, "person", 300, 60, 90, 120);
  gst_cuda_prep_buffer_move_pixel_metas(in, out, step, 640, 640, GstCudaPrepPixelMove::kNewFrame);
  // x: 140 + (1080 - 180) / 3 = 440 to 140 + (1080 - 60) / 3 = 480;
  // y: 300 / 3 = 100 to 390 / 3 = 130.
  const Roi moved = only_roi(out);
  EXPECT_EQ(moved.x, 440);
  EXPECT_EQ(moved.y, 100);
  EXPECT_EQ(moved.w, 40);
  EXPECT_EQ(moved.h, 30);
  gst_buffer_unref(in);
  gst_buffer_unref(out);
}

// Left to a later element, the work has not moved the pixels yet: only the
// geometry (which maps the caps' frame) moves; the rest stays in the held
// frame's pixels, where cudabatch and cudatensorize read them.
TEST(CoordinateRule, PendingWorkMovesOnlyTheGeometry) {
  GstBuffer *buffer = gst_buffer_new();
  add_region(buffer, 100, 50, 400, 300);
  gst_buffer_add_video_region_of_interest_meta(buffer, "car", 150, 100, 40, 30);
  cudaprep::FrameGeometry halve;
  halve.scale_x = halve.scale_y = 0.5;
  gst_cuda_prep_buffer_move_pixel_metas(buffer, buffer, halve, 960, 540,
                                        GstCudaPrepPixelMove::kPending);
  EXPECT_EQ(gst_buffer_get_cuda_prep_region_meta(buffer)->region.rect.x, 100);
  EXPECT_EQ(only_roi(buffer).x, 150);
  EXPECT_EQ(gst_buffer_get_cuda_prep_geometry_meta(buffer)->geometry.scale_x, 0.5);
  gst_buffer_unref(buffer);
}

// The geometry is read once and handed back: what cudaresize records as
// the source mapping of its pending work. The input maps source -> its
// pixels as (src - (10, 20)) / 2; a crop at (4, 6) of that is
// (src - (10, 20)) / 2 - (4, 6) = (src - (18, 32)) / 2.
TEST(CoordinateRule, TheMoveHandsBackTheInputsGeometryAndComposesTheStep) {
  GstBuffer *in = gst_buffer_new(), *out = gst_buffer_new();
  const GstCudaPrepGeometry input{10, 20, 0.5, 0.5, 0, 0, 0};
  gst_buffer_add_cuda_prep_geometry_meta(in, &input);
  const cudaprep::FrameGeometry returned = gst_cuda_prep_buffer_move_pixel_metas(
      in, out, crop_step(4, 6), 100, 100, GstCudaPrepPixelMove::kNewFrame);
  EXPECT_EQ(returned.crop_x, 10);
  EXPECT_EQ(returned.crop_y, 20);
  EXPECT_EQ(returned.scale_x, 0.5);
  const GstCudaPrepGeometryMeta *moved = gst_buffer_get_cuda_prep_geometry_meta(out);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->geometry.crop_x, 18);
  EXPECT_EQ(moved->geometry.crop_y, 32);
  EXPECT_EQ(moved->geometry.scale_x, 0.5);
  EXPECT_EQ(moved->geometry.scale_y, 0.5);
  EXPECT_EQ(gst_buffer_get_cuda_prep_geometry_meta(in)->geometry.crop_x, 10);
  gst_buffer_unref(in);
  gst_buffer_unref(out);
}

// In place the one geometry meta is rewritten, not joined by a second; a
// frame without one starts from the identity.
TEST(CoordinateRule, InPlaceTheGeometryMetaIsRewrittenAndNoneMeansIdentity) {
  GstBuffer *buffer = gst_buffer_new();
  const cudaprep::FrameGeometry returned = gst_cuda_prep_buffer_move_pixel_metas(
      buffer, buffer, crop_step(4, 6), 100, 100, GstCudaPrepPixelMove::kView);
  EXPECT_EQ(returned.crop_x, 0);
  EXPECT_EQ(returned.scale_x, 1);
  gst_cuda_prep_buffer_move_pixel_metas(buffer, buffer, crop_step(1, 2), 50, 50,
                                        GstCudaPrepPixelMove::kView);
  int count = 0;
  gpointer state = nullptr;
  while (gst_buffer_iterate_meta_filtered(buffer, &state, GST_CUDA_PREP_GEOMETRY_META_API_TYPE))
    ++count;
  EXPECT_EQ(count, 1);
  EXPECT_EQ(gst_buffer_get_cuda_prep_geometry_meta(buffer)->geometry.crop_x, 5);
  EXPECT_EQ(gst_buffer_get_cuda_prep_geometry_meta(buffer)->geometry.crop_y, 8);
  gst_buffer_unref(buffer);
}

// Halving: the box (3, 3) 4x4 covers output [1.5, 3.5) on both axes, so
// the pixels 1, 2 and 3; a 3x3 output clips it to 1..2.
TEST(CoordinateRule, ARectangleMapsToTheWholeOutputPixelsItTouches) {
  cudaprep::FrameGeometry halve;
  halve.scale_x = halve.scale_y = 0.5;
  cudaprep::PixelRect mapped{};
  ASSERT_TRUE(gst_cuda_prep_map_rect(halve, 3, 3, 4, 4, 10, 10, &mapped));
  EXPECT_EQ(mapped.x, 1);
  EXPECT_EQ(mapped.y, 1);
  EXPECT_EQ(mapped.width, 3);
  EXPECT_EQ(mapped.height, 3);
  ASSERT_TRUE(gst_cuda_prep_map_rect(halve, 3, 3, 4, 4, 3, 3, &mapped));
  EXPECT_EQ(mapped.width, 2);
  EXPECT_EQ(mapped.height, 2);
  EXPECT_FALSE(gst_cuda_prep_map_rect(halve, 3, 3, 4, 4, 1, 1, &mapped));
}

// What the upload keeps as it is: the metas that mark objects, not the
// geometry (the base class carries it) nor a region meta (it writes its own).
TEST(CoordinateRule, RegionsOfInterestMarkObjectsTheGeometryAndRegionDoNot) {
  GstBuffer *buffer = gst_buffer_new();
  const GstCudaPrepGeometry identity{0, 0, 1, 1, 0, 0, 0};
  EXPECT_TRUE(gst_cuda_prep_meta_marks_objects(reinterpret_cast<GstMeta *>(
      gst_buffer_add_video_region_of_interest_meta(buffer, "car", 1, 2, 3, 4))));
  EXPECT_FALSE(gst_cuda_prep_meta_marks_objects(
      reinterpret_cast<GstMeta *>(gst_buffer_add_cuda_prep_geometry_meta(buffer, &identity))));
  EXPECT_FALSE(gst_cuda_prep_meta_marks_objects(
      reinterpret_cast<GstMeta *>(add_region(buffer, 0, 0, 1, 1))));
  gst_buffer_unref(buffer);
}

}  // namespace
