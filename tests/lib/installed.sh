#!/usr/bin/env bash
# `meson install --destdir` of the build, then a C program (and the C
# example) built with gcc -std=c11 against the installed cudaprep-1.0.pc
# alone, and run against the installed library and plugin:
#   tests/lib/installed.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1")
source=$(realpath "$2")
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >/dev/null
pc=$(find "$dest" -name cudaprep-1.0.pc)
[ -n "$pc" ] || { echo "cudaprep-1.0.pc was not installed"; exit 1; }
# The .pc names the real prefix; point a copy of it at the destdir (other
# packages, GStreamer's, keep theirs).
mkdir "$dest/pc"
sed -E "s|^prefix=(.*)$|prefix=$dest\1|" "$pc" >"$dest/pc/cudaprep-1.0.pc"
export PKG_CONFIG_PATH=$dest/pc
flags=$(pkg-config --cflags --libs cudaprep-1.0)
echo "pkg-config cudaprep-1.0: $flags"
for header in cudaprep.h cudaprep-prelude.h gstcudatensorsink.h gstcudatensorsample.h \
  gstcudaprepgeometry.h gstcudaprepmeta.h gstcudaprepmemory.h gstcudapreppool.h gstcudaprepbox.h \
  gstcudaprepdlpack.h gstcudaprepwarm.h; do
  [ -f "$(find "$dest" -path "*/gst/cudaprep/$header" | head -1)" ] || { echo "$header not installed"; exit 1; }
done
if find "$dest" -name '*-private.h' -o -name 'gstcudaprepcore.h' -o -name 'gstcudaprepbasetransform.h' |
  grep -q .; then
  echo "an internal header was installed"; exit 1
fi
# The library's ABI is its public API: EVERY defined dynamic symbol,
# whatever its type (weak and unique ones too, e.g. a libstdc++ template the
# compiler instantiated inline), must be a name the version script
# (gst-libs/gst/cudaprep/libgstcudaprep.map) allows, gst_cuda_prep_* or one
# it lists, and be declared in an installed header.
lib=$(find "$dest" -name 'libgstcudaprep-1.0.so.0' | head -1)
headers=$(dirname "$(find "$dest" -path '*/gst/cudaprep/cudaprep.h' | head -1)")
map=$source/gst-libs/gst/cudaprep/libgstcudaprep.map
listed=$(sed -e 's|/\*.*\*/||' "$map" | grep -oE '^ *gst_[a-z0-9_]+;' | tr -d ' ;')
exported=$(nm -D --defined-only "$lib" | awk '{print $NF}')
[ -n "$exported" ] || { echo "no exported symbols in $lib"; exit 1; }
for symbol in $exported; do
  case $symbol in
    gst_cuda_prep_*) ;;
    *) grep -qxF "$symbol" <<<"$listed" || { echo "exported but not allowed: $symbol"; exit 1; } ;;
  esac
  grep -qw "$symbol" "$headers"/*.h || { echo "exported but in no installed header: $symbol"; exit 1; }
done
echo "exported symbols: $(wc -l <<<"$exported"), each allowed and in an installed header"
gcc -std=c11 -Wall -Werror -o "$dest/public_api" "$source/tests/lib/public_api.c" $flags -lm
gcc -std=c11 -Wall -Werror -o "$dest/pull_tensors" "$source/examples/pull_tensors.c" $flags
libdir=$(dirname "$(find "$dest" -name 'libgstcudaprep-1.0.so.0' | head -1)")
LD_LIBRARY_PATH=$libdir GST_PLUGIN_PATH=$libdir/gstreamer-1.0 \
  "$dest/public_api"
echo "installed API: ok"
