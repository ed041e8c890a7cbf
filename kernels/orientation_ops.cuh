// Orientation (geometry.h's Orientation) of a source (namespace
// cudaprep::device): a source seen flipped or rotated, itself a source. The
// samplers see the oriented image; only load()'s coordinates change.
#pragma once

#include "color_ops.cuh"
#include "cudaprep/geometry.h"
#include "cudaprep/image.h"
#include "source_ops.cuh"

namespace cudaprep::device {

// Source pixel of oriented pixel (x, y):
//   (x0 + x_from_x * x + x_from_y * y, y0 + y_from_x * x + y_from_y * y).
struct OrientationMap {
  int x0, x_from_x, x_from_y;
  int y0, y_from_x, y_from_y;
};

CUDAPREP_HD OrientationMap orientation_map(Orientation orientation, int src_width, int src_height) {
  const int last_x = src_width - 1;
  const int last_y = src_height - 1;
  switch (orientation) {
    case Orientation::kRotate90:
      return {0, 0, 1, last_y, -1, 0};
    case Orientation::kRotate180:
      return {last_x, -1, 0, last_y, 0, -1};
    case Orientation::kRotate270:
      return {last_x, 0, -1, 0, 1, 0};
    case Orientation::kFlipHorizontal:
      return {last_x, -1, 0, 0, 0, 1};
    case Orientation::kFlipVertical:
      return {0, 1, 0, last_y, 0, -1};
    case Orientation::kTranspose:
      return {0, 0, 1, 0, 1, 0};
    case Orientation::kAntiTranspose:
      return {last_x, 0, -1, last_y, -1, 0};
    case Orientation::kIdentity:
      break;
  }
  return {0, 1, 0, 0, 0, 1};
}

// `Source` as `orientation` shows it: width and height are the oriented
// image's. Launches use the source itself for the identity.
template <class Source>
struct OrientedSource {
  Source source;
  OrientationMap map;
  int width;
  int height;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    return source.load(map.x0 + map.x_from_x * x + map.x_from_y * y,
                       map.y0 + map.y_from_x * x + map.y_from_y * y);
  }
};

template <class Source>
OrientedSource<Source> oriented(const Source &source, Orientation orientation) {
  const bool swapped = swaps_axes(orientation);
  return {source, orientation_map(orientation, source.width, source.height),
          swapped ? source.height : source.width, swapped ? source.width : source.height};
}

template <class Source>
struct is_high_bit_depth_source<OrientedSource<Source>> : is_high_bit_depth_source<Source> {};

}  // namespace cudaprep::device
