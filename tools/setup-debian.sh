#!/usr/bin/env bash
# Installs every Debian 12 package cudaprep needs to build, test and run its
# examples (CI runs this too). The CUDA toolkit (nvcc) is not a Debian
# package: install it from NVIDIA (https://developer.nvidia.com/cuda-downloads)
# into /usr/local/cuda; this script checks that it is there. Debian 12's meson
# (1.0.1) gives nvcc no depfile, so an edited kernel header would not rebuild
# what includes it: the script puts meson 1.7.0 from PyPI into .meson/ of this
# tree (no root needed, nothing outside the tree); put .meson/bin first on PATH.
#   tools/setup-debian.sh          install the packages
#   tools/setup-debian.sh --list   print their names, one a line (CI installs
#                                  the same list into a Debian 13 root)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
packages=(
  # build
  meson ninja-build pkg-config g++ clang-format
  # GStreamer and its CUDA library (nvcodec's GstCudaMemory, gst.cuda.context)
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly
  # tests: GoogleTest; OpenCV checks the CPU references (opencv4.pc comes
  # with libopencv-dev; the tests link core and imgproc only)
  libgtest-dev libopencv-dev
  # the source tests: a real RTSP server in the test process (gst-rtsp-server)
  gstreamer1.0-rtsp libgstrtspserver-1.0-dev
  # tensors out: DLPack, GObject introspection, Python
  libjson-glib-dev libdlpack-dev gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0 gcc
  python3 python3-gi python3-gst-1.0 python3-numpy python3-pil
  # .meson/, a virtual environment
  python3-venv
)
if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "The CUDA toolkit is missing: install it so that /usr/local/cuda/bin/nvcc exists" >&2
  exit 1
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$repo/.meson/bin/pip" ] || python3 -m venv "$repo/.meson"
"$repo/.meson/bin/pip" install -q --disable-pip-version-check --require-hashes \
  -r "$repo/tools/meson-requirements.txt"
echo "cudaprep: every package is installed; meson $("$repo/.meson/bin/meson" --version) is in $repo/.meson/bin"
