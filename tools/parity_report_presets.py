"""tools/parity_report.py's presets: each named reference with the
pipeline that matches it, and the settings the command line changes."""
from parity_report_references import (IMAGENET_STD, ref_depth_anything, ref_opencv, ref_pil,
                                      ref_torchvision, ref_ultralytics, torchvision_resize_size,
                                      torchvision_uint8_intermediate)

IMAGENET = 'mean="<0.485,0.456,0.406>" std="<0.229,0.224,0.225>"'
UNIT_STD = (1.0, 1.0, 1.0)

# --- presets ---------------------------------------------------------------------


class Reference:
    """A named reference: what it computes, the pipeline that matches it
    (settings: method, antialias, antialias_intermediate, float_intermediate;
    antialias_intermediate may be a function of the settings), the std that
    turns its values into 8-bit steps, and the uncropped size it resizes to
    (None when the tensor is the whole output)."""

    def __init__(self, name, compute, method, antialias, float_intermediate, pipeline, std,
                 resize_size=None, antialias_intermediate="float"):
        self.name = name
        self.compute = compute
        self.defaults = {"method": method, "antialias": antialias,
                         "antialias_intermediate": antialias_intermediate,
                         "float_intermediate": float_intermediate}
        self.pipeline = pipeline
        self.std = std
        self.resize_size = resize_size


def _bool(value):
    return "true" if value else "false"


def _antialias_column(s):
    """The summary table's antialias: false, or true with its intermediate."""
    return f"true, {s['antialias_intermediate']}" if s["antialias"] else "false"


def _resampling(s):
    """cudaresize's method, antialias and float-intermediate properties; the
    antialias intermediate where it applies (antialiased, not the default)."""
    intermediate = ""
    if s["antialias"] and s["antialias_intermediate"] != "float":
        intermediate = f"antialias-intermediate={s['antialias_intermediate']} "
    return (f"method={s['method']} antialias={_bool(s['antialias'])} {intermediate}"
            f"float-intermediate={_bool(s['float_intermediate'])}")


def _classifier_pipeline(s):
    return (f"cudaresize short-side=256 {_resampling(s)} ! cudanormalize {IMAGENET} ! "
            f"cudatensorize fuse={_bool(s['fuse'])}")


def _depth_pipeline(s):
    return (f"cudaresize short-side=518 multiple-of=14 {_resampling(s)} ! "
            f"cudanormalize {IMAGENET} ! cudatensorize fuse={_bool(s['fuse'])}")


def _letterbox_pipeline(s):
    return (f"cudaresize {_resampling(s)} add-borders=true "
            'pad-value="<114,114,114>" ! video/x-raw(memory:CUDAPitched),width=640,height=640 ! '
            f"cudanormalize ! cudatensorize fuse={_bool(s['fuse'])}")


def _opencv_pipeline(s):
    width, height = s["out"]
    return (f"cudaresize {_resampling(s)} ! "
            f"video/x-raw(memory:CUDAPitched),width={width},height={height} ! "
            f"cudanormalize {IMAGENET} ! cudatensorize fuse={_bool(s['fuse'])}")


def _references():
    refs = []
    for mode in ("bilinear", "bicubic"):
        for float_input in (False, True):
            name = "torchvision-%s%s" % ("float-" if float_input else "", mode)
            refs.append(Reference(
                name,
                lambda f, o, m=mode, fi=float_input: ref_torchvision(
                    f, m, fi, o["reference_device"], o["reference_backend"]),
                mode, True, float_input, _classifier_pipeline, IMAGENET_STD,
                torchvision_resize_size,
                "float" if float_input else
                lambda o, m=mode: torchvision_uint8_intermediate(m, o["reference_device"],
                                                                 o["reference_backend"])))
        refs.append(Reference("pil-" + mode, lambda f, o, m=mode: ref_pil(f, m), mode, True, False,
                              _classifier_pipeline, IMAGENET_STD, torchvision_resize_size,
                              "uint8"))
    refs.append(Reference("depth-anything", lambda f, o: ref_depth_anything(f), "bicubic", False,
                          True, _depth_pipeline, IMAGENET_STD))
    refs.append(Reference("ultralytics-letterbox", lambda f, o: ref_ultralytics(f), "bilinear",
                          False, False, _letterbox_pipeline, UNIT_STD))
    refs.append(Reference("opencv", lambda f, o: ref_opencv(f, o["method"], o["out"]), "bilinear",
                          False, False, _opencv_pipeline, IMAGENET_STD))
    return {ref.name: ref for ref in refs}


REFERENCES = _references()


def settings_for(reference, args):
    """The preset's settings with the user's overrides."""
    settings = dict(reference.defaults)
    settings["fuse"] = args.fuse != "off"
    settings["out"] = args.out
    settings["reference_device"] = args.reference_device
    settings["reference_backend"] = args.reference_backend
    if args.method:
        settings["method"] = args.method
    if args.antialias:
        settings["antialias"] = args.antialias == "on"
    if args.antialias_intermediate:
        settings["antialias_intermediate"] = args.antialias_intermediate
    elif callable(settings["antialias_intermediate"]):
        settings["antialias_intermediate"] = settings["antialias_intermediate"](settings)
    if args.float_intermediate:
        settings["float_intermediate"] = args.float_intermediate == "on"
    return settings


def pipeline_for(reference, args):
    if args.pipeline:
        return args.pipeline
    return reference.pipeline(settings_for(reference, args))
