#!/usr/bin/env bash
# Stages the test binaries, the library and the plugin of BUILD (default
# build) into .gpu-stage/, and GStreamer with what they link into
# .gst-bundle/, small enough to carry to a GPU machine without GStreamer:
#   tests/stage-for-gpu.sh [BUILD]
#   # there:  source .gst-bundle/env.sh && export CUDAPREP_PLUGIN_DIR=$PWD/.gpu-stage/gst
#   #         export CUDAPREP_TEST_DATA_DIR=$PWD/.gpu-stage/data
#   #         .gpu-stage/tests/test_upload_download
set -euo pipefail
build=${1:-build}
stage=.gpu-stage
rm -rf "$stage"; mkdir -p "$stage/tests" "$stage/gst" "$stage/examples" "$stage/bench"
cp -a "$build"/gst/libgstcudaprep*.so* "$stage/gst/"
rm -rf "$stage"/gst/*.p
find "$build/tests" -maxdepth 1 -type f -name 'test_*' ! -name '*_opencv' ! -name '*_pil' -executable -exec cp {} "$stage/tests/" \;
for dir in examples bench; do
  [ -d "$build/$dir" ] && find "$build/$dir" -maxdepth 1 -type f -executable -exec cp {} "$stage/$dir/" \;
done
# The small streams the decoder tests read (CUDAPREP_TEST_DATA_DIR there).
cp -a "$(dirname "$0")/data" "$stage/data"
strip --strip-debug "$stage"/tests/* "$stage"/gst/*.so* 2>/dev/null || true
plugins=/usr/lib/$(gcc -dumpmachine)/gstreamer-1.0
# GStreamer 1.22 ships videoconvert and videoscale as one plugin, which the
# shared bundle script does not name; the CPU peer of the benchmark needs it.
"$(dirname "$0")/../../shared/tools/gst-bundle.sh" .gst-bundle "$stage"/tests/* \
  "$stage"/gst/libgstcudaprep.so "$stage"/bench/* "$plugins/libgstvideoconvertscale.so"
cp -L "$plugins/libgstvideoconvertscale.so" .gst-bundle/plugins/
du -sh "$stage"
