#!/usr/bin/env bash
# Runs the staged GPU suites under compute-sanitizer on a GPU machine (see
# tests/stage-for-gpu.sh): memcheck (with leak check) over every suite,
# racecheck and synccheck over the kernel suites, initcheck over the suites
# whose outputs are tensors. Logs go to ${OUT:-/tmp}; one line per run here.
#   [JOBS=4] [RUN_TIMEOUT=280] tests/sanitize-gpu.sh memcheck|kernels [SUITE ...]
# SUITEs (e.g. crop resize_gpu) narrow a run to those of its suites, for a
# machine that holds only some of the staged binaries; a SUITE that the tool
# does not cover is an error.
# JOBS runs go at once (one GPU serves them all; the sanitizers are
# CPU-bound). Exits non-zero when any run fails: the sanitizer reports an
# error, a leak or a hazard, a test fails, a suite runs no test (77: every
# test skipped, no GPU seen), or a run times out; the failed runs are named
# at the end.
set -uo pipefail
out=${OUT:-/tmp}
jobs=${JOBS:-4}
problems_file=$(mktemp)
run_one() {  # tool suite [leak] [gtest filter] [log name suffix] [more sanitizer options]
  local log="$out/$1-$2${5:-}.log" status problems=""
  timeout "${RUN_TIMEOUT:-280}" compute-sanitizer --tool "$1" ${3:+--leak-check full} --error-exitcode 7 \
    ${6:-} ".gpu-stage/tests/test_$2" ${4:+--gtest_filter=$4} >"$log" 2>&1
  status=$?
  echo "$1 $2${5:-}: exit $status $(grep -E 'ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' ') $(grep -E '^\[  (PASSED|FAILED) ' "$log" | tr '\n' ' ')"
  case $status in
    0) ;;
    7) problems+=" sanitizer errors" ;;
    77) problems+=" no test ran (every test skipped)" ;;
    124) problems+=" timed out" ;;
    *) problems+=" exit $status" ;;
  esac
  # The summaries themselves, in case a tool's report does not reach the exit status.
  grep -qE 'ERROR SUMMARY: [1-9]' "$log" && problems+=" errors reported"
  grep -qE 'LEAK SUMMARY: [1-9]' "$log" && problems+=" leaks reported"
  grep -qE 'RACECHECK SUMMARY: [1-9]' "$log" && problems+=" hazards reported"
  grep -qE '^\[  FAILED  \]' "$log" && problems+=" tests failed"
  grep -qE '^\[  PASSED  \] [1-9]' "$log" || problems+=" no test passed"
  if [ -n "$problems" ]; then echo "$1 $2${5:-}:$problems ($log)" >>"$problems_file"; fi
}
tool_name=${1:-memcheck}
[ $# -gt 0 ] && shift
only=("$@")
covered=()
asked() {  # whether the suite is one of those asked for
  covered+=("$1")
  [ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " =~ " $1 " ]]
}
run() {  # as run_one, at most $jobs at once, for the suites asked for
  asked "$2" || return 0
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  run_one "$@" &
}
case "$tool_name" in
  memcheck)
    # (box and the other CPU-only suites make no CUDA call to check.)
    for suite in memory upload_download crop resize resize_pixels resize_live region tensor_elements \
                 tensorsink tensorsink_gpu flush_eos full_chain batch batch_regions nvcodec \
                 normalize_gpu resize_gpu resize_exact_gpu preprocess_gpu preprocess_crop_gpu \
                 preprocess_batch_gpu resize_tile_gpu; do
      run memcheck "$suite" leak
    done
    # The thousand start/stop cycles take too long under memcheck; the rest runs.
    run memcheck lifecycle leak "-Lifecycle.*"
    if asked bad_input; then
      # Its one test that reaches the GPU (the others refuse their input
      # before any CUDA call) fills the device, which would fail the suites
      # beside it: alone, after them. The cudaMalloc failures it provokes are
      # not reported (memory errors and leaks still count).
      wait
      run_one memcheck bad_input leak "OutOfMemory.*" "" "--report-api-errors no"
    fi
    ;;
  kernels)
    for tool in racecheck synccheck; do
      for suite in normalize_gpu resize_gpu resize_exact_gpu preprocess_gpu preprocess_crop_gpu \
                   preprocess_batch_gpu resize_tile_gpu; do
        run "$tool" "$suite"
      done
    done
    for suite in tensor_elements preprocess_gpu preprocess_crop_gpu normalize_gpu; do
      run initcheck "$suite"
    done
    ;;
  *)
    echo "usage: $0 memcheck|kernels" >&2
    exit 2
    ;;
esac
wait
for suite in "${only[@]}"; do
  [[ " ${covered[*]} " =~ " $suite " ]] || echo "$tool_name $suite: not a suite this run covers" >>"$problems_file"
done
if [ -s "$problems_file" ]; then
  printf 'compute-sanitizer found problems in %d run(s):\n' "$(wc -l <"$problems_file")" >&2
  sed 's/^/  /' "$problems_file" >&2
  rm -f "$problems_file"
  exit 1
fi
rm -f "$problems_file"
echo "compute-sanitizer: every run clean"
