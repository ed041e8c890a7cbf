// Clip tensors (clip-length > 0: each item a clip of T frames) as the
// element suites read them: the clip settings, the clips a stream's frames
// make by the rule's definition, an output tensor's clips with what their
// meta says, and the clip a source's single-frame tensors assemble into.
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

namespace cudaprep::test {

// clip-length, clip-frame-stride, clip-stride, batch-size and layout.
struct ClipSettings {
  int length, frame_stride, clip_stride, clips_per_tensor;
  const char *layout;  // "ncthw" or "ntchw"

  bool channels_first() const { return std::string(layout) == "ncthw"; }
  int stride() const { return clip_stride != 0 ? clip_stride : length * frame_stride; }
  // As a gst-launch line sets them.
  std::string properties() const;
};

// The clips frames [first, first + count) of a stream make, by the
// definition: clip k begins at frame k * stride (if that frame comes) and
// its frame t is frame k * stride + t * frame-stride, t < T. Each clip as
// the indices of its frames (from `first`), clips in the order they begin.
std::vector<std::vector<int>> clips_by_rule(const ClipSettings &settings, int first, int count);

// One clip of an output tensor, as its meta and bytes say.
struct Clip {
  int source;                           // its item's source_index
  GstClockTime pts;                     // its item's
  std::vector<GstClockTime> frame_pts;  // one per frame written
  std::vector<guint8> bytes;
};

struct ClipTensor {
  GstClockTime pts;         // the buffer's
  std::vector<Clip> clips;  // the begun ones, slot by slot
  gint64 arrived_us;        // monotonic time it was read
};

// The clip tensor of `sample` into `tensor`, checked against `settings`:
// its caps (layout, frames, batch), the meta's id, dims and layout, each
// clip's fill count and frame PTS (none after its fill count), zeros in
// the slots no clip took. False, with test failures saying why, when
// `sample` holds no clip tensor of `settings`.
bool read_clip_tensor(GstSample *sample, const ClipSettings &settings, ClipTensor *tensor);

// A test failure naming the first differing byte's frame and channel
// unless `actual` holds clip `frames` of `singles` (each frame's
// single-frame tensor of 3 planes) laid out as `settings` says, zeros after
// its last frame (no frames: only zeros). `what` names the clip.
void expect_clip_bytes(const Clip &actual, const std::vector<std::vector<guint8>> &singles,
                       const std::vector<int> &frames, const ClipSettings &settings,
                       const std::string &what);

}  // namespace cudaprep::test
