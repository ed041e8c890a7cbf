// What the cudaresize suites (elements/test_resize*.cpp) share: the element
// as a launch line configures it, a frame as the CPU reference takes it,
// and the checks of an output against the reference and of its geometry
// meta.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "cudaprep/resize.h"
#include "reference/color_ref.h"

namespace cudaprep::test {

// A cudaresize configured as on a gst-launch line, e.g. "short-side=518".
GstElement *make_resize(const std::string &properties);

// The pixel format of a video format the elements take (a test failure if
// it is none of them).
PixelFormat pixel_format(const GstVideoInfo &info);

// The visible pixels of a system-memory frame as a compact HostFrame.
ref::HostFrame host_frame(GstBuffer *buffer, const GstVideoInfo &info);

// Compares a downloaded RGB-family/GRAY8 frame with the reference: within
// +-1 inside `image` (the resampled rectangle), exact in the borders.
// Returns a description of the first bad value, empty if none.
std::string reference_mismatch(const std::vector<guint8> &actual, const ref::HostFrame &expected,
                               const PixelRect &image);

// Checks that the geometry meta maps tensor points back to where the test
// computes them: corners and centre of the image rectangle land on the
// source window [left, left + source_width) x [top, top + source_height),
// turned by `orientation`.
void expect_geometry(GstBuffer *output, const PixelRect &image, double left, double top,
                     int source_width, int source_height, const std::string &what,
                     Orientation orientation = Orientation::kIdentity);

}  // namespace cudaprep::test
