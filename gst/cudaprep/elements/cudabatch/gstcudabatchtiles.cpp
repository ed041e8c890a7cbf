#include "elements/cudabatch/gstcudabatchtiles.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace cudaprep::batch {

namespace {

struct Span {
  int start, length;
};

// The tiles along one axis of `length` pixels (tile_regions()' rule).
std::vector<Span> axis_tiles(const TilingRule &rule, int tile, int length) {
  if (length <= tile) return {Span{0, length}};
  const int64_t overlap =
      rule.overlap_pixels > 0 ? rule.overlap_pixels : std::llround(rule.overlap * tile);
  const int64_t step = std::max<int64_t>(1, tile - overlap);
  std::vector<Span> spans;
  for (int64_t start = 0; start + tile < length; start += step)
    spans.push_back(Span{static_cast<int>(start), tile});
  spans.push_back(Span{length - tile, tile});
  return spans;
}

}  // namespace

std::vector<cudaprep::PixelRect> tile_regions(const TilingRule &rule, int width, int height) {
  const std::vector<Span> columns = axis_tiles(rule, rule.tile_width, width);
  const std::vector<Span> rows = axis_tiles(rule, rule.tile_height, height);
  std::vector<cudaprep::PixelRect> tiles;
  tiles.reserve(rows.size() * columns.size() + 1);
  for (const Span &row : rows)
    for (const Span &column : columns)
      tiles.push_back(cudaprep::PixelRect{column.start, row.start, column.length, row.length});
  if (rule.whole_frame && tiles.size() > 1)
    tiles.push_back(cudaprep::PixelRect{0, 0, width, height});
  return tiles;
}

}  // namespace cudaprep::batch
