// Host side of the two-pass antialiased shrink that resize() and
// preprocess() share: the plan for a frame, pass 1's kernel and launch, and
// the row sums' memory around a frame's launches. Each caller launches its
// own pass 2 (antialias_two_pass_kernel.cuh): the destination's pixels or
// the tensors' elements.
#pragma once

#include <cuda_runtime.h>

#include "antialias_two_pass.h"
#include "antialias_two_pass_kernel.cuh"
#include "antialias_two_pass_launch.cuh"
#include "resize_launch.cuh"
#include "runtime/runtime_kernels.h"

namespace cudaprep {

// Pass 1's kernel (antialias_row_sums_kernel); kMethod antialiased bilinear
// or bicubic.
template <Interpolation kMethod, class Source>
const runtime::KernelRequest &row_sums_request() {
  static const runtime::KernelRequest request{"antialias_two_pass_kernel.cuh",
                                              "cudaprep::antialias_row_sums_kernel<" +
                                                  interpolation_argument(kMethod) + ", " +
                                                  reader_name<Source>() + ">"};
  return request;
}

// `path`'s plan for `mapping` from `source` into a width x height
// destination; the device is asked for its limits only where the two
// passes are considered (no CUDA call for the other frames).
template <class Source>
cudaError_t plan_two_passes(const Source &source, const device::ResizeMapping &mapping, int width,
                            int height, AntialiasPath path, TwoPassPlan *plan) {
  *plan = {};
  const TwoPassReader reader = two_pass_reader(source);
  if (!two_passes_considered(mapping.axes, reader, path)) return cudaSuccess;
  RowSumsDevice device_limits;
  const cudaError_t queried = row_sums_device(&device_limits);
  if (queried == cudaSuccess) {
    *plan = two_pass_plan(mapping, width, height, reader, path, device_limits);
  }
  return queried;
}

// Pass 1 of `plan` from `source` into `sums` (plan.sums with its data).
template <Interpolation kMethod, class Source>
cudaError_t launch_row_sums(const Source &source, const device::ResampleAxes &axes,
                            const TwoPassPlan &plan, const device::RowSums &sums,
                            cudaStream_t stream) {
  RowSumsArgs<Source> args;
  args.src = source;
  args.axes = axes;
  args.sums = sums;
  args.capacity = plan.capacity;
  args.vector_loads = device::row_walk_vector_loads(source);
  return runtime::launch_kernel(row_sums_request<kMethod, Source>(), plan.row_sums_launch,
                                plan.row_sums_shared_bytes, stream, args);
}

// Runs `launch(sums)` (cudaError_t, both passes' launches) with plan.sums
// in memory of the stream's own for the while (allocate_row_sums()).
// *no_pools: the device has no memory pools, so nothing ran.
template <class Launch>
cudaError_t with_row_sums(const TwoPassPlan &plan, cudaStream_t stream, Launch &&launch,
                          bool *no_pools) {
  device::RowSums sums = plan.sums;
  const cudaError_t allocated = allocate_row_sums(sums.bytes(), stream, &sums.data);
  *no_pools = allocated == cudaErrorNotSupported;
  if (allocated != cudaSuccess) return allocated;
  const cudaError_t launched = launch(static_cast<const device::RowSums &>(sums));
  const cudaError_t freed = free_row_sums(sums.data, stream);
  return launched != cudaSuccess ? launched : freed;
}

// Runs the two passes of `plan` (plan.runs) for `params`' antialiased
// sampler: launch_passes(method, sums) launches both, `method` a
// std::integral_constant of the Interpolation. *done: whether the caller
// is done with the frame; false where the device has no memory pools and
// `path` leaves the caller the single pass (the chosen path does; the
// forced two passes answer the error).
template <class LaunchPasses>
cudaError_t run_two_passes(const TwoPassPlan &plan, const ResizeParams &params, AntialiasPath path,
                           cudaStream_t stream, LaunchPasses &&launch_passes, bool *done) {
  bool no_pools = false;
  const cudaError_t launched =
      with_sampler(params.interpolation, params.antialias, [&](auto method, auto antialiased) {
        if constexpr (decltype(antialiased)::value) {
          return with_row_sums(
              plan, stream,
              [&](const device::RowSums &sums) { return launch_passes(method, sums); }, &no_pools);
        }
        return cudaErrorInvalidValue;  // a plan runs for antialiased samplers only
      });
  *done = !no_pools || path == AntialiasPath::kTwoPass;
  return launched;
}

}  // namespace cudaprep
