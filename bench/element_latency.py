#!/usr/bin/env python3
"""Per-element host time per frame from GStreamer's latency tracer.

Run a pipeline with
  GST_TRACERS="latency(flags=element)" GST_DEBUG="GST_TRACER:7" GST_DEBUG_FILE=trace.log
then: element_latency.py trace.log
Prints, for each element, the median and p90 of the time from a buffer
entering its sink pad to its output leaving the source pad (microseconds).
"""
import re
import statistics
import sys
from collections import defaultdict

LINE = re.compile(r"element-latency.*?element=\(string\)([^,]+),.*?time=\(guint64\)(\d+)")


def main(path):
    times = defaultdict(list)
    with open(path, errors="replace") as log:
        for line in log:
            match = LINE.search(line)
            if match:
                times[match.group(1)].append(int(match.group(2)) / 1000.0)
    if not times:
        sys.exit(f"{path}: no element-latency lines (was the latency tracer on?)")
    print(f"{'element':<24} {'frames':>7} {'median us':>10} {'p90 us':>8}")
    for element, values in times.items():
        # The first tenth is warm-up (allocation, first launches).
        steady = values[len(values) // 10:] if len(values) >= 10 else values
        steady.sort()
        print(f"{element:<24} {len(values):>7} {statistics.median(steady):>10.1f} "
              f"{steady[int(len(steady) * 0.9)]:>8.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
