// torchvision weights' eval transform, in our JSON form (torchvision keeps
// it in code): {"format": "torchvision", "weights": ..., "transforms":
// "ImageClassification", "input": "uint8" | "pil" | "float", "resize_size",
// "crop_size", "interpolation", "antialias", "mean", "std"}.
// ImageClassification: resize (short side, truncated long side), CenterCrop
// (rounded half to even), to float /255, normalise.
#include "modelconfig-private.h"

namespace cudaprep::modelconfig {
bool parse_torchvision(JsonObject *root, Recipe *recipe, std::string *error) {
  JsonKeys keys(root, "");
  keys.accept({"format"});
  recipe->format = "torchvision";
  std::string weights, transforms, input = "uint8", interpolation = "bilinear";
  bool antialias = true;
  int resize_size = 0, crop_size = 0;
  // ImageClassification's defaults: ImageNet mean and std.
  recipe->mean = {0.485, 0.456, 0.406};
  recipe->std = {0.229, 0.224, 0.225};
  if (!keys.get_string("weights", &weights, error) ||
      !keys.get_string("transforms", &transforms, error) ||
      !keys.get_string("input", &input, error) ||
      !keys.get_int("resize_size", &resize_size, error) ||
      !keys.get_int("crop_size", &crop_size, error) ||
      !keys.get_string("interpolation", &interpolation, error) ||
      !keys.get_bool("antialias", &antialias, error) ||
      !keys.get_triple("mean", &recipe->mean, error) ||
      !keys.get_triple("std", &recipe->std, error))
    return false;
  recipe->model = weights.empty() ? "torchvision weights" : weights;
  if (transforms != "ImageClassification") {
    return fail(error,
                "key 'transforms': \"" + transforms + "\" is not covered (ImageClassification is)");
  }
  if (resize_size <= 0) return fail(error, "key 'resize_size' must be a positive integer");
  if (crop_size <= 0) return fail(error, "key 'crop_size' must be a positive integer");
  if (!torchvision_method(interpolation, &recipe->method)) {
    return fail(error, "key 'interpolation': \"" + interpolation +
                           "\" has no cudaresize method (bilinear and bicubic do)");
  }
  if (input == "pil") {
    // PIL resizes antialiased whatever the flag says.
    recipe->antialias = true;
    recipe->uint8_intermediate = true;
  } else if (input == "uint8") {
    // ImageClassification resizes through torchvision.transforms.functional
    // (v1), which casts a uint8 tensor to float, resizes it and rounds once
    // (only v2's resize keeps torch's uint8 kernels); without antialias
    // OpenCV's sampling.
    recipe->antialias = antialias;
    recipe->uint8_intermediate = false;
  } else if (input == "float") {
    // A float tensor (the frame / 255) is resized, cropped and normalised
    // without rounding: the crop folds into the fused kernel.
    recipe->antialias = antialias;
    recipe->uint8_intermediate = false;
    recipe->float_intermediate = true;
  } else {
    return fail(error, "key 'input': \"" + input + "\" is none of uint8, pil, float");
  }
  recipe->size_rule = SizeRule::kShortSide;
  recipe->short_side = resize_size;
  recipe->crop_rule = CropRule::kRoundEven;
  recipe->crop_width = recipe->crop_height = crop_size;
  recipe->scale = 1.0 / 255.0;
  return keys.check_all_read("the torchvision form", error);
}

}  // namespace cudaprep::modelconfig
