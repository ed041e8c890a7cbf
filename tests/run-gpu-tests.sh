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
