// 2D copies of pitched images between any two of host, pinned and device
// memory. Every copy is per plane and per row (cudaMemcpy2DAsync): a flat
// memcpy of a pitched or cropped image shears its rows.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "cudaprep/image.h"

namespace cudaprep {

// Copies the visible pixels of `src` into `dst` (same format and size) on
// `stream`; the memory kinds are inferred (unified addressing).
cudaError_t copy_image(const Image &src, const Image &dst, cudaStream_t stream);

// A set of frame rows as a repeating pattern: row r in [first, last] is in
// the set when bit (r - first) % period of `mask` is set. What a reader
// that skips rows (a downscale, see resize_rows_read()) needs copied.
struct RowPattern {
  int first = 0, last = -1;
  int period = 0;  // 0: no pattern
  uint32_t mask = 0;
  bool operator==(const RowPattern &other) const {
    return first == other.first && last == other.last && period == other.period &&
           mask == other.mask;
  }
};
constexpr int kMaxRowPeriod = 32;

// The shortest pattern (period <= kMaxRowPeriod) that gives exactly the
// rows set in `rows`; period 0 when there is none or the set is empty.
RowPattern find_row_pattern(const std::vector<bool> &rows);

// The rows of `pattern` as a set over `height` rows.
std::vector<bool> expand_row_pattern(const RowPattern &pattern, int height);

// Every period-th row of a plane from first_row on, count rows: one 2D
// copy whose pitches step over the rows between.
struct RowCopy {
  int plane, first_row, period, count;
  bool operator==(const RowCopy &other) const {
    return plane == other.plane && first_row == other.first_row && period == other.period &&
           count == other.count;
  }
};
constexpr int kMaxRowCopies = kMaxPlanes * kMaxRowPeriod;

// The copies that move the frame rows of `pattern` of a `height`-tall frame
// in `format`, plane by plane: a 4:2:0 chroma row r serves frame rows 2r and
// 2r + 1 (the kernels read chroma row y / 2). Empty when a plane's rows
// make no pattern.
std::vector<RowCopy> plan_row_copies(PixelFormat format, int height, const RowPattern &pattern);

// Copies those rows of `src` into the same rows of `dst` (same format and
// size) on `stream`, one cudaMemcpy2DAsync per RowCopy.
cudaError_t copy_rows(const Image &src, const Image &dst, const RowCopy *copies, int n_copies,
                      cudaStream_t stream);

}  // namespace cudaprep
