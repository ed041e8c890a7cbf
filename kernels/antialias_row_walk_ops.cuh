// Pass 1 of the two-pass antialiased shrink (antialias_two_pass_ops.cuh),
// namespace cudaprep::device: every row sum (one output column, one source
// row) once, by walking the source rows.
//
// A warp's lanes take 32 neighbouring source rows, one each, and walk them
// together along a segment of the output columns' taps, a chunk of
// kWalkChunk pixels at a time. Every lane reads its own row: with 16-byte
// loads where the reader has them (RowWalkLoads), each pixel loaded and
// converted once, in registers. The lanes stand at the same pixel at every
// step, so the weights of that pixel are one broadcast from the block's
// table, and the columns that end there end in every lane at once: a lane
// keeps the running sums of the kSlots columns whose taps may cover the
// pixel (column j of the segment in slot j % kSlots, a register), adds the
// pixel to each with its weight (zero where the pixel is not one of the
// column's taps), and, as a column ends, keeps its sum aside and zeroes its
// slot for column j + kSlots, whose taps begin after.
//
// Bit for bit row_sum() of antialias_ops.cuh: a column's sum starts at +0
// and adds its taps' products in the taps' order with the weights
// AntialiasSpan computes, one FMA a channel. A zero weight leaves a sum's
// bits as they are: the sum starts at +0, and a float sum of finite values
// is never -0 unless both terms are -0, so fma(0, p, s) == s for any finite
// pixel p. The hand-off is row_sum()'s caller's (the column's total).
//
// The sums ended by a warp wait in shared memory and go out, handed off,
// kWalkFlush columns at a time, 32 bytes of a row each, so that the row
// sums' planes (rows of output columns) are written in whole sectors.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "antialias_ops.cuh"
#include "antialias_row_walk_loads.cuh"
#include "color_ops.cuh"
#include "resample_ops.cuh"
#include "source_ops.cuh"

namespace cudaprep::device {

// R, G, B: the fused preprocess stores no alpha.
constexpr int kRowSumChannels = 3;

// The row sums, handed off (kept as summed or rounded to 8 bits): plane c
// (R, G, B) holds at row r - first_row and column d - column_begin the
// sum of rect column d at source row r, for the rect columns
// [column_begin, column_begin + columns) some output pixel lies in and the
// source rows the taps of the rect rows [rect_row_begin, rect_row_end)
// read (first_row: the first of them, row_sums_first_row()). After the
// planes, `pitch` floats: each column's antialias_total().
struct RowSums {
  float *data;
  int pitch;  // floats per row, a multiple of 32 (rows start 128-byte aligned)
  int rows;   // rows allocated per plane: at least the rows the taps read
  int column_begin, columns;
  int rect_row_begin, rect_row_end;

  __host__ __device__ size_t plane_floats() const { return static_cast<size_t>(rows) * pitch; }
  __host__ __device__ size_t bytes() const {
    return sizeof(float) * (kRowSumChannels * plane_floats() + pitch);
  }
  __device__ __forceinline__ float *plane(int channel) const {
    return data + channel * plane_floats();
  }
  __device__ __forceinline__ float *totals_x() const {
    return data + kRowSumChannels * plane_floats();
  }
};

template <Interpolation kMethod>
__device__ __forceinline__ int row_sums_first_row(const ResampleAxes &axes, const RowSums &sums) {
  return antialias_span<kMethod>(sums.rect_row_begin, axes.antialias_y).first;
}

// Source rows of one warp: one per lane.
constexpr int kWalkRows = 32;
// Warps of a pass-1 block: neighbouring groups of 32 rows, one segment of
// columns (whose weight table they share).
constexpr int kWalkWarps = 4;
constexpr int kWalkThreads = kWalkRows * kWalkWarps;
// Ended columns a warp writes out at once: 32 bytes of each of its rows.
constexpr int kWalkFlush = 8;
// Ended columns a warp keeps (a ring): those not yet written out (fewer
// than kWalkFlush) and those ending within one chunk.
constexpr int kWalkEndedColumns = 16;
constexpr int kWalkEndingPerChunkMost = kWalkEndedColumns - (kWalkFlush - 1);
// Floats per pixel of the weight table: the slots' weights, then how many
// columns end at the pixel (an int's bits); at a half's first pixel, how
// many end within the half (kWalkHalfEnds); at a chunk's first pixel, what
// keeps the chunk from the fast walk (kWalkChunkFlags, an int's bits).
constexpr int kWalkTableStride = 8;
constexpr int kWalkHalfEnds = kWalkTableStride - 2;
constexpr int kWalkChunkFlags = kWalkTableStride - 1;
// Two columns end at one of the chunk's pixels: it walks pixel by pixel.
constexpr int kWalkSeveralEnd = 1;
// A column's slot takes the next column's first tap within the half in
// which the column ends: its ends are taken at the pixel, not after the half.
constexpr int kWalkSlotRetaken = 2;

// The running sums a lane keeps: the most output columns whose taps cover
// one source pixel, for shrinks of 3x (bicubic) or 2x (bilinear) and more.
// A block whose columns need more walks no table: its row sums come
// straight from the source (same bits, slower).
template <Interpolation kMethod>
constexpr int walk_slots() {
  return kMethod == Interpolation::kBicubic ? 5 : 3;
}

// What a pass-1 launch reserved per block: the output columns of its
// segment and the table's pixels (the segment's taps, widened to whole
// chunks).
struct RowWalkCapacity {
  int segment_columns;
  int table_pixels;
};

// Where the parts live in a pass-1 block's shared memory: the weight table,
// per column of the segment its first tap, its end and the inverse of its
// total (a uint8 hand-off's), then each warp's ended sums (R, G, B planes
// of kWalkRows rows of kWalkEndedColumns columns, one more for distinct
// banks).
struct RowWalkSharedLayout {
  size_t table, firsts, ends, inverse_totals, ended, bytes;  // byte offsets
};

constexpr int kWalkEndedPitch = kWalkEndedColumns + 1;
constexpr int kWalkEndedFloats = kRowSumChannels * kWalkRows * kWalkEndedPitch;

__host__ __device__ inline RowWalkSharedLayout row_walk_shared_layout(
    const RowWalkCapacity &capacity) {
  RowWalkSharedLayout layout;
  layout.table = 0;
  layout.firsts =
      layout.table + sizeof(float) * kWalkTableStride * static_cast<size_t>(capacity.table_pixels);
  layout.ends = layout.firsts + sizeof(int) * capacity.segment_columns;
  layout.inverse_totals = layout.ends + sizeof(int) * capacity.segment_columns;
  layout.ended = layout.inverse_totals + sizeof(float) * capacity.segment_columns;
  layout.bytes = layout.ended + sizeof(float) * kWalkWarps * kWalkEndedFloats;
  return layout;
}

// A lane's running sums: slot s, the sum of the segment's column j with
// j % kSlots == s that has not ended.
template <int kSlots>
struct WalkSums {
  float red[kSlots], green[kSlots], blue[kSlots];
};

// A pixel's table entry, in 16-byte loads (a broadcast: every lane of a
// warp reads the same entry).
struct WalkEntry {
  float values[kWalkTableStride];
};

template <int kSlots>
__device__ __forceinline__ WalkEntry walk_entry(const float *entry) {
  WalkEntry loaded;
#pragma unroll
  for (int q = 0; q * 4 <= kSlots; ++q) {
    const float4 quad = reinterpret_cast<const float4 *>(entry)[q];
    loaded.values[4 * q] = quad.x;
    loaded.values[4 * q + 1] = quad.y;
    loaded.values[4 * q + 2] = quad.z;
    loaded.values[4 * q + 3] = quad.w;
  }
  return loaded;
}

// Adds pixel p with the slots' weights from its table entry.
template <int kSlots>
__device__ __forceinline__ void add_pixel(WalkSums<kSlots> &sums, const WalkEntry &entry,
                                          const Rgba &p) {
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const float weight = entry.values[s];
    sums.red[s] = __fmaf_rn(weight, p.x, sums.red[s]);
    sums.green[s] = __fmaf_rn(weight, p.y, sums.green[s]);
    sums.blue[s] = __fmaf_rn(weight, p.z, sums.blue[s]);
  }
}

// One warp's walk: its rows, its segment's sums as they end.
struct RowWalk {
  const RowSums *sums;
  bool uint8_intermediate;
  const float *inverse_totals;  // the segment's columns', for a uint8 hand-off
  float *ended;                 // this warp's kWalkEndedFloats
  int lane;
  int segment_column;  // the segment's first column, in the sums' columns
  int first_sums_row;  // the warp's first row, in the sums' rows
  int rows;            // of the warp's 32, those inside the sums

  // Hands ended columns [from, from + count) of the warp's rows off and
  // writes them.
  __device__ __forceinline__ void flush(int from, int count) const {
    __syncwarp();
    for (int i = lane; i < kWalkRows * count; i += kWalkRows) {
      const int row = i / count, column = from + i % count;
      if (row >= rows) continue;
      const size_t at =
          static_cast<size_t>(first_sums_row + row) * sums->pitch + segment_column + column;
      const int kept = column % kWalkEndedColumns;
      const Rgba sum = make_float4(ended[(0 * kWalkRows + row) * kWalkEndedPitch + kept],
                                   ended[(1 * kWalkRows + row) * kWalkEndedPitch + kept],
                                   ended[(2 * kWalkRows + row) * kWalkEndedPitch + kept], 0.0f);
      const Rgba value = AntialiasRowHandoff{uint8_intermediate, inverse_totals[column]}(sum);
      sums->plane(0)[at] = value.x;
      sums->plane(1)[at] = value.y;
      sums->plane(2)[at] = value.z;
    }
    __syncwarp();
  }

  // Writes the ended columns from `*flushed` on, kWalkFlush at a time, or
  // all of them (`all`, at the end of the walk).
  __device__ __forceinline__ void flush_ended(int done, int *flushed, bool all) const {
    while (done - *flushed >= kWalkFlush) {
      flush(*flushed, kWalkFlush);
      *flushed += kWalkFlush;
    }
    if (all && done > *flushed) {
      flush(*flushed, done - *flushed);
      *flushed = done;
    }
  }

  // Ends segment column `done` (slot done % kSlots): keeps its sum for
  // flush_ended(), zeroes the slot.
  template <int kSlots>
  __device__ __forceinline__ void end_column(WalkSums<kSlots> &slots, int &done) const {
    const int slot = done % kSlots;
    float *kept = ended + lane * kWalkEndedPitch + done % kWalkEndedColumns;
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      if (s != slot) continue;
      kept[0] = slots.red[s];
      kept[kWalkRows * kWalkEndedPitch] = slots.green[s];
      kept[2 * kWalkRows * kWalkEndedPitch] = slots.blue[s];
      slots.red[s] = slots.green[s] = slots.blue[s] = 0.0f;
    }
    ++done;
  }

  // Adds pixel p at table entry `at`, then ends the columns that end there.
  template <int kSlots>
  __device__ __forceinline__ void step(WalkSums<kSlots> &slots, int &done, const float *at,
                                       const Rgba &p) const {
    const WalkEntry entry = walk_entry<kSlots>(at);
    add_pixel(slots, entry, p);
    for (int ends = __float_as_int(entry.values[kSlots]); ends > 0; --ends) {
      end_column(slots, done);
    }
  }

  // step() where at most one column ends at the pixel (a chunk without
  // kWalkSeveralEnd): a branch, not a loop.
  template <int kSlots>
  __device__ __forceinline__ void step_ending_one(WalkSums<kSlots> &slots, int &done,
                                                  const float *at, const Rgba &p) const {
    const WalkEntry entry = walk_entry<kSlots>(at);
    add_pixel(slots, entry, p);
    if (__float_as_int(entry.values[kSlots]) != 0) end_column(slots, done);
  }
};

// The block's segment: output columns, their taps' first pixels, ends and
// inverse totals, and the weight table from pixel `table_origin` (a multiple
// of kWalkChunk) to `table_end`: each column's weights into its slot, a
// warp's lanes taking a column's taps. Returns whether the table fits its
// capacity, no two columns sharing a slot overlap (no pixel among the taps
// of more than kSlots columns) and no chunk holds more than
// kWalkEndingPerChunkMost columns' last taps (the same for every thread).
template <Interpolation kMethod>
__device__ __forceinline__ bool make_walk_table(const AntialiasAxis &axis_x, const RowSums &sums,
                                                int segment_begin, int segment_columns,
                                                const RowWalkCapacity &capacity,
                                                const RowWalkSharedLayout &layout, char *base,
                                                int table_origin, int table_end) {
  constexpr int kSlots = walk_slots<kMethod>();
  const int lane = static_cast<int>(threadIdx.x);
  const int warp = static_cast<int>(threadIdx.y);
  const int thread = warp * kWalkRows + lane;
  float *table = reinterpret_cast<float *>(base + layout.table);
  int *firsts = reinterpret_cast<int *>(base + layout.firsts);
  int *ends = reinterpret_cast<int *>(base + layout.ends);
  float *inverse_totals = reinterpret_cast<float *>(base + layout.inverse_totals);
  const int pixels = table_end - table_origin;
  const bool fits = pixels <= capacity.table_pixels;
  for (int i = thread; fits && i < pixels * kWalkTableStride; i += kWalkThreads) table[i] = 0.0f;
  for (int j = thread; j < segment_columns; j += kWalkThreads) {
    const AntialiasSpan<kMethod> span = antialias_span<kMethod>(segment_begin + j, axis_x);
    firsts[j] = span.first;
    ends[j] = span.end;
  }
  __syncthreads();
  bool overflow = !fits;
  for (int j = warp; fits && j < segment_columns; j += kWalkWarps) {
    const AntialiasSpan<kMethod> span = antialias_span<kMethod>(segment_begin + j, axis_x);
    for (int k = lane; k < span.count(); k += kWalkRows) {
      table[(span.index(k) - table_origin) * kWalkTableStride + j % kSlots] = span.weight(k);
    }
    if (lane == 0) {
      const int last = ends[j] - 1 - table_origin;
      atomicAdd(reinterpret_cast<int *>(table + last * kWalkTableStride + kSlots), 1);
      overflow |= j + kSlots < segment_columns && firsts[j + kSlots] < ends[j];
      overflow |=
          j + kWalkEndingPerChunkMost < segment_columns &&
          (ends[j + kWalkEndingPerChunkMost] - 1) / kWalkChunk == (ends[j] - 1) / kWalkChunk;
      atomicAdd(reinterpret_cast<int *>(table + last / kWalkHalf * kWalkHalf * kWalkTableStride +
                                        kWalkHalfEnds),
                1);
      int flags = 0;
      if (j + 1 < segment_columns && ends[j + 1] == ends[j]) flags |= kWalkSeveralEnd;
      if (j + kSlots < segment_columns &&
          firsts[j + kSlots] - table_origin < (last / kWalkHalf + 1) * kWalkHalf) {
        flags |= kWalkSlotRetaken;
      }
      if (flags != 0) {
        atomicOr(reinterpret_cast<int *>(table + last / kWalkChunk * kWalkChunk * kWalkTableStride +
                                         kWalkChunkFlags),
                 flags);
      }
    }
  }
  const bool walks = !__syncthreads_or(overflow);
  // Each column's total: where the table holds its weights, they are added
  // in antialias_total()'s order (the same values, so the same bits).
  for (int j = thread; j < segment_columns; j += kWalkThreads) {
    float total = 0.0f;
    if (walks) {
      for (int x = firsts[j]; x < ends[j]; ++x) {
        total = __fadd_rn(total, table[(x - table_origin) * kWalkTableStride + j % kSlots]);
      }
    } else {
      total = antialias_total(antialias_span<kMethod>(segment_begin + j, axis_x));
    }
    inverse_totals[j] = __frcp_rn(total);
    if (blockIdx.y == 0) sums.totals_x()[segment_begin + j - sums.column_begin] = total;
  }
  __syncthreads();
  return walks;
}

// Pass 1 for block (blockIdx.x, blockIdx.y) of kWalkRows x kWalkWarps
// threads: the segment of capacity.segment_columns output columns from
// column_begin + blockIdx.x * segment_columns, warp w the rows
// (blockIdx.y * kWalkWarps + w) * kWalkRows onwards of the sums' rows.
// `vector_loads`: row_walk_vector_loads() of the source. Every thread of
// the block calls it.
template <Interpolation kMethod, class Source>
__device__ __forceinline__ void compute_row_sums(const Source &src, const ResampleAxes &axes,
                                                 const RowSums &sums,
                                                 const RowWalkCapacity &capacity, bool vector_loads,
                                                 float *shared) {
  constexpr int kSlots = walk_slots<kMethod>();
  static_assert(kSlots < kWalkHalfEnds, "a table entry holds the slots' weights and the ends");
  const AntialiasAxis &axis_x = axes.antialias_x;
  const int lane = static_cast<int>(threadIdx.x);
  const int warp = static_cast<int>(threadIdx.y);
  const int segment_begin =
      sums.column_begin + static_cast<int>(blockIdx.x) * capacity.segment_columns;
  const int segment_columns =
      min(capacity.segment_columns, sums.column_begin + sums.columns - segment_begin);
  const int first_row = row_sums_first_row<kMethod>(axes, sums);
  const int end_row = min(antialias_span<kMethod>(sums.rect_row_end - 1, axes.antialias_y).end,
                          first_row + sums.rows);
  const int warp_row = first_row + (static_cast<int>(blockIdx.y) * kWalkWarps + warp) * kWalkRows;
  const int table_origin = antialias_span<kMethod>(segment_begin, axis_x).first & ~(kWalkChunk - 1);
  const int table_end =
      (antialias_span<kMethod>(segment_begin + segment_columns - 1, axis_x).end + kWalkChunk - 1) &
      ~(kWalkChunk - 1);

  const RowWalkSharedLayout layout = row_walk_shared_layout(capacity);
  char *base = reinterpret_cast<char *>(shared);
  const bool walks = make_walk_table<kMethod>(axis_x, sums, segment_begin, segment_columns,
                                              capacity, layout, base, table_origin, table_end);
  if (warp_row >= end_row) return;
  // Lanes past the last row walk it again and store nothing.
  const int y = min(warp_row + lane, end_row - 1);
  const float *inverse_totals = reinterpret_cast<const float *>(base + layout.inverse_totals);

  if (!walks) {
    // Straight from the source, as the per-pixel sampler does.
    if (warp_row + lane >= end_row) return;
    for (int j = 0; j < segment_columns; ++j) {
      const AntialiasSpan<kMethod> span = antialias_span<kMethod>(segment_begin + j, axis_x);
      const Rgba value =
          AntialiasRowHandoff{axes.uint8_intermediate, inverse_totals[j]}(row_sum(src, span, y));
      const size_t at =
          static_cast<size_t>(y - first_row) * sums.pitch + (segment_begin + j - sums.column_begin);
      sums.plane(0)[at] = value.x;
      sums.plane(1)[at] = value.y;
      sums.plane(2)[at] = value.z;
    }
    return;
  }

  const RowWalk walk{&sums,
                     axes.uint8_intermediate,
                     inverse_totals,
                     reinterpret_cast<float *>(base + layout.ended) + warp * kWalkEndedFloats,
                     lane,
                     segment_begin - sums.column_begin,
                     warp_row - first_row,
                     min(kWalkRows, end_row - warp_row)};
  const float *table = reinterpret_cast<const float *>(base + layout.table);
  WalkSums<kSlots> slots = {};
  int done = 0, flushed = 0;
  const Rgba zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  // One pixel at a time, load() as it is, up to the frame's edge.
  const auto walk_chunk_per_pixel = [&](int x, const float *entries) {
#pragma unroll 1
    for (int i = 0; i < kWalkChunk; ++i) {
      walk.step(slots, done, entries + i * kWalkTableStride,
                x + i < src.width ? src.load(x + i, y) : zero);
    }
  };
  // A chunk the 16-byte loads can read: inside the frame.
  const auto vector_chunk = [&](int x) { return vector_loads && x + kWalkChunk <= src.width; };
  using Loads = RowWalkLoads<Source>;
  typename Loads::Raw ahead = {};
  if constexpr (Loads::kVector) {
    if (vector_chunk(table_origin)) ahead = Loads::fetch(src, table_origin, y);
  }
  for (int x = table_origin; x < table_end; x += kWalkChunk) {
    const float *entries = table + static_cast<size_t>(x - table_origin) * kWalkTableStride;
    if constexpr (Loads::kVector) {
      const bool vector = vector_chunk(x);
      const typename Loads::Raw raw = ahead;
      if (x + kWalkChunk < table_end && vector_chunk(x + kWalkChunk)) {
        ahead = Loads::fetch(src, x + kWalkChunk, y);
      }
      const int flags = __float_as_int(entries[kWalkChunkFlags]);
      if (vector && flags == 0) {
        // No slot is taken again within the half its column ends in: the
        // columns that end in a half end after it, the half's pixels
        // added without a branch.
        typename Loads::Raw half = raw;
#pragma unroll 1
        for (int h = 0; h < kWalkChunk; h += kWalkHalf) {
          const float *half_entries = entries + h * kWalkTableStride;
#pragma unroll
          for (int i = 0; i < kWalkHalf; ++i) {
            add_pixel(slots, walk_entry<kSlots>(half_entries + i * kWalkTableStride),
                      Loads::pixel(src, half, i));
          }
          for (int ends = __float_as_int(half_entries[kWalkHalfEnds]); ends > 0; --ends) {
            walk.end_column(slots, done);
          }
          Loads::next_half(half);
        }
      } else if (vector && (flags & kWalkSeveralEnd) == 0) {
        typename Loads::Raw half = raw;
#pragma unroll 1
        for (int h = 0; h < kWalkChunk; h += kWalkHalf) {
          // Converted before the steps: one block of code the compiler
          // schedules as it likes.
          Rgba pixels[kWalkHalf];
#pragma unroll
          for (int i = 0; i < kWalkHalf; ++i) pixels[i] = Loads::pixel(src, half, i);
#pragma unroll
          for (int i = 0; i < kWalkHalf; ++i) {
            walk.step_ending_one(slots, done, entries + (h + i) * kWalkTableStride, pixels[i]);
          }
          Loads::next_half(half);
        }
      } else {
        walk_chunk_per_pixel(x, entries);
      }
    } else {
      walk_chunk_per_pixel(x, entries);
    }
    walk.flush_ended(done, &flushed, false);
  }
  walk.flush_ended(done, &flushed, true);
}

}  // namespace cudaprep::device
