// gst_cuda_prep_tensor_box_to_source(): boxes drawn on source frames, mapped
// into tensor pixels through the item's geometry (FrameGeometry::to_output,
// the forward definition) and back through the helper, land within half a
// pixel of where they started, through every video-direction too; parts
// in the letterbox pad or past the frame are clipped; unfilled items and
// boxes wholly in the pad give FALSE.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include <gst/cudaprep/gstcudaprepbox.h>
#include <gst/cudaprep/gstcudaprepgeometry-private.h>
#include <gst/cudaprep/gstcudaprepmeta-private.h>
#include "cudaprep/resize_geometry.h"

namespace {

// A one-tensor meta of `batch` items of a 640x640 float32 NCHW tensor, the
// first `filled` items holding `geometry`.
GstBuffer *tensor_buffer(const cudaprep::FrameGeometry &geometry, gsize batch, gsize filled) {
  GstBuffer *buffer = gst_buffer_new();
  GstCudaPrepTensorMeta *meta = gst_buffer_add_cuda_prep_tensor_meta(buffer, 1);
  const cudaprep::TensorDesc desc =
      cudaprep::make_contiguous_tensor_desc(cudaprep::TensorLayout::kNCHW, static_cast<int>(batch),
                                            3, 640, 640, cudaprep::DataType::kFloat32);
  static float storage[1];
  EXPECT_TRUE(gst_cuda_prep_tensor_set_from_desc(meta->tensors[0], g_quark_from_string("image"),
                                                 desc, storage, 0, nullptr));
  for (gsize i = 0; i < filled; ++i)
    meta->tensors[0]->items[i].geometry = gst_cuda_prep_geometry_from_frame(geometry);
  meta->tensors[0]->batch_filled = filled;
  return buffer;
}

// 1920x1080 letterboxed into 640x640: scale 1/3, 140 rows of pad above and below.
cudaprep::FrameGeometry letterbox_geometry() {
  cudaprep::PixelRect rect;
  std::string error;
  EXPECT_TRUE(
      cudaprep::letterbox_rect(1920, 1080, 640, 640, cudaprep::LetterboxOptions{}, &rect, &error));
  cudaprep::FrameGeometry geometry;
  geometry.scale_x = static_cast<double>(rect.width) / 1920;
  geometry.scale_y = static_cast<double>(rect.height) / 1080;
  geometry.pad_x = rect.x;
  geometry.pad_y = rect.y;
  return geometry;
}

TEST(Box, RoundTripWithinHalfAPixel) {
  const cudaprep::FrameGeometry geometry = letterbox_geometry();
  GstBuffer *buffer = tensor_buffer(geometry, 4, 2);
  const GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> x(0, 1900), y(0, 1060), size(4, 400);
  for (int i = 0; i < 1000; ++i) {
    const double left = x(rng), top = y(rng);
    const double right = std::min(1920.0, left + size(rng)),
                 bottom = std::min(1080.0, top + size(rng));
    double tx0, ty0, tx1, ty1;
    geometry.to_output(left, top, &tx0, &ty0);
    geometry.to_output(right, bottom, &tx1, &ty1);
    // A detector reports whole tensor pixels: round, as it would.
    double sx0, sy0, sx1, sy1;
    ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, 1, std::round(tx0), std::round(ty0),
                                                   std::round(tx1), std::round(ty1), 1920, 1080,
                                                   &sx0, &sy0, &sx1, &sy1));
    // Half a tensor pixel is 1.5 source pixels at scale 1/3: the rounding's
    // error, and nothing else, is what may remain.
    const double tolerance_x = 0.5 / geometry.scale_x + 1e-9;
    const double tolerance_y = 0.5 / geometry.scale_y + 1e-9;
    EXPECT_NEAR(sx0, left, tolerance_x);
    EXPECT_NEAR(sy0, top, tolerance_y);
    EXPECT_NEAR(sx1, right, tolerance_x);
    EXPECT_NEAR(sy1, bottom, tolerance_y);
    // Unrounded tensor boxes come back to within half a source pixel.
    ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, 0, tx0, ty0, tx1, ty1, 1920, 1080, &sx0,
                                                   &sy0, &sx1, &sy1));
    EXPECT_NEAR(sx0, left, 0.5);
    EXPECT_NEAR(sy1, bottom, 0.5);
  }
  gst_buffer_unref(buffer);
}

// Through every video-direction (a crop, then a turned letterbox into the
// 640x640 tensor): boxes drawn on the frame, carried into the tensor by the
// forward definition (corners sorted, as a detector reports them), come
// back to the same box, corners sorted, within the rounding of whole
// tensor pixels; the geometry survives the public C struct.
TEST(Box, MapsBackThroughEveryDirection) {
  for (int o = 0; o <= static_cast<int>(cudaprep::Orientation::kAntiTranspose); ++o) {
    const auto orientation = static_cast<cudaprep::Orientation>(o);
    SCOPED_TRACE(cudaprep::orientation_name(orientation));
    cudaprep::FrameGeometry crop;
    crop.crop_x = 64;
    crop.crop_y = 36;
    const int crop_width = 1792, crop_height = 1008;
    const bool swapped = cudaprep::swaps_axes(orientation);
    cudaprep::PixelRect rect;
    std::string error;
    ASSERT_TRUE(cudaprep::letterbox_rect(swapped ? crop_height : crop_width,
                                         swapped ? crop_width : crop_height, 640, 640,
                                         cudaprep::LetterboxOptions{}, &rect, &error));
    const cudaprep::FrameGeometry geometry =
        crop.then(cudaprep::resize_frame_geometry(crop_width, crop_height, rect, orientation));
    GstBuffer *buffer = tensor_buffer(geometry, 2, 1);
    const GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
    EXPECT_EQ(tensor->items[0].geometry.orientation, o);
    std::mt19937 rng(o);
    std::uniform_real_distribution<double> x(70, 1800), y(40, 1000), size(4, 200);
    for (int i = 0; i < 200; ++i) {
      const double left = x(rng), top = y(rng);
      const double right = std::min(1850.0, left + size(rng)),
                   bottom = std::min(1040.0, top + size(rng));
      double ax, ay, bx, by;
      geometry.to_output(left, top, &ax, &ay);
      geometry.to_output(right, bottom, &bx, &by);
      double sx0, sy0, sx1, sy1;
      ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(
          tensor, 0, std::round(std::min(ax, bx)), std::round(std::min(ay, by)),
          std::round(std::max(ax, bx)), std::round(std::max(ay, by)), 1920, 1080, &sx0, &sy0, &sx1,
          &sy1));
      // Half a tensor pixel, in source pixels along each source axis.
      const double tolerance_x = 0.5 / (swapped ? geometry.scale_y : geometry.scale_x) + 1e-9;
      const double tolerance_y = 0.5 / (swapped ? geometry.scale_x : geometry.scale_y) + 1e-9;
      EXPECT_NEAR(sx0, left, tolerance_x);
      EXPECT_NEAR(sy0, top, tolerance_y);
      EXPECT_NEAR(sx1, right, tolerance_x);
      EXPECT_NEAR(sy1, bottom, tolerance_y);
    }
    // The tensor's top-left pixel of the image is the turned crop's corner.
    double sx0, sy0, sx1, sy1;
    ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, 0, rect.x, rect.y, rect.x + 1,
                                                   rect.y + 1, 1920, 1080, &sx0, &sy0, &sx1, &sy1));
    const cudaprep::AxisMatrix r = cudaprep::axis_matrix(orientation);
    const double corner_x = (r.xx < 0 || r.yx < 0) ? 64 + crop_width : 64;
    const double corner_y = (r.xy < 0 || r.yy < 0) ? 36 + crop_height : 36;
    EXPECT_NEAR(corner_x, corner_x == 64 ? sx0 : sx1, 1e-6);
    EXPECT_NEAR(corner_y, corner_y == 36 ? sy0 : sy1, 1e-6);
    gst_buffer_unref(buffer);
  }
}

TEST(Box, ClipsToTheActiveAreaAndRefusesWhatIsOutside) {
  GstBuffer *buffer = tensor_buffer(letterbox_geometry(), 4, 2);
  const GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
  double x0, y0, x1, y1;
  // From the top pad (rows 0-139) into the image, past the right edge.
  ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, 0, 600, 100, 700, 200, 1920, 1080, &x0,
                                                 &y0, &x1, &y1));
  EXPECT_DOUBLE_EQ(x0, 1800.0);
  EXPECT_DOUBLE_EQ(y0, 0.0);
  EXPECT_DOUBLE_EQ(x1, 1920.0);
  EXPECT_DOUBLE_EQ(y1, 180.0);
  // Corners swapped are the same box.
  double sx0, sy0, sx1, sy1;
  ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, 0, 700, 200, 600, 100, 1920, 1080, &sx0,
                                                 &sy0, &sx1, &sy1));
  EXPECT_DOUBLE_EQ(sx0, x0);
  EXPECT_DOUBLE_EQ(sy1, y1);
  // Wholly in the bottom pad; an unfilled item; an item past the batch.
  EXPECT_FALSE(gst_cuda_prep_tensor_box_to_source(tensor, 0, 10, 600, 50, 630, 1920, 1080, nullptr,
                                                  nullptr, nullptr, nullptr));
  EXPECT_FALSE(gst_cuda_prep_tensor_box_to_source(tensor, 2, 10, 200, 50, 300, 1920, 1080, nullptr,
                                                  nullptr, nullptr, nullptr));
  EXPECT_FALSE(gst_cuda_prep_tensor_box_to_source(tensor, 9, 10, 200, 50, 300, 1920, 1080, nullptr,
                                                  nullptr, nullptr, nullptr));
  gst_buffer_unref(buffer);
}

// A region item (the region <400,300,960,540> of a frame, letterboxed):
// boxes come back clipped to the region, and a box in its pad, which maps
// onto frame pixels outside the region, gives FALSE.
TEST(Box, ARegionItemClipsToItsRegion) {
  cudaprep::FrameGeometry crop;
  crop.crop_x = 400;
  crop.crop_y = 300;
  cudaprep::PixelRect rect;
  std::string error;
  ASSERT_TRUE(
      cudaprep::letterbox_rect(960, 540, 640, 640, cudaprep::LetterboxOptions{}, &rect, &error));
  GstBuffer *buffer =
      tensor_buffer(crop.then(cudaprep::resize_frame_geometry(960, 540, rect)), 1, 1);
  GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
  GstCudaPrepTensorItem &item = tensor->items[0];
  item.region_id = 7;
  item.region_x = 400;
  item.region_y = 300;
  item.region_width = 960;
  item.region_height = 540;
  double x0, y0, x1, y1;
  // From the top pad into the region: clipped at the region's top row.
  ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, 0, 10, rect.y - 20, 50, rect.y + 30, 1920,
                                                 1080, &x0, &y0, &x1, &y1));
  EXPECT_DOUBLE_EQ(y0, 300.0);
  EXPECT_NEAR(y1, 300.0 + 30 * 1.5, 1e-9);
  EXPECT_NEAR(x0, 400.0 + 10 * 1.5, 1e-9);
  // Wholly in the pad above: inside the frame, outside the region.
  EXPECT_FALSE(gst_cuda_prep_tensor_box_to_source(tensor, 0, 10, 0, 50, rect.y - 1, 1920, 1080,
                                                  nullptr, nullptr, nullptr, nullptr));
  // The same item as a whole frame (no region): the pad maps onto the frame.
  item.region_width = item.region_height = 0;
  EXPECT_TRUE(gst_cuda_prep_tensor_box_to_source(tensor, 0, 10, 0, 50, rect.y - 1, 1920, 1080,
                                                 nullptr, nullptr, nullptr, nullptr));
  gst_buffer_unref(buffer);
}

// A clip item: its frames' geometry, on a tensor whose frame size lies at
// other axes (H, W are dims 3, 4 of NCTHW and NTCHW alike): the tensor's
// extent is the frame's 320 x 160, not T or C.
TEST(Box, AClipItemClipsToItsFramesExtent) {
  for (const cudaprep::ClipLayout layout :
       {cudaprep::ClipLayout::kNCTHW, cudaprep::ClipLayout::kNTCHW}) {
    SCOPED_TRACE(cudaprep::clip_layout_name(layout));
    GstCudaPrepTensor tensor = {};
    static float storage[1];
    ASSERT_TRUE(gst_cuda_prep_tensor_set_from_clip_desc(
        &tensor, 0,
        cudaprep::make_contiguous_clip_desc(layout, 2, 8, 3, 160, 320,
                                            cudaprep::DataType::kFloat32),
        storage, 0, nullptr));
    tensor.batch_filled = 2;
    double x0, y0, x1, y1;
    ASSERT_TRUE(gst_cuda_prep_tensor_box_to_source(&tensor, 1, 300, 10, 400, 200, 1000, 1000, &x0,
                                                   &y0, &x1, &y1));
    EXPECT_DOUBLE_EQ(300.0, x0);
    EXPECT_DOUBLE_EQ(10.0, y0);
    EXPECT_DOUBLE_EQ(320.0, x1) << "cut at the frame's width";
    EXPECT_DOUBLE_EQ(160.0, y1) << "cut at the frame's height";
    g_free(tensor.items);
    g_free(tensor.clip_filled);
    g_free(tensor.frame_pts);
  }
}

}  // namespace
