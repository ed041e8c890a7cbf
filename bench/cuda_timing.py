"""GPU time of a call as the Python benchmarks measure it: CUDA events
recorded around it on torch's current stream, the median of many calls
after warm-up (bench/peer_pytorch.py and bench/model_config_time.py).

torch is imported on the first call, not here: model_config_time.py imports
this module where torch is not installed (its --dry-run)."""
import statistics


def median_cuda_event_ms(run, warmup, iterations):
    """Median milliseconds between CUDA events recorded on torch's current
    stream around run(), over `iterations` calls after `warmup` untimed
    ones; each call's stop event is waited for before the next call."""
    import torch
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    samples = []
    for _ in range(iterations):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples)
