// A model's own preprocessing description -> the chain of cudaprep elements
// that reproduces it (docs/model-configs.md).
//
// Contract:
// - Input: one file, given as a path (nothing is downloaded): a Hugging Face
//   preprocessor_config.json (image_processor_type, feature_extractor_type or
//   video_processor_type names the processor; a video processor's clip
//   length is its num_frames, else num_frames of the config.json in the same
//   folder, else an error naming both files), a timm config.json or pretrained_cfg (input_size,
//   interpolation, crop_pct ...), our JSON form for torchvision weights or the
//   Ultralytics letterbox ({"format": "torchvision" | "ultralytics-letterbox",
//   ...}) or a GStreamer 1.28 .modelinfo (key file with a [modelinfo] group).
// - Every key is either honoured exactly or refused: an unknown key, a value
//   we cannot reproduce exactly (a resample filter we lack) or keys that
//   contradict each other give an error that names the key. Keys that do not
//   concern the image (labels, the model's architecture) are listed per
//   format and accepted.
// - Output: a Recipe (what the config says), then, for a frame size, a Chain:
//   the elements with their property values and the tensor's shape. The
//   geometry (resized size, crop rectangle) follows the owning library's own
//   integer rules, so a recipe whose sizes depend on the frame's
//   (shortest-edge resizes, kept aspect ratios) needs the frame size.
// - The chain's resampling is the owning library's: PIL's (antialias, 8-bit
//   intermediate, result rounded to 8 bits) for Hugging Face, timm and
//   torchvision on PIL images; torchvision's float resize rounded once on
//   uint8 tensors, never rounded on float tensors (float-intermediate);
//   OpenCV's fixed point for Ultralytics (ties rounded up). A crop after
//   the resize folds into the fused kernel, so nothing is stored between
//   the sampler and the tensor but the rounding the library itself does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cudaprep::modelconfig {

// How the recipe's resized size follows from the frame's.
enum class SizeRule {
  kNone,       // no resize: the tensor has the frame's size
  kFixed,      // stretch to width x height
  kShortSide,  // short side to `short_side`, long = int(short_side * long / short)
               // (torchvision's and Hugging Face's get_resize_output_image_size)
  kDptFit,     // DPT: scale as little as possible toward width x height,
               // keep_aspect_ratio, round to multiples of multiple_of
  kDetr,       // DETR: shortest edge short_side, longest edge at most long_side
  kLetterbox,  // keep the aspect ratio inside width x height, pad the rest
};

// Where a centre crop starts, in the owning library's rounding.
enum class CropRule {
  kNone,
  kFloor,      // Hugging Face's center_crop: (size - crop) // 2
  kRoundEven,  // torchvision's CenterCrop: int(round((size - crop) / 2.0))
};

struct Recipe {
  std::string format;  // huggingface, timm, torchvision, ultralytics-letterbox, modelinfo
  std::string model;   // the processor class, weights or model the file names

  SizeRule size_rule = SizeRule::kNone;
  int width = 0, height = 0;          // kFixed, kDptFit, kLetterbox
  int short_side = 0, long_side = 0;  // kShortSide, kDetr
  int multiple_of = 1;                // kDptFit
  bool keep_aspect_ratio = false;     // kDptFit
  std::string method = "bilinear";    // cudaresize's method
  bool antialias = false;
  bool uint8_intermediate = false;  // antialias-intermediate=uint8
  bool float_intermediate = false;  // float-intermediate=true: the library resizes floats
  bool round_half_up = false;       // rounding=half-up: OpenCV's fixed-point ties
  int pad_value = 0;                // kLetterbox
  bool letterbox_top_left = false;  // kLetterbox: the image top-left, not centred

  CropRule crop_rule = CropRule::kNone;
  int crop_width = 0, crop_height = 0;

  double scale = 1.0 / 255.0;
  std::array<double, 3> mean = {0.0, 0.0, 0.0};
  std::array<double, 3> std = {1.0, 1.0, 1.0};
  std::string dtype = "float32";  // float32 or float16
  std::string layout = "nchw";    // nchw or nhwc; ntchw or ncthw with clip_length
  // Frames per clip (T): each frame made as an image, the tensor 5-D
  // ({N, T, C, H, W} for ntchw); 0: no clips, the tensor holds one image.
  int clip_length = 0;
};

// The chain for one frame size.
struct Chain {
  struct Element {
    std::string factory;
    // property, value as gst-launch writes it (strings quoted when needed)
    std::vector<std::pair<std::string, std::string>> properties;
  };
  // The elements in order; a factory starting with "video/" is a caps filter.
  std::vector<Element> elements;
  std::vector<int64_t> shape;  // the tensor's dims in its layout's order

  // gst_parse syntax: "cudaresize ... ! video/x-raw(memory:CUDAPitched),... ! ...";
  // a shell needs the caps quoted (parentheses)
  std::string launch() const;
  // "1x3x224x224"
  std::string shape_string() const;
};

// Reads the file at `path` into a recipe. False with `error` naming the
// file and the key on anything it cannot honour.
bool load_recipe(const std::string &path, Recipe *recipe, std::string *error);
// The same from the file's text; `name` (its path) tells a .modelinfo, and a
// video processor without num_frames reads config.json in name's folder.
bool parse_recipe(const std::string &text, const std::string &name, Recipe *recipe,
                  std::string *error);

// Whether the chain depends on the frame's size (then build_chain needs it).
bool needs_frame_size(const Recipe &recipe);
// The chain for frames of frame_width x frame_height (0 x 0 when
// !needs_frame_size). False with `error` when the geometry cannot be made
// exactly (a crop larger than the resized frame: the libraries pad).
bool build_chain(const Recipe &recipe, int frame_width, int frame_height, Chain *chain,
                 std::string *error);

}  // namespace cudaprep::modelconfig
