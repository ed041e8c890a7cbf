#include "composition/generator.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
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

// x (and y, except YUY2) rounded down to even where `format`'s chroma is
// subsampled, the size kept: cudacrop's and cudabatch's rounding.
PixelRect chroma_aligned(PixelRect rect, PixelFormat format) {
  if (is_chroma_subsampled(format)) {
    rect.x &= ~1;
    if (format != PixelFormat::kYUY2) rect.y &= ~1;
  }
  return rect;
}

// Whether `rect` (as given) lies inside a width x height frame.
bool fits(const PixelRect &rect, int width, int height) {
  return rect.x >= 0 && rect.y >= 0 && rect.width >= 1 && rect.height >= 1 &&
         static_cast<int64_t>(rect.x) + rect.width <= width &&
         static_cast<int64_t>(rect.y) + rect.height <= height;
}

// `rect` intersected with [0, width) x [0, height) after moving the origin to
// (dx, dy); false when nothing is left.
bool clip(int64_t x, int64_t y, int64_t w, int64_t h, int64_t dx, int64_t dy, int width, int height,
          PixelRect *out) {
  const int64_t left = std::max<int64_t>(x - dx, 0), top = std::max<int64_t>(y - dy, 0);
  const int64_t right = std::min<int64_t>(x + w - dx, width);
  const int64_t bottom = std::min<int64_t>(y + h - dy, height);
  if (right <= left || bottom <= top) return false;
  *out = PixelRect{static_cast<int>(left), static_cast<int>(top), static_cast<int>(right - left),
                   static_cast<int>(bottom - top)};
  return true;
}

// A crop's region (derive_stage() fills in the rest).
CropStage make_crop(Rng &rng, int width, int height) {
  CropStage crop;
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
  return crop;
}

// Fills in what `stage` receives (format, width, height) and what it makes
// of it, and moves the three on to its output; false (why) where the
// short-side rule refuses the size.
bool derive_stage(Stage *stage, PixelFormat *format, int *width, int *height, std::string *why) {
  if (stage->kind == Stage::Kind::kCrop) {
    CropStage &crop = stage->crop;
    crop.in_format = *format;
    crop.in_width = *width;
    crop.in_height = *height;
    crop.effective = chroma_aligned({crop.x, crop.y, crop.width, crop.height}, *format);
    *width = crop.effective.width;
    *height = crop.effective.height;
    return true;
  }
  ResizeStage &resize = stage->resize;
  resize.in_format = *format;
  resize.in_width = *width;
  resize.in_height = *height;
  const bool swapped = swaps_axes(resize.direction);
  if (resize.short_side > 0) {
    if (!short_side_multiple_size(swapped ? *height : *width, swapped ? *width : *height,
                                  resize.short_side,
                                  resize.multiple_of > 0 ? resize.multiple_of : 1,
                                  &resize.out_width, &resize.out_height, why))
      return false;
  } else if (resize.size_open) {
    resize.out_width = swapped ? *height : *width;
    resize.out_height = swapped ? *width : *height;
  }
  *format = resize.out_format;
  *width = resize.out_width;
  *height = resize.out_height;
  return true;
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
    // A size left open: a resize that only converts (and turns), keeping
    // the turned input size.
    resize.size_open = true;
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
    case EventKind::kCapsChange:
      return "caps-change";
    case EventKind::kFlush:
      return "flush";
  }
  return "unknown";
}

const char *region_source_nick(RegionSource source) {
  switch (source) {
    case RegionSource::kFrame:
      return "frame";
    case RegionSource::kRegions:
      return "regions";
    case RegionSource::kRoiMeta:
      return "roi-meta";
  }
  return "unknown";
}

DataType Pipeline::tensor_dtype() const {
  // cudabatch has no dtype of its own: the planar frames'.
  if (terminal == Terminal::kBatch) return normalize.dtype;
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

int Pipeline::batch_size() const {
  return terminal == Terminal::kBatch ? batch.batch_size : tensorize.batch_size;
}

TensorLayout Pipeline::layout() const {
  return terminal == Terminal::kBatch ? batch.layout : tensorize.layout;
}

bool Pipeline::resize_pending() const {
  const ResizeStage *r = resize();
  // cudaresize passes frames through between equal caps unless it turns them.
  return r != nullptr && !(r->in_format == r->out_format && r->in_width == r->out_width &&
                           r->in_height == r->out_height && r->direction == Orientation::kIdentity);
}

int Pipeline::item_count() const {
  int count = 0;
  for (int frame = 0; frame < frame_count; ++frame)
    count += static_cast<int>(frame_items(*this, frame).size());
  return count;
}

Batching batching(const Pipeline &p) {
  Batching out;
  std::vector<ItemRef> filling;
  const auto leave = [&]() {
    if (!filling.empty()) out.tensors.push_back(filling);
    filling.clear();
  };
  for (int frame = 0; frame < p.frame_count; ++frame) {
    // New caps with another tensor push the batch begun under the old ones.
    if (frame > 0) {
      const Pipeline before = segment(p, frame - 1), now = segment(p, frame);
      if (before.tensor_width != now.tensor_width || before.tensor_height != now.tensor_height)
        leave();
    }
    const int items = static_cast<int>(frame_items(p, frame).size());
    for (int index = 0; index < items; ++index) {
      filling.push_back(ItemRef{frame, index});
      if (static_cast<int>(filling.size()) == p.batch_size()) leave();
    }
    for (const Event &event : p.events[frame]) {
      if (event.kind != EventKind::kFlush) continue;
      out.tensors_before_flush.push_back(static_cast<int>(out.tensors.size()));
      out.flushed.insert(out.flushed.end(), filling.begin(), filling.end());
      filling.clear();
    }
  }
  leave();  // EOS
  return out;
}

int Pipeline::tensor_count() const {
  return static_cast<int>(batching(*this).tensors.size());
}

bool Pipeline::has_flush() const {
  for (const auto &after : events)
    for (const Event &event : after)
      if (event.kind == EventKind::kFlush) return true;
  return false;
}

InputCaps Pipeline::input() const {
  return InputCaps{input_format, width, height, colorimetry_name, colorimetry};
}

void Pipeline::set_input(const InputCaps &caps) {
  input_format = caps.format;
  width = caps.width;
  height = caps.height;
  colorimetry_name = caps.colorimetry_name;
  colorimetry = caps.colorimetry;
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
      if (crop.copied) out << "cudaframedownload ! cudaframeupload ! ";
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
    if (resize.short_side == 0 && !resize.size_open)
      out << ",width=" << resize.out_width << ",height=" << resize.out_height;
    out << " ! ";
  }
  const NormalizeStage &n = normalize;
  out << "cudanormalize channel-order=" << order_nick(n.order) << " dtype=" << dtype_nick(n.dtype);
  if (n.has_mean) out << " mean=" << value_array(n.mean, channels());
  if (n.has_std) out << " std=" << value_array(n.std, channels());
  if (n.has_scale) out << " scale=" << number(n.scale);
  return out.str();
}

std::string Pipeline::terminal_element() const {
  std::ostringstream out;
  if (terminal == Terminal::kTensorize) {
    out << "cudatensorize name=tensorize layout=" << layout_name(tensorize.layout)
        << " batch-size=" << tensorize.batch_size;
    if (tensorize.dtype != TensorDType::kAuto)
      out << " dtype=" << (tensorize.dtype == TensorDType::kFloat16 ? "float16" : "float32");
    out << " fuse=" << (tensorize.fuse ? "true" : "false");
    return out.str();
  }
  out << "cudabatch name=b batch-size=" << batch.batch_size;
  if (batch.layout_set) out << " layout=" << layout_name(batch.layout);
  out << " sink_0::region-source=" << region_source_nick(batch.source);
  if (!batch.regions.empty()) {
    out << " sink_0::regions=\"<";
    for (size_t i = 0; i < batch.regions.size(); ++i) {
      const PixelRect &r = batch.regions[i];
      out << (i ? "," : "") << "<" << r.x << "," << r.y << "," << r.width << "," << r.height << ">";
    }
    out << ">\"";
  }
  if (!batch.roi_type.empty()) out << " sink_0::roi-type=" << batch.roi_type;
  return out.str();
}

std::string Pipeline::description() const {
  // A flushing seek needs a seekable appsrc.
  const std::string source = "appsrc name=src format=time" +
                             std::string(has_flush() ? " stream-type=seekable" : "") + " caps=\"" +
                             input_caps() + "\" ! cudaframeupload ! " + elements();
  const std::string sink = "appsink name=sink sync=false max-buffers=0 emit-signals=false";
  if (terminal == Terminal::kTensorize) return source + " ! " + terminal_element() + " ! " + sink;
  // cudabatch first: its sink_0:: properties wait for the pad the link
  // requests.
  return terminal_element() + " ! " + sink + "  " + source + " ! b.sink_0";
}

Pipeline generate(uint64_t seed) {
  Rng rng(seed);
  // The terminal and its regions from a generator of their own, so that the
  // cudatensorize seeds keep the pipelines they had before cudabatch.
  Rng batch_rng(seed ^ 0x6261746368000000ull);
  // The caps changes, too.
  Rng caps_rng(seed ^ 0x6361707300000000ull);
  // And the flushes.
  Rng flush_rng(seed ^ 0x666c757368000000ull);
  // And which crops are copies.
  Rng copy_rng(seed ^ 0x636f707900000000ull);
  Pipeline p;
  p.seed = seed;
  if (batch_rng.chance(33)) {
    p.terminal = Terminal::kBatch;
    p.batch.source = static_cast<RegionSource>(batch_rng.range(0, 2));
  }
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
  int resize_at = with_resize ? rng.range(0, crops) : -1;
  // Regions need the resize pending: right before cudanormalize.
  if (with_resize && p.region_source() != RegionSource::kFrame) resize_at = crops;
  // Each stage drawn for the frame it receives (derived as derive() does).
  PixelFormat format = p.input_format;
  int width = p.width, height = p.height;
  std::string never;  // make_resize() keeps to sizes the rule gives
  for (int i = 0; i <= crops; ++i) {
    if (i == resize_at) {
      Stage stage;
      stage.kind = Stage::Kind::kResize;
      stage.resize = make_resize(rng, format, width, height);
      derive_stage(&stage, &format, &width, &height, &never);
      p.stages.push_back(stage);
    }
    if (i == crops) break;
    Stage stage;
    stage.kind = Stage::Kind::kCrop;
    stage.crop = make_crop(rng, width, height);
    derive_stage(&stage, &format, &width, &height, &never);
    p.stages.push_back(stage);
  }
  derive(&p, &never);
  for (Stage &stage : p.stages)
    if (stage.kind == Stage::Kind::kCrop && p.region_source() != RegionSource::kRoiMeta)
      stage.crop.copied = copy_rng.chance(25);

  NormalizeStage &n = p.normalize;
  n.in_format = format;
  const int order = rng.range(0, format == PixelFormat::kGRAY8 ? 2 : 1);
  n.order = static_cast<ChannelOrder>(order);
  // Regions need cudanormalize's work pending, which it leaves only when it
  // does not expand GRAY8 to three channels.
  if (p.region_source() != RegionSource::kFrame && format == PixelFormat::kGRAY8)
    n.order = ChannelOrder::kGray;
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

  if (p.terminal == Terminal::kBatch) {
    BatchStage &b = p.batch;
    b.batch_size = batch_rng.range(1, kMaxBatch);
    b.layout_set = batch_rng.chance(70);
    if (b.layout_set) b.layout = batch_rng.chance(50) ? TensorLayout::kNCHW : TensorLayout::kNHWC;
    if (b.source == RegionSource::kRegions) {
      const int count = batch_rng.range(1, kMaxRegions);
      for (int i = 0; i < count; ++i) {
        PixelRect r{0, 0, p.source_width, p.source_height};
        if (!batch_rng.chance(10)) {
          r.x = batch_rng.range(0, p.source_width - 1);
          r.y = batch_rng.range(0, p.source_height - 1);
          r.width = batch_rng.range(1, p.source_width - r.x);
          r.height = batch_rng.range(1, p.source_height - r.y);
        }
        b.regions.push_back(r);
      }
    } else if (b.source == RegionSource::kRoiMeta) {
      if (batch_rng.chance(30)) b.roi_type = "face";
      p.rois.assign(p.frame_count, {});  // filled below, for each frame's caps
    }
  }

  // Caps changes, each growing the input of the segment before it.
  if (p.frame_count >= 2 && caps_rng.chance(25)) {
    std::vector<int> slots(caps_rng.range(1, 2));
    for (int &slot : slots) slot = caps_rng.range(0, p.frame_count - 2);
    std::sort(slots.begin(), slots.end());
    InputCaps current = p.input();
    for (int slot : slots) {
      // A few draws; a draw whose segment breaks a constraint (a crop after
      // a short-side resize no longer fitting) is not taken.
      for (int attempt = 0; attempt < 8; ++attempt) {
        Event event;
        event.kind = EventKind::kCapsChange;
        InputCaps &next = event.caps;
        next = current;
        if (p.resize() != nullptr && caps_rng.chance(40))
          next.format = caps_rng.pick(kInputFormats);
        if (is_yuv(next.format)) {
          if (next.format != current.format || caps_rng.chance(30)) {
            const NamedColorimetry &named = caps_rng.pick(kColorimetries);
            next.colorimetry_name = named.name;
            next.colorimetry = named.colorimetry;
          }
        } else {
          next.colorimetry_name.clear();
          next.colorimetry = Colorimetry();
        }
        next.width = caps_rng.range(current.width, kMaxSide);
        next.height = caps_rng.range(current.height, kMaxSide);
        if (is_chroma_subsampled(next.format)) {
          next.width += next.width % 2;
          next.height += next.height % 2;
        }
        if (next.format == current.format && next.width == current.width &&
            next.height == current.height && next.colorimetry_name == current.colorimetry_name)
          continue;
        std::vector<Event> &after = p.events[slot];
        const auto at = after.begin() + caps_rng.range(0, static_cast<int>(after.size()));
        const auto inserted = after.insert(at, event);
        if (constraint_error(p).empty()) {
          current = next;
          break;
        }
        after.erase(inserted);
      }
    }
  }

  // Flushes, each first after its frame.
  if (p.frame_count >= 2 && flush_rng.chance(20)) {
    const int flushes = flush_rng.range(1, kMaxFlushes);
    for (int i = 0; i < flushes; ++i) {
      std::vector<Event> &after = p.events[flush_rng.range(0, p.frame_count - 1)];
      if (!after.empty() && after.front().kind == EventKind::kFlush) continue;
      Event flush;
      flush.kind = EventKind::kFlush;
      after.insert(after.begin(), flush);
    }
  }

  // Regions of interest, in the pixels of each frame's caps.
  if (p.region_source() == RegionSource::kRoiMeta) {
    for (int frame = 0; frame < p.frame_count; ++frame) {
      // In the pixels of the frame's own caps.
      const Pipeline s = segment(p, frame);
      // Where the source frame lies in the input: the crops' offsets.
      int origin_x = 0, origin_y = 0;
      for (const Stage &stage : s.stages) {
        if (stage.kind != Stage::Kind::kCrop) break;
        origin_x += stage.crop.effective.x;
        origin_y += stage.crop.effective.y;
      }
      auto &rois = p.rois[frame];
      const int count = batch_rng.range(0, kMaxRois);
      for (int k = 0; k < count; ++k) {
        RegionOfInterest roi;
        roi.id = k;
        roi.type = batch_rng.chance(50) ? "face" : "object";
        if (batch_rng.chance(50)) {
          // Inside the part of the input the crops keep (in input pixels),
          // some reaching past it.
          roi.x = origin_x + batch_rng.range(0, s.source_width - 1);
          roi.y = origin_y + batch_rng.range(0, s.source_height - 1);
          roi.width = batch_rng.range(1, s.source_width);
          roi.height = batch_rng.range(1, s.source_height);
        } else {
          // Anywhere, up to 3 pixels past the frame (wholly outside), sides
          // up to the frame's (some reaching past the edge).
          roi.x = batch_rng.range(0, s.width + 3);
          roi.y = batch_rng.range(0, s.height + 3);
          roi.width = batch_rng.range(1, s.width);
          roi.height = batch_rng.range(1, s.height);
        }
        rois.push_back(roi);
      }
    }
  }
  return p;
}

bool derive(Pipeline *p, std::string *why) {
  PixelFormat format = p->input_format;
  int width = p->width, height = p->height;
  bool resized = false;
  for (Stage &stage : p->stages) {
    if (stage.kind == Stage::Kind::kResize && !resized) {
      resized = true;
      p->source_format = format;
      p->source_width = width;
      p->source_height = height;
    }
    if (!derive_stage(&stage, &format, &width, &height, why)) return false;
  }
  if (!resized) {
    p->source_format = format;
    p->source_width = width;
    p->source_height = height;
  }
  p->tensor_width = width;
  p->tensor_height = height;
  p->normalize.in_format = format;
  return true;
}

Pipeline segment(const Pipeline &p, int frame) {
  Pipeline s = p;
  bool changed = false;
  for (int i = 0; i < frame && i < static_cast<int>(p.events.size()); ++i)
    for (const Event &event : p.events[i])
      if (event.kind == EventKind::kCapsChange) {
        s.set_input(event.caps);
        changed = true;
      }
  std::string why;
  if (changed && !derive(&s, &why))
    throw std::invalid_argument("segment of frame " + std::to_string(frame) + ": " + why);
  return s;
}

bool roi_in_source(const Pipeline &p, const RegionOfInterest &roi, PixelRect *rect) {
  int64_t x = roi.x, y = roi.y, w = roi.width, h = roi.height;
  for (const Stage &stage : p.stages) {
    // A pending resize moves only the geometry; the regions stay in the
    // pixels of the frame it receives (and one in passthrough moves nothing).
    if (stage.kind != Stage::Kind::kCrop) break;
    const PixelRect &c = stage.crop.effective;
    PixelRect clipped;
    if (!clip(x, y, w, h, c.x, c.y, c.width, c.height, &clipped)) return false;
    x = clipped.x;
    y = clipped.y;
    w = clipped.width;
    h = clipped.height;
  }
  return clip(x, y, w, h, 0, 0, p.source_width, p.source_height, rect);
}

std::vector<ItemSpec> frame_items(const Pipeline &p, int frame) {
  std::vector<ItemSpec> items;
  if (p.region_source() == RegionSource::kFrame) {
    items.push_back(ItemSpec{});
    return items;
  }
  // The frame's own caps: its source frame and format.
  const Pipeline s = segment(p, frame);
  if (p.region_source() == RegionSource::kRegions) {
    for (size_t i = 0; i < s.batch.regions.size(); ++i)
      items.push_back(ItemSpec{false, chroma_aligned(s.batch.regions[i], s.source_format),
                               static_cast<int>(i)});
    return items;
  }
  if (frame < 0 || frame >= static_cast<int>(s.rois.size())) return items;
  for (const RegionOfInterest &roi : s.rois[frame]) {
    PixelRect rect;
    if (!s.batch.roi_type.empty() && roi.type != s.batch.roi_type) continue;
    if (!roi_in_source(s, roi, &rect)) continue;
    items.push_back(ItemSpec{false, chroma_aligned(rect, s.source_format), roi.id});
  }
  return items;
}

namespace {

// Why the pipeline as it stands for one input (a segment) breaks a
// constraint, or "".
std::string segment_error(const Pipeline &p) {
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
  PixelFormat source_format = format;
  int source_width = 0, source_height = 0;
  bool crop_after_resize = false;
  for (const Stage &stage : p.stages) {
    if (stage.kind == Stage::Kind::kCrop) {
      const CropStage &c = stage.crop;
      ++crops;
      crop_after_resize = crop_after_resize || resizes > 0;
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
      source_format = format;
      source_width = width;
      source_height = height;
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
      if (r.out_width > 4 * kMaxSide || r.out_height > 4 * kMaxSide)
        why << "resize output " << r.out_width << "x" << r.out_height << " over " << 4 * kMaxSide
            << " a side; ";
      const bool swapped = swaps_axes(r.direction);
      if (r.short_side > 0) {
        int w = 0, h = 0;
        std::string error;
        if (!short_side_multiple_size(swapped ? height : width, swapped ? width : height,
                                      r.short_side, r.multiple_of > 0 ? r.multiple_of : 1, &w, &h,
                                      &error) ||
            w != r.out_width || h != r.out_height)
          why << "short-side size is not the rule's; ";
      }
      if (r.size_open && (r.short_side > 0 || r.out_width != (swapped ? height : width) ||
                          r.out_height != (swapped ? width : height)))
        why << "an open size is not the turned input's; ";
      format = r.out_format;
      width = r.out_width;
      height = r.out_height;
    }
  }
  if (crops > kMaxCrops) why << crops << " crops; ";
  if (resizes > 1) why << resizes << " resizes; ";
  if (is_yuv(p.input_format) && resizes == 0) why << "YUV input without a resize; ";
  if (resizes == 0) {
    source_format = format;
    source_width = width;
    source_height = height;
  }
  if (p.source_format != source_format || p.source_width != source_width ||
      p.source_height != source_height)
    why << "source frame " << p.source_width << "x" << p.source_height << " "
        << format_name(p.source_format) << " is not what the chain's cudaresize receives; ";
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

  for (const Stage &stage : p.stages) {
    if (stage.kind == Stage::Kind::kResize && stage.crop.copied)
      why << "a cudaresize marked as a copied crop; ";
    else if (stage.crop.copied && p.region_source() == RegionSource::kRoiMeta)
      why << "a copied crop with region-source=roi-meta; ";
  }

  // cudabatch and its regions.
  const BatchStage &b = p.batch;
  const bool batch = p.terminal == Terminal::kBatch;
  if (batch && (b.batch_size < 1 || b.batch_size > kMaxBatch)) why << "cudabatch batch size; ";
  if (!batch && (b.source != RegionSource::kFrame || b.layout_set))
    why << "cudabatch settings without cudabatch; ";
  if (p.region_source() != RegionSource::kFrame && crop_after_resize)
    why << "region-source=" << region_source_nick(b.source)
        << " with a crop after the cudaresize: the resize cannot stay pending; ";
  if (p.region_source() != RegionSource::kFrame && p.normalize.in_format == PixelFormat::kGRAY8 &&
      p.normalize.order != ChannelOrder::kGray)
    why << "region-source=" << region_source_nick(b.source)
        << " behind a cudanormalize that expands GRAY8 to three channels: it runs its own "
           "kernel, so the frame reaches cudabatch normalised; ";
  if (b.source == RegionSource::kRegions) {
    if (b.regions.empty() || static_cast<int>(b.regions.size()) > kMaxRegions)
      why << b.regions.size() << " static regions; ";
  } else if (!b.regions.empty()) {
    why << "static regions without region-source=regions; ";
  }
  for (size_t i = 0; i < b.regions.size(); ++i)
    if (!fits(b.regions[i], source_width, source_height))
      why << "region " << i << " does not fit the " << source_width << "x" << source_height
          << " source frame; ";
  if (!b.roi_type.empty() && (b.source != RegionSource::kRoiMeta || b.roi_type != "face"))
    why << "roi-type " << b.roi_type << " without region-source=roi-meta or not generated; ";
  if (b.source == RegionSource::kRoiMeta) {
    if (static_cast<int>(p.rois.size()) != p.frame_count) why << "region of interest slots; ";
  } else if (!p.rois.empty()) {
    why << "regions of interest without region-source=roi-meta; ";
  }
  for (const auto &rois : p.rois) {
    if (static_cast<int>(rois.size()) > kMaxRois) why << rois.size() << " regions of interest; ";
    std::set<int> ids;
    for (const RegionOfInterest &roi : rois) {
      if (!ids.insert(roi.id).second) why << "region of interest id " << roi.id << " twice; ";
      if (roi.x < 0 || roi.y < 0 || roi.width < 1 || roi.height < 1)
        why << "region of interest " << roi.id << " is not a rectangle; ";
      if (roi.type != "face" && roi.type != "object")
        why << "region of interest type " << roi.type << "; ";
    }
  }
  return why.str();
}

}  // namespace

std::string constraint_error(const Pipeline &p) {
  std::ostringstream why;
  why << segment_error(p);
  // Each caps change: a grown input the chain can take, and the segment
  // after it keeps every constraint.
  InputCaps current = p.input();
  int flushes = 0;
  for (int i = 0; i < static_cast<int>(p.events.size()); ++i) {
    for (size_t e = 0; e < p.events[i].size(); ++e) {
      if (p.events[i][e].kind != EventKind::kFlush) continue;
      ++flushes;
      if (e > 0) why << "a flush after frame " << i << " is not the first event there; ";
    }
  }
  if (flushes > kMaxFlushes) why << flushes << " flushes; ";
  for (int i = 0; i < static_cast<int>(p.events.size()); ++i) {
    for (const Event &event : p.events[i]) {
      if (event.kind != EventKind::kCapsChange) continue;
      const InputCaps &next = event.caps;
      const std::string at = "caps change after frame " + std::to_string(i) + ": ";
      if (i >= p.frame_count - 1) why << at << "no frame follows; ";
      if (next.width < current.width || next.height < current.height)
        why << at << "the input shrinks from " << current.width << "x" << current.height << " to "
            << next.width << "x" << next.height << "; ";
      if (next.format != current.format && p.resize() == nullptr)
        why << at << "a new format without a cudaresize to convert it; ";
      if (next.format == current.format && next.width == current.width &&
          next.height == current.height && next.colorimetry_name == current.colorimetry_name)
        why << at << "the caps do not change; ";
      current = next;
    }
  }
  for (int frame = 1; frame < p.frame_count && frame <= static_cast<int>(p.events.size());
       ++frame) {
    bool changed = false;
    for (const Event &event : p.events[frame - 1])
      changed = changed || event.kind == EventKind::kCapsChange;
    if (!changed) continue;
    std::string segment_why;
    try {
      segment_why = segment_error(segment(p, frame));
    } catch (const std::invalid_argument &error) {
      segment_why = error.what();
    }
    if (!segment_why.empty()) why << "frame " << frame << "'s caps: " << segment_why;
  }
  return why.str();
}

}  // namespace cudaprep::composition
