// Frames, caps and pipelines for the element suites.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace cudaprep::test {

// "video/x-raw[(memory:CUDAPitched)],format=F,width=W,height=H,framerate=30/1"
std::string caps_string(const char *format, int width, int height, bool device = false);

// The GstVideoInfo of caps written as a string (a test failure if invalid).
GstVideoInfo video_info(const std::string &caps);

// A system-memory frame of random bytes in GStreamer's default layout.
GstBuffer *random_frame(const GstVideoInfo &info, std::mt19937 &rng);

// Index of the first byte where `actual` and `expected` differ; the size of
// the shorter when one is a prefix of the other, SIZE_MAX when equal.
size_t first_difference(const std::vector<guint8> &actual, const std::vector<guint8> &expected);

// Visible bytes of `plane`, row after row, without stride padding.
std::vector<guint8> plane_bytes(GstBuffer *buffer, const GstVideoInfo &info, guint plane);

// What `element` offers on its src pad when upstream offers `upstream`; the
// element is never started, so this needs no GPU. Empty when the element
// cannot take `upstream`.
GstCaps *caps_downstream_of(GstElement *element, const char *upstream);
GstCaps *caps_downstream_of(const char *factory, const char *upstream);

// The output caps (as text; "EMPTY" if none) `element`, a GstBaseTransform,
// settles on for `input` against whatever its src pad is linked to (nothing:
// anything), as GstBaseTransform negotiates: its offer (transform_caps
// within the src template), the downstream peer's answer to a caps query
// with that offer as filter (the peer's order first), then fixate_caps.
// Queries only: the element is never started, so no GPU is needed.
std::string negotiated_with_peer(GstElement *element, const std::string &input);

// Whether `caps` are `input` and `input` of any width and height, no size
// of their own: what cudacrop offers downstream when no frame upstream
// offers fits the crop (GstBaseTransform puts the unchanged input first).
bool offers_input_or_any_size(GstCaps *caps, const std::string &input);

// The bytes of the first tensor of a cudatensorize output buffer, copied to
// the host once its ready event has completed.
std::vector<guint8> tensor_bytes(GstBuffer *buffer);

// The message of the error `element` posts while `step` runs, on a bus of
// its own (empty if none); the element need not be in a pipeline.
std::string posted_error(GstElement *element, const std::function<void()> &step);

// The message of the first error waiting on `pipeline`'s bus, empty if none.
std::string bus_error(GstElement *pipeline);

// Runs a gst-launch description until an error or EOS (10 s at most) and
// returns the first error's message, empty if none ("parse: ..." for a line
// that does not parse or link); first_error() (launch_line.h) also names
// the element that posted it.
std::string pipeline_error(const char *description);

// Counts the GLib CRITICALs and WARNINGs (GStreamer's, GObject's, GLib's)
// logged while it lives: a test asserts there were none.
class LogCounter {
 public:
  LogCounter();
  ~LogCounter();
  int criticals() const { return criticals_; }
  int warnings() const { return warnings_; }

 private:
  static void count(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer self);
  std::vector<std::pair<std::string, guint>> handlers_;
  int criticals_ = 0, warnings_ = 0;
};

}  // namespace cudaprep::test
