// timm: a model's pretrained_cfg (the "pretrained_cfg" of its config.json on
// the Hub, or the bare dict) through timm.data.create_transform's eval
// transform (transforms_imagenet_eval), which runs torchvision's transforms
// on PIL images: PIL's antialiased resize, 8-bit result.
#include <cmath>

#include "modelconfig-private.h"

namespace cudaprep::modelconfig {
namespace {

bool parse_cfg(JsonKeys &keys, Recipe *recipe, std::string *error) {
  // What describes the model or its training, not the eval transform.
  keys.accept({"tag",
               "custom_load",
               "test_input_size",
               "fixed_input_size",
               "test_crop_pct",
               "num_classes",
               "pool_size",
               "first_conv",
               "classifier",
               "origin_url",
               "paper_ids",
               "hf_hub_id",
               "hf_hub_filename",
               "url",
               "file",
               "license",
               "description",
               "notes",
               "source",
               "architecture",
               "min_input_size",
               "label_names",
               "label_descriptions",
               "paper_name"});
  JsonNode *input_size = keys.take("input_size");
  JsonArray *dims = input_size != nullptr && JSON_NODE_HOLDS_ARRAY(input_size)
                        ? json_node_get_array(input_size)
                        : nullptr;
  if (dims == nullptr || json_array_get_length(dims) != 3 ||
      json_array_get_int_element(dims, 0) != 3) {
    return fail(error, "key " + keys.name("input_size") + " must be [3, height, width]");
  }
  const int height = static_cast<int>(json_array_get_int_element(dims, 1));
  const int width = static_cast<int>(json_array_get_int_element(dims, 2));
  if (height <= 0 || width <= 0)
    return fail(error, "key " + keys.name("input_size") + " must have positive sides");

  std::string interpolation = "bilinear";
  double crop_pct = 0.875;  // timm's DEFAULT_CROP_PCT
  std::string crop_mode = "center";
  if (!keys.get_string("interpolation", &interpolation, error) ||
      !keys.get_double("crop_pct", &crop_pct, error) ||
      !keys.get_string("crop_mode", &crop_mode, error) ||
      !keys.get_triple("mean", &recipe->mean, error) ||
      !keys.get_triple("std", &recipe->std, error))
    return false;
  if (!torchvision_method(interpolation, &recipe->method)) {
    return fail(error, "key " + keys.name("interpolation") + ": \"" + interpolation +
                           "\" has no cudaresize method (bilinear and bicubic do)");
  }
  if (!(crop_pct > 0.0 && crop_pct <= 1.0))
    return fail(error, "key " + keys.name("crop_pct") + " must be in (0, 1]");
  recipe->antialias = true;
  recipe->uint8_intermediate = true;
  recipe->scale = 1.0 / 255.0;

  // scale_size = floor(img_size / crop_pct), per side.
  const int scale_height = static_cast<int>(std::floor(height / crop_pct));
  const int scale_width = static_cast<int>(std::floor(width / crop_pct));
  if (crop_mode == "squash") {
    recipe->size_rule = SizeRule::kFixed;
    recipe->width = scale_width;
    recipe->height = scale_height;
  } else if (crop_mode == "center") {
    if (scale_width != scale_height) {
      return fail(error, "key " + keys.name("input_size") +
                             ": a non-square input with crop_mode center resizes with "
                             "ResizeKeepRatio, which cudaprep does not reproduce");
    }
    recipe->size_rule = SizeRule::kShortSide;
    recipe->short_side = scale_height;
  } else if (crop_mode == "border") {
    return fail(error, "key " + keys.name("crop_mode") +
                           ": \"border\" (ResizeKeepRatio + CenterCropOrPad) is not reproduced");
  } else {
    return fail(error, "key " + keys.name("crop_mode") + ": \"" + crop_mode +
                           "\" is none of center, squash, border");
  }
  if (scale_width != width || scale_height != height) {
    recipe->crop_rule = CropRule::kRoundEven;  // torchvision's CenterCrop
    recipe->crop_width = width;
    recipe->crop_height = height;
  }
  return keys.check_all_read("a timm pretrained_cfg", error);
}

}  // namespace

bool parse_timm(JsonObject *root, Recipe *recipe, std::string *error) {
  recipe->format = "timm";
  JsonKeys keys(root, "");
  if (!keys.has("pretrained_cfg")) {
    recipe->model = "a timm data config";
    return parse_cfg(keys, recipe, error);
  }
  // A config.json from the Hub: the model's keys around the pretrained_cfg.
  keys.accept({"architecture", "num_classes", "num_features", "global_pool", "model_args",
               "label_names", "label_descriptions"});
  std::string architecture;
  if (!keys.get_string("architecture", &architecture, error)) return false;
  JsonNode *cfg = keys.take("pretrained_cfg");
  if (cfg == nullptr || !JSON_NODE_HOLDS_OBJECT(cfg))
    return fail(error, "key 'pretrained_cfg' must be an object");
  JsonKeys cfg_keys(json_node_get_object(cfg), "pretrained_cfg.");
  std::string tag;
  if (!cfg_keys.get_string("tag", &tag, error)) return false;
  recipe->model = architecture + (tag.empty() ? "" : "." + tag);
  return parse_cfg(cfg_keys, recipe, error) && keys.check_all_read("a timm config.json", error);
}

}  // namespace cudaprep::modelconfig
