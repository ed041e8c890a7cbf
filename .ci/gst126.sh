#!/usr/bin/env bash
# CI, second stage: build and test against GStreamer 1.26 (Debian 13, gcc 14)
# in a Debian 13 root made here with mmdebstrap from the package list of
# tools/setup-debian.sh, the CUDA toolkit and this tree mounted into it
# (.ci/in-root.sh); then the Debian packages of that build, installed into a
# second, clean Debian 13 root, where gst-inspect-1.0 lists the elements and
# examples/pull_tensors.c builds with their pkg-config file. Needs root (or
# sudo): mmdebstrap's root mode, mount and chroot.
#   .ci/gst126.sh          make fresh roots, delete them at the end
#   .ci/gst126.sh DIR      build in DIR, a root an earlier run left (--keep)
#   .ci/gst126.sh --keep   make fresh roots and say where they are kept
# CUDAPREP_CI_JOBS=N limits the build to N jobs (ninja's default: cores + 2).
# The build directory is build-ci-gst126 in this tree, the packages are in
# build-ci-gst126/deb.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=PATH,CUDAPREP_CI_JOBS "$0" "$@"
fi
keep=false
root=""
case "${1:-}" in
  --keep) keep=true ;;
  "") ;;
  *) root=$(realpath "$1") ;;
esac

roots=()
cleanup() {
  local dir
  for dir in "${roots[@]}"; do
    # The mounts live in the namespace of .ci/in-root.sh and end with it;
    # never delete through one that would still be there.
    if grep -qF " $dir/" /proc/self/mountinfo; then
      echo "$dir: still mounted, left" >&2
    else
      rm -rf "$dir"
    fi
  done
}
$keep || trap cleanup EXIT

# make_root VAR NAME PACKAGES...: a fresh Debian 13 root with PACKAGES
# (names or .deb paths), its path in VAR.
make_root() {
  local var=$1 name=$2 dir start=$SECONDS package includes=()
  shift 2
  dir=$(mktemp -d "${TMPDIR:-/var/tmp}/cudaprep-$name.XXXXXX")
  roots+=("$dir")
  for package in "$@"; do includes+=("--include=$package"); done
  # The hook makes .deb files given by path visible to dpkg in the root.
  mmdebstrap --quiet --variant=apt --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
    "${includes[@]}" trixie "$dir"
  echo "Debian 13 root ($name) made in $((SECONDS - start)) s"
  if $keep; then echo "kept: $dir"; fi
  printf -v "$var" %s "$dir"
}

command -v mmdebstrap >/dev/null ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
if [ -z "$root" ]; then
  # shellcheck disable=SC2046 # one package a line
  make_root root build $(tools/setup-debian.sh --list)
fi
[ -x "$root/usr/bin/meson" ] || { echo "$root is not a root with the build packages" >&2; exit 1; }

# The test command of README.md with this stage's build directory (building
# first, so that CUDAPREP_CI_JOBS can limit a shared machine), Debian's
# prefix for the packages; then the kernel headers' check and the packages.
reconfigure=""
[ -f build-ci-gst126/build.ninja ] && reconfigure=--reconfigure
status=0
.ci/in-root.sh "$root" "meson setup $reconfigure build-ci-gst126 -Dgpu_archs=75 --prefix=/usr &&
  { ninja -C build-ci-gst126 ${CUDAPREP_CI_JOBS:+-j$CUDAPREP_CI_JOBS} &&
    meson test -C build-ci-gst126 --print-errorlogs; } 2>&1 | tee build-ci-gst126/ci-output.log &&
  .ci/kernel-deps.py build-ci-gst126 &&
  rm -rf build-ci-gst126/deb && tools/make-deb.sh build-ci-gst126 build-ci-gst126/deb" ||
  status=$?
.ci/summary.sh build-ci-gst126 "GStreamer 1.26" || status=1
[ $status -eq 0 ] || exit $status

# The packages in a clean root: the plugin registers and lists its elements
# without a GPU, and an application builds against the -dev package.
clean=""
make_root clean clean gstreamer1.0-tools gcc libc6-dev pkg-config \
  "$PWD"/build-ci-gst126/deb/*.deb
.ci/in-root.sh "$clean" 'set -e
  elements=$(gst-inspect-1.0 cudaprep | grep -oE "^  cuda[a-z]+:" | tr -d " :" | sort | paste -sd" ")
  echo "gst-inspect-1.0 cudaprep (installed package, no GPU): $elements"
  [ "$elements" = "cudabatch cudacrop cudaframedownload cudaframeupload cudanormalize cudapreprocess cudaprepsrc cudaresize cudatensorize cudatensorsink" ]
  gcc -std=c11 -Wall -Werror examples/pull_tensors.c $(pkg-config --cflags --libs cudaprep-1.0) \
    -o /tmp/pull_tensors
  echo "examples/pull_tensors.c built with pkg-config cudaprep-1.0: $(ldd /tmp/pull_tensors | grep -o "libgstcudaprep-1.0.so[^ ]* => [^ ]*")"'
