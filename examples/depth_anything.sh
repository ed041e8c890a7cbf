#!/usr/bin/env bash
# Depth-Anything input: the output size follows from the input, short side
# 518 and both sides multiples of 14 (1920x1080 -> 924x518), bicubic, NV12
# camera-style frames (BT.709 limited) converted to RGB in the same pass. No
# size in the capsfilter: cudaresize derives it. Later stages (cudanormalize,
# cudatensorize) go between the capsfilter and the sink.
#   examples/depth_anything.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="${1:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

gst-launch-1.0 -e \
  videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080,colorimetry=bt709 ! \
  cudaframeupload ! \
  cudaresize method=bicubic short-side=518 multiple-of=14 ! \
  "video/x-raw(memory:CUDAPitched),format=RGB" ! \
  cudaframedownload ! fakesink
