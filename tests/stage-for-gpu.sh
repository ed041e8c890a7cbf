#!/usr/bin/env bash
# Stages the test binaries, the library and the plugin of BUILD (default
# build) into .gpu-stage/, and GStreamer with what they link into
# .gst-bundle/ (tools/gst-bundle.sh), small enough to carry to a GPU machine
# without GStreamer:
#   tests/stage-for-gpu.sh [BUILD]
#   # there:  source .gst-bundle/env.sh
#   #         export CUDAPREP_TEST_DATA_DIR=$PWD/.gpu-stage/data
#   #         (test_docs_commands: tests/run-gpu-tests.sh sets its variables)
#   #         .gpu-stage/tests/test_upload_download
# The test suites register the elements themselves (linked in). The library
# (libgstcudaprep-1.0.so*, from BUILD/gst-libs/gst/cudaprep/, with its
# typelib when one was built) and the plugin module (libgstcudaprep.so, from
# BUILD/gst/cudaprep/) go side by side into .gpu-stage/gst/, so that Python,
# the examples and the benchmarks there take
# CUDAPREP_LIB_DIR=CUDAPREP_PLUGIN_DIR=$PWD/.gpu-stage/gst.
set -euo pipefail
# A build without benchmarks (CI's) has no bench/*: an empty list, not the pattern.
shopt -s nullglob
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
stage=.gpu-stage
rm -rf "$stage"; mkdir -p "$stage/tests" "$stage/gst" "$stage/examples" "$stage/bench"
for f in "$build"/gst-libs/gst/cudaprep/libgstcudaprep-1.0.so*; do
  [ -d "$f" ] || cp -a "$f" "$stage/gst/"   # (not meson's libgstcudaprep-1.0.so.*.p)
done
cp -a "$build/gst/cudaprep/libgstcudaprep.so" "$stage/gst/"
typelib=$build/gst-libs/gst/cudaprep/GstCudaPrep-1.0.typelib
if [ -f "$typelib" ]; then cp "$typelib" "$stage/gst/"; fi
find "$build/tests" -maxdepth 1 -type f -name 'test_*' ! -name '*_opencv' ! -name '*_pil' -executable -exec cp {} "$stage/tests/" \;
# The plugin's code the element suites share (their run path: $ORIGIN).
cp "$build"/tests/libgstcudaprep-plugin-for-tests.so "$stage/tests/"
# test_docs_commands runs README.md's and docs/'s command blocks: it reads
# them from docs-root/ and runs its live lines against rtsp-test-server,
# which lies beside it (so that the bundle below takes its libraries too).
if [ -x "$build/tests/rtsp-test-server" ]; then cp "$build/tests/rtsp-test-server" "$stage/tests/"; fi
mkdir -p "$stage/docs-root"
cp "$here/../README.md" "$stage/docs-root/"
cp -a "$here/../docs" "$stage/docs-root/docs"
for dir in examples bench; do
  [ -d "$build/$dir" ] && find "$build/$dir" -maxdepth 1 -type f -executable -exec cp {} "$stage/$dir/" \;
done
# The small streams the decoder tests read (CUDAPREP_TEST_DATA_DIR there).
cp -a "$here/data" "$stage/data"
strip --strip-debug "$stage"/tests/* "$stage"/gst/*.so* 2>/dev/null || true
"$here/../tools/gst-bundle.sh" .gst-bundle "$stage"/tests/* \
  "$stage"/gst/libgstcudaprep-1.0.so "$stage"/gst/libgstcudaprep.so "$stage"/bench/*
# The build tree's binaries find the library through relative run paths
# (../gst-libs/gst/cudaprep) that the stage does not have, and the plugin
# scanner loads the plugin module in a process of its own: the library also
# goes into the bundle's lib/, which env.sh puts on LD_LIBRARY_PATH there.
cp -L "$stage/gst/libgstcudaprep-1.0.so.0" .gst-bundle/lib/
# The suites find their shared plugin code beside them; no second copy.
rm -f .gst-bundle/lib/libgstcudaprep-plugin-for-tests.so
du -sh "$stage"
