#!/usr/bin/env python3
"""Python hand-off benchmark (GPU machine, PyTorch):
  1. host time to hand one tensor to PyTorch through the cudaprep module
     (torch.from_dlpack(tensor): __dlpack__, the stream wait, the capsule),
     and the whole loop step (pull + Tensor + from_dlpack + release);
  2. W3 (1920x1080 RGBA, crop 512x512, bilinear 224x224, ImageNet fp16
     NCHW) tensors/s into a Python loop that reads each tensor on torch's
     stream; run bench_pipeline W3 RGBA in the same job for the C consumer.
    python3 bench/python_handoff.py [tensors]"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import torch  # noqa: E402

import cudaprep  # noqa: E402

IMAGENET = 'mean="<0.485,0.456,0.406>" std="<0.229,0.224,0.225>"'


def handoff(count):
    pipeline = cudaprep.Pipeline(
        "videotestsrc num-buffers=%d ! video/x-raw,format=RGB,width=64,height=64 "
        "! cudaframeupload ! cudanormalize ! cudatensorize dtype=float32 "
        "! cudatensorsink name=sink consumer=application max-buffers=64 sync=false" % count)
    handoff_us, step_us = [], []
    with pipeline:
        sink = pipeline.sink()
        while True:
            start = time.perf_counter()
            tensor = sink.pull()
            if tensor is None:
                break
            before = time.perf_counter()
            x = torch.from_dlpack(tensor)
            after = time.perf_counter()
            del x
            tensor.release()
            end = time.perf_counter()
            handoff_us.append((after - before) * 1e6)
            step_us.append((end - start) * 1e6)
    handoff_us, step_us = handoff_us[100:], step_us[100:]  # warm-up
    q = statistics.quantiles(handoff_us, n=100)
    print("hand-off to torch.from_dlpack: mean %.1f us, median %.1f us, p99 %.1f us (%d tensors)"
          % (statistics.mean(handoff_us), statistics.median(handoff_us), q[98], len(handoff_us)))
    print("loop step (pull + Tensor + from_dlpack + release): mean %.1f us" %
          statistics.mean(step_us))


def w3(count):
    pipeline = cudaprep.Pipeline(
        "videotestsrc num-buffers=%d pattern=black ! video/x-raw,format=RGBA,width=1920,height=1080 "
        "! cudaframeupload ! cudacrop x=700 y=300 width=512 height=512 "
        "! cudaresize method=bilinear ! video/x-raw(memory:CUDAPitched),width=224,height=224,"
        "format=RGB ! cudanormalize %s dtype=float16 ! cudatensorize layout=nchw dtype=float16 "
        "! cudatensorsink name=sink consumer=application sync=false" % (count, IMAGENET))
    stream = torch.cuda.current_stream()
    n = 0
    with pipeline:
        sink = pipeline.sink()
        start = None
        for tensor in sink:
            x = torch.from_dlpack(tensor)
            x.sum()  # a read on torch's stream, after the tensor's event
            if n == 50:
                stream.synchronize()
                start = time.perf_counter()
            n += 1
        stream.synchronize()
        elapsed = time.perf_counter() - start
    print("W3 into a Python loop: %.0f tensors/s (%d tensors after 50 warm-up)" %
          ((n - 50) / elapsed, n - 50))


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    handoff(count)
    w3(count)
