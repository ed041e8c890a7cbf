#!/usr/bin/env bash
# Makes OUTDIR (default .gst-bundle/), this machine's GStreamer runtime in one
# folder that travels to a machine where GStreamer is not installed (the GPU
# machine):
#   bin/       gst-launch-1.0, gst-inspect-1.0
#   libexec/   gst-plugin-scanner
#   plugins/   the plugins tests, examples and benchmarks use (core elements,
#              videotestsrc, videoconvertscale, app, png/jpeg, parsers,
#              muxers, nvcodec and x264 where installed, uridecodebin,
#              openh264dec, compositor, and rtspsrc with its RTP elements
#              for cudaprepsrc; the tests' RTSP server library comes with
#              test_rtsp_source through ldd ...)
#   lib/       every shared library those need, and those that each BINARY
#              given needs (libgstcheck, libgstcuda, OpenCV, ...), except the
#              C/C++ runtime the target has (libc, libm, libstdc++, ...)
#   env.sh     to source there (below)
# Usage:
#   tools/gst-bundle.sh [OUTDIR [BINARY...]]
# The BINARYs (test programs, the plugin module, benchmarks) are read with
# ldd, not copied: stage them yourself (tests/stage-for-gpu.sh does both).
# On the other machine, from anywhere:
#   source OUTDIR/env.sh
# which puts the bundle first: PATH (bin/), LD_LIBRARY_PATH (lib/; not with
# CUDAPREP_BUNDLE_AT, below),
# GST_PLUGIN_SYSTEM_PATH_1_0 (plugins/ only, never the system's),
# GST_PLUGIN_SCANNER_1_0 (libexec/gst-plugin-scanner) and GST_REGISTRY_1_0
# (a registry file of its own under $TMPDIR, default /tmp).
# Needs: the Debian packages gstreamer1.0-tools gstreamer1.0-plugins-base
#        gstreamer1.0-plugins-good installed here; with gstreamer1.0-plugins-bad
#        (nvcodec: nvh264dec/nvh265dec, cudaupload; libgstcuda-1.0) and
#        gstreamer1.0-plugins-ugly (x264enc) also installed, those travel too;
#        gstreamer1.0-rtsp (libgstrtspserver-1.0) for test_rtsp_source.
#        A plugin of the list that is not installed is left out.
# CUDAPREP_BUNDLE_AT=DIR (an absolute path): the bundle will lie at DIR on
# the target, whose C library is older than this machine's (Debian 13's
# GStreamer 1.26 on the GPU machine's Ubuntu 24.04: glibc 2.41 here, 2.39
# there). Then the C/C++ runtime and its loader travel too, in lib-c/ (never
# on LD_LIBRARY_PATH, where the target's own programs would load it), and
# every executable (the bundle's and each BINARY given) gets lib-c's loader
# as its interpreter, and each of them and each library given lib-c, lib as
# its DT_RPATH (patchelf; an RPATH, not a RUNPATH, so that it holds for the
# libraries it loads too), so it runs directly; the driver's libcuda comes from the target's system paths.
# Unpack the bundle at DIR there.
# The bundle and a staged build together exceed what one device call
# carries uncompressed; pack them: tar -czf .gpu-carry/stage.tgz DIRS...
# and unpack there first: tar -xzf .gpu-carry/stage.tgz
set -euo pipefail
out=${1:-.gst-bundle}
shift || true
extra=("$@")
arch=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
sys=/usr/lib/$arch
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib" "$out/plugins" "$out/libexec"
# plugins worth having for tests, examples and benchmarks
plugins="coreelements coretracers videotestsrc videoconvert videoscale app
  videorate videoparsersbad debug png jpeg multifile pbtypes rawparse
  videocrop videofilter imagefreeze videoconvertscale nvcodec isomp4
  matroska x264 typefindfunctions
  playback openh264 compositor rtsp rtp rtpmanager udp"
for p in $plugins; do
  f=$sys/gstreamer-1.0/libgst$p.so
  [ -f "$f" ] && cp -L "$f" "$out/plugins/"
done
cp -L /usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0 "$out/bin/"
cp -L $sys/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner "$out/libexec/"
# every shared library these need, except the C/C++ runtime the target has
c_runtime='^(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'
skip='^(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libstdc\+\+|libgcc_s|linux-vdso)\.so'
bundle_at=${CUDAPREP_BUNDLE_AT:-}
if [ -n "$bundle_at" ]; then
  [[ $bundle_at == /* ]] || { echo "CUDAPREP_BUNDLE_AT must be an absolute path" >&2; exit 1; }
  command -v patchelf >/dev/null || { echo "CUDAPREP_BUNDLE_AT needs patchelf" >&2; exit 1; }
  skip='^linux-vdso\.so'
fi
for f in "$out"/bin/* "$out"/libexec/* "$out"/plugins/*.so "${extra[@]}"; do
  ldd "$f" | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  base=$(basename "$lib")
  [[ $base =~ $skip ]] || cp -L "$lib" "$out/lib/"
done
if [ -n "$bundle_at" ]; then
  mkdir -p "$out/lib-c"
  for lib in "$out"/lib/*; do
    if [[ $(basename "$lib") =~ $c_runtime ]]; then mv "$lib" "$out/lib-c/"; fi
  done
  loader=$(readelf -l /usr/bin/gst-launch-1.0 | sed -n 's/.*interpreter: \(.*\)]/\1/p')
  cp -L "$loader" "$out/lib-c/"
  for f in "$out"/bin/* "$out"/libexec/* "${extra[@]}"; do
    readelf -h "$f" >/dev/null 2>&1 || continue
    if readelf -l "$f" | grep -q 'interpreter:'; then
      patchelf --set-interpreter "$bundle_at/lib-c/$(basename "$loader")" "$f"
    fi
    # The libraries given too (ours carry meson's RUNPATH, under which the
    # loader would not use the executable's RPATH for their dependencies).
    rpath=$(patchelf --print-rpath "$f")
    patchelf --force-rpath --set-rpath "$bundle_at/lib-c:$bundle_at/lib${rpath:+:$rpath}" "$f"
  done
fi
cat > "$out/env.sh" <<'ENV'
# source me: puts the bundled GStreamer first on every search path
_gb=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$_gb/bin:$PATH"
export LD_LIBRARY_PATH="$_gb/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GST_PLUGIN_SYSTEM_PATH_1_0="$_gb/plugins"
export GST_PLUGIN_SCANNER_1_0="$_gb/libexec/gst-plugin-scanner"
export GST_REGISTRY_1_0="${TMPDIR:-/tmp}/gst-bundle-registry.bin"
unset _gb
ENV
# The patched executables find lib/ through their RPATH; the target's own
# programs must not see this machine's libraries on LD_LIBRARY_PATH.
if [ -n "$bundle_at" ]; then sed -i '/LD_LIBRARY_PATH/d' "$out/env.sh"; fi
du -sh "$out"
