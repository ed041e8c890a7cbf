#!/usr/bin/env bash
# Depth-Anything input: the output size follows from the input, short side
# 518 and both sides multiples of 14 (1920x1080 -> 924x518), bicubic, NV12
# camera-style frames (BT.709 limited) converted to RGB in the same pass. No
# size in the capsfilter: cudaresize derives it. ImageNet mean/std, float32
# NCHW 1x3x518x924, written as .npy files into OUTPUT_DIR.
#   examples/depth_anything.sh [BUILD_DIR [OUTPUT_DIR]]   (default: build, /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="${1:-build}/gst/cudaprep${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

gst-launch-1.0 -e \
  videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=1920,height=1080,colorimetry=bt709 ! \
  cudaframeupload ! \
  cudaresize method=bicubic short-side=518 multiple-of=14 ! \
  "video/x-raw(memory:CUDAPitched),format=RGB" ! \
  cudanormalize mean="<0.485,0.456,0.406>" std="<0.229,0.224,0.225>" ! \
  cudatensorize layout=nchw dtype=float32 ! \
  cudatensorsink drop=true location="${2:-/tmp}/depth-%05d.npy"
