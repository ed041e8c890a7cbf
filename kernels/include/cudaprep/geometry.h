// The mapping between a source frame and an element's output: every crop,
// flip or rotation, scale and letterbox pad composes into
//   out = R(src - crop) * scale + pad
// in continuous pixel coordinates (pixel i covers [i, i+1)), where R is the
// orientation's signed swap of the axes (no offset: 90r is (x, y) -> (-y, x))
// and * scales each output axis. Without orientation, crop is the top-left
// corner of the part of the source that is used; with one, it is the source
// point that lands at the oriented image's top-left corner (a 90r resize of
// a W x H frame has crop (0, H)). A detector's box in tensor pixels maps
// back to the source frame with to_source().
#pragma once

#include <cmath>

namespace cudaprep {

// A flip or rotation of a frame, moving whole pixels as GStreamer's
// videoflip does (GstVideoOrientationMethod: same order and values). For a W x H source and
// oriented pixel (x, y):
//   kIdentity        (x, y)                  W x H
//   kRotate90        (y, H - 1 - x)          H x W  clockwise ("90r")
//   kRotate180       (W - 1 - x, H - 1 - y)  W x H
//   kRotate270       (W - 1 - y, x)          H x W  counter-clockwise ("90l")
//   kFlipHorizontal  (W - 1 - x, y)          W x H  mirror ("horiz")
//   kFlipVertical    (x, H - 1 - y)          W x H  upside down ("vert")
//   kTranspose       (y, x)                  H x W  flip over the upper-left/lower-right
//                                                   diagonal ("ul-lr")
//   kAntiTranspose   (W - 1 - y, H - 1 - x)  H x W  flip over the upper-right/lower-left
//                                                   diagonal ("ur-ll")
// is the source pixel it holds (resize.h: applied before resampling).
enum class Orientation {
  kIdentity,
  kRotate90,
  kRotate180,
  kRotate270,
  kFlipHorizontal,
  kFlipVertical,
  kTranspose,
  kAntiTranspose,
};

inline const char *orientation_name(Orientation orientation) {
  switch (orientation) {
    case Orientation::kIdentity:
      return "identity";
    case Orientation::kRotate90:
      return "90r";
    case Orientation::kRotate180:
      return "180";
    case Orientation::kRotate270:
      return "90l";
    case Orientation::kFlipHorizontal:
      return "horiz";
    case Orientation::kFlipVertical:
      return "vert";
    case Orientation::kTranspose:
      return "ul-lr";
    case Orientation::kAntiTranspose:
      return "ur-ll";
  }
  return "an unknown orientation";
}

// Whether `orientation` swaps width and height (90, 270 and the diagonal
// flips).
constexpr bool swaps_axes(Orientation orientation) {
  return orientation == Orientation::kRotate90 || orientation == Orientation::kRotate270 ||
         orientation == Orientation::kTranspose || orientation == Orientation::kAntiTranspose;
}

// R of an orientation as a matrix: R(x, y) = (xx x + xy y, yx x + yy y).
struct AxisMatrix {
  int xx, xy, yx, yy;
};

constexpr AxisMatrix axis_matrix(Orientation orientation) {
  switch (orientation) {
    case Orientation::kRotate90:
      return {0, -1, 1, 0};
    case Orientation::kRotate180:
      return {-1, 0, 0, -1};
    case Orientation::kRotate270:
      return {0, 1, -1, 0};
    case Orientation::kFlipHorizontal:
      return {-1, 0, 0, 1};
    case Orientation::kFlipVertical:
      return {1, 0, 0, -1};
    case Orientation::kTranspose:
      return {0, 1, 1, 0};
    case Orientation::kAntiTranspose:
      return {0, -1, -1, 0};
    case Orientation::kIdentity:
      break;
  }
  return {1, 0, 0, 1};
}

// `second` applied after `first`.
constexpr Orientation compose(Orientation first, Orientation second) {
  const AxisMatrix a = axis_matrix(first), b = axis_matrix(second);
  const AxisMatrix product{b.xx * a.xx + b.xy * a.yx, b.xx * a.xy + b.xy * a.yy,
                           b.yx * a.xx + b.yy * a.yx, b.yx * a.xy + b.yy * a.yy};
  for (int o = 0; o <= static_cast<int>(Orientation::kAntiTranspose); ++o) {
    const AxisMatrix m = axis_matrix(static_cast<Orientation>(o));
    if (m.xx == product.xx && m.xy == product.xy && m.yx == product.yx && m.yy == product.yy)
      return static_cast<Orientation>(o);
  }
  return Orientation::kIdentity;  // unreachable: the eight form a group
}

struct FrameGeometry {
  double crop_x = 0.0, crop_y = 0.0;    // source point at the oriented image's top-left
  double scale_x = 1.0, scale_y = 1.0;  // output pixels per source pixel, per output axis
  double pad_x = 0.0, pad_y = 0.0;      // output pixels added on the left / top
  Orientation orientation = Orientation::kIdentity;  // R, applied after the crop

  void to_output(double src_x, double src_y, double *out_x, double *out_y) const {
    const AxisMatrix r = axis_matrix(orientation);
    const double dx = src_x - crop_x, dy = src_y - crop_y;
    *out_x = (r.xx * dx + r.xy * dy) * scale_x + pad_x;
    *out_y = (r.yx * dx + r.yy * dy) * scale_y + pad_y;
  }
  void to_source(double out_x, double out_y, double *src_x, double *src_y) const {
    // R is orthogonal: its inverse is its transpose.
    const AxisMatrix r = axis_matrix(orientation);
    const double rx = (out_x - pad_x) / scale_x, ry = (out_y - pad_y) / scale_y;
    *src_x = r.xx * rx + r.yx * ry + crop_x;
    *src_y = r.xy * rx + r.yy * ry + crop_y;
  }
  // This mapping followed by `next` (applied to this one's output): next's
  // crop, in this output's pixels, moves back into the source through R;
  // next's R carries this scale and pad to its own axes.
  FrameGeometry then(const FrameGeometry &next) const {
    const AxisMatrix r = axis_matrix(orientation), n = axis_matrix(next.orientation);
    const double back_x = next.crop_x / scale_x, back_y = next.crop_y / scale_y;
    FrameGeometry composed;
    composed.crop_x = crop_x + r.xx * back_x + r.yx * back_y;
    composed.crop_y = crop_y + r.xy * back_x + r.yy * back_y;
    composed.scale_x = (std::abs(n.xx) * scale_x + std::abs(n.xy) * scale_y) * next.scale_x;
    composed.scale_y = (std::abs(n.yx) * scale_x + std::abs(n.yy) * scale_y) * next.scale_y;
    composed.pad_x = (n.xx * pad_x + n.xy * pad_y) * next.scale_x + next.pad_x;
    composed.pad_y = (n.yx * pad_x + n.yy * pad_y) * next.scale_y + next.pad_y;
    composed.orientation = compose(orientation, next.orientation);
    return composed;
  }
};

}  // namespace cudaprep
