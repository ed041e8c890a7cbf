"""cudaprep for Python: tensors of a cudaprep pipeline, zero-copy through
the DLPack protocol of the Python array API.

    import cudaprep, torch
    with cudaprep.Pipeline("videotestsrc num-buffers=10 ! cudaframeupload "
                           "! cudatensorize ! cudatensorsink name=sink") as p:
        for tensor in p.sink("sink"):
            x = torch.from_dlpack(tensor)   # torch's stream waits on the GPU
            ...

Works without PyGObject (a ctypes binding of the C API); TensorSink also
takes PyGObject's Gst.Element (and Gst.Pipeline for errors), and
Tensor.from_sample a Gst.Sample pulled through the typelib
(GstCudaPrep.TensorSink.pull_tensor).
"""
from ._dlpack import DLDeviceType
from ._pipeline import Pipeline, TensorSink
from ._preprocessing import Preprocessing, preprocessing_for
from ._sources import Source, add_source
from ._tensor import Geometry, HostArray, Item, Tensor
from ._warm import warm_kernels
from ._native import native


def allocation_count():
    """Device allocations made so far by cudaprep's allocators."""
    return native().prep.gst_cuda_prep_memory_get_allocation_count()


__all__ = ["DLDeviceType", "Geometry", "HostArray", "Item", "Pipeline", "Preprocessing",
           "Source", "Tensor", "TensorSink", "add_source", "allocation_count",
           "preprocessing_for", "warm_kernels"]
