#include "modelconfig.h"

#include <glib.h>

#include <cmath>
#include <cstdlib>

#include "modelconfig-private.h"

namespace cudaprep::modelconfig {
namespace {

// Python's round(): ties to even (the default rounding mode's nearbyint).
int round_half_even(double value) {
  return static_cast<int>(std::nearbyint(value));
}

// The shortest decimal that reads back as the same double ("0.485", not
// "0.48499999999999999"), so the fragment is the config's own numbers.
std::string number(double value) {
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  for (int digits = 1; digits <= 17; ++digits) {
    g_ascii_formatd(text, sizeof text, ("%." + std::to_string(digits) + "g").c_str(), value);
    if (g_ascii_strtod(text, nullptr) == value) break;
  }
  return text;
}

std::string triple(const std::array<double, 3> &values) {
  return "\"<" + number(values[0]) + "," + number(values[1]) + "," + number(values[2]) + ">\"";
}

struct Size {
  int width = 0, height = 0;
};

// torchvision's _compute_resized_output_size and Hugging Face's
// get_resize_output_image_size(default_to_square=False): the long side is
// int(requested * long / short), truncated.
Size short_side_size(int width, int height, int requested) {
  const bool wide = width >= height;
  const int short_side = wide ? height : width;
  const int long_side = wide ? width : height;
  const int new_long = static_cast<int>(
      static_cast<double>(static_cast<int64_t>(requested) * long_side) / short_side);
  return wide ? Size{new_long, requested} : Size{requested, new_long};
}

// DPTImageProcessor's get_resize_output_image_size: the scale closest to 1
// of the two when the aspect ratio is kept, each side rounded (half to even)
// to a multiple.
Size dpt_size(int width, int height, const Recipe &recipe) {
  double scale_height = static_cast<double>(recipe.height) / height;
  double scale_width = static_cast<double>(recipe.width) / width;
  if (recipe.keep_aspect_ratio) {
    if (std::abs(1.0 - scale_width) < std::abs(1.0 - scale_height))
      scale_height = scale_width;
    else
      scale_width = scale_height;
  }
  const auto constrain = [&](double value) {
    return round_half_even(value / recipe.multiple_of) * recipe.multiple_of;
  };
  return {constrain(scale_width * width), constrain(scale_height * height)};
}

// DetrImageProcessor's get_size_with_aspect_ratio(size, max_size).
Size detr_size(int width, int height, int size, int max_size) {
  const double min_original = std::min(width, height);
  const double max_original = std::max(width, height);
  double raw_size = 0.0;
  bool limited = false;
  if (max_original / min_original * size > max_size) {
    raw_size = max_size * min_original / max_original;
    size = round_half_even(raw_size);
    limited = true;
  }
  if ((height <= width && height == size) || (width <= height && width == size))
    return {width, height};
  if (width < height) {
    const double other =
        limited ? raw_size * height / width : static_cast<double>(size) * height / width;
    return {size, static_cast<int>(other)};
  }
  const double other =
      limited ? raw_size * width / height : static_cast<double>(size) * width / height;
  return {static_cast<int>(other), size};
}

int crop_offset(CropRule rule, int size, int crop) {
  if (rule == CropRule::kFloor) return (size - crop) / 2;
  return round_half_even((size - crop) / 2.0);
}

std::string caps(int width, int height) {
  return "video/x-raw(memory:CUDAPitched),format=RGB,width=" + std::to_string(width) +
         ",height=" + std::to_string(height);
}

bool read_file(const std::string &path, std::string *text, std::string *error) {
  gchar *contents = nullptr;
  gsize length = 0;
  GError *gerror = nullptr;
  if (!g_file_get_contents(path.c_str(), &contents, &length, &gerror)) {
    const std::string reason = gerror->message;
    g_error_free(gerror);
    return fail(error, reason);
  }
  text->assign(contents, length);
  g_free(contents);
  return true;
}

}  // namespace

bool JsonKeys::has(const char *key) const {
  return json_object_has_member(object_, key);
}

bool JsonKeys::present(const char *key) const {
  return has(key) && !JSON_NODE_HOLDS_NULL(json_object_get_member(object_, key));
}

JsonNode *JsonKeys::take(const char *key) {
  if (!has(key)) return nullptr;
  read_.insert(key);
  JsonNode *node = json_object_get_member(object_, key);
  return JSON_NODE_HOLDS_NULL(node) ? nullptr : node;
}

void JsonKeys::accept(std::initializer_list<const char *> keys) {
  for (const char *key : keys) read_.insert(key);
}

bool JsonKeys::get_bool(const char *key, bool *value, std::string *error) {
  JsonNode *node = take(key);
  if (node == nullptr) return true;
  if (json_node_get_value_type(node) != G_TYPE_BOOLEAN)
    return fail(error, "key " + name(key) + " must be true or false");
  *value = json_node_get_boolean(node);
  return true;
}

bool JsonKeys::get_int(const char *key, int *value, std::string *error) {
  JsonNode *node = take(key);
  if (node == nullptr) return true;
  if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_INT64)
    return fail(error, "key " + name(key) + " must be an integer");
  const gint64 number_value = json_node_get_int(node);
  if (number_value < G_MININT || number_value > G_MAXINT)
    return fail(error, "key " + name(key) + " is out of range");
  *value = static_cast<int>(number_value);
  return true;
}

bool JsonKeys::get_double(const char *key, double *value, std::string *error) {
  JsonNode *node = take(key);
  if (node == nullptr) return true;
  const GType type = JSON_NODE_HOLDS_VALUE(node) ? json_node_get_value_type(node) : G_TYPE_NONE;
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return fail(error, "key " + name(key) + " must be a number");
  *value = json_node_get_double(node);
  return true;
}

bool JsonKeys::get_string(const char *key, std::string *value, std::string *error) {
  JsonNode *node = take(key);
  if (node == nullptr) return true;
  if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
    return fail(error, "key " + name(key) + " must be a string");
  *value = json_node_get_string(node);
  return true;
}

bool JsonKeys::get_triple(const char *key, std::array<double, 3> *value, std::string *error) {
  JsonNode *node = take(key);
  if (node == nullptr) return true;
  JsonArray *array = JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : nullptr;
  if (array == nullptr || json_array_get_length(array) != 3)
    return fail(error, "key " + name(key) + " must be a list of three numbers (R, G, B)");
  for (guint i = 0; i < 3; ++i) {
    JsonNode *element = json_array_get_element(array, i);
    const GType type =
        JSON_NODE_HOLDS_VALUE(element) ? json_node_get_value_type(element) : G_TYPE_NONE;
    if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
      return fail(error, "key " + name(key) + " must be a list of three numbers (R, G, B)");
    (*value)[i] = json_node_get_double(element);
  }
  return true;
}

bool JsonKeys::check_all_read(const std::string &format, std::string *error) const {
  GList *members = json_object_get_members(object_);
  std::string unknown;
  for (GList *member = members; member != nullptr; member = member->next) {
    const auto *key = static_cast<const char *>(member->data);
    if (read_.count(key) == 0) {
      unknown = key;
      break;
    }
  }
  g_list_free(members);
  if (unknown.empty()) return true;
  return fail(error, "unknown key " + name(unknown.c_str()) + " for " + format +
                         ": cudaprep cannot tell whether it changes the image, so it refuses it");
}

bool torchvision_method(const std::string &interpolation, std::string *method) {
  if (interpolation != "bilinear" && interpolation != "bicubic") return false;
  *method = interpolation;
  return true;
}

bool parse_recipe(const std::string &text, const std::string &name, Recipe *recipe,
                  std::string *error) {
  *recipe = Recipe();
  if (g_str_has_suffix(name.c_str(), ".modelinfo")) return parse_modelinfo(text, recipe, error);

  JsonParser *parser = json_parser_new();
  GError *gerror = nullptr;
  if (!json_parser_load_from_data(parser, text.c_str(), static_cast<gssize>(text.size()),
                                  &gerror)) {
    const std::string reason = std::string("not JSON (") + gerror->message + ")";
    g_error_free(gerror);
    g_object_unref(parser);
    return fail(error, reason);
  }
  JsonNode *root = json_parser_get_root(parser);
  bool ok = false;
  if (root == nullptr || !JSON_NODE_HOLDS_OBJECT(root)) {
    ok = fail(error, "the file must hold one JSON object");
  } else {
    JsonObject *object = json_node_get_object(root);
    if (json_object_has_member(object, "format")) {
      const char *format = json_object_get_string_member_with_default(object, "format", "");
      if (g_str_equal(format, "torchvision"))
        ok = parse_torchvision(object, recipe, error);
      else if (g_str_equal(format, "ultralytics-letterbox"))
        ok = parse_ultralytics(object, recipe, error);
      else if (json_object_has_member(object, "image_processor_type") ||
               json_object_has_member(object, "feature_extractor_type") ||
               json_object_has_member(object, "video_processor_type"))
        ok = parse_huggingface(object, name, recipe, error);  // DETR's annotation "format"
      else
        ok = fail(error, std::string("key 'format': \"") + format +
                             "\" is none of torchvision, ultralytics-letterbox");
    } else if (json_object_has_member(object, "image_processor_type") ||
               json_object_has_member(object, "feature_extractor_type") ||
               json_object_has_member(object, "video_processor_type")) {
      ok = parse_huggingface(object, name, recipe, error);
    } else if (json_object_has_member(object, "pretrained_cfg") ||
               json_object_has_member(object, "input_size")) {
      ok = parse_timm(object, recipe, error);
    } else {
      ok = fail(error,
                "no key says which format this is: image_processor_type, "
                "feature_extractor_type or video_processor_type (Hugging Face), pretrained_cfg or "
                "input_size (timm), "
                "format (torchvision, ultralytics-letterbox), or a .modelinfo file name");
    }
  }
  g_object_unref(parser);
  return ok;
}

bool load_recipe(const std::string &path, Recipe *recipe, std::string *error) {
  std::string text;
  std::string reason;
  if (!read_file(path, &text, &reason) || !parse_recipe(text, path, recipe, &reason))
    return fail(error, path + ": " + reason);
  return true;
}

bool needs_frame_size(const Recipe &recipe) {
  return recipe.size_rule == SizeRule::kNone || recipe.size_rule == SizeRule::kShortSide ||
         recipe.size_rule == SizeRule::kDptFit || recipe.size_rule == SizeRule::kDetr;
}

bool build_chain(const Recipe &recipe, int frame_width, int frame_height, Chain *chain,
                 std::string *error) {
  if (needs_frame_size(recipe) && (frame_width <= 0 || frame_height <= 0)) {
    return fail(error, "the " + recipe.format + " config of " + recipe.model +
                           " sizes the tensor from the frame's size: give the frame size");
  }
  Size resized{frame_width, frame_height};
  switch (recipe.size_rule) {
    case SizeRule::kNone:
      break;
    case SizeRule::kFixed:
    case SizeRule::kLetterbox:
      resized = {recipe.width, recipe.height};
      break;
    case SizeRule::kShortSide:
      resized = short_side_size(frame_width, frame_height, recipe.short_side);
      break;
    case SizeRule::kDptFit:
      resized = dpt_size(frame_width, frame_height, recipe);
      break;
    case SizeRule::kDetr:
      resized = detr_size(frame_width, frame_height, recipe.short_side, recipe.long_side);
      break;
  }
  if (resized.width <= 0 || resized.height <= 0) {
    return fail(error, "the resized frame would be " + std::to_string(resized.width) + "x" +
                           std::to_string(resized.height));
  }

  Chain result;
  // Without a resize cudaresize still converts the frame to RGB, at its own
  // size (a copy, pixel for pixel).
  Chain::Element resize{"cudaresize", {}};
  if (recipe.size_rule != SizeRule::kNone) {
    resize.properties.emplace_back("method", recipe.method);
    if (recipe.antialias) {
      resize.properties.emplace_back("antialias", "true");
      resize.properties.emplace_back("antialias-intermediate",
                                     recipe.uint8_intermediate ? "uint8" : "float");
    }
    if (recipe.float_intermediate) resize.properties.emplace_back("float-intermediate", "true");
    if (recipe.round_half_up) resize.properties.emplace_back("rounding", "half-up");
    if (recipe.size_rule == SizeRule::kLetterbox) {
      resize.properties.emplace_back("add-borders", "true");
      const std::string level = std::to_string(recipe.pad_value);
      resize.properties.emplace_back("pad-value",
                                     "\"<" + level + "," + level + "," + level + ">\"");
      if (recipe.letterbox_top_left) resize.properties.emplace_back("letterbox-align", "top-left");
    }
  }
  result.elements.push_back(resize);
  result.elements.push_back({caps(resized.width, resized.height), {}});

  Size tensor = resized;
  if (recipe.crop_rule != CropRule::kNone) {
    if (recipe.crop_width > resized.width || recipe.crop_height > resized.height) {
      return fail(error, "the crop " + std::to_string(recipe.crop_width) + "x" +
                             std::to_string(recipe.crop_height) + " is larger than the resized " +
                             std::to_string(resized.width) + "x" + std::to_string(resized.height) +
                             " frame: the library pads it, cudacrop cannot");
    }
    if (recipe.crop_width != resized.width || recipe.crop_height != resized.height) {
      result.elements.push_back(
          {"cudacrop",
           {{"x", std::to_string(crop_offset(recipe.crop_rule, resized.width, recipe.crop_width))},
            {"y",
             std::to_string(crop_offset(recipe.crop_rule, resized.height, recipe.crop_height))},
            {"width", std::to_string(recipe.crop_width)},
            {"height", std::to_string(recipe.crop_height)}}});
    }
    tensor = {recipe.crop_width, recipe.crop_height};
  }

  result.elements.push_back({"cudanormalize",
                             {{"scale", number(recipe.scale)},
                              {"mean", triple(recipe.mean)},
                              {"std", triple(recipe.std)},
                              {"dtype", recipe.dtype}}});
  Chain::Element tensorize{"cudatensorize", {}};
  if (recipe.clip_length > 0)
    tensorize.properties.emplace_back("clip-length", std::to_string(recipe.clip_length));
  tensorize.properties.emplace_back("layout", recipe.layout);
  result.elements.push_back(tensorize);
  const int64_t frames = recipe.clip_length;
  if (recipe.layout == "nchw")
    result.shape = {1, 3, tensor.height, tensor.width};
  else if (recipe.layout == "nhwc")
    result.shape = {1, tensor.height, tensor.width, 3};
  else if (recipe.layout == "ntchw")
    result.shape = {1, frames, 3, tensor.height, tensor.width};
  else
    result.shape = {1, 3, frames, tensor.height, tensor.width};  // ncthw
  *chain = std::move(result);
  return true;
}

std::string Chain::launch() const {
  std::string text;
  for (const Element &element : elements) {
    if (!text.empty()) text += " ! ";
    text += element.factory;
    for (const auto &[property, value] : element.properties) text += " " + property + "=" + value;
  }
  return text;
}

std::string Chain::shape_string() const {
  std::string text;
  for (int64_t dim : shape) text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text;
}

}  // namespace cudaprep::modelconfig
