#!/usr/bin/env bash
# Runs COMMAND (bash) in the Debian root ROOT, in this tree, as root: /dev,
# /proc, the CUDA toolkit (read-only, at /usr/local/cuda) and this tree (at
# its own path) are mounted into ROOT in a mount namespace of its own, so
# the mounts end with COMMAND and are never seen outside.
#   .ci/in-root.sh ROOT COMMAND
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(realpath "$1") command=$2
cuda=$(realpath /usr/local/cuda)
[ -x "$cuda/bin/nvcc" ] || { echo "The CUDA toolkit is missing: /usr/local/cuda/bin/nvcc" >&2; exit 1; }
exec unshare --mount --propagation private -- bash -euc '
  root=$1 tree=$2 cuda=$3 command=$4
  mount --rbind /dev "$root/dev"
  mount -t proc proc "$root/proc"
  mkdir -p "$root/usr/local/cuda" "$root$tree"
  mount --bind "$cuda" "$root/usr/local/cuda"
  mount -o remount,bind,ro "$root/usr/local/cuda"
  mount --bind "$tree" "$root$tree"
  exec chroot "$root" /usr/bin/env -i -C "$tree" HOME=/root LANG=C.UTF-8 \
    PATH=/usr/local/cuda/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -o pipefail -c "$command"
' _ "$root" "$PWD" "$cuda" "$command"
