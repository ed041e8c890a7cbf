#include "composition/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "reference/resize_ref.h"

namespace cudaprep::composition {
namespace {

// The resize's kernel parameters, as cudaresize derives them from its
// properties and the negotiated frames.
ResizeParams resize_params(const Pipeline &pipeline, const ResizeStage &resize) {
  ResizeParams params;
  params.interpolation = resize.method;
  params.antialias = resize.antialias;
  params.antialias_intermediate = resize.intermediate;
  params.orientation = resize.direction;
  params.source_colorimetry = pipeline.colorimetry;
  resize.pad_rgba(params.pad_value);
  params.dst_rect = PixelRect{0, 0, resize.out_width, resize.out_height};
  if (resize.add_borders) {
    const bool swapped = swaps_axes(resize.direction);
    LetterboxOptions options;
    options.align = resize.align;
    std::string error;
    if (!letterbox_rect(swapped ? resize.in_height : resize.in_width,
                        swapped ? resize.in_width : resize.in_height, resize.out_width,
                        resize.out_height, options, &params.dst_rect, &error))
      throw std::invalid_argument("letterbox_rect: " + error);
  }
  return params;
}

std::vector<uint8_t> crop_mask(const std::vector<uint8_t> &mask, int width, const PixelRect &rect) {
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(rect.width) * rect.height);
  for (int y = rect.y; y < rect.y + rect.height; ++y)
    for (int x = rect.x; x < rect.x + rect.width; ++x)
      out.push_back(mask[static_cast<size_t>(y) * width + x]);
  return out;
}

// Whether the chain rounds its values to binary16 on the way: cudanormalize
// emits float16, or the tensor is float16.
bool passes_through_half(const Pipeline &pipeline) {
  return pipeline.normalize.dtype == DataType::kFloat16 ||
         pipeline.tensor_dtype() == DataType::kFloat16;
}

// The distance between binary16 values near `value` (subnormal spacing
// below 2^-14).
double half_spacing(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude < std::ldexp(1.0, -14)) return std::ldexp(1.0, -24);
  return std::ldexp(1.0, std::ilogb(magnitude) - 10);
}

}  // namespace

ref::HostFrame crop_frame(const ref::HostFrame &frame, const PixelRect &rect) {
  if (rect.x < 0 || rect.y < 0 || rect.width < 1 || rect.height < 1 ||
      rect.x + rect.width > frame.width || rect.y + rect.height > frame.height)
    throw std::invalid_argument("crop_frame: the rectangle is not inside the frame");
  ref::HostFrame out(frame.format, rect.width, rect.height);
  const FormatInfo info = format_info(frame.format);
  for (int plane = 0; plane < info.num_planes; ++plane) {
    const PlaneLayout &layout = info.planes[plane];
    if (rect.x % layout.pixels_per_unit != 0 || rect.y % layout.height_divisor != 0)
      throw std::invalid_argument("crop_frame: an offset splits a chroma block");
    const size_t first_byte =
        static_cast<size_t>(rect.x / layout.pixels_per_unit) * layout.unit_bytes;
    const size_t row_bytes = plane_row_bytes(frame.format, plane, rect.width);
    const int first_row = rect.y / layout.height_divisor;
    for (int row = 0; row < plane_height(frame.format, plane, rect.height); ++row)
      std::memcpy(out.row(plane, row), frame.row(plane, first_row + row) + first_byte, row_bytes);
  }
  return out;
}

ref::HostFrame chain_frame(const Pipeline &pipeline, const ref::HostFrame &input,
                           std::vector<uint8_t> *resampled) {
  if (input.format != pipeline.input_format || input.width != pipeline.width ||
      input.height != pipeline.height)
    throw std::invalid_argument("chain_frame: the input is not the pipeline's");
  ref::HostFrame frame = input;
  std::vector<uint8_t> mask(static_cast<size_t>(frame.width) * frame.height, 0);
  for (const Stage &stage : pipeline.stages) {
    if (stage.kind == Stage::Kind::kCrop) {
      mask = crop_mask(mask, frame.width, stage.crop.effective);
      frame = crop_frame(frame, stage.crop.effective);
      continue;
    }
    const ResizeStage &resize = stage.resize;
    const ResizeParams params = resize_params(pipeline, resize);
    std::vector<uint8_t> tie_steps;
    frame = ref::resize_reference(frame, resize.out_format, resize.out_width, resize.out_height,
                                  params, &tie_steps);
    const PixelRect &rect = params.dst_rect;
    mask.assign(static_cast<size_t>(resize.out_width) * resize.out_height, 0);
    for (int y = rect.y; y < rect.y + rect.height; ++y) {
      for (int x = rect.x; x < rect.x + rect.width; ++x) {
        const size_t pixel = static_cast<size_t>(y) * resize.out_width + x;
        mask[pixel] = static_cast<uint8_t>(1 + tie_steps[pixel]);
      }
    }
  }
  if (resampled != nullptr) *resampled = std::move(mask);
  return frame;
}

ItemReference item_reference(const Pipeline &pipeline, const ref::HostFrame &input) {
  ItemReference item;
  const ref::HostFrame frame = chain_frame(pipeline, input, &item.resampled);
  reference::HostImage image;
  image.format = frame.format;
  image.width = frame.width;
  image.height = frame.height;
  image.pitch_bytes = frame.pitch_bytes[0];
  image.bytes = frame.planes[0];
  item.chw = reference::normalize(image, pipeline.normalize.params());
  // The planar frame between the elements holds binary16 values when
  // cudanormalize emits float16; a float16 tensor holds them rounded once
  // more (tensorize's own conversion, a no-op on binary16 values).
  if (passes_through_half(pipeline))
    for (float &value : item.chw) value = reference::round_to_half(value);
  item.channels = pipeline.channels();
  item.height = frame.height;
  item.width = frame.width;
  item.geometry = expected_geometry(pipeline);
  return item;
}

Pipeline item_pipeline(const Pipeline &pipeline, const ItemSpec &item) {
  if (item.whole_frame) return pipeline;
  if (pipeline.region_source() == RegionSource::kFrame)
    throw std::invalid_argument("item_pipeline: a region item of a whole-frame pipeline");
  Pipeline derived = pipeline;
  derived.stages.clear();
  for (const Stage &stage : pipeline.stages) {
    if (stage.kind != Stage::Kind::kCrop) break;
    derived.stages.push_back(stage);
  }
  Stage crop;
  crop.crop.x = item.rect.x;
  crop.crop.y = item.rect.y;
  crop.crop.width = item.rect.width;
  crop.crop.height = item.rect.height;
  crop.crop.effective = item.rect;
  crop.crop.in_format = pipeline.source_format;
  crop.crop.in_width = pipeline.source_width;
  crop.crop.in_height = pipeline.source_height;
  derived.stages.push_back(crop);
  Stage resize;
  resize.kind = Stage::Kind::kResize;
  if (pipeline.resize_pending()) {
    resize.resize = *pipeline.resize();
  } else {
    // cudanormalize's pending ResizeParams(): bilinear, no turn, no borders.
    resize.resize.out_format = pipeline.source_format;
    resize.resize.out_width = pipeline.tensor_width;
    resize.resize.out_height = pipeline.tensor_height;
  }
  resize.resize.in_format = pipeline.source_format;
  resize.resize.in_width = item.rect.width;
  resize.resize.in_height = item.rect.height;
  // cudabatch resizes every region to the tensor's frame, whatever rule or
  // fixation gave that size.
  resize.resize.short_side = 0;
  resize.resize.multiple_of = 0;
  resize.resize.size_open = false;
  derived.stages.push_back(resize);
  derived.source_width = item.rect.width;
  derived.source_height = item.rect.height;
  return derived;
}

ItemReference item_reference(const Pipeline &pipeline, const ref::HostFrame &input,
                             const ItemSpec &item) {
  return item_reference(item_pipeline(pipeline, item), input);
}

FrameGeometry expected_geometry(const Pipeline &pipeline) {
  FrameGeometry geometry;
  for (const Stage &stage : pipeline.stages) {
    FrameGeometry step;
    if (stage.kind == Stage::Kind::kCrop) {
      step.crop_x = stage.crop.effective.x;
      step.crop_y = stage.crop.effective.y;
    } else {
      const ResizeStage &resize = stage.resize;
      step = resize_frame_geometry(resize.in_width, resize.in_height,
                                   resize_params(pipeline, resize).dst_rect, resize.direction);
    }
    geometry = geometry.then(step);
  }
  return geometry;
}

TensorDesc tensor_desc(const Pipeline &pipeline) {
  return make_contiguous_tensor_desc(pipeline.layout(), pipeline.batch_size(), pipeline.channels(),
                                     pipeline.tensor_height, pipeline.tensor_width,
                                     pipeline.tensor_dtype());
}

std::vector<uint8_t> expected_tensor(const Pipeline &pipeline,
                                     const std::vector<const ItemReference *> &items) {
  const TensorDesc desc = tensor_desc(pipeline);
  std::vector<uint8_t> bytes(tensor_span_bytes(desc), 0);
  for (size_t n = 0; n < items.size(); ++n)
    reference::tensorize(items[n]->chw, items[n]->channels, items[n]->height, items[n]->width, desc,
                         static_cast<int>(n), &bytes);
  return bytes;
}

float tensor_value(const TensorDesc &desc, const std::vector<uint8_t> &bytes, int n, int c, int y,
                   int x) {
  const int64_t offset = reference::element_offset(desc, n, c, y, x);
  if (desc.dtype == DataType::kFloat16) {
    uint16_t bits;
    std::memcpy(&bits, bytes.data() + offset, sizeof bits);
    return reference::half_to_float(bits);
  }
  float value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

ItemComparison compare_item(const Pipeline &pipeline, const std::vector<uint8_t> &actual, int n,
                            const ItemReference &expected) {
  ItemComparison result;
  const TensorDesc desc = tensor_desc(pipeline);
  if (actual.size() != tensor_span_bytes(desc)) {
    result.beyond = 1;
    result.first_beyond = "tensor has " + std::to_string(actual.size()) + " bytes, expected " +
                          std::to_string(tensor_span_bytes(desc));
    return result;
  }
  const NormalizeParams params = pipeline.normalize.params();
  // A value one 8-bit step off before the rounding to binary16 may round
  // the other way, whichever element rounds it (cudanormalize's float16
  // planes or a float16 tensor).
  const bool half = passes_through_half(pipeline);
  const size_t plane = static_cast<size_t>(expected.width) * expected.height;
  for (int c = 0; c < expected.channels; ++c) {
    const double step = static_cast<double>(params.scale) / params.std[c];
    for (int y = 0; y < expected.height; ++y) {
      for (int x = 0; x < expected.width; ++x) {
        const size_t pixel = static_cast<size_t>(y) * expected.width + x;
        const float want = expected.chw[c * plane + pixel];
        const float got = tensor_value(desc, actual, n, c, y, x);
        const int steps_allowed = expected.resampled[pixel];
        const bool resampled = steps_allowed != 0;
        ++result.elements;
        result.resampled += resampled;
        const bool equal = std::memcmp(&want, &got, sizeof want) == 0 || want == got;
        if (equal) continue;
        ++result.differing;
        const double difference = std::fabs(static_cast<double>(got) - want);
        const double steps = difference / step;
        if (std::isfinite(steps)) result.worst_steps = std::max(result.worst_steps, steps);
        double tolerance = 0.0;
        if (resampled) {
          tolerance = kStepSlack * step * steps_allowed;
          if (half)
            tolerance += half_spacing(std::max(std::fabs(static_cast<double>(got)),
                                               std::fabs(static_cast<double>(want))));
        }
        if (!(difference <= tolerance)) {
          if (result.beyond++ == 0) {
            std::ostringstream where;
            where << "item " << n << " c " << c << " y " << y << " x " << x
                  << (resampled ? " (resampled)" : " (exact)") << ": got " << got << ", reference "
                  << want << " (" << steps << " steps)";
            result.first_beyond = where.str();
          }
        }
      }
    }
  }
  return result;
}

}  // namespace cudaprep::composition
