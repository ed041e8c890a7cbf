#!/usr/bin/env python3
"""cudaprep.preprocessing_for (no GPU): the chain and tensor shape of the
model configs in tests/data/models, asked of the cudapreprocess element;
where the owning library is installed (transformers, torchvision), its own
output shape for the same frame. Run by `meson test`."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..")))

import cudaprep  # noqa: E402

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                      "models")


def model(name):
    return os.path.join(MODELS, name)


class PreprocessingFor(unittest.TestCase):
    def test_a_fixed_size_config_needs_no_frame_size(self):
        # ViT: 224x224 stretched with PIL BILINEAR, mean/std 0.5.
        result = cudaprep.preprocessing_for(model("google-vit-base-patch16-224.json"))
        self.assertEqual(result.shape, (1, 3, 224, 224))
        self.assertTrue(result.fragment.startswith(
            "cudaresize method=bilinear antialias=true antialias-intermediate=uint8 ! "
            "video/x-raw(memory:CUDAPitched),format=RGB,width=224,height=224 ! cudanormalize"),
            result.fragment)

    def test_a_shortest_edge_config_follows_the_frame(self):
        # CLIP: shortest edge 224 of 1920x1080 -> int(224 * 1920 / 1080) = 398
        # wide, crop 224 at ((398 - 224) // 2, 0) = (87, 0).
        result = cudaprep.preprocessing_for(model("openai-clip-vit-base-patch32.json"),
                                            frame_size=(1920, 1080))
        self.assertEqual(result.shape, (1, 3, 224, 224))
        self.assertIn("width=398,height=224 ! cudacrop x=87 y=0 width=224 height=224",
                      result.fragment)

    def test_without_the_frame_size_it_says_so(self):
        with self.assertRaisesRegex(ValueError, "give the frame size"):
            cudaprep.preprocessing_for(model("openai-clip-vit-base-patch32.json"))

    def test_a_key_it_cannot_honour_is_named(self):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cudaprep-lanczos.json")
        with open(path, "w") as f:
            json.dump({"image_processor_type": "ViTImageProcessor", "size": 224, "resample": 1,
                       "image_mean": [0.5] * 3, "image_std": [0.5] * 3}, f)
        try:
            with self.assertRaisesRegex(ValueError, r"key 'resample': 1 \(PIL LANCZOS\)"):
                cudaprep.preprocessing_for(path)
        finally:
            os.unlink(path)


# The owning libraries' own answers, where installed.
HF_FIXTURES = ["google-vit-base-patch16-224.json", "facebook-deit-base-distilled-patch16-224.json",
               "microsoft-beit-base-patch16-224.json", "facebook-convnext-tiny-224.json",
               "microsoft-resnet-50.json", "facebook-dinov2-base.json",
               "openai-clip-vit-base-patch32.json", "google-siglip-base-patch16-224.json",
               "LiheYoung-depth-anything-small-hf.json", "facebook-detr-resnet-50.json"]
FRAMES = [(1920, 1080), (3840, 2160), (1080, 1920), (641, 479)]

try:
    import numpy
    import transformers
except ImportError as error:
    transformers = None
    transformers_missing = "transformers (or numpy) is not installed: %s" % error

try:
    import torch
    import torchvision
except ImportError as error:
    torchvision = None
    torchvision_missing = "torchvision is not installed: %s" % error


class OwningLibraries(unittest.TestCase):
    @unittest.skipIf(transformers is None, transformers_missing if transformers is None else "")
    def test_transformers_gives_the_same_shapes(self):
        for name in HF_FIXTURES:
            with open(model(name)) as f:
                config = json.load(f)
            kind = config.get("image_processor_type") or config["feature_extractor_type"]
            kind = kind.replace("FeatureExtractor", "ImageProcessor")
            processor = getattr(transformers, kind).from_dict(config)
            for width, height in FRAMES:
                with self.subTest(model=name, frame=(width, height)):
                    frame = numpy.zeros((height, width, 3), numpy.uint8)
                    expected = processor(frame, return_tensors="np")["pixel_values"].shape
                    ours = cudaprep.preprocessing_for(model(name), frame_size=(width, height))
                    self.assertEqual(ours.shape, tuple(expected))

    @unittest.skipIf(torchvision is None, torchvision_missing if torchvision is None else "")
    def test_torchvision_gives_the_same_shape(self):
        transforms = torchvision.models.ResNet50_Weights.IMAGENET1K_V2.transforms()
        for width, height in FRAMES:
            with self.subTest(frame=(width, height)):
                frame = torch.zeros((3, height, width), dtype=torch.uint8)
                expected = (1,) + tuple(transforms(frame).shape)
                ours = cudaprep.preprocessing_for(model("torchvision-resnet50-imagenet1k-v2.json"),
                                                  frame_size=(width, height))
                self.assertEqual(ours.shape, expected)


if __name__ == "__main__":
    unittest.main(verbosity=2)
