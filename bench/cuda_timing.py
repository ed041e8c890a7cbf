"""GPU time of a call as the Python benchmarks measure it: CUDA events
recorded around it, the median of many calls after warm-up (bench/
peer_pytorch.py, bench/peer_cvcuda.py, bench/model_config_time.py).

torch is imported on the first call, not here: model_config_time.py imports
this module where torch is not installed (its --dry-run)."""
import statistics


def median_cuda_event_ms(run, warmup, iterations, stream=None):
    """Median milliseconds between CUDA events recorded around run(), over
    `iterations` calls after `warmup` untimed ones; each call's stop event is
    waited for before the next call. stream: a torch.cuda.Stream, made
    current while run() is called and the events recorded on it; None:
    torch's current stream."""
    import torch
    with torch.cuda.stream(stream):  # no-op for None
        for _ in range(warmup):
            run()
        if stream is None:
            torch.cuda.synchronize()
        else:
            stream.synchronize()
        samples = []
        for _ in range(iterations):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record(stream)  # None: the current stream
            run()
            stop.record(stream)
            stop.synchronize()
            samples.append(start.elapsed_time(stop))
    return statistics.median(samples)
