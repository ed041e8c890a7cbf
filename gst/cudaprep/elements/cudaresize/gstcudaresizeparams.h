// What cudaresize's settings make of the negotiated frames: the kernel's
// ResizeParams, the input's colorimetry, and why settings cannot work.
// Pure: no element, no GPU. Part of cudaresize (gstcudaresize-private.h).
#pragma once

#include <gst/video/video.h>

#include <string>

#include "elements/cudaresize/gstcudaresize-private.h"

namespace cudaprep::cudaresize {

// Why the settings cannot work, naming the property and value; empty if
// they can.
std::string settings_error(const ResizeSettings &settings);

// How the input's YUV codes map to RGB. Unknown matrix or range parts take
// GStreamer's default for this format and size; the matrix's Kr and Kb come
// from GStreamer (gst_video_color_matrix_get_Kr_Kb: BT.601, BT.709,
// BT.2020, SMPTE 240M, FCC); a matrix without them is refused rather than
// converted wrongly (false, with the reason).
bool input_colorimetry(const GstVideoInfo *info, cudaprep::Colorimetry *colorimetry,
                       std::string *reason);

// The letterbox placement of the letterbox-align setting.
cudaprep::LetterboxOptions letterbox_options(const ResizeSettings &settings);

// The kernel parameters for the settings and the negotiated frames; false,
// with the reason, for settings or frames the kernels cannot do.
bool resize_params(const ResizeSettings &settings, const GstVideoInfo *in_info,
                   const GstVideoInfo *out_info, const cudaprep::Colorimetry &colorimetry,
                   cudaprep::ResizeParams *params, std::string *reason);

}  // namespace cudaprep::cudaresize
