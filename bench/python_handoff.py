#!/usr/bin/env python3
"""Python hand-off benchmark (GPU machine, PyTorch):
  1. host time to hand one tensor to PyTorch through the cudaprep module
     (torch.from_dlpack(tensor): __dlpack__, the stream wait, the capsule),
     and the whole loop step (pull + Tensor + from_dlpack + release);
  2. W3 (1920x1080 RGBA, crop 512x512, bilinear 224x224, ImageNet fp16
     NCHW) tensors/s into a Python loop that reads each tensor on torch's
     stream, beside bench/tensor_loop (the C consumer) on the same pipeline,
     runs interleaved.
    python3 bench/python_handoff.py [tensors] [path of tensor_loop]"""
import os
import statistics
import subprocess
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


def w3_description(count):
    """W3 from one 1920x1080 RGBA frame, uploaded once and repeated on the
    device by imagefreeze: no per-frame painting or upload, so the source
    does not limit the consumers (a 1080p frame painted and uploaded from
    pageable memory each time holds both loops near 1,300 tensors/s)."""
    return (
        "videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=RGBA,width=1920,height=1080 "
        "! cudaframeupload ! imagefreeze num-buffers=%d ! cudacrop x=700 y=300 width=512 height=512 "
        "! cudaresize method=bilinear ! video/x-raw(memory:CUDAPitched),width=224,height=224,"
        "format=RGB ! cudanormalize %s dtype=float16 ! cudatensorize layout=nchw dtype=float16 "
        "! cudatensorsink name=sink consumer=application sync=false" % (count, IMAGENET))


WARMUP = 50


def w3_python(count):
    """Tensors/s of a Python loop that, per tensor, does what bench/tensor_loop
    does in C: its stream waits on the tensor (torch.from_dlpack on torch's
    stream), reads all of it (a copy into a scratch tensor) and releases it."""
    pipeline = cudaprep.Pipeline(w3_description(count))
    stream = torch.cuda.current_stream()
    scratch = None
    n = 0
    with pipeline:
        start = None
        for tensor in pipeline.sink():
            x = torch.from_dlpack(tensor)
            if scratch is None:
                scratch = torch.empty_like(x)
            scratch.copy_(x)
            del x
            tensor.release()
            n += 1
            if n == WARMUP:
                stream.synchronize()
                start = time.perf_counter()
        stream.synchronize()
        elapsed = time.perf_counter() - start
    return (n - WARMUP) / elapsed


def w3_c(count, tensor_loop):
    """Tensors/s of bench/tensor_loop (the C consumer) on the same description."""
    result = subprocess.run([tensor_loop, w3_description(count), str(WARMUP)],
                            capture_output=True, text=True, check=True)
    return float(result.stdout.split(":")[1].split()[0])


def w3(count, tensor_loop, rounds=3):
    python, c = [], []
    for _ in range(rounds):  # interleaved, so drift hits both alike
        python.append(w3_python(count))
        c.append(w3_c(count, tensor_loop))
    print("W3, same source (one 1080p RGBA frame repeated on the device), %d tensors a run, %d runs each, "
          "interleaved:" % (count - WARMUP, rounds))
    print("  Python loop (torch.from_dlpack + read + release): median %.0f tensors/s (%s)"
          % (statistics.median(python), ", ".join("%.0f" % v for v in python)))
    print("  C consumer (bench/tensor_loop, begin_read + read + end_read): median %.0f "
          "tensors/s (%s)" % (statistics.median(c), ", ".join("%.0f" % v for v in c)))


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    tensor_loop = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "..", ".gpu-stage", "bench", "tensor_loop")
    handoff(count)
    w3(count, tensor_loop)
