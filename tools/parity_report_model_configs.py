"""tools/parity_report.py --model-config: each model config's chain
against the library that owns the config, on the same frames."""
import os
import tempfile

import numpy as np

from parity_report_comparison import print_overall, steps, summary
from parity_report_pipeline import PipelineError, _import_cudaprep, run_pipeline
from parity_report_references import ref_ultralytics

# --- model configs (--model-config): the owning library's own output ---------------


def transformers_processor(config):
    """transformers' processor for a Hugging Face config: the PIL backend of
    an image processor (transformers 5 names it <Name>ImageProcessorPil,
    where the bare name resizes with torchvision when that is installed), or
    the video processor (torchvision only, on the CPU)."""
    import transformers
    kind = config.get("image_processor_type") or config.get("feature_extractor_type")
    if kind:
        kind = kind.replace("FeatureExtractor", "ImageProcessor")
        cls = getattr(transformers, kind + "Pil", None) or getattr(transformers, kind)
    else:
        cls = getattr(transformers, config["video_processor_type"])
    return cls.from_dict(config)


def config_reference(path, frame):
    """The owning library's tensor (CHW float64) for the model config at
    `path` on `frame` (HxWx3 uint8 RGB), or None with why when there is no
    library to run (a .modelinfo). ImportError when the library is missing."""
    import json
    if path.endswith(".modelinfo"):
        return None, "a .modelinfo has no owning library (GStreamer's inference elements scale it)"
    with open(path) as f:
        config = json.load(f)
    if config.get("image_processor_type") or config.get("feature_extractor_type"):
        processor = transformers_processor(config)
        return processor(frame, return_tensors="np")["pixel_values"][0].astype(np.float64), None
    fmt = config.get("format")
    if fmt == "torchvision":
        import torch
        import torchvision
        enum_name, member = config["weights"].split(".")
        transforms = getattr(getattr(torchvision.models, enum_name), member).transforms()
        image = torch.from_numpy(np.ascontiguousarray(frame)).permute(2, 0, 1)
        if config.get("input", "uint8") == "pil":
            from PIL import Image
            image = Image.fromarray(frame)
        elif config.get("input") == "float":
            image = image.float() / 255.0
        return transforms(image).double().numpy(), None
    if fmt == "ultralytics-letterbox":
        if config.get("imgsz", 640) != 640:
            return None, "the letterbox reference here is LetterBox(640)"
        return ref_ultralytics(frame, config.get("pad_value", 114)), None
    import timm.data
    from PIL import Image
    cfg = config.get("pretrained_cfg", config)
    transform = timm.data.create_transform(**timm.data.resolve_data_config(pretrained_cfg=cfg))
    return transform(Image.fromarray(frame)).double().numpy(), None


def clip_reference(path, clip):
    """transformers' pixel_values for a video config at `path` on `clip`
    (T frames, HxWx3 uint8 RGB) given as one video: pixel_values[0, t] (CHW
    float64) for each frame t. ImportError when transformers is missing."""
    import json
    with open(path) as f:
        config = json.load(f)
    processor = transformers_processor(config)
    video = np.stack(clip) if config.get("video_processor_type") else list(clip)
    values = processor([video], return_tensors="np")["pixel_values"]
    values = np.asarray(values, dtype=np.float64)
    if values.shape[:2] != (1, len(clip)):
        raise ValueError("transformers' pixel_values is %s for one video of %d frames" %
                         (values.shape, len(clip)))
    return list(values[0])


def clip_of(frames, length):
    """`length` frames for one clip from `frames`: frame t is frames[t % n]
    shifted right by 17 t pixels (wrapping), so each frame differs."""
    return [np.roll(frames[t % len(frames)], 17 * t, axis=1) for t in range(length)]


def clip_of_chain(shape, fragment):
    """(T, layout) of a chain whose tensor is a 5-D clip, ntchw or ncthw;
    (0, None) for an image tensor."""
    if len(shape) != 5:
        return 0, None
    return (shape[2], "ncthw") if "layout=ncthw" in fragment else (shape[1], "ntchw")


def normalisation_of(fragment):
    """(scale, std) of the chain's cudanormalize, from its launch fragment."""
    import re
    scale = float(re.search(r"cudanormalize .*?scale=([^ ]+)", fragment).group(1))
    std = [float(v) for v in re.search(r'std="<([^>]+)>"', fragment).group(1).split(",")]
    return scale, std


def run_model_configs(args, frame_sets):
    cudaprep = _import_cudaprep()
    rows, failed = [], False
    for frames in frame_sets:
        height, width = frames[0].shape[:2]
        for path in args.model_config:
            name = os.path.basename(path)
            if name == "preprocessor_config.json":  # a model folder (video models)
                name = os.path.join(os.path.basename(os.path.dirname(path)), name)
            print(f"\n{name}, {len(frames)} frames {width}x{height}")
            pipeline = (f"cudapreprocess model-config={path} frame-width={width} "
                        f"frame-height={height}")
            try:
                chain = cudaprep.preprocessing_for(path, frame_size=(width, height))
            except ValueError as error:
                print(f"  FAILED: {error}")
                failed = True
                rows.append((name, f"{width}x{height}", None))
                continue
            print(f"  chain: {chain.fragment}")
            clip_length, clip_layout = clip_of_chain(chain.shape, chain.fragment)
            inputs = clip_of(frames, clip_length) if clip_length else frames
            clip = (chain.shape, clip_layout) if clip_length else None
            if clip:
                print(f"  clip: {clip_length} frames, {clip_layout} {chain.shape}")
            try:
                if clip_length:
                    references = [(ref, None) for ref in clip_reference(path, inputs)]
                else:
                    references = [config_reference(path, frame) for frame in frames]
            except ImportError as error:
                print(f"  SKIPPED: the owning library is not installed ({error})")
                rows.append((name, f"{width}x{height}", "skipped"))
                continue
            if references[0][0] is None:
                print(f"  SKIPPED: {references[0][1]}")
                rows.append((name, f"{width}x{height}", "skipped"))
                continue
            scale, std = normalisation_of(chain.fragment)
            try:
                with tempfile.TemporaryDirectory() as workdir:
                    tensors = run_pipeline(inputs, pipeline, workdir, clip)
                per_frame = [steps(t, ref, np.asarray(std) / (scale * 255.0))
                             for t, (ref, _) in zip(tensors, references)]
            except (PipelineError, ValueError) as error:
                print(f"  FAILED: {error}")
                failed = True
                rows.append((name, f"{width}x{height}", None))
                continue
            dmax, dmean, dp99 = summary(np.concatenate([d.ravel() for d in per_frame]))
            failed |= print_overall(dmax, dmean, dp99, args.max_target, args.mean_target)
            rows.append((name, f"{width}x{height}", (dmax, dmean, dp99)))
    print("\n| model config | frames | max | mean | p99 |")
    print("|---|---|---:|---:|---:|")
    for name, size, figures in rows:
        cells = ("failed | | |" if figures is None else "skipped | | |" if figures == "skipped"
                 else "%.4f | %.4f | %.4f |" % figures)
        print(f"| {name} | {len(frame_sets[0])}x {size} | {cells}")
    return 1 if failed else 0
