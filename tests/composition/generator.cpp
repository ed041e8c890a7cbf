// The differential composition test's generator (generator.h): generate()
// draws a pipeline from a seed, derive() and segment() work out what a caps
// change makes of it, frame_items() and roi_in_source() its items. The
// Pipeline's own members: pipeline.cpp; constraint_error(): constraints.cpp.
#include "composition/generator.h"

#include <algorithm>
#include <stdexcept>

#include "composition/generator_internal.h"

namespace cudaprep::composition {
namespace {

using internal::is_yuv;
using internal::kInputFormats;
using internal::kResizeOutputFormats;

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

// A value with few decimals, printed exactly by %.17g and parsed back to
// the same double by GLib.
double decimal(Rng &rng, int lo_thousandths, int hi_thousandths) {
  return rng.range(lo_thousandths, hi_thousandths) / 1000.0;
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
}  // namespace cudaprep::composition
