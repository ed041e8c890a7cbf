"""tools/parity_report.py's comparison: a pipeline's tensors against a
reference's in 8-bit steps."""
import numpy as np

from parity_report_references import centre_window

# One whole step measured through a float32 tensor is 1 +- 1e-4 (the
# normalised values' rounding): --max-target 1 accepts it.
TARGET_TOLERANCE = 1e-3

# --- the comparison ---------------------------------------------------------------


def steps(ours, ref, std):
    """|ours - ref| in 8-bit steps; a larger `ours` is compared by its
    centred window (the reference's crop)."""
    if ours.shape[0] != ref.shape[0]:
        raise ValueError("the pipeline's tensor has %d channels, the reference %d" %
                         (ours.shape[0], ref.shape[0]))
    if ours.shape != ref.shape:
        if ours.shape[-2] < ref.shape[-2] or ours.shape[-1] < ref.shape[-1]:
            raise ValueError("the pipeline's tensor %s is smaller than the reference's %s" %
                             (ours.shape, ref.shape))
        ours = centre_window(ours, ref.shape[-1], ref.shape[-2])
    std = np.asarray(std, dtype=np.float64).reshape(-1, 1, 1)
    return np.abs(ours - ref) * std * 255.0


def summary(difference):
    return difference.max(), difference.mean(), np.percentile(difference, 99)


def compare(reference, settings, frames, tensors):
    """Per frame and overall (max, mean, p99) in steps, and a note when the
    pipeline's uncropped size is not the reference's."""
    height, width = frames[0].shape[:2]
    note = None
    if reference.resize_size is not None:
        expected = reference.resize_size(width, height)
        got = (tensors[0].shape[-1], tensors[0].shape[-2])
        if got != expected:
            note = ("the pipeline resized to %dx%d, the reference to %dx%d before its crop: "
                    "sampling positions differ" % (got + expected))
    per_frame = []
    for frame, tensor in zip(frames, tensors):
        per_frame.append(steps(tensor, reference.compute(frame, settings), reference.std))
    return per_frame, summary(np.concatenate([d.ravel() for d in per_frame])), note


def over_target(dmax, dmean, max_target, mean_target):
    """Whether a max or mean exceeds its target (None: none); the max by
    more than TARGET_TOLERANCE."""
    return ((max_target is not None and dmax > max_target + TARGET_TOLERANCE) or
            (mean_target is not None and dmean > mean_target))


def print_overall(dmax, dmean, dp99, max_target, mean_target):
    """Prints the overall figures, with a verdict where a target is set;
    returns whether they are over it."""
    over = False
    verdict = ""
    if max_target is not None or mean_target is not None:
        over = over_target(dmax, dmean, max_target, mean_target)
        verdict = "  OVER TARGET" if over else "  within target"
    print(f"  all: max {dmax:.4f}  mean {dmean:.4f}  p99 {dp99:.4f} steps{verdict}")
    return over
