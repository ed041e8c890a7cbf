#include "cudaprep/copy.h"

#include <algorithm>

namespace cudaprep {

// Whether plane `plane` of `image` starts where the plane before it ends,
// at the same pitch.
static bool follows_previous_plane(const Image &image, int plane) {
  const ImagePlane &previous = image.planes[plane - 1];
  return image.planes[plane].pitch_bytes == previous.pitch_bytes &&
         image.planes[plane].data ==
             previous.data +
                 previous.pitch_bytes * plane_height(image.format, plane - 1, image.height);
}

cudaError_t copy_image(const Image &src, const Image &dst, cudaStream_t stream) {
  if (src.format != dst.format || src.width != dst.width || src.height != dst.height) {
    return cudaErrorInvalidValue;
  }
  // Planes that lie back to back at one pitch on both sides, with rows of
  // the same length (NV12's and P010's two), go in one copy: a copy is a
  // driver call of several microseconds on a thread that slept.
  const int num_planes = format_info(src.format).num_planes;
  for (int first = 0; first < num_planes;) {
    const size_t row_bytes = plane_row_bytes(src.format, first, src.width);
    size_t rows = plane_height(src.format, first, src.height);
    int next = first + 1;
    for (; next < num_planes && plane_row_bytes(src.format, next, src.width) == row_bytes &&
           follows_previous_plane(src, next) && follows_previous_plane(dst, next);
         ++next)
      rows += plane_height(src.format, next, src.height);
    const cudaError_t err = cudaMemcpy2DAsync(dst.planes[first].data, dst.planes[first].pitch_bytes,
                                              src.planes[first].data, src.planes[first].pitch_bytes,
                                              row_bytes, rows, cudaMemcpyDefault, stream);
    if (err != cudaSuccess) return err;
    first = next;
  }
  return cudaSuccess;
}

RowPattern find_row_pattern(const std::vector<bool> &rows) {
  RowPattern pattern;
  const auto first = std::find(rows.begin(), rows.end(), true);
  if (first == rows.end()) return pattern;
  pattern.first = static_cast<int>(first - rows.begin());
  pattern.last = static_cast<int>(rows.rend() - std::find(rows.rbegin(), rows.rend(), true)) - 1;
  const int span = pattern.last - pattern.first + 1;
  for (int period = 1; period <= kMaxRowPeriod && period <= span; ++period) {
    uint32_t mask = 0;
    for (int offset = 0; offset < period; ++offset)
      if (rows[pattern.first + offset]) mask |= 1u << offset;
    bool repeats = true;
    for (int row = pattern.first; row <= pattern.last && repeats; ++row)
      repeats = rows[row] == (((mask >> ((row - pattern.first) % period)) & 1u) != 0);
    if (repeats) {
      pattern.period = period;
      pattern.mask = mask;
      return pattern;
    }
  }
  return pattern;
}

std::vector<bool> expand_row_pattern(const RowPattern &pattern, int height) {
  std::vector<bool> rows(std::max(height, 0), false);
  if (pattern.period <= 0) return rows;
  for (int row = std::max(pattern.first, 0); row <= pattern.last && row < height; ++row)
    rows[row] = ((pattern.mask >> ((row - pattern.first) % pattern.period)) & 1u) != 0;
  return rows;
}

std::vector<RowCopy> plan_row_copies(PixelFormat format, int height, const RowPattern &pattern) {
  std::vector<RowCopy> copies;
  const std::vector<bool> rows = expand_row_pattern(pattern, height);
  for (int plane = 0; plane < format_info(format).num_planes; ++plane) {
    const int plane_rows = plane_height(format, plane, height);
    std::vector<bool> plane_read(plane_rows, false);
    for (int row = 0; row < height; ++row)
      if (rows[row]) plane_read[plane_rows == height ? row : row / 2] = true;
    const RowPattern plane_pattern = find_row_pattern(plane_read);
    if (plane_pattern.period == 0) return {};
    for (int offset = 0; offset < plane_pattern.period; ++offset) {
      const int first = plane_pattern.first + offset;
      if (((plane_pattern.mask >> offset) & 1u) == 0 || first > plane_pattern.last) continue;
      copies.push_back({plane, first, plane_pattern.period,
                        (plane_pattern.last - first) / plane_pattern.period + 1});
    }
  }
  return copies;
}

cudaError_t copy_rows(const Image &src, const Image &dst, const RowCopy *copies, int n_copies,
                      cudaStream_t stream) {
  if (src.format != dst.format || src.width != dst.width || src.height != dst.height)
    return cudaErrorInvalidValue;
  for (int i = 0; i < n_copies; ++i) {
    const RowCopy &copy = copies[i];
    const ImagePlane &from = src.planes[copy.plane];
    const ImagePlane &to = dst.planes[copy.plane];
    const cudaError_t err = cudaMemcpy2DAsync(
        to.data + copy.first_row * to.pitch_bytes, copy.period * to.pitch_bytes,
        from.data + copy.first_row * from.pitch_bytes, copy.period * from.pitch_bytes,
        plane_row_bytes(src.format, copy.plane, src.width), copy.count, cudaMemcpyDefault, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace cudaprep
