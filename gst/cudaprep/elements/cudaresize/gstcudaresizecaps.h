// cudaresize's caps maths: the size rule (short-side, multiple-of), the
// caps one side offers for the other's (transform_caps) and the caps it
// fixates to (fixate_caps). Pure: no element. Part of cudaresize
// (gstcudaresize-private.h).
#pragma once

#include <gst/gst.h>

#include <string>

#include "elements/cudaresize/gstcudaresize-private.h"

namespace cudaprep::cudaresize {

// The output size the short-side rule derives from a width x height input,
// oriented first (90r of 1920x1080 is a 1080x1920 image to size); false,
// with the reason, where the rule cannot size it.
bool rule_output_size(const ResizeSettings &settings, gint width, gint height, gint *out_width,
                      gint *out_height, std::string *reason);

// The formats of a pad template's (first structure's) format field; static
// caps live for the process, and so does the value.
const GValue *template_formats(GstStaticPadTemplate *templ);

// The caps on the other side of `direction` for `caps`, before any filter:
// each structure gives two on the other side: first the same format (when
// possible there), then every format of the other side (`other_formats`).
// Sizes: with a size rule the output gets the rule's size; otherwise the
// output any size, as videoscale offers it (fixate_caps() keeps the input's
// where allowed, and in a chain a size downstream names comes first: the
// base class puts it first in the caps query's answer), and the input,
// without a size rule, the same size first (width and height exchanged by a direction that turns by
// 90 degrees), so that upstream prefers frames that need no resize, then
// any. A new reference.
GstCaps *transform_caps(const ResizeSettings &settings, GstPadDirection direction, GstCaps *caps,
                        const GValue *other_formats);

// Fixates `othercaps` (taken; not empty) for the fixed `caps` on the other
// side, as videoscale does for square pixels: the first structure that
// allows the given format (and, where the direction turns by 90 degrees
// (`swapped`), the turned size: the base class puts the untransformed caps
// first), that format; the given size (turned) where allowed; where both
// sides are open but the given size is not allowed, the nearest size that
// keeps its aspect ratio (videoscale's order of tries); where one side is
// fixed, the other as near the given one as allowed. A new reference.
GstCaps *fixate_caps(bool swapped, GstCaps *caps, GstCaps *othercaps);

}  // namespace cudaprep::cudaresize
