// The generated Pipeline's members (its queries, its batching and its
// gst-launch description) and the names it prints, for the differential
// composition test (generator.h).
#include "composition/generator.h"

#include <cstdio>
#include <sstream>

namespace cudaprep::composition {
namespace {

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
}  // namespace cudaprep::composition
