#!/usr/bin/env bash
# Debian packages from a meson build configured with --prefix=/usr (CI makes
# them on Debian 13 in .ci/gst126.sh; they depend on the GStreamer they were
# built against):
#   gstreamer1.0-cudaprep      the library, the plugin, the typelib, the
#                              Python module (cudart is linked in statically:
#                              at run time the NVIDIA driver and NVRTC, docs/kernels.md)
#   gstreamer1.0-cudaprep-dev  headers, cudaprep-1.0.pc, the .gir; compiling
#                              against them needs the CUDA toolkit's headers
#                              in /usr/local/cuda (not a Debian package)
# Needs dpkg-dev (dpkg-shlibdeps).
#   tools/make-deb.sh BUILD OUTDIR
set -euo pipefail
build=$(realpath "$1") out=$2
prefix=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
[ "$prefix" = /usr ] || { echo "$build has prefix $prefix: configure it with --prefix=/usr" >&2; exit 1; }
version=$(meson introspect "$build" --projectinfo |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
arch=$(dpkg --print-architecture)
maintainer=${CUDAPREP_DEB_MAINTAINER:-"cudaprep local build <root@localhost>"}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$work/stage"
# Without their debug info, as Debian ships binaries: a debug build keeps it
# in .dwo files in the build tree (-gsplit-dwarf, meson.build), which an
# installed copy cannot reach. The symbol tables stay.
find "$work/stage" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; \
  -exec strip --strip-debug {} +
# Python byte code is made where the package is installed, not shipped.
find "$work/stage" -name __pycache__ -prune -exec rm -rf {} +
run=$work/gstreamer1.0-cudaprep dev=$work/gstreamer1.0-cudaprep-dev
mkdir -p "$run/DEBIAN" "$dev/DEBIAN"
# The development files go to -dev, everything else to the runtime package.
(cd "$work/stage" && find . \( -type f -o -type l \)) | while read -r path; do
  case "$path" in
    ./usr/include/* | */pkgconfig/*.pc | ./usr/share/gir-1.0/* | ./usr/lib/*/libgstcudaprep-1.0.so) pkg=$dev ;;
    *) pkg=$run ;;
  esac
  mkdir -p "$pkg/$(dirname "$path")"
  mv "$work/stage/$path" "$pkg/$path"
done

# Shared-library dependencies of the runtime package, from its ELF files
# (our own library is in the package itself).
mapfile -t elfs < <(find "$run" -type f -name '*.so*' -exec sh -c 'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
mkdir -p "$work/src/debian"
printf 'Source: cudaprep\n\nPackage: gstreamer1.0-cudaprep\nArchitecture: any\n' >"$work/src/debian/control"
libdir=$(dirname "$(find "$run" -name 'libgstcudaprep-1.0.so.*' | head -1)")
depends=$(cd "$work/src" && dpkg-shlibdeps -O -l"$libdir" --ignore-missing-info "${elfs[@]}" 2>/dev/null |
  sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "dpkg-shlibdeps found no dependencies" >&2; exit 1; }

control() { # PACKAGE DIR DEPENDS DESCRIPTION...
  local name=$1 dir=$2 deps=$3; shift 3
  cat >"$dir/DEBIAN/control" <<CONTROL
Package: $name
Version: $version
Architecture: $arch
Maintainer: $maintainer
Section: libs
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$dir" | cut -f1)
Depends: $deps
Description: $1
$(shift; printf ' %s\n' "$@")
CONTROL
}
control gstreamer1.0-cudaprep "$run" "$depends" \
  "GStreamer elements that turn video frames into tensors on NVIDIA GPUs" \
  "cudaprep: upload, crop, resize, normalise and tensorize video frames on" \
  "the GPU, and hand the tensors to applications (libgstcudaprep-1.0)."
control gstreamer1.0-cudaprep-dev "$dev" \
  "gstreamer1.0-cudaprep (= $version), libgstreamer1.0-dev, libgstreamer-plugins-base1.0-dev, libdlpack-dev" \
  "cudaprep: development files" \
  "Headers, pkg-config file (cudaprep-1.0) and GObject introspection data." \
  "The headers include the CUDA runtime's: the CUDA toolkit in /usr/local/cuda."

mkdir -p "$out"
for dir in "$run" "$dev"; do
  dpkg-deb --root-owner-group -Zxz --build "$dir" "$out/$(basename "$dir")_${version}_$arch.deb" >/dev/null
  echo "made $out/$(basename "$dir")_${version}_$arch.deb ($(du -k "$out/$(basename "$dir")_${version}_$arch.deb" | cut -f1) KiB)"
done
