// The antialiased samplers in two passes (namespace cudaprep::device), for
// shrinks whose row sums the tiled kernels (resize_tile.cuh) would compute
// again in every block whose footprint holds them. Pass 1
// (antialias_row_walk_ops.cuh) computes every row sum (one output column,
// one source row) exactly once into RowSums, a device intermediate of float
// planes; pass 2 (antialias_column_pass_ops.cuh) adds, per output pixel, the
// row sums its vertical taps cover.
//
// Bit for bit the per-pixel sampler of antialias_ops.cuh: pass 1 sums each
// column's taps in the taps' order from zero with AntialiasSpan's weights
// and hands the sum off as row_sum()'s caller does
// (antialias_row_handoff_of_total()); pass 2 adds the rows in
// add_column_taps()'s order and finishes with antialias_result_of_totals(),
// the totals being antialias_total()'s.
#pragma once

#include "antialias_column_pass_ops.cuh"
#include "antialias_row_walk_ops.cuh"
