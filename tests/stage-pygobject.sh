#!/usr/bin/env bash
# Bundles Debian's Python 3.11 with PyGObject (python3-gi, python3-gst-1.0),
# our typelib and cp311 wheels into .py311-bundle/, to carry to a machine
# whose Python lacks PyGObject (PyGObject has no binary wheels):
#   tests/stage-pygobject.sh [BUILD]          (after tests/stage-for-gpu.sh)
#   # there:  source .gst-bundle/env.sh && source .py311-bundle/env.sh
#   #         python3.11 python/tests/test_gpu_gi.py
# Wheels: numpy, cuda-core with cuda-bindings 13 (the GPU machine's driver is
# CUDA 13) and cuda-pathfinder. CuPy is left out: its cp311 wheel alone is
# 70 MB and it needs the CUDA toolkit's runtime libraries besides, beyond
# what one device call carries. Needs: python3.11, python3-gi,
# python3-gst-1.0, python3-pip, and network access to PyPI (or a filled
# wheel cache).
set -euo pipefail
build=${1:-build}
out=.py311-bundle
arch=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
stdlib=/usr/lib/python3.11
dist=/usr/lib/python3/dist-packages
typelibs=/usr/lib/$arch/girepository-1.0
typelib=$build/gst-libs/gst/cudaprep/GstCudaPrep-1.0.typelib
[ -f "$typelib" ] || { echo "no $typelib: build with g-ir-scanner installed" >&2; exit 1; }

rm -rf "$out"; mkdir -p "$out/bin" "$out/lib" "$out/girepository-1.0" "$out/site-packages"
cp -L /usr/bin/python3.11 "$out/bin/"
# The standard library, without what a test run never imports (the test
# suite, the libpython archive, Tk, curses, ...) and without bytecode.
# PYTHONHOME=$out makes $out/lib/python3.11 the stdlib and, through Debian's
# site.py, $out/lib/python3/dist-packages the dist-packages.
mkdir -p "$out/lib/python3.11"
tar -C "$stdlib" -cf - \
  --exclude=./test --exclude=./idlelib --exclude=./tkinter --exclude=./turtledemo \
  --exclude=./ensurepip --exclude=./lib2to3 --exclude=./pydoc_data --exclude=./dist-packages \
  --exclude='./config-3.11-*' --exclude=./sitecustomize.py --exclude=__pycache__ \
  --exclude='./lib-dynload/_test*' --exclude='./lib-dynload/_ctypes_test*' \
  --exclude='./lib-dynload/xx*' --exclude='./lib-dynload/_curses*' \
  --exclude='./lib-dynload/readline*' --exclude='./lib-dynload/_dbm*' \
  --exclude='./lib-dynload/nis*' --exclude='./lib-dynload/ossaudiodev*' \
  --exclude='./lib-dynload/_sqlite3*' --exclude='./lib-dynload/_ssl*' \
  --exclude='./lib-dynload/_hashlib*' . | tar -C "$out/lib/python3.11" -xf -
# Debian's sysconfig data is a symlink pair; keep the target under both names.
cp -L "$stdlib/_sysconfigdata__linux_x86_64-linux-gnu.py" "$out/lib/python3.11/"
# PyGObject and python3-gst-1.0's overrides (Gst.py, _gi_gst). Cairo's
# binding is left out (it drags in cairo).
mkdir -p "$out/lib/python3/dist-packages"
tar -C "$dist" -cf - --exclude=__pycache__ --exclude='_gi_cairo*' gi |
  tar -C "$out/lib/python3/dist-packages" -xf -
for name in GLib-2.0 GObject-2.0 GModule-2.0 Gio-2.0 Gst-1.0 GstBase-1.0; do
  cp -L "$typelibs/$name.typelib" "$out/girepository-1.0/"
done
cp -L "$typelib" "$out/girepository-1.0/"
# cp311 wheels, installed (unpacked) into one folder on PYTHONPATH.
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
/usr/bin/python3.11 -m pip download --quiet --only-binary=:all: --no-deps \
  --python-version 3.11 --implementation cp --platform manylinux2014_x86_64 \
  --platform manylinux_2_24_x86_64 --platform manylinux_2_28_x86_64 -d "$wheels" \
  numpy cuda-core "cuda-bindings==13.*" cuda-pathfinder
/usr/bin/python3.11 -m pip install --quiet --no-deps --no-index --no-compile \
  --target "$out/site-packages" "$wheels"/*.whl
# Without tests, Cython sources and cuda.core's CUDA 12 build (the bindings
# are CUDA 13's).
rm -rf "$out"/site-packages/bin "$out"/site-packages/numpy/*/tests "$out"/site-packages/numpy/tests \
  "$out"/site-packages/cuda/core/cu12
find "$out/site-packages" \( -name '*.pxd' -o -name '*.pyx' -o -name '*.pyi' \) -delete
# Every shared library the interpreter and the extension modules need, except
# the C runtime the target has; GStreamer itself comes with .gst-bundle.
skip='^(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libstdc\+\+|libgcc_s|linux-vdso)\.so'
find "$out/bin" "$out/lib" -type f \( -name python3.11 -o -name '*.so' \) | while read -r f; do
  ldd "$f" | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  base=$(basename "$lib")
  [[ $base =~ $skip ]] || cp -L "$lib" "$out/lib/"
done
cat > "$out/env.sh" <<'ENV'
# source me (after .gst-bundle/env.sh): python3.11 runs from this bundle only
_pb=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$_pb/bin:$PATH"
export PYTHONHOME="$_pb"
export PYTHONPATH="$_pb/site-packages${CUDAPREP_PYTHON_DIR:+:$CUDAPREP_PYTHON_DIR}"
export PYTHONNOUSERSITE=1
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$_pb/lib"
export GI_TYPELIB_PATH="$_pb/girepository-1.0"
unset _pb
ENV
du -sh "$out"
