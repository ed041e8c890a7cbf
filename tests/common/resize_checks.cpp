#include "common/resize_checks.h"

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "common/gst_frames.h"
#include "reference/resize_ref.h"

namespace cudaprep::test {

GstElement *make_resize(const std::string &properties) {
  GError *error = nullptr;
  GstElement *element = gst_parse_launch(("cudaresize " + properties).c_str(), &error);
  EXPECT_EQ(error, nullptr) << properties << ": " << (error != nullptr ? error->message : "");
  if (error != nullptr) g_error_free(error);
  return element;
}

PixelFormat pixel_format(const GstVideoInfo &info) {
  PixelFormat format = PixelFormat::kRGBA;
  EXPECT_TRUE(gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&info), &format));
  return format;
}

ref::HostFrame host_frame(GstBuffer *buffer, const GstVideoInfo &info) {
  ref::HostFrame frame(pixel_format(info), GST_VIDEO_INFO_WIDTH(&info),
                       GST_VIDEO_INFO_HEIGHT(&info));
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane)
    frame.planes[plane] = plane_bytes(buffer, info, plane);
  return frame;
}

std::string reference_mismatch(const std::vector<guint8> &actual, const ref::HostFrame &expected,
                               const PixelRect &image) {
  const size_t row_bytes = cudaprep::plane_row_bytes(expected.format, 0, expected.width);
  const int bytes_per_pixel = static_cast<int>(row_bytes / expected.width);
  if (actual.size() != row_bytes * expected.height)
    return "output has " + std::to_string(actual.size()) + " bytes, expected " +
           std::to_string(row_bytes * expected.height);
  int worst = 0;
  for (int y = 0; y < expected.height; ++y) {
    for (size_t byte = 0; byte < row_bytes; ++byte) {
      const int x = static_cast<int>(byte) / bytes_per_pixel;
      const bool inside =
          x >= image.x && x < image.x + image.width && y >= image.y && y < image.y + image.height;
      const int got = actual[y * row_bytes + byte];
      const int want = expected.row(0, y)[byte];
      worst = std::max(worst, std::abs(got - want));
      if (std::abs(got - want) > (inside ? 1 : 0)) {
        std::ostringstream message;
        message << "first bad value at pixel (" << x << ", " << y << ") channel "
                << byte % bytes_per_pixel << (inside ? " (image)" : " (border)") << ": got " << got
                << ", reference " << want;
        return message.str();
      }
    }
  }
  return {};
}

namespace {

// Where the point (u, v) of a source_width x source_height window turned by
// `orientation` lies in the window, in continuous coordinates: the
// reference's pixel map (ref::oriented_source_pixel) extended to real
// pixel coordinates (it is affine), at pixel centres.
std::pair<double, double> unturned_point(cudaprep::Orientation orientation, int source_width,
                                         int source_height, double u, double v) {
  int x00, y00, x10, y10, x01, y01;
  cudaprep::ref::oriented_source_pixel(orientation, source_width, source_height, 0, 0, &x00, &y00);
  cudaprep::ref::oriented_source_pixel(orientation, source_width, source_height, 1, 0, &x10, &y10);
  cudaprep::ref::oriented_source_pixel(orientation, source_width, source_height, 0, 1, &x01, &y01);
  const double x = u - 0.5, y = v - 0.5;
  return {x00 + (x10 - x00) * x + (x01 - x00) * y + 0.5,
          y00 + (y10 - y00) * x + (y01 - y00) * y + 0.5};
}

}  // namespace

void expect_geometry(GstBuffer *output, const PixelRect &image, double left, double top,
                     int source_width, int source_height, const std::string &what,
                     cudaprep::Orientation orientation) {
  GstCudaPrepGeometryMeta *meta = gst_buffer_get_cuda_prep_geometry_meta(output);
  ASSERT_NE(meta, nullptr) << what << ": output has no geometry meta";
  const bool swapped = cudaprep::swaps_axes(orientation);
  const int turned_width = swapped ? source_height : source_width;
  const int turned_height = swapped ? source_width : source_height;
  for (const auto &[fx, fy] :
       {std::pair{0.0, 0.0}, std::pair{1.0, 1.0}, std::pair{0.5, 0.5}, std::pair{0.25, 0.75}}) {
    double source_x = 0, source_y = 0;
    gst_cuda_prep_geometry_to_source(&meta->geometry, image.x + fx * image.width,
                                     image.y + fy * image.height, &source_x, &source_y);
    const auto [expected_x, expected_y] = unturned_point(orientation, source_width, source_height,
                                                         fx * turned_width, fy * turned_height);
    EXPECT_NEAR(source_x, left + expected_x, 0.5) << what << " at fraction " << fx;
    EXPECT_NEAR(source_y, top + expected_y, 0.5) << what << " at fraction " << fy;
  }
}

}  // namespace cudaprep::test
