// The tiling rule of a cudabatch pad's region-source=tiles (SAHI-style
// slicing for small objects on large frames): the rectangles of a frame
// that become its items. A pure function of the rule and the frame's size;
// the pad computes it again whenever either changes (gstcudabatchpad.h).
// Part of cudabatch (elements/cudabatch/).
#pragma once

#include <vector>

#include "cudaprep/resize.h"

namespace cudaprep::batch {

struct TilingRule {
  int tile_width = 640, tile_height = 640;  // >= 1, pixels of the source frame
  double overlap = 0.2;                     // 0.0 .. 0.9 of the tile's size along each axis
  bool whole_frame = false;                 // the whole frame as one more item
  int overlap_pixels = 0;                   // > 0: the overlap in pixels, overlap ignored

  bool operator==(const TilingRule &other) const {
    return tile_width == other.tile_width && tile_height == other.tile_height &&
           overlap == other.overlap && whole_frame == other.whole_frame &&
           overlap_pixels == other.overlap_pixels;
  }
  bool operator!=(const TilingRule &other) const { return !(*this == other); }
};

// The tiles of a width x height frame (both >= 1) under `rule`. Along each
// axis, of tile size T and frame length L:
//  - L <= T: one tile, at 0, of length L;
//  - otherwise tiles of length T start at 0, T - O apart (at least 1), as
//    long as the one before ends before L; the last is moved back to start
//    at L - T, so that it ends exactly at the edge. O, the overlap in
//    pixels, is overlap_pixels when it is > 0 (the same along both axes;
//    the pad refuses one >= a tile side at start, which here would make
//    the step 1), else round(overlap * T).
// Tiles are listed row by row (top row first, left to right), then, with
// whole_frame, the whole frame <0, 0, width, height> once more, unless the
// frame is a single tile (that tile is already the whole frame). A region's
// id is its index in this list.
//
// This is the rule of SAHI's slicing (sahi/slicing.py get_slice_bboxes with
// slice_width/height and overlap_width/height_ratio, auto-adjusted last
// slice; whole_frame as get_sliced_prediction's perform_standard_pred, which
// SAHI also skips for a single slice), with one difference: SAHI truncates
// overlap * T (int()) where this rule rounds it. They differ only where
// overlap * T is not an integer: 0.29 x 100 is 28.999... in floating point,
// a step of 72 in SAHI and of 71 here; 640 x 0.2 = 128 is a step of 512 in
// both. SAHI has no overlap in pixels: overlap_pixels is ours.
std::vector<cudaprep::PixelRect> tile_regions(const TilingRule &rule, int width, int height);

}  // namespace cudaprep::batch
