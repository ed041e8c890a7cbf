#!/usr/bin/env bash
# Makes the input of bench_decode (benchmark W5 of issue 12): an H.264
# 1080p30 MP4 of moving test bars, x264 ultrafast, an IDR every 30 frames,
# up to 6 Mbit/s (a camera's rate). Not committed: make it where you stage.
#   bench/make_w5_stream.sh OUT.mp4 [frames]   (default 300 frames, ~10 s)
set -euo pipefail
out=${1:?usage: $0 OUT.mp4 [frames]}
frames=${2:-300}
gst-launch-1.0 -q videotestsrc num-buffers="$frames" pattern=smpte horizontal-speed=4 ! \
  video/x-raw,width=1920,height=1080,framerate=30/1 ! \
  x264enc speed-preset=ultrafast key-int-max=30 bitrate=6000 ! \
  video/x-h264,profile=constrained-baseline ! h264parse ! mp4mux ! filesink location="$out"
ls -l "$out"
