#!/usr/bin/env bash
# YOLO-style input: a 1920x1080 frame letterboxed into 640x640 RGB, aspect
# ratio kept, borders grey 114 as Ultralytics' LetterBox pads them (image at
# rows 140..499, centred). Later stages (cudanormalize, cudatensorize) go
# between the capsfilter and the sink.
#   examples/yolo_letterbox.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="${1:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

gst-launch-1.0 -e \
  videotestsrc num-buffers=300 ! video/x-raw,width=1920,height=1080 ! \
  cudaframeupload ! \
  cudaresize method=bilinear add-borders=true pad-value="<114,114,114>" ! \
  "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB" ! \
  cudaframedownload ! fakesink
