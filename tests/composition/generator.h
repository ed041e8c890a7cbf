// A seeded generator of random but valid cudaprep pipelines for the
// differential composition test (issue 23): from a seed, an input format and
// size, any order of 0-3 cudacrop and 0-1 cudaresize, then cudanormalize ->
// cudatensorize or cudabatch (whole frames, static regions or regions of
// interest), a list of frames and the events injected between them (GAP,
// equal caps, tags, caps changes, flushing seeks).
// Pure C++: no GStreamer, no GPU. The same seed gives the same pipeline on
// every platform (its own integer generator, no <random> distributions,
// whose results the standard leaves to the library).
//
// The constraints encoded (anything an element would refuse is never
// generated):
//   input     one of RGBA BGRA RGBx BGRx RGB BGR GRAY8 NV12 I420 YUY2, 1 to
//             kMaxSide pixels a side (2 to kMaxSide, even, for NV12 I420
//             YUY2: their chroma blocks stay whole in the upload); YUV caps
//             carry a colorimetry of a preset matrix (bt601, bt709, bt2020,
//             limited or full) or none (GStreamer's default: BT.601 limited
//             at these sizes).
//   cudacrop  region form only (x, y, width, height, width and height >= 1):
//             x + width and y + height inside the frame the crop receives,
//             checked with the values as given, as compute_rect() does;
//             where that frame is NV12/I420 (x and y) or YUY2 (x only) an odd
//             offset is allowed and the element rounds it down to even
//             (`effective`). The width may stay odd. A quarter of the
//             crops are copies (`copied`): a cudaframedownload !
//             cudaframeupload follows, which reads no views, so cudacrop
//             copies the region out (compact pitch) and the round trip
//             through system memory changes no byte; never with
//             region-source=roi-meta (the regions of interest stay on the
//             device frames this test follows).
//   cudaresize  method nearest/bilinear/bicubic/area; antialias only with
//             bilinear/bicubic, antialias-intermediate=uint8 only with
//             antialias (settings_error); video-direction one of the eight
//             (never auto or custom); add-borders with 1-4 pad values in
//             0..255 and letterbox-align center/top-left; the output size
//             from a capsfilter (1..kMaxSide), left open there (`size_open`:
//             the capsfilter names the format only, and the element keeps
//             the input's size turned by the direction, as videoscale's
//             fixation keeps an open size; docs/design.md) or from
//             short-side (1..48) with multiple-of (0, 1, 2, 4, 8, 14); the
//             output format one of RGB BGR RGBA BGRA RGBx BGRx GRAY8.
//             float-intermediate is never set (the 8-bit reference does not
//             model it).
//   cudanormalize  reads 8-bit interleaved frames only, so a YUV input
//             always gets a cudaresize (it is the only colour converter);
//             channel-order gray only for a GRAY8 frame; mean and std empty
//             or one value per output channel, std in [0.05, 2], scale the
//             default (omitted) or a finite positive value; dtype float32
//             or float16.
//   terminal  cudatensorize (two seeds in three) or cudabatch (one in
//             three), drawn from a generator of its own so that the
//             cudatensorize seeds keep the pipelines they had before
//             cudabatch was generated.
//   cudatensorize  layout nchw/nhwc, batch-size 1-4, dtype auto/float32/
//             float16 (a float conversion of the planar frames), fuse on or
//             off.
//   cudabatch one pad (sink_0, source index 0), batch-size 1-4, layout
//             nchw/nhwc (or left at its default nchw); the tensor's dtype is
//             cudanormalize's. sink_0::region-source:
//               frame     one item per frame (region_id -1);
//               regions   1-4 static rectangles, each inside the source
//                         frame (below), ids their indices;
//               roi-meta  0-4 GstVideoRegionOfInterestMeta per input frame,
//                         attached by the harness in input-frame pixels
//                         (ids unique per frame, roi_type "object" or
//                         "face", some reaching past the right or bottom
//                         edge or wholly outside), optionally roi-type=face.
//             A region item reads the frame the pad's chain leaves pending:
//             regions and roi-meta need the cudaresize (if any) as the last
//             stage, right before cudanormalize, so that both stay pending
//             (cudabatch refuses an already normalised frame); all crops
//             come before it, and a GRAY8 frame into cudanormalize keeps
//             channel-order=gray (expanding it to three channels is not
//             left pending). The source frame is what that cudaresize
//             receives, or cudanormalize's frame without one; a cudaresize
//             in passthrough (the same format and size, no turn) leaves no
//             pending resize, and its regions are stretched bilinear
//             (cudanormalize's default ResizeParams), as without one.
//             Regions of interest move with the frame through every crop:
//             translated by its offset, clipped to it, removed when nothing
//             is left (docs/architecture.md, "Coordinates travel with the
//             frame"); cudabatch clips them to the source frame. Every
//             region's x (and y, except YUY2) is rounded down to even where
//             the source frame's chroma is subsampled, its size kept.
//   frames    1-6, PTS 2 * i * kFrameNs (so a GAP fits between two frames),
//             duration kFrameNs. Events only between frames and after the
//             last (before EOS): GAP over the hole, the current caps sent
//             again (equal caps), a tag list (stream-scope title, or a
//             global image-orientation tag: no generated cudaresize follows
//             tags, since video-direction is never auto).
//   caps changes  (a generator of their own, so that the other seeds keep
//             their pipelines; about a pipeline in four with 2 frames or
//             more) 1-2 between frames, never after the last: the input
//             only grows (each side at least what it was, so every crop
//             still fits), its format changes only where the chain has a
//             cudaresize (the only converter), subsampled formats stay even,
//             YUV caps get a colorimetry. Every stage is derived again for
//             the new input (derive(): the crops' rounding for the new
//             format, the short-side rule's size, so the tensor's frame may
//             change) and the segment keeps every constraint above, the
//             static regions inside its source frame included; the
//             frames after the change are made for the new caps and their
//             regions of interest for its pixels.
//   flushes   (a generator of their own, too; about a pipeline in five with
//             2 frames or more) 1-2, each the first event after its frame
//             (or before EOS): the harness drains (every frame sent has
//             reached the terminal element, every full tensor has arrived),
//             then seeks the pipeline with a flush to the hole after that
//             frame (appsrc stream-type=seekable); the partial batch the
//             flush drops is accounted as dropped by the flush (batching()).
//             First in its slot, so that no caps appsrc queued are flushed
//             with its queue.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudaprep/color.h"
#include "cudaprep/geometry.h"
#include "cudaprep/image.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "cudaprep/tensor.h"

namespace cudaprep::composition {

constexpr int kMaxSide = 48;
constexpr int kMaxCrops = 3;
constexpr int kMaxFrames = 6;
constexpr int kMaxBatch = 4;
constexpr int kMaxRegions = 4;           // static regions of the cudabatch pad
constexpr int kMaxRois = 4;              // regions of interest per frame
constexpr int kMaxFlushes = 2;           // flushing seeks per pipeline
constexpr uint64_t kFrameNs = 33000000;  // 33 ms

// Its own integer generator (splitmix64), so that a seed means the same
// pipeline everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  int range(int lo, int hi);  // uniform in [lo, hi]
  bool chance(int percent);   // true with `percent` % probability
  template <typename T, size_t N>
  const T &pick(const T (&items)[N]) {
    return items[range(0, static_cast<int>(N) - 1)];
  }

 private:
  uint64_t state_;
};

struct CropStage {
  // The region property as set (`region="<x,y,width,height>"`).
  int x = 0, y = 0, width = 0, height = 0;
  // What the element crops of the frame it receives: x/y rounded down to
  // even where its chroma is subsampled (gstcudacrop.cpp compute_rect).
  PixelRect effective;
  PixelFormat in_format = PixelFormat::kRGBA;
  int in_width = 0, in_height = 0;
  // Followed by cudaframedownload ! cudaframeupload: the crop is a copy.
  bool copied = false;
};

struct ResizeStage {
  Interpolation method = Interpolation::kBilinear;
  bool antialias = false;
  AntialiasIntermediate intermediate = AntialiasIntermediate::kFloat;
  Orientation direction = Orientation::kIdentity;
  bool add_borders = false;
  std::vector<int> pad_values;  // 1-4 values as given; empty: property not set
  LetterboxAlign align = LetterboxAlign::kCenter;
  bool align_set = false;  // letterbox-align written in the description
  int short_side = 0;      // 0: size from the capsfilter
  bool size_open = false;  // the capsfilter leaves the size open: the turned input's
  int multiple_of = 0;
  PixelFormat in_format = PixelFormat::kRGBA;
  int in_width = 0, in_height = 0;
  PixelFormat out_format = PixelFormat::kRGB;
  int out_width = 0, out_height = 0;
  // The pad colour as R, G, B, A (cudaresize's pad_rgba rule).
  void pad_rgba(uint8_t rgba[4]) const;
};

struct Stage {
  enum class Kind { kCrop, kResize } kind = Kind::kCrop;
  CropStage crop;
  ResizeStage resize;
};

struct NormalizeStage {
  bool has_mean = false, has_std = false, has_scale = false;
  double mean[kMaxChannels] = {0, 0, 0};
  double std[kMaxChannels] = {1, 1, 1};
  double scale = 1.0 / 255.0;
  ChannelOrder order = ChannelOrder::kRGB;
  DataType dtype = DataType::kFloat32;
  PixelFormat in_format = PixelFormat::kRGBA;
  // The element's parameters: every double narrowed to float, as
  // gstcudanormalize.cpp does.
  NormalizeParams params() const;
};

// cudatensorize's dtype property: auto keeps the normalised frames' type.
enum class TensorDType { kAuto, kFloat32, kFloat16 };

enum class Terminal { kTensorize, kBatch };
enum class RegionSource { kFrame, kRegions, kRoiMeta };
const char *region_source_nick(RegionSource source);  // the pad property's nick

struct BatchStage {
  int batch_size = 1;
  TensorLayout layout = TensorLayout::kNCHW;
  bool layout_set = false;  // layout written in the description
  RegionSource source = RegionSource::kFrame;
  // kRegions: sink_0::regions, in the source frame's pixels, as given.
  std::vector<PixelRect> regions;
  // kRoiMeta: sink_0::roi-type ("": not set, every meta).
  std::string roi_type;
};

// A GstVideoRegionOfInterestMeta the harness attaches to an input frame, in
// its pixels (x, y, width, height may reach past the frame).
struct RegionOfInterest {
  int x = 0, y = 0, width = 0, height = 0;
  int id = 0;
  std::string type;
};

// What one item of a tensor is: the whole frame (region_id -1), or a region
// of the source frame, `rect` as cudabatch reads it (clipped, rounded).
struct ItemSpec {
  bool whole_frame = true;
  PixelRect rect;
  int region_id = -1;
};

struct TensorizeStage {
  TensorLayout layout = TensorLayout::kNCHW;
  int batch_size = 1;
  TensorDType dtype = TensorDType::kAuto;
  bool fuse = true;
};

// The events drawn among the frames (kEventKinds of them), and the caps
// changes and flushes, drawn apart.
enum class EventKind { kGap, kEqualCaps, kTags, kCapsChange, kFlush };
constexpr int kEventKinds = 3;
constexpr int kAllEventKinds = 5;
const char *event_kind_name(EventKind kind);

enum class TagKind { kTitle, kImageOrientation };

// What appsrc announces: the input frames' format, size and colorimetry.
struct InputCaps {
  PixelFormat format = PixelFormat::kRGBA;
  int width = 0, height = 0;
  // YUV only: the colorimetry field of the caps ("" none) and its meaning.
  std::string colorimetry_name;
  Colorimetry colorimetry;
};

struct Event {
  EventKind kind = EventKind::kGap;
  TagKind tag = TagKind::kTitle;  // kTags only
  InputCaps caps;                 // kCapsChange only: the frames after it
};

struct Pipeline {
  uint64_t seed = 0;
  PixelFormat input_format = PixelFormat::kRGBA;
  int width = 0, height = 0;
  // YUV only: the colorimetry field of the caps ("" none) and its meaning.
  std::string colorimetry_name;
  Colorimetry colorimetry;
  std::vector<Stage> stages;  // crops and at most one resize, in order
  NormalizeStage normalize;
  Terminal terminal = Terminal::kTensorize;
  TensorizeStage tensorize;  // kTensorize
  BatchStage batch;          // kBatch
  int frame_count = 1;
  // kRoiMeta: rois[i] attached to frame i (in its own caps' pixels); empty
  // otherwise.
  std::vector<std::vector<RegionOfInterest>> rois;
  // events[i]: sent after frame i (i < frame_count); events[frame_count - 1]
  // are sent after the last frame, before EOS.
  std::vector<std::vector<Event>> events;

  // The tensor's frame: what cudanormalize receives.
  int tensor_width = 0, tensor_height = 0;
  // The source frame region items are cut from: what the chain's
  // cudaresize receives, else cudanormalize's frame (set for every
  // pipeline; used by region-source regions and roi-meta).
  PixelFormat source_format = PixelFormat::kRGBA;
  int source_width = 0, source_height = 0;
  int channels() const { return channel_count(normalize.order); }
  DataType tensor_dtype() const;
  int batch_size() const;
  TensorLayout layout() const;
  int crop_count() const;
  const ResizeStage *resize() const;  // nullptr without one
  // Whether the chain's cudaresize leaves a resize pending for cudabatch:
  // there is one and it does not pass frames through.
  bool resize_pending() const;
  RegionSource region_source() const {
    return terminal == Terminal::kBatch ? batch.source : RegionSource::kFrame;
  }
  int event_count() const;
  bool has_flush() const;
  int item_count() const;  // over all frames
  // The tensors that leave: full batches, the partial batch a change of the
  // tensor's frame size pushes (a caps change), the partial batch at EOS.
  int tensor_count() const;
  InputCaps input() const;
  void set_input(const InputCaps &caps);

  // `appsrc name=src ... ! cudaframeupload ! ... ! appsink name=sink ...`
  // for gst_parse_launch (cudabatch: `cudabatch name=b ... ! appsink
  // name=sink ...  appsrc name=src ... ! b.sink_0`).
  std::string description() const;
  // The system-memory caps appsrc announces (and re-sends as equal caps).
  std::string input_caps() const;
  // The element chain between cudaframeupload and the terminal element,
  // cudanormalize last.
  std::string elements() const;
  // cudatensorize or cudabatch with its properties.
  std::string terminal_element() const;
};

// The pipeline of `seed`.
Pipeline generate(uint64_t seed);

// Derives what each stage receives and makes from `pipeline`'s input and the
// stages' settings (crops' rounding, the short-side rule's size), the source
// and tensor frames and cudanormalize's input; false (and why) where a stage
// cannot derive its output (the short-side rule refuses the size).
bool derive(Pipeline *pipeline, std::string *why);

// One item: frame `frame`'s frame_items()[index].
struct ItemRef {
  int frame = 0, index = 0;
};

// How the items leave, in order: the tensors (full batches, the partial
// batch new caps with another tensor push, the partial batch at EOS), the
// items each flush drops with the partial batch, and how many tensors left
// before each flush (what the harness drains before flushing).
struct Batching {
  std::vector<std::vector<ItemRef>> tensors;
  std::vector<ItemRef> flushed;
  std::vector<int> tensors_before_flush;
};
Batching batching(const Pipeline &pipeline);

// The pipeline frame `frame` goes through: the caps changes sent before it
// applied, every stage derived for them (the first frames' is `pipeline`).
Pipeline segment(const Pipeline &pipeline, int frame);

// A region of interest of the input frame as it reaches cudabatch: through
// every crop (translated, clipped; false when nothing is left), then clipped
// to the source frame (false when nothing is left).
bool roi_in_source(const Pipeline &pipeline, const RegionOfInterest &roi, PixelRect *rect);

// The items frame `frame` gives, in order: one whole-frame item, or one per
// region (static regions; regions of interest of roi-type that reach the
// source frame), rounded as cudabatch rounds them. Empty: no item.
std::vector<ItemSpec> frame_items(const Pipeline &pipeline, int frame);

// Why `pipeline` breaks one of the constraints above, or "" when it keeps
// them all: the CPU suite checks every generated pipeline with it.
std::string constraint_error(const Pipeline &pipeline);

// Caps spellings.
const char *format_name(PixelFormat format);
const char *method_name(Interpolation method);
const char *direction_name(Orientation orientation);  // video-direction's nick

}  // namespace cudaprep::composition
