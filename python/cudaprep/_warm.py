"""A pipeline's kernels compiled ahead of time, through the C API of
gstcudaprepwarm.h (gst_cuda_prep_warm_kernels): no second implementation
here."""
import ctypes

from ._native import _GError, native


def warm_kernels(launch_line, timeout_seconds=0):
    """Compiles the kernels of the pipeline `launch_line` (gst-launch syntax,
    with the caps the real pipeline will have; any source that gives them)
    into the kernel cache, by bringing it up once: paused until every sink
    has a buffer, or, for a live pipeline (rtspsrc, videotestsrc
    is-live=true), played until then; then stopped and freed.
    `timeout_seconds` bounds the wait (0: 120 s).

    Raises RuntimeError with the library's message when the line does not
    parse, the pipeline has no sink, an element posts an error, a sink has
    end-of-stream before any buffer, or nothing comes in time. A pipeline of
    no cudaprep element comes up and compiles nothing."""
    lib = native()
    error = ctypes.c_void_p()
    if lib.prep.gst_cuda_prep_warm_kernels(launch_line.encode(), int(timeout_seconds),
                                           ctypes.byref(error)):
        return
    text = "no reason given"
    if error:
        text = _GError.from_address(error.value).message.decode(errors="replace")
        lib.gobject.g_error_free(error)
    raise RuntimeError("the pipeline's kernels were not warmed: %s" % text)
