"""tools/parity_report.py's pipeline: frames through the real elements, by
the cudaprep Python module; its tensors downloaded as CHW float64."""
import os
import sys

import numpy as np

# --- the pipeline -----------------------------------------------------------------


def _import_cudaprep():
    try:
        import cudaprep
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR",
                                          os.path.join(here, "..", "python")))
        import cudaprep
    return cudaprep


def launch_description(pipeline, raw_path, width, height):
    return (f"filesrc location={raw_path} ! rawvideoparse format=rgb width={width} "
            f"height={height} framerate=30/1 ! cudaframeupload ! {pipeline} ! "
            "cudatensorsink name=parity_sink consumer=application sync=false")


class PipelineError(Exception):
    pass


def clip_frames(tensor, array, clip):
    """The CHW frames of one downloaded tensor: a 4-D NCHW batch of 1 (one
    frame), or a 5-D clip of the chain's `clip` = (shape, layout), layout
    "ntchw" or "ncthw" (the chain's, which the 5-D shape must equal)."""
    shape = tuple(tensor.shape)
    if clip is None and len(shape) == 4 and shape[0] == 1 and tensor.layout == "NCHW":
        return [array[0]]
    if clip is not None and shape == tuple(clip[0]):
        return list(array[0] if clip[1] == "ntchw" else array[0].transpose(1, 0, 2, 3))
    raise PipelineError("the pipeline's tensor is %s %s; the report needs NCHW with batch size 1 "
                        "or the chain's clip %s" % (tensor.layout, shape,
                                                    None if clip is None else clip[0]))


def run_pipeline(frames, pipeline, workdir, clip=None):
    """The frames through the real elements; the tensors, downloaded, as
    CHW float64 arrays, one per frame (a clip's frames in order). `clip`:
    the chain's 5-D (shape, layout) where it makes clips. PipelineError
    when it fails."""
    cudaprep = _import_cudaprep()
    height, width = frames[0].shape[:2]
    raw = os.path.join(workdir, "frames.rgb")
    with open(raw, "wb") as f:
        for frame in frames:
            f.write(np.ascontiguousarray(frame).tobytes())
    description = launch_description(pipeline, raw, width, height)
    tensors = []
    try:
        with cudaprep.Pipeline(description) as running:
            for tensor in running.sink("parity_sink"):
                with tensor:
                    array = np.from_dlpack(tensor.download()).astype(np.float64)
                    tensors.extend(clip_frames(tensor, array, clip))
    except (RuntimeError, ValueError) as error:
        raise PipelineError("%s\n    %s" % (error, description))
    if len(tensors) != len(frames):
        raise PipelineError("the pipeline gave %d tensors for %d frames" % (len(tensors),
                                                                          len(frames)))
    return tensors
