#!/usr/bin/env bash
# Runs every staged test suite on the GPU machine (after
# tests/stage-for-gpu.sh here), from the repository root:
#   tests/run-gpu-tests.sh [LOGDIR]
# One line per suite (its GoogleTest counts) and a closing
# "gtest: N passed, N failed, N skipped"; exits 1 if any suite failed.
set -uo pipefail
logs=${1:-.gpu-logs}
mkdir -p "$logs"
source .gst-bundle/env.sh
# (The suites register the elements themselves: no plugin path.)
# test_docs_commands runs README.md's lines with the bundle's gst-launch-1.0:
# the docs and the plugin module as staged, and the test data.
export CUDAPREP_DOCS_DIR=${CUDAPREP_DOCS_DIR:-$PWD/.gpu-stage/docs-root}
export CUDAPREP_PLUGIN_DIR=${CUDAPREP_PLUGIN_DIR:-$PWD/.gpu-stage/gst}
export CUDAPREP_TEST_DATA_DIR=${CUDAPREP_TEST_DATA_DIR:-$PWD/.gpu-stage/data}
export CUDAPREP_RTSP_TEST_SERVER=${CUDAPREP_RTSP_TEST_SERVER:-$PWD/.gpu-stage/tests/rtsp-test-server}
passed=0 failed=0 skipped=0 failed_suites=()
for test in .gpu-stage/tests/test_*; do
  name=$(basename "$test")
  "$test" > "$logs/$name.log" 2>&1
  status=$?
  count() { grep -oE "^\[  $1 *\] [0-9]+ test" "$logs/$name.log" | grep -oE '[0-9]+' | head -1; }
  p=$(count PASSED) f=$(count FAILED) s=$(count SKIPPED)
  p=${p:-0} f=${f:-0} s=${s:-0}
  echo "$name: exit $status, $p passed, $f failed, $s skipped"
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  # 77: every test skipped (no GPU), which on this machine is a failure too.
  [ "$status" -eq 0 ] || failed_suites+=("$name")
done
echo "gtest: $passed passed, $failed failed, $skipped skipped"
[ ${#failed_suites[@]} -eq 0 ] || { echo "failed: ${failed_suites[*]}"; exit 1; }
