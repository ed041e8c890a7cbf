// cudaresize's settings, shared by its files: the element
// (gstcudaresize.cpp: negotiation, the plan per frame, the region it reads,
// tags and property changes), its properties (gstcudaresizeproperties.cpp:
// their enum types and specs), its caps maths (gstcudaresizecaps.h) and the
// kernel parameters its settings make (gstcudaresizeparams.h). Not
// installed.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <vector>

#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"
#include "elements/cudaresize/gstcudaresize.h"

#define DEFAULT_METHOD GST_CUDA_PREP_RESIZE_METHOD_BILINEAR
#define DEFAULT_ADD_BORDERS FALSE
#define DEFAULT_LETTERBOX_ALIGN GST_CUDA_PREP_RESIZE_LETTERBOX_ALIGN_CENTER
#define DEFAULT_ANTIALIAS_INTERMEDIATE GST_CUDA_PREP_RESIZE_ANTIALIAS_INTERMEDIATE_FLOAT
#define DEFAULT_ROUNDING GST_CUDA_PREP_RESIZE_ROUNDING_HALF_EVEN
// Black, as videoscale's add-borders; YOLO models want <114,114,114>.
#define DEFAULT_PAD_LEVEL 0
#define DEFAULT_PAD_VALUE_COUNT 3
constexpr guint kMaxPadValues = 4;

struct ResizeSettings {
  GstCudaPrepResizeMethod method = DEFAULT_METHOD;
  gboolean add_borders = DEFAULT_ADD_BORDERS;
  // As given: 1 value grey, 2 grey + alpha, 3 R,G,B, 4 R,G,B,A.
  std::vector<gint> pad_values = std::vector<gint>(DEFAULT_PAD_VALUE_COUNT, DEFAULT_PAD_LEVEL);
  GstCudaPrepResizeLetterboxAlign letterbox_align = DEFAULT_LETTERBOX_ALIGN;
  gint short_side = 0;   // 0: output size from caps
  gint multiple_of = 0;  // 0: 1
  gboolean antialias = FALSE;
  GstCudaPrepResizeAntialiasIntermediate antialias_intermediate = DEFAULT_ANTIALIAS_INTERMEDIATE;
  gboolean float_intermediate = FALSE;
  GstCudaPrepResizeRounding rounding = DEFAULT_ROUNDING;
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
  // What the stream's image-orientation tags ask for (video-direction=auto):
  // the latest stream-scope tag's, else the latest global one's.
  GstVideoOrientationMethod stream_tag_direction = GST_VIDEO_ORIENTATION_AUTO;  // AUTO: none
  GstVideoOrientationMethod global_tag_direction = GST_VIDEO_ORIENTATION_IDENTITY;
  bool uses_size_rule() const { return short_side > 0; }
  // The direction applied; valid (checked by settings_error) directions only.
  cudaprep::Orientation orientation() const {
    GstVideoOrientationMethod applied = direction;
    if (applied == GST_VIDEO_ORIENTATION_AUTO)
      applied = stream_tag_direction != GST_VIDEO_ORIENTATION_AUTO ? stream_tag_direction
                                                                   : global_tag_direction;
    return static_cast<cudaprep::Orientation>(applied);
  }
  bool swaps_size() const { return cudaprep::swaps_axes(orientation()); }
};

// GstVideoOrientationMethod and cudaprep::Orientation share their values.
static_assert(static_cast<int>(cudaprep::Orientation::kRotate90) == GST_VIDEO_ORIENTATION_90R &&
              static_cast<int>(cudaprep::Orientation::kRotate270) == GST_VIDEO_ORIENTATION_90L &&
              static_cast<int>(cudaprep::Orientation::kFlipVertical) ==
                  GST_VIDEO_ORIENTATION_VERT &&
              static_cast<int>(cudaprep::Orientation::kAntiTranspose) ==
                  GST_VIDEO_ORIENTATION_UR_LL);

// The element's properties (gstcudaresizeproperties.cpp installs them).
enum {
  PROP_0,
  PROP_METHOD,
  PROP_ADD_BORDERS,
  PROP_PAD_VALUE,
  PROP_LETTERBOX_ALIGN,
  PROP_SHORT_SIDE,
  PROP_MULTIPLE_OF,
  PROP_ANTIALIAS,
  PROP_ANTIALIAS_INTERMEDIATE,
  PROP_FLOAT_INTERMEDIATE,
  PROP_VIDEO_DIRECTION,
  PROP_ROUNDING,
};

namespace cudaprep::cudaresize {

// Installs cudaresize's properties on its class: their names, blurbs,
// ranges and defaults (ResizeSettings' values), with GstVideoDirection's
// video-direction. The properties' enum types (gstcudaresize.h) are
// registered in the same file.
void install_properties(GObjectClass *gobject_class);

}  // namespace cudaprep::cudaresize
