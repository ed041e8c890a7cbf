#!/usr/bin/env python3
"""Loads cudaprep tensors into PyTorch zero-copy through DLPack.

Runs videotestsrc ! cudaframeupload ! cudanormalize ! cudatensorize !
cudatensorsink inside this process (through ctypes: no PyGObject needed),
pulls each tensor, exports it with gst_cuda_prep_tensor_sink_sample_to_dlpack()
on PyTorch's current stream (which then waits for the tensor on the GPU)
and wraps it with torch.utils.dlpack.from_dlpack(): the torch tensor's
storage is the pipeline's device memory. When torch frees it, the DLPack
deleter records torch's reads and gives the buffer back to the pipeline.
The sink also writes each tensor as .npy; every torch tensor is checked
against its file and against the device pointer it was exported from.

    python3 examples/dlpack_consumer.py [BUILD_DIR]     (default: build)

The library comes from BUILD_DIR/gst-libs/gst/cudaprep and the plugin from
BUILD_DIR/gst/cudaprep; CUDAPREP_LIB_DIR and CUDAPREP_PLUGIN_DIR, as for the
cudaprep module, name other folders (a staged one holding both).
"""
import ctypes
import os
import sys
import tempfile

import numpy

import torch
import torch.utils.dlpack

GST_STATE_NULL = 1
GST_STATE_PLAYING = 4


def main():
    build_dir = sys.argv[1] if len(sys.argv) > 1 else "build"
    lib_dir = os.path.abspath(os.environ.get("CUDAPREP_LIB_DIR")
                              or os.path.join(build_dir, "gst-libs", "gst", "cudaprep"))
    plugin_dir = os.path.abspath(os.environ.get("CUDAPREP_PLUGIN_DIR")
                                 or os.path.join(build_dir, "gst", "cudaprep"))
    gst = ctypes.CDLL("libgstreamer-1.0.so.0")
    prep = ctypes.CDLL(os.path.join(lib_dir, "libgstcudaprep-1.0.so"))
    vp = ctypes.c_void_p
    gst.gst_init.argtypes = [vp, vp]
    gst.gst_registry_get.restype = vp
    gst.gst_registry_scan_path.argtypes = [vp, ctypes.c_char_p]
    gst.gst_parse_launch.restype = vp
    gst.gst_parse_launch.argtypes = [ctypes.c_char_p, vp]
    gst.gst_bin_get_by_name.restype = vp
    gst.gst_bin_get_by_name.argtypes = [vp, ctypes.c_char_p]
    gst.gst_element_set_state.argtypes = [vp, ctypes.c_int]
    gst.gst_mini_object_unref.argtypes = [vp]
    gst.gst_object_unref.argtypes = [vp]
    prep.gst_cuda_prep_tensor_sink_pull_tensor.restype = vp
    prep.gst_cuda_prep_tensor_sink_pull_tensor.argtypes = [vp]
    prep.gst_cuda_prep_tensor_sink_sample_to_dlpack.restype = vp
    prep.gst_cuda_prep_tensor_sink_sample_to_dlpack.argtypes = [vp, vp]
    capsule_new = ctypes.pythonapi.PyCapsule_New
    capsule_new.restype = ctypes.py_object
    capsule_new.argtypes = [vp, ctypes.c_char_p, vp]

    npy_dir = tempfile.mkdtemp(prefix="cudaprep-dlpack-")
    gst.gst_init(None, None)
    gst.gst_registry_scan_path(gst.gst_registry_get(), plugin_dir.encode())
    pipeline = gst.gst_parse_launch(
        b"videotestsrc num-buffers=8 ! video/x-raw,format=RGB,width=224,height=224"
        b" ! cudaframeupload"
        b' ! cudanormalize mean="<0.485,0.456,0.406>" std="<0.229,0.224,0.225>"'
        b" ! cudatensorize batch-size=4 layout=nchw dtype=float32"
        b" ! cudatensorsink name=sink location=" + npy_dir.encode() + b"/tensor-%05d.npy",
        None,
    )
    if not pipeline:
        sys.exit("could not build the pipeline (is the plugin in %s?)" % plugin_dir)
    sink = gst.gst_bin_get_by_name(pipeline, b"sink")
    gst.gst_element_set_state(pipeline, GST_STATE_PLAYING)

    stream = torch.cuda.current_stream()
    count = 0
    while True:
        sample = prep.gst_cuda_prep_tensor_sink_pull_tensor(sink)
        if not sample:  # EOS (or an error: run with GST_DEBUG=2 to see it)
            break
        managed = prep.gst_cuda_prep_tensor_sink_sample_to_dlpack(sample, vp(stream.cuda_stream))
        gst.gst_mini_object_unref(sample)  # the DLPack tensor keeps the buffer
        if not managed:
            sys.exit("DLPack export failed")
        exported_pointer = ctypes.c_void_p.from_address(managed).value  # dl_tensor.data
        tensor = torch.utils.dlpack.from_dlpack(capsule_new(managed, b"dltensor", None))
        means = tensor.mean(dim=(0, 2, 3))  # runs on `stream`, after the tensor is ready
        from_file = torch.from_numpy(numpy.load(f"{npy_dir}/tensor-{count:05d}.npy"))
        zero_copy = tensor.data_ptr() == exported_pointer
        equal = torch.equal(tensor.cpu(), from_file)
        print(f"tensor {count}: {tuple(tensor.shape)} {tensor.dtype} on {tensor.device}, "
              f"zero-copy {zero_copy}, equals its .npy {equal}, channel means {means.tolist()}")
        if not (zero_copy and equal):
            sys.exit("the DLPack tensor differs from what the pipeline produced")
        del tensor  # the deleter runs: the buffer goes back to the pipeline
        count += 1

    gst.gst_element_set_state(pipeline, GST_STATE_NULL)
    gst.gst_object_unref(sink)
    gst.gst_object_unref(pipeline)
    print(f"{count} tensors")


if __name__ == "__main__":
    main()
