#include "composition/generator.h"

#include <cstdio>
#include <sstream>

namespace cudaprep::composition {
namespace {

constexpr PixelFormat kInputFormats[] = {
    PixelFormat::kRGBA, PixelFormat::kBGRA, PixelFormat::kRGBx,  PixelFormat::kBGRx,
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kGRAY8, PixelFormat::kNV12,
    PixelFormat::kI420, PixelFormat::kYUY2,
};
constexpr PixelFormat kResizeOutputFormats[] = {
    PixelFormat::kRGB,  PixelFormat::kBGR,  PixelFormat::kRGBA,  PixelFormat::kBGRA,
    PixelFormat::kRGBx, PixelFormat::kBGRx, PixelFormat::kGRAY8,
};
constexpr Interpolation kMethods[] = {Interpolation::kNearest, Interpolation::kBilinear,
                                      Interpolation::kBicubic, Interpolation::kArea};
constexpr Orientation kDirections[] = {
    Orientation::kIdentity,  Orientation::kRotate90,       Orientation::kRotate180,
    Orientation::kRotate270, Orientation::kFlipHorizontal, Orientation::kFlipVertical,
    Orientation::kTranspose, Orientation::kAntiTranspose,
};
constexpr int kMultiples[] = {0, 1, 2, 4, 8, 14};

struct NamedColorimetry {
  const char *name;  // "" : none in the caps
  Colorimetry colorimetry;
};
// Numeric forms are range:matrix:transfer:primaries (GstVideoColorRange 1 =
// 0_255, GstVideoColorMatrix 3 = BT709, 4 = BT601, 6 = BT2020).
const NamedColorimetry kColorimetries[] = {
    {"", {ColorMatrix::kBT601, ColorRange::kLimited}},
    {"bt601", {ColorMatrix::kBT601, ColorRange::kLimited}},
    {"bt709", {ColorMatrix::kBT709, ColorRange::kLimited}},
    {"bt2020", {ColorMatrix::kBT2020, ColorRange::kLimited}},
    {"1:4:0:0", {ColorMatrix::kBT601, ColorRange::kFull}},
    {"1:3:0:0", {ColorMatrix::kBT709, ColorRange::kFull}},
};

bool is_yuv(PixelFormat format) {
  return format == PixelFormat::kNV12 || format == PixelFormat::kI420 ||
         format == PixelFormat::kYUY2;
}

// A value with few decimals, printed exactly by %.17g and parsed back to
// the same double by GLib.
double decimal(Rng &rng, int lo_thousandths, int hi_thousandths) {
  return rng.range(lo_thousandths, hi_thousandths) / 1000.0;
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string value_array(const double *values, int count) {
  std::string text = "\"<";
  for (int i = 0; i < count; ++i) text += (i ? "," : "") + number(values[i]);
  return text + ">\"";
}

CropStage make_crop(Rng &rng, PixelFormat format, int width, int height) {
  CropStage crop;
  crop.in_format = format;
  crop.in_width = width;
  crop.in_height = height;
  // Mostly a real crop, sometimes the whole frame (an identity region).
  if (rng.chance(10)) {
    crop.width = width;
    crop.height = height;
  } else {
    crop.x = rng.range(0, width - 1);
    crop.y = rng.range(0, height - 1);
    crop.width = rng.range(1, width - crop.x);
    crop.height = rng.range(1, height - crop.y);
  }
  crop.effective = {crop.x, crop.y, crop.width, crop.height};
  if (is_chroma_subsampled(format)) {
    crop.effective.x &= ~1;
    if (format != PixelFormat::kYUY2) crop.effective.y &= ~1;
  }
  return crop;
}

ResizeStage make_resize(Rng &rng, PixelFormat format, int width, int height) {
  ResizeStage resize;
  resize.in_format = format;
  resize.in_width = width;
  resize.in_height = height;
  resize.method = rng.pick(kMethods);
  const bool can_antialias =
      resize.method == Interpolation::kBilinear || resize.method == Interpolation::kBicubic;
  resize.antialias = can_antialias && rng.chance(40);
  if (resize.antialias && rng.chance(50)) resize.intermediate = AntialiasIntermediate::kUint8;
  resize.direction = rng.chance(30) ? Orientation::kIdentity : rng.pick(kDirections);
  resize.add_borders = rng.chance(40);
  if (resize.add_borders) {
    if (rng.chance(80)) {
      const int count = rng.range(1, 4);
      for (int i = 0; i < count; ++i) resize.pad_values.push_back(rng.range(0, 255));
    }
    resize.align_set = rng.chance(70);
    if (resize.align_set)
      resize.align = rng.chance(50) ? LetterboxAlign::kCenter : LetterboxAlign::kTopLeft;
  }
  resize.out_format = rng.pick(kResizeOutputFormats);
  const bool swapped = swaps_axes(resize.direction);
  const int turned_width = swapped ? height : width, turned_height = swapped ? width : height;
  if (rng.chance(20)) {
    // The short-side rule; a size it cannot give is not generated (never
    // at these sizes, but the rule is the judge).
    resize.short_side = rng.range(1, 48);
    resize.multiple_of = rng.pick(kMultiples);
    std::string error;
    if (short_side_multiple_size(turned_width, turned_height, resize.short_side,
                                 resize.multiple_of > 0 ? resize.multiple_of : 1, &resize.out_width,
                                 &resize.out_height, &error) &&
        resize.out_width <= 4 * kMaxSide && resize.out_height <= 4 * kMaxSide)
      return resize;
    resize.short_side = 0;
    resize.multiple_of = 0;
  }
  if (rng.chance(10)) {
    // The turned input size: a resize that only converts (and turns).
    resize.out_width = turned_width;
    resize.out_height = turned_height;
  } else {
    resize.out_width = rng.range(1, kMaxSide);
    resize.out_height = rng.range(1, kMaxSide);
  }
  return resize;
}

const char *layout_name(TensorLayout layout) {
  return layout == TensorLayout::kNCHW ? "nchw" : "nhwc";
}

const char *order_nick(ChannelOrder order) {
  switch (order) {
    case ChannelOrder::kRGB:
      return "rgb";
    case ChannelOrder::kBGR:
      return "bgr";
    case ChannelOrder::kGray:
      return "gray";
  }
  return "rgb";
}

const char *dtype_nick(DataType dtype) {
  return dtype == DataType::kFloat16 ? "float16" : "float32";
}

}  // namespace

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int Rng::range(int lo, int hi) {
  const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo) + 1;
  return lo + static_cast<int>(next() % span);
}

bool Rng::chance(int percent) {
  return range(0, 99) < percent;
}

void ResizeStage::pad_rgba(uint8_t rgba[4]) const {
  // cudaresize: 1 value grey, 2 grey + alpha, 3 R,G,B, 4 R,G,B,A; default
  // <0,0,0>; alpha 255 unless given.
  const std::vector<int> values = pad_values.empty() ? std::vector<int>{0, 0, 0} : pad_values;
  const bool grey = values.size() <= 2;
  rgba[0] = static_cast<uint8_t>(values[0]);
  rgba[1] = static_cast<uint8_t>(grey ? values[0] : values[1]);
  rgba[2] = static_cast<uint8_t>(grey ? values[0] : values[2]);
  const size_t alpha_index = grey ? 1 : 3;
  rgba[3] = values.size() > alpha_index ? static_cast<uint8_t>(values[alpha_index]) : 255;
}

NormalizeParams NormalizeStage::params() const {
  NormalizeParams params;
  params.scale = static_cast<float>(scale);
  params.channel_order = order;
  for (int c = 0; c < channel_count(order); ++c) {
    params.mean[c] = static_cast<float>(has_mean ? mean[c] : 0.0);
    params.std[c] = static_cast<float>(has_std ? std[c] : 1.0);
  }
  return params;
}

const char *event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::kGap:
      return "gap";
    case EventKind::kEqualCaps:
      return "equal-caps";
    case EventKind::kTags:
      return "tags";
  }
  return "unknown";
}

DataType Pipeline::tensor_dtype() const {
  switch (tensorize.dtype) {
    case TensorDType::kFloat32:
      return DataType::kFloat32;
    case TensorDType::kFloat16:
      return DataType::kFloat16;
    case TensorDType::kAuto:
      break;
  }
  return normalize.dtype;
}

int Pipeline::crop_count() const {
  int count = 0;
  for (const Stage &stage : stages) count += stage.kind == Stage::Kind::kCrop;
  return count;
}

const ResizeStage *Pipeline::resize() const {
  for (const Stage &stage : stages)
    if (stage.kind == Stage::Kind::kResize) return &stage.resize;
  return nullptr;
}

int Pipeline::event_count() const {
  int count = 0;
  for (const auto &after : events) count += static_cast<int>(after.size());
  return count;
}

const char *format_name(PixelFormat format) {
  return pixel_format_name(format);
}

const char *method_name(Interpolation method) {
  return interpolation_name(method);
}

// video-direction's nicks are orientation_name()'s (GstVideoOrientationMethod's).
const char *direction_name(Orientation orientation) {
  return orientation_name(orientation);
}

std::string Pipeline::input_caps() const {
  std::string caps = std::string("video/x-raw,format=") + format_name(input_format) +
                     ",width=" + std::to_string(width) + ",height=" + std::to_string(height) +
                     ",framerate=30/1";
  if (!colorimetry_name.empty()) caps += ",colorimetry=" + colorimetry_name;
  return caps;
}

std::string Pipeline::elements() const {
  std::ostringstream out;
  for (const Stage &stage : stages) {
    if (stage.kind == Stage::Kind::kCrop) {
      const CropStage &crop = stage.crop;
      out << "cudacrop region=\"<" << crop.x << "," << crop.y << "," << crop.width << ","
          << crop.height << ">\" ! ";
      continue;
    }
    const ResizeStage &resize = stage.resize;
    out << "cudaresize method=" << method_name(resize.method);
    if (resize.antialias) out << " antialias=true";
    if (resize.intermediate == AntialiasIntermediate::kUint8)
      out << " antialias-intermediate=uint8";
    if (resize.direction != Orientation::kIdentity)
      out << " video-direction=" << direction_name(resize.direction);
    if (resize.add_borders) {
      out << " add-borders=true";
      if (!resize.pad_values.empty()) {
        out << " pad-value=\"<";
        for (size_t i = 0; i < resize.pad_values.size(); ++i)
          out << (i ? "," : "") << resize.pad_values[i];
        out << ">\"";
      }
      if (resize.align_set)
        out << " letterbox-align="
            << (resize.align == LetterboxAlign::kTopLeft ? "top-left" : "center");
    }
    if (resize.short_side > 0) {
      out << " short-side=" << resize.short_side;
      if (resize.multiple_of > 0) out << " multiple-of=" << resize.multiple_of;
    }
    out << " ! video/x-raw(memory:CUDAPitched),format=" << format_name(resize.out_format);
    if (resize.short_side == 0)
      out << ",width=" << resize.out_width << ",height=" << resize.out_height;
    out << " ! ";
  }
  const NormalizeStage &n = normalize;
  out << "cudanormalize channel-order=" << order_nick(n.order) << " dtype=" << dtype_nick(n.dtype);
  if (n.has_mean) out << " mean=" << value_array(n.mean, channels());
  if (n.has_std) out << " std=" << value_array(n.std, channels());
  if (n.has_scale) out << " scale=" << number(n.scale);
  out << " ! cudatensorize name=tensorize layout=" << layout_name(tensorize.layout)
      << " batch-size=" << tensorize.batch_size;
  if (tensorize.dtype != TensorDType::kAuto)
    out << " dtype=" << (tensorize.dtype == TensorDType::kFloat16 ? "float16" : "float32");
  out << " fuse=" << (tensorize.fuse ? "true" : "false");
  return out.str();
}

std::string Pipeline::description() const {
  return "appsrc name=src format=time caps=\"" + input_caps() + "\" ! cudaframeupload ! " +
         elements() + " ! appsink name=sink sync=false max-buffers=0 emit-signals=false";
}

Pipeline generate(uint64_t seed) {
  Rng rng(seed);
  Pipeline p;
  p.seed = seed;
  p.input_format = rng.pick(kInputFormats);
  const bool subsampled = is_chroma_subsampled(p.input_format);
  if (subsampled) {
    p.width = 2 * rng.range(1, kMaxSide / 2);
    p.height = 2 * rng.range(1, kMaxSide / 2);
  } else {
    p.width = rng.range(1, kMaxSide);
    p.height = rng.range(1, kMaxSide);
  }
  if (is_yuv(p.input_format)) {
    const NamedColorimetry &named = rng.pick(kColorimetries);
    p.colorimetry_name = named.name;
    p.colorimetry = named.colorimetry;
  }

  // The stages: 0-3 crops and 0-1 resize in any order; a YUV input needs
  // the resize (cudanormalize reads 8-bit interleaved frames only).
  const int crops = rng.range(0, kMaxCrops);
  const bool with_resize = is_yuv(p.input_format) || rng.chance(60);
  const int resize_at = with_resize ? rng.range(0, crops) : -1;
  PixelFormat format = p.input_format;
  int width = p.width, height = p.height;
  for (int i = 0; i <= crops; ++i) {
    if (i == resize_at) {
      Stage stage;
      stage.kind = Stage::Kind::kResize;
      stage.resize = make_resize(rng, format, width, height);
      format = stage.resize.out_format;
      width = stage.resize.out_width;
      height = stage.resize.out_height;
      p.stages.push_back(stage);
    }
    if (i == crops) break;
    Stage stage;
    stage.kind = Stage::Kind::kCrop;
    stage.crop = make_crop(rng, format, width, height);
    width = stage.crop.effective.width;
    height = stage.crop.effective.height;
    p.stages.push_back(stage);
  }
  p.tensor_width = width;
  p.tensor_height = height;

  NormalizeStage &n = p.normalize;
  n.in_format = format;
  const int order = rng.range(0, format == PixelFormat::kGRAY8 ? 2 : 1);
  n.order = static_cast<ChannelOrder>(order);
  n.dtype = rng.chance(50) ? DataType::kFloat32 : DataType::kFloat16;
  n.has_mean = rng.chance(60);
  n.has_std = rng.chance(60);
  for (int c = 0; c < kMaxChannels; ++c) {
    n.mean[c] = n.has_mean ? decimal(rng, -500, 1000) : 0.0;
    n.std[c] = n.has_std ? decimal(rng, 50, 2000) : 1.0;
  }
  n.has_scale = rng.chance(30);
  if (n.has_scale) {
    const double scales[] = {1.0, 0.5, 1.0 / 256.0, 1.0 / 127.5, 0.01};
    n.scale = rng.pick(scales);
  }

  TensorizeStage &t = p.tensorize;
  t.layout = rng.chance(50) ? TensorLayout::kNCHW : TensorLayout::kNHWC;
  t.batch_size = rng.range(1, kMaxBatch);
  const int dtype = rng.range(0, 3);  // auto twice as often
  t.dtype = dtype == 2   ? TensorDType::kFloat32
            : dtype == 3 ? TensorDType::kFloat16
                         : TensorDType::kAuto;
  t.fuse = rng.chance(70);

  p.frame_count = rng.range(1, kMaxFrames);
  p.events.assign(p.frame_count, {});
  for (int i = 0; i < p.frame_count; ++i) {
    const int count = rng.chance(50) ? 0 : rng.range(1, 2);
    for (int e = 0; e < count; ++e) {
      Event event;
      event.kind = static_cast<EventKind>(rng.range(0, kEventKinds - 1));
      if (event.kind == EventKind::kTags)
        event.tag = rng.chance(50) ? TagKind::kTitle : TagKind::kImageOrientation;
      p.events[i].push_back(event);
    }
  }
  return p;
}

std::string constraint_error(const Pipeline &p) {
  std::ostringstream why;
  bool known_format = false;
  for (PixelFormat format : kInputFormats) known_format = known_format || format == p.input_format;
  if (!known_format) why << "input format " << format_name(p.input_format) << " not generated; ";
  if (p.width < 1 || p.height < 1 || p.width > kMaxSide || p.height > kMaxSide)
    why << "input size " << p.width << "x" << p.height << " out of range; ";
  if (is_chroma_subsampled(p.input_format) && (p.width % 2 || p.height % 2))
    why << "odd " << format_name(p.input_format) << " input; ";
  if (!is_yuv(p.input_format) && !p.colorimetry_name.empty())
    why << "colorimetry on a non-YUV input; ";
  int crops = 0, resizes = 0;
  PixelFormat format = p.input_format;
  int width = p.width, height = p.height;
  for (const Stage &stage : p.stages) {
    if (stage.kind == Stage::Kind::kCrop) {
      const CropStage &c = stage.crop;
      ++crops;
      if (c.in_format != format || c.in_width != width || c.in_height != height)
        why << "crop " << crops << " does not record the frame it receives; ";
      if (c.width < 1 || c.height < 1 || c.x < 0 || c.y < 0 ||
          static_cast<int64_t>(c.x) + c.width > width ||
          static_cast<int64_t>(c.y) + c.height > height)
        why << "crop " << crops << " <" << c.x << "," << c.y << "," << c.width << "," << c.height
            << "> does not fit " << width << "x" << height << "; ";
      PixelRect rounded{c.x, c.y, c.width, c.height};
      if (is_chroma_subsampled(format)) {
        rounded.x &= ~1;
        if (format != PixelFormat::kYUY2) rounded.y &= ~1;
      }
      if (rounded.x != c.effective.x || rounded.y != c.effective.y ||
          rounded.width != c.effective.width || rounded.height != c.effective.height)
        why << "crop " << crops << " effective rectangle is not the element's rounding; ";
      width = c.effective.width;
      height = c.effective.height;
    } else {
      const ResizeStage &r = stage.resize;
      ++resizes;
      if (r.in_format != format || r.in_width != width || r.in_height != height)
        why << "resize does not record the frame it receives; ";
      const bool can_antialias =
          r.method == Interpolation::kBilinear || r.method == Interpolation::kBicubic;
      if (r.antialias && !can_antialias) why << "antialias with " << method_name(r.method) << "; ";
      if (r.intermediate == AntialiasIntermediate::kUint8 && !r.antialias)
        why << "antialias-intermediate=uint8 without antialias; ";
      if (r.pad_values.size() > 4) why << "more than 4 pad values; ";
      for (int value : r.pad_values)
        if (value < 0 || value > 255) why << "pad value " << value << " outside 0..255; ";
      if (!r.pad_values.empty() && !r.add_borders) why << "pad-value without add-borders; ";
      bool known_output = false;
      for (PixelFormat output : kResizeOutputFormats)
        known_output = known_output || output == r.out_format;
      if (!known_output) why << "resize output " << format_name(r.out_format) << "; ";
      if (r.out_width < 1 || r.out_height < 1) why << "empty resize output; ";
      if (r.short_side > 0) {
        const bool swapped = swaps_axes(r.direction);
        int w = 0, h = 0;
        std::string error;
        if (!short_side_multiple_size(swapped ? height : width, swapped ? width : height,
                                      r.short_side, r.multiple_of > 0 ? r.multiple_of : 1, &w, &h,
                                      &error) ||
            w != r.out_width || h != r.out_height)
          why << "short-side size is not the rule's; ";
      }
      format = r.out_format;
      width = r.out_width;
      height = r.out_height;
    }
  }
  if (crops > kMaxCrops) why << crops << " crops; ";
  if (resizes > 1) why << resizes << " resizes; ";
  if (is_yuv(p.input_format) && resizes == 0) why << "YUV input without a resize; ";
  if (p.tensor_width != width || p.tensor_height != height)
    why << "tensor size " << p.tensor_width << "x" << p.tensor_height << " is not the chain's "
        << width << "x" << height << "; ";
  const NormalizeStage &n = p.normalize;
  InterleavedChannelMap map;
  if (n.in_format != format || !interleaved_channel_map(format, n.order, &map))
    why << "cudanormalize cannot give " << channel_order_name(n.order) << " from "
        << format_name(format) << "; ";
  for (int c = 0; c < p.channels(); ++c) {
    if (n.has_std && !(n.std[c] >= 0.05)) why << "std[" << c << "] too small; ";
  }
  if (!(n.scale > 0)) why << "scale " << n.scale << "; ";
  if (n.dtype != DataType::kFloat32 && n.dtype != DataType::kFloat16) why << "normalize dtype; ";
  if (p.tensorize.batch_size < 1 || p.tensorize.batch_size > kMaxBatch) why << "batch size; ";
  if (p.frame_count < 1 || p.frame_count > kMaxFrames) why << "frame count; ";
  if (static_cast<int>(p.events.size()) != p.frame_count) why << "event slots; ";
  return why.str();
}

}  // namespace cudaprep::composition
