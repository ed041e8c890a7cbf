// Models' own preprocessing configs (tests/data/models) -> the cudaprep chain
// and tensor shape. Every expected chain below is derived by hand from the
// owning library's algorithm, written beside it; none is the parser's output
// pasted back.
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/test_data.h"
#include "modelconfig/modelconfig.h"

namespace mc = cudaprep::modelconfig;

namespace {

// The fixtures, from the environment where the suite runs elsewhere (the
// GPU machine), else from the source tree.
std::string fixture(const std::string &name) {
  return cudaprep::test::test_data_path("models/" + name);
}

const std::string kImageNet =
    "mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\" dtype=float32";
const std::string kHalf = "mean=\"<0.5,0.5,0.5>\" std=\"<0.5,0.5,0.5>\" dtype=float32";
const std::string kClip =
    "mean=\"<0.48145466,0.4578275,0.40821073>\" std=\"<0.26862954,0.26130258,0.27577711>\" "
    "dtype=float32";
const std::string kPilBilinear =
    "cudaresize method=bilinear antialias=true "
    "antialias-intermediate=uint8";
const std::string kPilBicubic =
    "cudaresize method=bicubic antialias=true "
    "antialias-intermediate=uint8";
// 1/255 as Python prints it (Hugging Face's rescale_factor, ToTensor's /255).
const std::string kScale = "scale=0.00392156862745098";

std::string caps(int width, int height) {
  return "video/x-raw(memory:CUDAPitched),format=RGB,width=" + std::to_string(width) +
         ",height=" + std::to_string(height);
}

std::string crop(int x, int y, int width, int height) {
  return "cudacrop x=" + std::to_string(x) + " y=" + std::to_string(y) +
         " width=" + std::to_string(width) + " height=" + std::to_string(height);
}

struct Case {
  const char *file;
  int frame_width, frame_height;  // 0 x 0: the chain must not depend on it
  std::string launch;
  std::string shape;
};

// The derivations, frame 1920x1080 unless said.
const Case kCases[] = {
    // ViTImageProcessor: size 224 -> {height 224, width 224}, stretched;
    // resample 2 = PIL BILINEAR; do_rescale defaults to 1/255.
    {"google-vit-base-patch16-224.json", 0, 0,
     kPilBilinear + " ! " + caps(224, 224) + " ! cudanormalize " + kScale + " " + kHalf +
         " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // DeiT: size 256 -> 256x256 stretched, BICUBIC, center_crop 224:
    // top = left = (256 - 224) // 2 = 16.
    {"facebook-deit-base-distilled-patch16-224.json", 0, 0,
     kPilBicubic + " ! " + caps(224 + 32, 256) + " ! " + crop(16, 16, 224, 224) +
         " ! cudanormalize " + kScale + " " + kImageNet + " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // BEiT: 224x224 BILINEAR; do_center_crop false, so crop_size is unused.
    {"microsoft-beit-base-patch16-224.json", 0, 0,
     kPilBilinear + " ! " + caps(224, 224) + " ! cudanormalize " + kScale + " " + kHalf +
         " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // ConvNeXt: shortest_edge 224 < 384: short side int(224 / 0.875) = 256,
    // long int(256 * 1920 / 1080) = int(455.1) = 455; crop 224 at
    // ((455 - 224) // 2, (256 - 224) // 2) = (115, 16).
    {"facebook-convnext-tiny-224.json", 1920, 1080,
     kPilBicubic + " ! " + caps(455, 256) + " ! " + crop(115, 16, 224, 224) + " ! cudanormalize " +
         kScale + " " + kImageNet + " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // microsoft/resnet-50 is a ConvNextImageProcessor with the same values.
    {"microsoft-resnet-50.json", 1920, 1080,
     kPilBicubic + " ! " + caps(455, 256) + " ! " + crop(115, 16, 224, 224) + " ! cudanormalize " +
         kScale + " " + kImageNet + " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // Portrait 1080x1920: short side 256, long int(256 * 1920 / 1080) = 455
    // tall; crop at ((256 - 224) // 2, (455 - 224) // 2) = (16, 115).
    {"microsoft-resnet-50.json", 1080, 1920,
     kPilBicubic + " ! " + caps(256, 455) + " ! " + crop(16, 115, 224, 224) + " ! cudanormalize " +
         kScale + " " + kImageNet + " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // DINOv2 (BitImageProcessor): shortest_edge 256 -> 455x256, crop 224 at
    // (115, 16).
    {"facebook-dinov2-base.json", 1920, 1080,
     kPilBicubic + " ! " + caps(455, 256) + " ! " + crop(115, 16, 224, 224) + " ! cudanormalize " +
         kScale + " " + kImageNet + " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // CLIP: size 224 is shortest_edge: 4K 3840x2160 -> int(224 * 3840 / 2160)
    // = int(398.2) = 398 wide; crop at ((398 - 224) // 2, 0) = (87, 0).
    {"openai-clip-vit-base-patch32.json", 3840, 2160,
     kPilBicubic + " ! " + caps(398, 224) + " ! " + crop(87, 0, 224, 224) + " ! cudanormalize " +
         kScale + " " + kClip + " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // SigLIP: {height 224, width 224} stretched, BICUBIC, no crop.
    {"google-siglip-base-patch16-224.json", 0, 0,
     kPilBicubic + " ! " + caps(224, 224) + " ! cudanormalize " + kScale + " " + kHalf +
         " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // Depth-Anything (DPT): scales 518/1080 = 0.4796 and 518/1920 = 0.2698;
    // the one closer to 1 (0.4796) for both; sides round(1080 * s / 14) * 14
    // = 37 * 14 = 518 and round(920.9 / 14) = 66 -> 924.
    {"LiheYoung-depth-anything-small-hf.json", 1920, 1080,
     kPilBicubic + " ! " + caps(924, 518) + " ! cudanormalize " + kScale + " " + kImageNet +
         " ! cudatensorize layout=nchw",
     "1x3x518x924"},
    // A 320x240 frame upscales: 518/240 = 2.158 and 518/320 = 1.619, the
    // latter closer to 1: 320 * 1.619 = 518 -> round(37) * 14 = 518, 240 *
    // 1.619 = 388.5 -> round(27.75) * 14 = 392.
    {"LiheYoung-depth-anything-small-hf.json", 320, 240,
     kPilBicubic + " ! " + caps(518, 392) + " ! cudanormalize " + kScale + " " + kImageNet +
         " ! cudatensorize layout=nchw",
     "1x3x392x518"},
    // DETR: size 800 with max_size 1333; 1920/1080 * 800 = 1422 > 1333, so
    // raw = 1333 * 1080 / 1920 = 749.8125, short round(749.8) = 750, long
    // int(749.8125 * 1920 / 1080) = 1333. resample defaults to BILINEAR.
    {"facebook-detr-resnet-50.json", 1920, 1080,
     kPilBilinear + " ! " + caps(1333, 750) + " ! cudanormalize " + kScale + " " + kImageNet +
         " ! cudatensorize layout=nchw",
     "1x3x750x1333"},
    // 640x480: 640/480 * 800 = 1066.7 <= 1333: short 800, long int(800 *
    // 640 / 480) = 1066.
    {"facebook-detr-resnet-50.json", 640, 480,
     kPilBilinear + " ! " + caps(1066, 800) + " ! cudanormalize " + kScale + " " + kImageNet +
         " ! cudatensorize layout=nchw",
     "1x3x800x1066"},
    // timm resnet50.a1_in1k: crop_pct 0.95, scale_size floor(224 / 0.95) =
    // 235; Resize(235): long int(235 * 1920 / 1080) = int(417.8) = 417;
    // CenterCrop(224): round((417 - 224) / 2) = round(96.5) = 96 (half to
    // even), round((235 - 224) / 2) = round(5.5) = 6.
    {"timm-resnet50.a1_in1k.json", 1920, 1080,
     kPilBicubic + " ! " + caps(417, 235) + " ! " + crop(96, 6, 224, 224) + " ! cudanormalize " +
         kScale + " " + kImageNet + " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // timm efficientnet_b5 squash, crop_pct 1.0: Resize((448, 448)), the
    // centre crop of 448 keeps all.
    {"timm-efficientnet_b5.sw_in12k_ft_in1k.json", 0, 0,
     kPilBicubic + " ! " + caps(448, 448) + " ! cudanormalize " + kScale + " " + kImageNet +
         " ! cudatensorize layout=nchw",
     "1x3x448x448"},
    // torchvision ResNet50 IMAGENET1K_V2: Resize(232) -> int(232 * 1920 /
    // 1080) = int(412.4) = 412; CenterCrop(224) at (round(94.0), round(4.0)).
    // Resized as floats and rounded once (torchvision.transforms.functional).
    {"torchvision-resnet50-imagenet1k-v2.json", 1920, 1080,
     "cudaresize method=bilinear antialias=true antialias-intermediate=float ! " + caps(412, 232) +
         " ! " + crop(94, 4, 224, 224) + " ! cudanormalize " + kScale + " " + kImageNet +
         " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // The same weights' transforms on a float tensor (the frame / 255):
    // resized as floats, cropped and normalised with nothing rounded.
    {"torchvision-resnet50-imagenet1k-v2-float.json", 1920, 1080,
     "cudaresize method=bilinear antialias=true antialias-intermediate=float "
     "float-intermediate=true ! " +
         caps(412, 232) + " ! " + crop(94, 4, 224, 224) + " ! cudanormalize " + kScale + " " +
         kImageNet + " ! cudatensorize layout=nchw",
     "1x3x224x224"},
    // Ultralytics LetterBox(640), cv2 INTER_LINEAR (OpenCV's bilinear, no
    // antialias, 8-bit fixed point: ties up), centred in 640x640 with 114, / 255.
    {"ultralytics-yolov8n-letterbox.json", 0, 0,
     "cudaresize method=bilinear rounding=half-up add-borders=true pad-value=\"<114,114,114>\" ! " +
         caps(640, 640) + " ! cudanormalize " + kScale +
         " mean=\"<0,0,0>\" std=\"<1,1,1>\" dtype=float32 ! cudatensorize layout=nchw",
     "1x3x640x640"},
    // .modelinfo: dims 1,300,300,3 (NHWC), ranges -1,1: out = in * 2/255 - 1,
    // i.e. scale 2/255, mean -min = 1, std 1.
    {"gstreamer-ssd-mobilenet-v1.modelinfo", 0, 0,
     "cudaresize method=bilinear ! " + caps(300, 300) +
         " ! cudanormalize scale=0.00784313725490196 mean=\"<1,1,1>\" std=\"<1,1,1>\" "
         "dtype=float32 ! cudatensorize layout=nhwc",
     "1x300x300x3"},
    // VideoMAE: size 224 with default_to_square false is shortest_edge 224:
    // int(224 * 1920 / 1080) = int(398.2) = 398; no crop_size in the file,
    // so VideoMAEImageProcessor's 224x224, at ((398 - 224) // 2, 0) = (87,
    // 0); BILINEAR. Each of the clip's frames so; num_frames 16 from the
    // config.json beside the file, pixel_values (1, 16, 3, 224, 224).
    {"MCG-NJU-videomae-base/preprocessor_config.json", 1920, 1080,
     kPilBilinear + " ! " + caps(398, 224) + " ! " + crop(87, 0, 224, 224) + " ! cudanormalize " +
         kScale + " " + kImageNet + " ! cudatensorize clip-length=16 layout=ntchw",
     "1x16x3x224x224"},
    // Portrait 1080x1920: 224 wide, int(224 * 1920 / 1080) = 398 tall; the
    // crop at (0, 87).
    {"MCG-NJU-videomae-base-finetuned-kinetics/preprocessor_config.json", 1080, 1920,
     kPilBilinear + " ! " + caps(224, 398) + " ! " + crop(0, 87, 224, 224) + " ! cudanormalize " +
         kScale + " " + kImageNet + " ! cudatensorize clip-length=16 layout=ntchw",
     "1x16x3x224x224"},
};

}  // namespace

TEST(ModelConfig, EachFixtureGivesTheChainDerivedFromItsLibrary) {
  for (const Case &expected : kCases) {
    SCOPED_TRACE(std::string(expected.file) + " at " + std::to_string(expected.frame_width) + "x" +
                 std::to_string(expected.frame_height));
    mc::Recipe recipe;
    std::string error;
    ASSERT_TRUE(mc::load_recipe(fixture(expected.file), &recipe, &error)) << error;
    EXPECT_EQ(mc::needs_frame_size(recipe), expected.frame_width != 0);
    mc::Chain chain;
    ASSERT_TRUE(
        mc::build_chain(recipe, expected.frame_width, expected.frame_height, &chain, &error))
        << error;
    EXPECT_EQ(chain.launch(), expected.launch);
    EXPECT_EQ(chain.shape_string(), expected.shape);
  }
}

TEST(ModelConfig, SizeDependentConfigsAskForTheFrameSize) {
  mc::Recipe recipe;
  std::string error;
  ASSERT_TRUE(mc::load_recipe(fixture("openai-clip-vit-base-patch32.json"), &recipe, &error));
  mc::Chain chain;
  EXPECT_FALSE(mc::build_chain(recipe, 0, 0, &chain, &error));
  EXPECT_NE(error.find("give the frame size"), std::string::npos) << error;
}

// Each refusal names the key (and why) in its message.
struct Refusal {
  const char *text;      // the config
  const char *name;      // its file name (tells a .modelinfo)
  const char *expected;  // a part of the error
};

const Refusal kRefusals[] = {
    // Resample filters cudaresize lacks.
    {R"({"image_processor_type": "ViTImageProcessor", "size": 224, "resample": 1,
        "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "key 'resample': 1 (PIL LANCZOS)"},
    {R"({"image_processor_type": "ViTImageProcessor", "size": 224, "resample": 4,
        "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "key 'resample': 4 (PIL BOX)"},
    {R"({"image_processor_type": "ViTImageProcessor", "size": 224, "resample": 5,
        "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "key 'resample': 5 (PIL HAMMING)"},
    {R"({"image_processor_type": "ViTImageProcessor", "size": 224, "resample": 0,
        "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "key 'resample': 0 (PIL NEAREST)"},
    // Unknown keys, at the top and nested.
    {R"({"image_processor_type": "ViTImageProcessor", "size": 224, "do_magic": true,
        "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "unknown key 'do_magic'"},
    {R"({"image_processor_type": "ViTImageProcessor", "size": {"height": 224, "width": 224,
        "depth": 3}, "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "unknown key 'size.depth'"},
    // A crop key on a processor that has none.
    {R"({"image_processor_type": "SiglipImageProcessor", "size": {"height": 224, "width": 224},
        "do_center_crop": true, "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "unknown key 'do_center_crop'"},
    // Contradictions.
    {R"({"image_processor_type": "DetrImageProcessor", "size": {"shortest_edge": 800,
        "longest_edge": 1333}, "max_size": 1000, "image_mean": [0.5,0.5,0.5],
        "image_std": [0.5,0.5,0.5]})",
     "p.json", "keys 'max_size' and 'size' contradict"},
    {R"({"image_processor_type": "ViTImageProcessor", "feature_extractor_type":
        "CLIPFeatureExtractor", "size": 224, "image_mean": [0.5,0.5,0.5],
        "image_std": [0.5,0.5,0.5]})",
     "p.json", "keys 'image_processor_type' (ViTImageProcessor) and 'feature_extractor_type'"},
    {R"({"image_processor_type": "ViTImageProcessorFast", "size": 224})", "p.json",
     "key 'image_processor_type': ViTImageProcessorFast"},
    {R"({"image_processor_type": "ViTImageProcessor", "size": 224, "do_convert_rgb": false,
        "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "key 'do_convert_rgb'"},
    {R"({"image_processor_type": "ViTImageProcessor", "size": 224})", "p.json",
     "key 'image_mean' or 'image_std' is missing"},
    {R"({"image_processor_type": "ViTImageProcessor", "size": 224,
        "image_mean": [0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "key 'image_mean' must be a list of three numbers"},
    {R"({"image_processor_type": "DPTImageProcessor", "size": {"height": 518, "width": 518},
        "do_pad": true, "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "key 'do_pad'"},
    {R"({"image_processor_type": "ConvNextImageProcessor", "size": 224, "crop_pct": 1.5,
        "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "p.json", "key 'crop_pct' must be in (0, 1]"},
    // timm.
    {R"({"input_size": [3, 224, 224], "interpolation": "lanczos"})", "c.json",
     "key 'interpolation': \"lanczos\""},
    {R"({"input_size": [3, 224, 224], "crop_mode": "border"})", "c.json",
     "key 'crop_mode': \"border\""},
    {R"({"architecture": "x", "pretrained_cfg": {"input_size": [3, 224, 224], "tint": 1}})",
     "c.json", "unknown key 'pretrained_cfg.tint'"},
    {R"({"input_size": [3, 224, 320]})", "c.json", "key 'input_size': a non-square input"},
    // torchvision.
    {R"({"format": "torchvision", "transforms": "ImageClassification", "input": "bgr",
        "resize_size": 256, "crop_size": 224})",
     "t.json", "key 'input': \"bgr\" is none of uint8, pil, float"},
    {R"({"format": "torchvision", "transforms": "ImageClassification",
        "resize_size": 256, "crop_size": 224, "interpolation": "nearest"})",
     "t.json", "key 'interpolation': \"nearest\""},
    {R"({"format": "torchvision", "transforms": "VideoClassification",
        "resize_size": 256, "crop_size": 224})",
     "t.json", "key 'transforms'"},
    // Ultralytics.
    {R"({"format": "ultralytics-letterbox", "imgsz": 640, "auto": true})", "u.json", "key 'auto'"},
    {R"({"format": "ultralytics-letterbox", "imgsz": 650, "stride": 32})", "u.json",
     "keys 'imgsz' and 'stride' contradict"},
    {R"({"format": "ultralytics-letterbox", "imgsz": 640, "scaleup": false})", "u.json",
     "key 'scaleup'"},
    {R"({"format": "ultralytics-letterbox", "imgsz": 640, "half": true})", "u.json",
     "unknown key 'half'"},
    {R"({"format": "onnx"})", "u.json", "key 'format': \"onnx\""},
    {R"({"size": 224})", "u.json", "no key says which format"},
    // .modelinfo.
    {"[modelinfo]\nversion=1.0\n[in]\ndir=input\ntype=float32\ndims=1,3,224,224\n"
     "ranges=0,1\nmean=0.5\n",
     "m.modelinfo", "unknown key 'in.mean'"},
    {"[modelinfo]\nversion=1.0\n[in]\ndir=input\ntype=float32\ndims=1,3,-1,-1\nranges=0,1\n",
     "m.modelinfo", "key 'in.dims'"},
    {"[modelinfo]\nversion=1.0\n[in]\ndir=input\ntype=uint8\ndims=1,3,224,224\nranges=0,255\n",
     "m.modelinfo", "key 'in.type'"},
    {"[modelinfo]\nversion=1.0\n[in]\ndir=input\ntype=float32\ndims=1,3,224,224\nranges=1,0\n",
     "m.modelinfo", "key 'in.ranges'"},
    {"[modelinfo]\nversion=2.0\n", "m.modelinfo", "key 'modelinfo.version'"},
    // Video processors: what would change which frames or how they are made.
    {R"({"video_processor_type": "VideoMAEVideoProcessor", "size": 224, "num_frames": 16,
        "do_sample_frames": true, "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "v.json", "key 'do_sample_frames'"},
    {R"({"video_processor_type": "VideoMAEVideoProcessor", "size": 224, "num_frames": 16,
        "fps": 2, "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "v.json", "key 'fps'"},
    {R"({"video_processor_type": "VideoMAEVideoProcessor", "size": 224, "num_frames": 16,
        "device": "cuda", "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "v.json", "key 'device': cuda"},
    {R"({"video_processor_type": "VideoMAEVideoProcessor", "size": 224, "num_frames": 300,
        "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "v.json", "key 'num_frames': 300 is not in 1..256"},
    {R"({"image_processor_type": "VideoMAEImageProcessor", "size": 224, "num_frames": 16,
        "tubelets": 2, "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
     "v.json", "unknown key 'tubelets'"},
    {R"({"video_processor_type": "ViTVideoProcessor", "size": 224})", "v.json",
     "key 'video_processor_type': ViTVideoProcessor"},
    {R"({"video_processor_type": "VideoMAEVideoProcessor", "image_processor_type":
        "CLIPImageProcessor", "size": 224, "num_frames": 16})",
     "v.json", "keys 'video_processor_type' (VideoMAEVideoProcessor) and the image"},
};

TEST(ModelConfig, EveryRefusalNamesTheKey) {
  for (const Refusal &refusal : kRefusals) {
    SCOPED_TRACE(refusal.text);
    mc::Recipe recipe;
    std::string error;
    EXPECT_FALSE(mc::parse_recipe(refusal.text, refusal.name, &recipe, &error));
    EXPECT_NE(error.find(refusal.expected), std::string::npos) << error;
  }
}

TEST(ModelConfig, ACropLargerThanTheResizedFrameIsRefused) {
  // DeiT resized to 256x256 cannot give a 300x300 crop (the library pads).
  mc::Recipe recipe;
  std::string error;
  ASSERT_TRUE(mc::parse_recipe(R"({"image_processor_type": "DeiTImageProcessor", "size": 256,
      "crop_size": 300, "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})",
                               "p.json", &recipe, &error))
      << error;
  mc::Chain chain;
  EXPECT_FALSE(mc::build_chain(recipe, 0, 0, &chain, &error));
  EXPECT_NE(error.find("the crop 300x300 is larger than the resized 256x256"), std::string::npos)
      << error;
}

// A model folder in a temporary directory: its preprocessor config and,
// when given, its config.json; removed at the end.
class ModelFolder {
 public:
  ModelFolder(const std::string &preprocessor, const std::string &model_config) {
    GError *gerror = nullptr;
    gchar *dir = g_dir_make_tmp("cudaprep-videomae-XXXXXX", &gerror);
    EXPECT_NE(dir, nullptr) << (gerror != nullptr ? gerror->message : "");
    g_clear_error(&gerror);
    dir_ = dir != nullptr ? dir : "";
    g_free(dir);
    write("preprocessor_config.json", preprocessor);
    if (!model_config.empty()) write("config.json", model_config);
  }
  ~ModelFolder() {
    for (const std::string &file : written_) g_remove(file.c_str());
    g_rmdir(dir_.c_str());
  }
  std::string preprocessor() const { return dir_ + "/preprocessor_config.json"; }
  std::string model_config() const { return dir_ + "/config.json"; }

 private:
  void write(const char *name, const std::string &text) {
    const std::string path = dir_ + "/" + name;
    EXPECT_TRUE(g_file_set_contents(path.c_str(), text.c_str(), -1, nullptr)) << path;
    written_.push_back(path);
  }
  std::string dir_;
  std::vector<std::string> written_;
};

// VideoMAEVideoProcessor as transformers 5 saves it (every call argument).
const char kVideoProcessor[] = R"({
  "video_processor_type": "VideoMAEVideoProcessor", "processor_class": "VideoMAEProcessor",
  "do_convert_rgb": true, "do_resize": true, "size": {"shortest_edge": 224},
  "default_to_square": false, "resample": 2, "do_center_crop": true,
  "crop_size": {"height": 224, "width": 224}, "do_rescale": true,
  "rescale_factor": 0.00392156862745098, "do_normalize": true,
  "image_mean": [0.485, 0.456, 0.406], "image_std": [0.229, 0.224, 0.225],
  "do_pad": null, "data_format": "channels_first", "input_data_format": null,
  "device": null, "do_sample_frames": false, "video_metadata": null, "fps": null,
  "num_frames": null, "return_metadata": false, "return_tensors": null})";
const char kVideoMae[] = R"({"feature_extractor_type": "VideoMAEFeatureExtractor",
  "size": 224, "resample": 2, "image_mean": [0.485, 0.456, 0.406],
  "image_std": [0.229, 0.224, 0.225]})";

std::string clip_chain(const mc::Recipe &recipe) {
  mc::Chain chain;
  std::string error;
  EXPECT_TRUE(mc::build_chain(recipe, 1920, 1080, &chain, &error)) << error;
  return chain.launch() + " -> " + chain.shape_string();
}

TEST(ModelConfig, VideoMaeRecipeHasTheClipOfConfigJson) {
  mc::Recipe recipe;
  std::string error;
  ASSERT_TRUE(
      mc::load_recipe(fixture("MCG-NJU-videomae-base/preprocessor_config.json"), &recipe, &error))
      << error;
  EXPECT_EQ(recipe.model, "VideoMAEFeatureExtractor");
  EXPECT_EQ(recipe.size_rule, mc::SizeRule::kShortSide);
  EXPECT_EQ(recipe.short_side, 224);
  EXPECT_EQ(recipe.crop_rule, mc::CropRule::kFloor);
  EXPECT_EQ(recipe.crop_width, 224);
  EXPECT_EQ(recipe.crop_height, 224);
  EXPECT_EQ(recipe.clip_length, 16);
  EXPECT_EQ(recipe.layout, "ntchw");
}

TEST(ModelConfig, AVideoProcessorFileGivesTheSameChainAsTheLegacyOne) {
  ModelFolder legacy(kVideoMae, R"({"model_type": "videomae", "num_frames": 16})");
  ModelFolder saved(kVideoProcessor, R"({"model_type": "videomae", "num_frames": 16})");
  mc::Recipe legacy_recipe, saved_recipe;
  std::string error;
  ASSERT_TRUE(mc::load_recipe(legacy.preprocessor(), &legacy_recipe, &error)) << error;
  ASSERT_TRUE(mc::load_recipe(saved.preprocessor(), &saved_recipe, &error)) << error;
  EXPECT_EQ(saved_recipe.model, "VideoMAEVideoProcessor");
  EXPECT_EQ(clip_chain(saved_recipe), clip_chain(legacy_recipe));
}

TEST(ModelConfig, AnotherNumFramesGivesAnotherClip) {
  // A Kinetics fine-tune on 8-frame clips: config.json's num_frames 8.
  ModelFolder eight(kVideoMae, R"({"architectures": ["VideoMAEForVideoClassification"],
      "model_type": "videomae", "num_frames": 8, "tubelet_size": 2})");
  mc::Recipe recipe;
  std::string error;
  ASSERT_TRUE(mc::load_recipe(eight.preprocessor(), &recipe, &error)) << error;
  EXPECT_EQ(clip_chain(recipe), kPilBilinear + " ! " + caps(398, 224) + " ! " +
                                    crop(87, 0, 224, 224) + " ! cudanormalize " + kScale + " " +
                                    kImageNet +
                                    " ! cudatensorize clip-length=8 layout=ntchw -> 1x8x3x224x224");
  // The preprocessor config's own num_frames comes first.
  std::string with_frames = kVideoMae;
  with_frames.insert(1, R"("num_frames": 4, )");
  ModelFolder four(with_frames, R"({"num_frames": 16})");
  ASSERT_TRUE(mc::load_recipe(four.preprocessor(), &recipe, &error)) << error;
  EXPECT_EQ(recipe.clip_length, 4);
}

TEST(ModelConfig, AVideoConfigWithoutNumFramesNamesItAndBothFiles) {
  for (const char *model_config : {"", R"({"model_type": "videomae"})"}) {
    SCOPED_TRACE(model_config);
    ModelFolder folder(kVideoMae, model_config);
    mc::Recipe recipe;
    std::string error;
    EXPECT_FALSE(mc::load_recipe(folder.preprocessor(), &recipe, &error));
    EXPECT_NE(error.find("key 'num_frames'"), std::string::npos) << error;
    EXPECT_NE(error.find("neither " + folder.preprocessor() + " nor " + folder.model_config()),
              std::string::npos)
        << error;
  }
}

TEST(ModelConfig, AMissingFileIsNamed) {
  mc::Recipe recipe;
  std::string error;
  EXPECT_FALSE(mc::load_recipe("/nonexistent/preprocessor_config.json", &recipe, &error));
  EXPECT_EQ(error.rfind("/nonexistent/preprocessor_config.json: ", 0), 0u) << error;
}

// --- the cudapreprocess bin ---------------------------------------------------

namespace {

std::string string_property(GstElement *element, const char *name) {
  gchar *value = nullptr;
  g_object_get(element, name, &value, nullptr);
  std::string text = value != nullptr ? value : "";
  g_free(value);
  return text;
}

}  // namespace

TEST(CudaPreprocess, BuildsTheChainItReportsBetweenItsPads) {
  GstElement *bin = gst_element_factory_make("cudapreprocess", nullptr);
  ASSERT_NE(bin, nullptr);
  EXPECT_EQ(string_property(bin, "config-error"), "model-config is not set");
  g_object_set(bin, "model-config", fixture("facebook-dinov2-base.json").c_str(), "frame-width",
               1920, "frame-height", 1080, nullptr);
  EXPECT_EQ(string_property(bin, "config-error"), "");
  // The same chain as the parser's for this frame size (checked against the
  // hand derivation above).
  mc::Recipe recipe;
  mc::Chain chain;
  std::string error;
  ASSERT_TRUE(mc::load_recipe(fixture("facebook-dinov2-base.json"), &recipe, &error));
  ASSERT_TRUE(mc::build_chain(recipe, 1920, 1080, &chain, &error));
  EXPECT_EQ(string_property(bin, "launch-fragment"), chain.launch());
  EXPECT_EQ(string_property(bin, "tensor-shape"), "1x3x224x224");

  // Inside: the elements of the fragment, in order, with its values.
  const char *factories[] = {"cudaresize", "capsfilter", "cudacrop", "cudanormalize",
                             "cudatensorize"};
  GstPad *sink = gst_element_get_static_pad(bin, "sink");
  GstPad *target = gst_ghost_pad_get_target(GST_GHOST_PAD(sink));
  ASSERT_NE(target, nullptr);
  // Follow the ghost pads down to the first real element's pad.
  while (GST_IS_GHOST_PAD(target)) {
    GstPad *inner = gst_ghost_pad_get_target(GST_GHOST_PAD(target));
    gst_object_unref(target);
    target = inner;
    ASSERT_NE(target, nullptr);
  }
  GstElement *element = gst_pad_get_parent_element(target);
  gst_object_unref(target);
  for (const char *factory : factories) {
    ASSERT_NE(element, nullptr) << "chain ends before " << factory;
    EXPECT_STREQ(GST_OBJECT_NAME(gst_element_get_factory(element)), factory);
    if (g_str_equal(factory, "cudacrop")) {
      gint x = 0, y = 0, width = 0, height = 0;
      g_object_get(element, "x", &x, "y", &y, "width", &width, "height", &height, nullptr);
      EXPECT_EQ(x, 115);
      EXPECT_EQ(y, 16);
      EXPECT_EQ(width, 224);
      EXPECT_EQ(height, 224);
    }
    GstPad *src = gst_element_get_static_pad(element, "src");
    GstPad *peer = src != nullptr ? gst_pad_get_peer(src) : nullptr;
    gst_object_unref(element);
    element = peer != nullptr ? gst_pad_get_parent_element(peer) : nullptr;
    if (peer != nullptr) gst_object_unref(peer);
    if (src != nullptr) gst_object_unref(src);
  }
  if (element != nullptr) {  // past cudatensorize: the bin's own ghost pad's parent
    EXPECT_FALSE(GST_IS_ELEMENT(element) && gst_element_get_factory(element) != nullptr &&
                 g_str_has_prefix(GST_OBJECT_NAME(gst_element_get_factory(element)), "cuda"));
    gst_object_unref(element);
  }
  gst_object_unref(sink);
  gst_object_unref(bin);
}

TEST(CudaPreprocess, ABadConfigIsAnErrorAtStartNamingTheKey) {
  gchar *path = nullptr;
  const gint fd = g_file_open_tmp("cudapreprocess-XXXXXX.json", &path, nullptr);
  ASSERT_GE(fd, 0);
  close(fd);
  const char *text = R"({"image_processor_type": "ViTImageProcessor", "size": 224,
      "resample": 1, "image_mean": [0.5,0.5,0.5], "image_std": [0.5,0.5,0.5]})";
  ASSERT_TRUE(g_file_set_contents(path, text, -1, nullptr));
  GstElement *pipeline = gst_pipeline_new(nullptr);
  GstElement *bin = gst_element_factory_make("cudapreprocess", nullptr);
  gst_bin_add(GST_BIN(pipeline), bin);
  g_object_set(bin, "model-config", path, nullptr);
  EXPECT_NE(string_property(bin, "config-error").find("key 'resample': 1 (PIL LANCZOS)"),
            std::string::npos);
  EXPECT_EQ(string_property(bin, "launch-fragment"), "");
  EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_READY), GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(message, nullptr);
  GError *error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  EXPECT_NE(std::string(error->message).find("key 'resample'"), std::string::npos)
      << error->message;
  g_error_free(error);
  gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  g_unlink(path);
  g_free(path);
}

TEST(CudaPreprocess, RunsInAPlayingPipeline) {
  CUDAPREP_REQUIRE_GPU();
  GError *error = nullptr;
  const std::string description =
      "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=1920,height=1080 ! "
      "cudaframeupload ! cudapreprocess model-config=" +
      fixture("timm-resnet50.a1_in1k.json") +
      " frame-width=1920 frame-height=1080 ! cudatensorsink name=sink";
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_NE(pipeline, nullptr) << (error != nullptr ? error->message : "");
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  ASSERT_NE(message, nullptr) << "no EOS within 20 s";
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError *bus_error = nullptr;
    gst_message_parse_error(message, &bus_error, nullptr);
    ADD_FAILURE() << bus_error->message;
    g_error_free(bus_error);
  }
  gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}
