#!/usr/bin/env bash
# Runs the tests that need no GPU under valgrind memcheck and fails on any
# memory error or leak (definite or possible). The GPU tests of the element
# suites are filtered out; suites that are GPU-only are not run.
#
#   tests/valgrind-cpu-tests.sh [BUILD_DIR]     (default: build)
#
# tests/valgrind.supp suppresses only one-time allocations of GLib's type
# system, GStreamer's registry and the CUDA runtime's initialisation, never
# cudaprep's own. GStreamer's own suppressions are added when installed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
tests="$build/tests"

suppressions=(--suppressions="$here/valgrind.supp")
for gst_supp in /usr/share/gstreamer-1.0/valgrind/gst.supp /usr/lib/valgrind/gst.supp; do
  if [ -f "$gst_supp" ]; then suppressions+=(--suppressions="$gst_supp"); fi
done

export G_SLICE=always-malloc G_DEBUG=gc-friendly
# One fresh registry, so no run pays for (or leaks in) a plugin scan of the system.
GST_REGISTRY=$(mktemp --suffix=.bin)
export GST_REGISTRY
trap 'rm -f "$GST_REGISTRY"' EXIT

# suite: gtest filter ("*" = all of it).
declare -A suites=(
  [tensor_maths]='*'
  [modelconfig]='-CudaPreprocess.RunsInAPlayingPipeline'
  [resize_geometry]='*'
  [resize_reference_opencv]='*'
  [cudaprep_meta]='*'
  [credentials]='*'
  [source_gl]='*'
  [source]='Source.AFileIsDecoded*:Source.AddAndRemove*:Source.SettingsThat*:SourceProperties.*:Source.FaultsAre*'
  [rtsp_source]='RtspSource.*'
  [bad_input]='*'
  [memory]='-DevicePool.*'
  [crop]='-CropErrors.ImpossibleCropIsNamed:*CropPixels*:CropOutput.*'
  [upload_download]='-Errors.ADeviceIdThatDoesNotExistIsNamed:Context.*:*RoundTrip*:Upload.*:Download.*:SteadyState.*:Streams.*'
  [resize]='-ResizeErrors.AnImpossibleRuleStopsAPipelineWithItsNumbers'
  [tensorsink]='TensorSink.*'
  [tensor_elements]='-*TensorOutput*:TensorElementsGpu.*'
  [batch_stats]='BatchStatsCpu.*'
  [warm_kernels]='WarmKernels.*'
)

failed=()
for suite in $(printf '%s\n' "${!suites[@]}" | sort); do
  binary="$tests/test_$suite"
  if [ ! -x "$binary" ]; then
    echo "== $suite: $binary not built" >&2
    failed+=("$suite")
    continue
  fi
  log="$build/valgrind-$suite.log"
  echo "== $suite (filter ${suites[$suite]}) -> $log"
  if valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,possible \
      --error-exitcode=1 --num-callers=30 "${suppressions[@]}" --log-file="$log" \
      "$binary" --gtest_filter="${suites[$suite]}" > "$log.out" 2>&1; then
    grep -E "definitely lost|indirectly lost|possibly lost|ERROR SUMMARY" "$log" | sed 's/^==[0-9]*== /   /'
  else
    echo "   FAILED: see $log and $log.out" >&2
    grep -E "definitely lost|possibly lost|ERROR SUMMARY" "$log" | sed 's/^==[0-9]*== /   /' >&2 || true
    failed+=("$suite")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "valgrind found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "valgrind: every CPU suite clean"
