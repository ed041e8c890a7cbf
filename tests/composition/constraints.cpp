// constraint_error() of the differential composition test's generator
// (generator.h): what a generated pipeline must keep, checked as it
// stands and for every caps change's segment.
#include "composition/generator.h"

#include <set>
#include <stdexcept>
#include <sstream>

#include "composition/generator_internal.h"

namespace cudaprep::composition {
namespace {

using internal::fits;
using internal::is_yuv;
using internal::kInputFormats;
using internal::kResizeOutputFormats;

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
