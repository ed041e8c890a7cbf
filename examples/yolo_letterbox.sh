#!/usr/bin/env bash
# YOLO-style input: a 1920x1080 frame letterboxed into 640x640 RGB, aspect
# ratio kept, borders grey 114 as Ultralytics' LetterBox pads them (image at
# rows 140..499, centred), scaled to 0..1 (x/255) as float32 NCHW
# 1x3x640x640. The tensors are written as .npy files (tensor-00000.npy, ...)
# into OUTPUT_DIR to look at with numpy; an application takes them from
# cudatensorsink instead (examples/tensor_app.cpp).
#   examples/yolo_letterbox.sh [BUILD_DIR [OUTPUT_DIR]]   (default: build, /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="${1:-build}/gst/cudaprep${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

gst-launch-1.0 -e \
  videotestsrc num-buffers=30 ! video/x-raw,width=1920,height=1080 ! \
  cudaframeupload ! \
  cudaresize method=bilinear add-borders=true pad-value="<114,114,114>" ! \
  "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB" ! \
  cudanormalize scale=0.00392156862745098 ! \
  cudatensorize layout=nchw dtype=float32 ! \
  cudatensorsink drop=true location="${2:-/tmp}/yolo-%05d.npy"
