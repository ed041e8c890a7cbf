// The Ultralytics letterbox in our JSON form: {"format":
// "ultralytics-letterbox", "model", "imgsz", "stride", "pad_value", "auto",
// "scaleup", "center"} (LetterBox's arguments). cv2.resize INTER_LINEAR on
// the uint8 image, centred in imgsz with pad_value, BGR -> RGB, / 255.
#include "modelconfig-private.h"

namespace cudaprep::modelconfig {
bool parse_ultralytics(JsonObject *root, Recipe *recipe, std::string *error) {
  JsonKeys keys(root, "");
  keys.accept({"format"});
  recipe->format = "ultralytics-letterbox";
  std::string model;
  int stride = 32, pad_value = 114;
  bool automatic = false, scaleup = true, center = true;
  if (!keys.get_string("model", &model, error) || !keys.get_int("stride", &stride, error) ||
      !keys.get_int("pad_value", &pad_value, error) || !keys.get_bool("auto", &automatic, error) ||
      !keys.get_bool("scaleup", &scaleup, error) || !keys.get_bool("center", &center, error))
    return false;
  recipe->model = model.empty() ? "an Ultralytics model" : model;
  JsonNode *imgsz = keys.take("imgsz");
  if (imgsz != nullptr && JSON_NODE_HOLDS_VALUE(imgsz) &&
      json_node_get_value_type(imgsz) == G_TYPE_INT64) {
    recipe->width = recipe->height = static_cast<int>(json_node_get_int(imgsz));
  } else if (imgsz != nullptr && JSON_NODE_HOLDS_ARRAY(imgsz) &&
             json_array_get_length(json_node_get_array(imgsz)) == 2) {
    recipe->height = static_cast<int>(json_array_get_int_element(json_node_get_array(imgsz), 0));
    recipe->width = static_cast<int>(json_array_get_int_element(json_node_get_array(imgsz), 1));
  } else {
    return fail(error, "key 'imgsz' must be an integer or [height, width]");
  }
  if (recipe->width <= 0 || recipe->height <= 0) return fail(error, "key 'imgsz' must be positive");
  if (stride <= 0) return fail(error, "key 'stride' must be positive");
  if (recipe->width % stride != 0 || recipe->height % stride != 0) {
    return fail(error,
                "keys 'imgsz' and 'stride' contradict: imgsz must be a multiple of stride "
                "(Ultralytics would round it up)");
  }
  if (pad_value < 0 || pad_value > 255) return fail(error, "key 'pad_value' must be 0-255");
  if (automatic) {
    return fail(error,
                "key 'auto': true pads only to a multiple of stride, so the tensor's "
                "size follows each frame; cudaprep makes a fixed-size letterbox "
                "(auto=false, what exported models take)");
  }
  if (!scaleup) {
    return fail(error,
                "key 'scaleup': false never enlarges a small frame; cudaresize's "
                "letterbox scales up");
  }
  recipe->letterbox_top_left = !center;  // all padding right and bottom
  recipe->size_rule = SizeRule::kLetterbox;
  recipe->pad_value = pad_value;
  recipe->method = "bilinear";   // cv2.INTER_LINEAR, OpenCV's sampling
  recipe->round_half_up = true;  // its 8-bit fixed point rounds ties up
  recipe->scale = 1.0 / 255.0;
  return keys.check_all_read("the ultralytics-letterbox form", error);
}

}  // namespace cudaprep::modelconfig
