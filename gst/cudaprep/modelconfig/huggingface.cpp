// Hugging Face image processors (transformers' slow, PIL-based ones): the
// preprocessor_config.json keys, with each processor class's size rule.
// Their resize converts the uint8 image to PIL and back (PIL's antialiased
// filters, 8-bit between and after the passes), then center_crop, rescale
// and normalize run on that uint8 result.
// Video processors (VideoMAE) make each frame of a clip as the image
// processor makes an image; pixel_values is (batch, frames, C, H, W).
#include <glib.h>

#include <cstring>

#include "modelconfig-private.h"

namespace cudaprep::modelconfig {
namespace {

enum class SizeKind {
  kSquare,    // size is {height, width} (an integer: square)
  kShortest,  // size is {shortest_edge} (an integer too) or {height, width}
  kCropPct,   // ConvNeXt: {shortest_edge} with crop_pct
  kDpt,       // {height, width} with keep_aspect_ratio and ensure_multiple_of
  kDetr,      // {shortest_edge, longest_edge} (or size + legacy max_size)
};

struct Processor {
  const char *name;  // the class name without ImageProcessor / FeatureExtractor
  SizeKind size_kind;
  int default_resample;
  bool crops;  // has do_center_crop / crop_size
  bool default_center_crop;
  int default_crop = 0;  // the square crop_size when the file has none; 0: required
  bool video = false;    // frames of a clip: pixel_values (batch, frames, C, H, W)
};

// Defaults are those of each class's __init__ (transformers 4.4x).
constexpr Processor kProcessors[] = {
    {"ViT", SizeKind::kSquare, 2, false, false},
    {"DeiT", SizeKind::kSquare, 3, true, true},
    {"Beit", SizeKind::kSquare, 3, true, true},
    {"Siglip", SizeKind::kSquare, 3, false, false},
    {"Bit", SizeKind::kShortest, 3, true, true},
    {"CLIP", SizeKind::kShortest, 3, true, true},
    {"ConvNext", SizeKind::kCropPct, 2, false, false},
    {"DPT", SizeKind::kDpt, 3, false, false},
    {"Detr", SizeKind::kDetr, 2, false, false},
    // VideoMAEImageProcessor(Pil) and VideoMAEVideoProcessor: shortest_edge
    // 224 (an integer size too: default_to_square is false), crop 224x224.
    {"VideoMAE", SizeKind::kShortest, 2, true, true, 224, true},
};

const Processor *find_processor(const std::string &type) {
  for (const char *suffix : {"ImageProcessor", "FeatureExtractor", "VideoProcessor"}) {
    const size_t length = std::strlen(suffix);
    if (type.size() <= length || type.compare(type.size() - length, length, suffix) != 0) continue;
    const std::string name = type.substr(0, type.size() - length);
    for (const Processor &processor : kProcessors)
      if (name == processor.name && (processor.video || std::strcmp(suffix, "VideoProcessor") != 0))
        return &processor;
  }
  return nullptr;
}

std::string processor_names() {
  std::string names;
  for (const Processor &processor : kProcessors) {
    names += (names.empty() ? "" : ", ") + std::string(processor.name) + "ImageProcessor";
    if (processor.video) names += ", " + std::string(processor.name) + "VideoProcessor";
  }
  return names;
}

// PIL's filters by number (PILImageResampling): ours or a refusal.
bool resample_method(int resample, std::string *method, std::string *error) {
  switch (resample) {
    case 2:
      *method = "bilinear";
      return true;
    case 3:
      *method = "bicubic";
      return true;
    case 0:
      return fail(error,
                  "key 'resample': 0 (PIL NEAREST) samples at pixel centres, cudaresize's "
                  "nearest as OpenCV does: not the same pixels");
    case 1:
      return fail(error, "key 'resample': 1 (PIL LANCZOS) has no cudaresize method");
    case 4:
      return fail(error, "key 'resample': 4 (PIL BOX) has no cudaresize method");
    case 5:
      return fail(error, "key 'resample': 5 (PIL HAMMING) has no cudaresize method");
    default:
      return fail(error, "key 'resample': " + std::to_string(resample) +
                             " is not a PIL resampling filter (0-5)");
  }
}

// An object {height, width}, {shortest_edge} or {shortest_edge,
// longest_edge}, or an integer; reads what is there.
struct SizeValue {
  bool is_int = false;
  int value = 0;
  int height = 0, width = 0, shortest_edge = 0, longest_edge = 0;
};

bool read_size(JsonKeys &keys, const char *key, SizeValue *size, std::string *error) {
  JsonNode *node = keys.take(key);
  if (node == nullptr) return fail(error, "key " + keys.name(key) + " is missing");
  if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_INT64) {
    size->is_int = true;
    size->value = static_cast<int>(json_node_get_int(node));
    if (size->value <= 0) return fail(error, "key " + keys.name(key) + " must be positive");
    return true;
  }
  if (!JSON_NODE_HOLDS_OBJECT(node))
    return fail(error, "key " + keys.name(key) + " must be an integer or an object");
  JsonKeys fields(json_node_get_object(node), std::string(key) + ".");
  if (!fields.get_int("height", &size->height, error) ||
      !fields.get_int("width", &size->width, error) ||
      !fields.get_int("shortest_edge", &size->shortest_edge, error) ||
      !fields.get_int("longest_edge", &size->longest_edge, error) ||
      !fields.check_all_read("a Hugging Face size", error))
    return false;
  if (size->height < 0 || size->width < 0 || size->shortest_edge < 0 || size->longest_edge < 0)
    return fail(error, "key " + keys.name(key) + " has a negative side");
  return true;
}

bool square_size(JsonKeys &keys, const char *key, const SizeValue &size, int *width, int *height,
                 std::string *error) {
  if (size.is_int) {
    *width = *height = size.value;
    return true;
  }
  if (size.height > 0 && size.width > 0 && size.shortest_edge == 0 && size.longest_edge == 0) {
    *width = size.width;
    *height = size.height;
    return true;
  }
  return fail(error, "key " + keys.name(key) + " must give height and width (and nothing else)");
}

// num_frames of the model's config.json in the folder of `path` (the
// preprocessor config): the frames per clip the model was trained on.
bool model_num_frames(const std::string &path, int *frames, std::string *error) {
  gchar *folder = g_path_get_dirname(path.c_str());
  gchar *file = g_build_filename(folder, "config.json", nullptr);
  const std::string model_config = file;
  g_free(file);
  g_free(folder);
  const std::string missing =
      "key 'num_frames' (the frames per clip) is in neither " + path + " nor " + model_config;
  JsonParser *parser = json_parser_new();
  GError *gerror = nullptr;
  bool ok = false;
  if (!json_parser_load_from_file(parser, model_config.c_str(), &gerror)) {
    ok = fail(error, missing + " (" + gerror->message + ")");
    g_error_free(gerror);
  } else if (JsonNode *root = json_parser_get_root(parser);
             root == nullptr || !JSON_NODE_HOLDS_OBJECT(root)) {
    ok = fail(error, model_config + " must hold one JSON object");
  } else {
    JsonKeys keys(json_node_get_object(root), "");
    std::string reason;
    ok = keys.get_int("num_frames", frames, &reason) ? (*frames != 0 || fail(error, missing))
                                                     : fail(error, model_config + ": " + reason);
  }
  g_object_unref(parser);
  return ok;
}

// A video processor's keys beyond the image processor's: the frames per
// clip, and the saved call arguments that must keep the frames as given.
bool parse_video_keys(JsonKeys &keys, const std::string &path, Recipe *recipe, std::string *error) {
  bool do_sample_frames = false, default_to_square = false, do_pad = false;
  std::string data_format = "channels_first", device = "cpu";
  int num_frames = 0;
  if (!keys.get_bool("do_sample_frames", &do_sample_frames, error) ||
      !keys.get_bool("default_to_square", &default_to_square, error) ||
      !keys.get_bool("do_pad", &do_pad, error) ||
      !keys.get_string("data_format", &data_format, error) ||
      !keys.get_string("device", &device, error) || !keys.get_int("num_frames", &num_frames, error))
    return false;
  if (do_sample_frames) {
    return fail(error,
                "key 'do_sample_frames': true picks num_frames frames spread over a whole video "
                "file; a stream's clips are consecutive frames");
  }
  if (keys.take("fps") != nullptr)
    return fail(error, "key 'fps': frames sampled per second of a video file are not a clip");
  if (default_to_square)
    return fail(error, "key 'default_to_square': true stretches to a square, not VideoMAE's rule");
  if (do_pad) return fail(error, "key 'do_pad': true pads the frames; cudaprep has no such pad");
  if (data_format != "channels_first")
    return fail(error, "key 'data_format': only channels_first (pixel_values' C before H, W)");
  if (device != "cpu") {
    return fail(error, "key 'device': " + device +
                           " resizes the frames as floats, rounded once; the chain follows the "
                           "CPU's 8-bit resize (none or cpu)");
  }
  // Where the caller's arrays come from and what container comes back.
  keys.accept({"input_data_format", "return_tensors", "return_metadata", "video_metadata",
               "disable_grouping", "pad_size", "model_input_names"});
  if (num_frames == 0 && !model_num_frames(path, &num_frames, error)) return false;
  if (num_frames < 1 || num_frames > 256)
    return fail(error, "key 'num_frames': " + std::to_string(num_frames) + " is not in 1..256");
  recipe->clip_length = num_frames;
  recipe->layout = "ntchw";
  return true;
}

}  // namespace

bool parse_huggingface(JsonObject *root, const std::string &path, Recipe *recipe,
                       std::string *error) {
  JsonKeys keys(root, "");
  std::string type;
  std::string extractor_type;
  std::string video_type;
  if (!keys.get_string("image_processor_type", &type, error) ||
      !keys.get_string("feature_extractor_type", &extractor_type, error) ||
      !keys.get_string("video_processor_type", &video_type, error))
    return false;
  if (!type.empty() && !extractor_type.empty() && type != extractor_type &&
      find_processor(type) != find_processor(extractor_type)) {
    return fail(error, "keys 'image_processor_type' (" + type + ") and 'feature_extractor_type' (" +
                           extractor_type + ") name different processors");
  }
  if (type.empty()) type = extractor_type;
  if (!video_type.empty() && !type.empty() && find_processor(type) != find_processor(video_type)) {
    return fail(error, "keys 'video_processor_type' (" + video_type + ") and the image " +
                           "processor's type (" + type + ") name different processors");
  }
  const std::string type_key =
      type.empty() && !video_type.empty() ? "video_processor_type" : "image_processor_type";
  if (type.empty()) type = video_type;
  const Processor *processor = find_processor(type);
  if (processor == nullptr) {
    return fail(error, "key '" + type_key + "': " + type + " is not one cudaprep reproduces (" +
                           processor_names() +
                           "; the *Fast variants resize with torchvision and are not covered)");
  }
  recipe->format = "huggingface";
  recipe->model = type;
  keys.accept({"processor_class", "_valid_processor_keys"});

  bool do_resize = true, do_center_crop = processor->default_center_crop, do_rescale = true,
       do_normalize = true, do_convert_rgb = true;
  int resample = processor->default_resample;
  double rescale_factor = 1.0 / 255.0;
  std::array<double, 3> mean{}, std{};
  if (!keys.get_bool("do_resize", &do_resize, error) ||
      !keys.get_int("resample", &resample, error) ||
      !keys.get_bool("do_rescale", &do_rescale, error) ||
      !keys.get_double("rescale_factor", &rescale_factor, error) ||
      !keys.get_bool("do_normalize", &do_normalize, error) ||
      !keys.get_bool("do_convert_rgb", &do_convert_rgb, error))
    return false;
  if (!do_convert_rgb) {
    return fail(error,
                "key 'do_convert_rgb': false keeps a frame's own channels (alpha, grey); "
                "cudaprep's chain always makes RGB");
  }

  // Normalisation: mean and std must be written out, since the classes'
  // defaults changed between versions.
  if (do_normalize) {
    if (!keys.present("image_mean") || !keys.present("image_std"))
      return fail(error, "key 'image_mean' or 'image_std' is missing while do_normalize is true");
  }
  if (!keys.get_triple("image_mean", &mean, error) || !keys.get_triple("image_std", &std, error))
    return false;
  recipe->scale = do_rescale ? rescale_factor : 1.0;
  if (do_normalize) {
    for (double value : std)
      if (value == 0.0) return fail(error, "key 'image_std' has a zero");
    recipe->mean = mean;
    recipe->std = std;
  }

  std::string method;
  if (!resample_method(resample, &method, error)) return false;
  recipe->method = method;
  recipe->antialias = true;
  recipe->uint8_intermediate = true;

  SizeValue size;
  if (!read_size(keys, "size", &size, error)) return false;
  switch (processor->size_kind) {
    case SizeKind::kSquare:
      recipe->size_rule = SizeRule::kFixed;
      if (!square_size(keys, "size", size, &recipe->width, &recipe->height, error)) return false;
      break;
    case SizeKind::kShortest:
      if (size.is_int || (size.shortest_edge > 0 && size.height == 0 && size.width == 0 &&
                          size.longest_edge == 0)) {
        recipe->size_rule = SizeRule::kShortSide;
        recipe->short_side = size.is_int ? size.value : size.shortest_edge;
      } else {
        recipe->size_rule = SizeRule::kFixed;
        if (!square_size(keys, "size", size, &recipe->width, &recipe->height, error)) return false;
      }
      break;
    case SizeKind::kCropPct: {
      const int shortest = size.is_int ? size.value : size.shortest_edge;
      if (shortest <= 0 || size.height != 0 || size.width != 0 || size.longest_edge != 0)
        return fail(error, "key 'size' must give shortest_edge only (ConvNextImageProcessor)");
      double crop_pct = 224.0 / 256.0;
      if (!keys.get_double("crop_pct", &crop_pct, error)) return false;
      if (!(crop_pct > 0.0 && crop_pct <= 1.0))
        return fail(error, "key 'crop_pct' must be in (0, 1]");
      if (shortest < 384) {
        // Resize the short side to int(shortest / crop_pct), crop shortest.
        recipe->size_rule = SizeRule::kShortSide;
        recipe->short_side = static_cast<int>(shortest / crop_pct);
        recipe->crop_rule = CropRule::kFloor;
        recipe->crop_width = recipe->crop_height = shortest;
      } else {
        // At 384 and above ConvNeXt warps to a square, no crop.
        recipe->size_rule = SizeRule::kFixed;
        recipe->width = recipe->height = shortest;
      }
      break;
    }
    case SizeKind::kDpt: {
      recipe->size_rule = SizeRule::kDptFit;
      if (!square_size(keys, "size", size, &recipe->width, &recipe->height, error)) return false;
      bool do_pad = false;
      if (!keys.get_bool("keep_aspect_ratio", &recipe->keep_aspect_ratio, error) ||
          !keys.get_int("ensure_multiple_of", &recipe->multiple_of, error) ||
          !keys.get_bool("do_pad", &do_pad, error))
        return false;
      if (recipe->multiple_of <= 0) return fail(error, "key 'ensure_multiple_of' must be positive");
      if (do_pad) {
        return fail(error,
                    "key 'do_pad': true pads to size_divisor after the normalisation; cudaprep "
                    "has no such pad");
      }
      int size_divisor = 0;
      if (!keys.get_int("size_divisor", &size_divisor, error)) return false;
      break;
    }
    case SizeKind::kDetr: {
      int max_size = 0;
      if (!keys.get_int("max_size", &max_size, error)) return false;
      if (size.is_int) {
        if (max_size <= 0)
          return fail(error, "key 'size': an integer needs max_size (DetrImageProcessor)");
        recipe->short_side = size.value;
        recipe->long_side = max_size;
      } else {
        if (max_size > 0) {
          return fail(error,
                      "keys 'max_size' and 'size' contradict: size is an object, so max_size "
                      "would be ignored; give longest_edge in size");
        }
        if (size.shortest_edge <= 0 || size.longest_edge <= 0 || size.height != 0 ||
            size.width != 0) {
          return fail(error,
                      "key 'size' must give shortest_edge and longest_edge "
                      "(DetrImageProcessor's other sizes are not covered)");
        }
        recipe->short_side = size.shortest_edge;
        recipe->long_side = size.longest_edge;
      }
      recipe->size_rule = SizeRule::kDetr;
      bool do_pad = true;
      // One frame per tensor: padding to the batch's largest image pads nothing.
      if (!keys.get_bool("do_pad", &do_pad, error)) return false;
      keys.accept({"format", "do_convert_annotations"});
      break;
    }
  }

  if (processor->crops) {
    if (!keys.get_bool("do_center_crop", &do_center_crop, error)) return false;
    if (do_center_crop && !keys.present("crop_size") && processor->default_crop > 0) {
      keys.accept({"crop_size"});
      recipe->crop_width = recipe->crop_height = processor->default_crop;
      recipe->crop_rule = CropRule::kFloor;
    } else if (do_center_crop) {
      SizeValue crop;
      if (!read_size(keys, "crop_size", &crop, error) ||
          !square_size(keys, "crop_size", crop, &recipe->crop_width, &recipe->crop_height, error))
        return false;
      recipe->crop_rule = CropRule::kFloor;
    } else {
      keys.accept({"crop_size"});
    }
  }
  if (processor->size_kind == SizeKind::kSquare && std::string(processor->name) == "Beit")
    keys.accept({"reduce_labels", "do_reduce_labels"});  // segmentation labels only

  if (!do_resize) {
    recipe->size_rule = SizeRule::kNone;
    if (processor->size_kind == SizeKind::kCropPct) recipe->crop_rule = CropRule::kNone;
  }
  if (processor->video && !parse_video_keys(keys, path, recipe, error)) return false;
  return keys.check_all_read(type, error);
}

}  // namespace cudaprep::modelconfig
