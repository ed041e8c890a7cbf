#!/usr/bin/env python3
"""Symbolises host_profile.cpp's stacks: self and inclusive shares per function,
each kind of thread's share (names with their digits as N) and, with
--thread KIND, that kind's functions alone.

    bench/host_profile/report.py PROFILE [--root REMOTE=LOCAL ...] [--top N]
                                 [--thread KIND]

REMOTE=LOCAL maps the GPU machine's paths to this machine's copies of the
same (unstripped or --strip-debug'ed) files; libraries without a local copy
are named by file only."""
import argparse, bisect, collections, os, re, subprocess


def load(path):
    stacks, maps = [], []
    with open(path) as f:
        f.readline()
        for line in f:
            if line.startswith('maps'):
                break
            name, *addresses = line.split()
            stacks.append((re.sub(r'[0-9]+', 'N', name), [int(a, 16) for a in addresses]))
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5].startswith('/'):
                lo, hi = (int(x, 16) for x in parts[0].split('-'))
                maps.append((lo, hi, int(parts[2], 16), parts[5]))
    return stacks, maps


class Symbols:
    def __init__(self, path):
        self.addrs, self.names = [], []
        # A stripped library (the distribution's) keeps its dynamic symbols.
        out = ''
        for dynamic in ([], ['-D']):
            try:
                out = subprocess.run(['nm', '-C', '--defined-only', '-n', *dynamic, path],
                                     capture_output=True, text=True).stdout
            except OSError:
                return
            if out.strip():
                break
        for line in out.splitlines():
            parts = line.split(' ', 2)
            if len(parts) == 3 and parts[1] in 'tTwW':
                self.addrs.append(int(parts[0], 16))
                self.names.append(parts[2])

    def name(self, vaddr):
        i = bisect.bisect_right(self.addrs, vaddr) - 1
        return self.names[i] if i >= 0 else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('profile')
    parser.add_argument('--root', action='append', default=[])
    parser.add_argument('--top', type=int, default=40)
    parser.add_argument('--thread', help='only the samples of this kind of thread')
    args = parser.parse_args()
    roots = [r.split('=', 1) for r in args.root]
    stacks, maps = load(args.profile)
    bases = {}
    for lo, hi, off, path in maps:
        if off == 0 and path not in bases:
            bases[path] = lo
    symbols, names = {}, {}

    def symbolise(addr):
        if addr in names:
            return names[addr]
        name = '?'
        for lo, hi, off, path in maps:
            if lo <= addr < hi:
                local = path
                for remote, here in roots:
                    if path.startswith(remote):
                        local = here + path[len(remote):]
                short = os.path.basename(path)
                if local not in symbols:
                    symbols[local] = Symbols(local) if os.path.exists(local) else None
                table = symbols[local]
                found = table.name(addr - bases.get(path, lo)) if table else None
                name = f'{found} [{short}]' if found else f'[{short}]'
                break
        names[addr] = name
        return name

    own, inclusive, by_thread = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    for thread, stack in stacks:
        by_thread[thread] += 1
        if args.thread is not None and thread != args.thread:
            continue
        frames = stack[2:]  # the handler and the signal trampoline
        if not frames:
            continue
        total += 1
        # Return addresses point after the call: look one byte back.
        named = [symbolise(frames[0])] + [symbolise(a - 1) for a in frames[1:]]
        own[named[0]] += 1
        for name in set(named):
            inclusive[name] += 1
    print(f'{len(stacks)} samples; by kind of thread:')
    for thread, count in by_thread.most_common():
        print(f'{100.0 * count / len(stacks):6.1f}%  {thread}')
    print(f'{total} samples' + (f' of {args.thread}' if args.thread else ''))
    print('-- self')
    for name, count in own.most_common(args.top):
        print(f'{100.0 * count / total:6.1f}%  {name[:160]}')
    print('-- inclusive')
    for name, count in inclusive.most_common(args.top):
        print(f'{100.0 * count / total:6.1f}%  {name[:160]}')


main()
