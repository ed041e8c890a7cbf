#!/usr/bin/env python3
"""CI check: editing a kernel header (kernels/*.cuh) rebuilds every object
that includes it, directly or through another header.

For each header: which objects of BUILD include it, from the sources' own
#include lines; then the header's mtime is set to now, `ninja -n` says what
it would rebuild, and the mtime is put back (nothing is rebuilt). Fails when
ninja would not rebuild an object that includes the header: the compiler
wrote no depfile (meson before 1.4 asks nvcc for none).

    .ci/kernel-deps.py BUILD
"""
import os
import re
import subprocess
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
COMPILE = re.compile(r'^build ([^:]+\.o): (?:cuda|cpp|c)_COMPILER (\S+)', re.M)
REBUILT = re.compile(r'^\[\d+/\d+\] Compiling \S+ object (\S+)$', re.M)


def includes(path, root, cache):
    """The files of the tree that `path` includes, transitively."""
    if path in cache:
        return cache[path]
    cache[path] = set()
    found = set()
    # Quoted includes resolve next to the includer, else on the include
    # directories the build gives (kernels/, kernels/include/, tests/).
    bases = [path.parent, root / 'kernels', root / 'kernels' / 'include', root / 'tests']
    for name in INCLUDE.findall(path.read_text(errors='replace')):
        for base in bases:
            candidate = (base / name).resolve()
            if candidate.is_file():
                found.add(candidate)
                found |= includes(candidate, root, cache)
                break
    cache[path] = found
    return found


def plan(build):
    """The objects `ninja -n` would compile."""
    out = subprocess.run(['ninja', '-C', str(build), '-n'], check=True, capture_output=True,
                         text=True).stdout
    return set(REBUILT.findall(out))


def main():
    build = Path(sys.argv[1]).resolve()
    root = Path(__file__).resolve().parent.parent
    objects = {}  # object -> source
    for obj, src in COMPILE.findall((build / 'build.ninja').read_text()):
        objects[obj] = (build / src).resolve()
    cache = {}
    headers = sorted((root / 'kernels').glob('*.cuh'))
    including = {h: {o for o, s in objects.items() if h in includes(s, root, cache)}
                 for h in headers}
    # Each object must be up to date before a header is touched, or ninja
    # would rebuild it whatever the header.
    stale = plan(build) & set().union(*including.values())
    if stale:
        print(f'{build}: {len(stale)} objects that include a kernel header are not up to date: '
              'build first')
        return 1
    missing = []
    checked = 0
    for header in headers:
        expected = including[header]
        if not expected:
            continue
        before = header.stat()
        try:
            os.utime(header)
            rebuilt = plan(build)
        finally:
            os.utime(header, ns=(before.st_atime_ns, before.st_mtime_ns))
        checked += len(expected)
        for obj in sorted(expected - rebuilt):
            missing.append(f'{header.relative_to(root)}: ninja would not rebuild {obj}')
    if checked == 0:
        print(f'{build}: no object includes a kernel header (no kernels/*.cuh or no sources?)')
        return 1
    if missing:
        print('\n'.join(missing))
        print(f'kernel headers: {len(missing)} of {checked} (header, object) pairs not rebuilt '
              '(meson before 1.4 gives nvcc no depfile: use the one tools/setup-debian.sh installs)')
        return 1
    print(f'kernel headers: {len(headers)} .cuh, each rebuilds every object that includes it '
          f'({checked} (header, object) pairs)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
