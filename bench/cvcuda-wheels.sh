#!/usr/bin/env bash
# CV-CUDA's Python wheels for bench/peer_cvcuda.py, carried to a GPU machine
# that has no internet and takes at most ~50 MB per call.
#
#   bench/cvcuda-wheels.sh split          (here: download, split into pieces)
#   bench/cvcuda-wheels.sh install DEST   (there: join, verify, pip install)
#
# split downloads cvcuda-cu13 (cp312, manylinux x86_64) into .whl-cv/ and
# cuts each wheel into pieces of at most 40 MB, one piece per ignored folder
# .cvpart1/, .cvpart2/, ... at the repository root; .cvpart1/MANIFEST holds
# the sha256 of every whole wheel. Carry the folders to the GPU machine
# (one or two per call: ignored paths already there are kept between calls),
# then install joins the pieces, checks them against MANIFEST and installs
# the wheels into DEST (use PYTHONPATH=DEST). The wheel's only dependency,
# numpy, is already on the GPU machine (as are torch and cupy).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=0.19.0
PIECE_SIZE=40M

split_wheels() {
  local wheels="$ROOT/.whl-cv"
  mkdir -p "$wheels"
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$wheels" "cvcuda-cu13==$VERSION"
  local wheel
  for wheel in "$wheels"/*.whl; do
    echo "$(basename "$wheel") needs:"
    unzip -p "$wheel" '*.dist-info/METADATA' | grep '^Requires-Dist' | grep -v 'extra ==' || true
  done
  rm -rf "$ROOT"/.cvpart[0-9]*
  mkdir -p "$ROOT/.cvpart1"
  (cd "$wheels" && sha256sum -- *.whl) >"$ROOT/.cvpart1/MANIFEST"
  local folder=1 piece
  for wheel in "$wheels"/*.whl; do
    local pieces
    pieces=$(mktemp -d)
    split -b "$PIECE_SIZE" -a 2 -- "$wheel" "$pieces/$(basename "$wheel").part-"
    for piece in "$pieces"/*; do
      mkdir -p "$ROOT/.cvpart$folder"
      mv -- "$piece" "$ROOT/.cvpart$folder/"
      folder=$((folder + 1))
    done
    rmdir "$pieces"
  done
  du -sh "$ROOT"/.cvpart[0-9]*
}

install_wheels() {
  local dest=$1
  local manifest="$ROOT/.cvpart1/MANIFEST"
  [[ -f $manifest ]] || { echo "cvcuda-wheels: $manifest missing (carry .cvpart1)" >&2; exit 1; }
  joined=$(mktemp -d)
  trap 'rm -rf "$joined"' EXIT
  local name
  while read -r _ name; do
    # Pieces sort by their suffix (aa, ab, ...), whichever folder holds them.
    local pieces
    pieces=$(find "$ROOT" -maxdepth 2 -path "$ROOT/.cvpart*/$name.part-*" -printf '%f\t%p\n' |
      sort | cut -f2)
    [[ -n $pieces ]] || {
      echo "cvcuda-wheels: no pieces of $name (carry every .cvpartN)" >&2
      exit 1
    }
    # shellcheck disable=SC2086  # one path per line, no spaces in these names
    cat $pieces >"$joined/$name"
  done <"$manifest"
  (cd "$joined" && sha256sum --quiet -c "$manifest") || {
    echo "cvcuda-wheels: a wheel does not match $manifest: a piece is missing or stale" >&2
    exit 1
  }
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$dest" "$joined"/*.whl
  echo "cvcuda-wheels: installed into $dest (export PYTHONPATH=$dest)"
}

case "${1:-}" in
  split) split_wheels ;;
  install)
    [[ $# -eq 2 ]] || { echo "usage: $0 install DEST" >&2; exit 2; }
    install_wheels "$2"
    ;;
  *)
    echo "usage: $0 split | install DEST" >&2
    exit 2
    ;;
esac
