#include "gstcudaprepbox.h"

#include <algorithm>

#include "gstcudaprepgeometry-private.h"
#include "gstcudaprepmeta-private.h"

gboolean gst_cuda_prep_tensor_box_to_source(const GstCudaPrepTensor *tensor, gsize index,
                                            gdouble x0, gdouble y0, gdouble x1, gdouble y1,
                                            gint src_width, gint src_height, gdouble *out_x0,
                                            gdouble *out_y0, gdouble *out_x1, gdouble *out_y1) {
  if (tensor == nullptr || tensor->items == nullptr || index >= tensor->batch_filled) return FALSE;
  const cudaprep::FrameGeometry geometry =
      gst_cuda_prep_geometry_to_frame(tensor->items[index].geometry);
  if (geometry.scale_x <= 0.0 || geometry.scale_y <= 0.0) return FALSE;
  cudaprep::TensorDesc desc;
  if (!gst_cuda_prep_tensor_to_desc(tensor, &desc)) return FALSE;
  const cudaprep::TensorShape shape = cudaprep::tensor_shape(desc);
  // The tensor's extent first (a box may reach past it), then the frame's:
  // together they bound the pixels that came from the source.
  const double width = static_cast<double>(shape.width);
  const double height = static_cast<double>(shape.height);
  const double box_left = std::clamp(std::min(x0, x1), 0.0, width);
  const double box_right = std::clamp(std::max(x0, x1), 0.0, width);
  const double box_top = std::clamp(std::min(y0, y1), 0.0, height);
  const double box_bottom = std::clamp(std::max(y0, y1), 0.0, height);
  // A flip or rotation maps these corners to the other two, or swaps them.
  double corner_x[2], corner_y[2];
  geometry.to_source(box_left, box_top, &corner_x[0], &corner_y[0]);
  geometry.to_source(box_right, box_bottom, &corner_x[1], &corner_y[1]);
  // The frame, or the region a region item shows: its letterbox pad maps
  // onto frame pixels outside the region, which the item does not hold.
  const GstCudaPrepTensorItem &item = tensor->items[index];
  const bool region = item.region_width > 0 && item.region_height > 0;
  const double area_left = region ? item.region_x : 0.0;
  const double area_top = region ? item.region_y : 0.0;
  const double area_right = region ? item.region_x + item.region_width : src_width;
  const double area_bottom = region ? item.region_y + item.region_height : src_height;
  const double left = std::max({std::min(corner_x[0], corner_x[1]), area_left, 0.0});
  const double top = std::max({std::min(corner_y[0], corner_y[1]), area_top, 0.0});
  const double right =
      std::min({std::max(corner_x[0], corner_x[1]), area_right, static_cast<double>(src_width)});
  const double bottom =
      std::min({std::max(corner_y[0], corner_y[1]), area_bottom, static_cast<double>(src_height)});
  if (!(left < right && top < bottom)) return FALSE;
  if (out_x0 != nullptr) *out_x0 = left;
  if (out_y0 != nullptr) *out_y0 = top;
  if (out_x1 != nullptr) *out_x1 = right;
  if (out_y1 != nullptr) *out_y1 = bottom;
  return TRUE;
}
