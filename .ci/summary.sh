#!/usr/bin/env bash
# Closing lines of a CI stage: compiler warnings in the build output
# (BUILD/ci-output.log, what `meson test` printed, which builds first) fail
# it; one line over every GoogleTest case from each suite's gtest summary in
# the test log, skipped suites included (GPU tests skip without a GPU).
#   .ci/summary.sh BUILD LABEL     exits 1 when the build warned
set -euo pipefail
build=$1 label=$2
status=0
if [ -f "$build/ci-output.log" ]; then
  warnings=$(grep -cE "warning( #|:)" "$build/ci-output.log" || true)
  echo "compiler warnings ($label): $warnings"
  [ "$warnings" -eq 0 ] || status=1
fi
log=$build/meson-logs/testlog.txt
if [ -f "$log" ]; then
  count() { grep -hoE "^\[  $1 *\] [0-9]+ test" "$log" | awk '{s+=$(NF-1)} END {print s+0}'; }
  echo "gtest ($label): $(count PASSED) passed, $(count FAILED) failed, $(count SKIPPED) skipped"
fi
exit $status
