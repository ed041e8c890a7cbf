#!/usr/bin/env bash
# Runs the staged GPU suites under compute-sanitizer on a GPU machine (see
# tests/stage-for-gpu.sh): memcheck (with leak check) over every suite,
# racecheck and synccheck over the kernel suites, initcheck over the suites
# whose outputs are tensors. Logs go to ${OUT:-/tmp}; one line per run here.
#   tests/sanitize-gpu.sh memcheck|kernels
set -uo pipefail
out=${OUT:-/tmp}
run() {  # tool suite [gtest filter]
  local log="$out/$1-$2.log"
  timeout 280 compute-sanitizer --tool "$1" ${3:+--leak-check full} --error-exitcode 7 \
    ".gpu-stage/tests/test_$2" ${4:+--gtest_filter=$4} >"$log" 2>&1
  echo "$1 $2: exit $? $(grep -E 'ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' ') $(grep -E '^\[  (PASSED|FAILED) ' "$log" | tr '\n' ' ')"
}
case "${1:-memcheck}" in
  memcheck)
    for suite in memory upload_download crop resize region tensor_elements flush_eos \
                 normalize_gpu resize_gpu preprocess_gpu; do
      run memcheck "$suite" leak
    done
    # The thousand start/stop cycles take too long under memcheck; the rest runs.
    run memcheck lifecycle leak "-Lifecycle.*"
    ;;
  kernels)
    for tool in racecheck synccheck; do
      for suite in normalize_gpu resize_gpu preprocess_gpu; do run "$tool" "$suite"; done
    done
    for suite in tensor_elements preprocess_gpu normalize_gpu; do run initcheck "$suite"; done
    ;;
esac
