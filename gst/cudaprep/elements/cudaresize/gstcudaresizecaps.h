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
// possible there) and, without a size rule, the same size (width and height
// exchanged by a direction that turns by 90 degrees), so that fixation and
// passthrough prefer "no change"; then every format of the other side
// (`other_formats`) at any size. With a size rule the output gets the
// rule's size instead. A new reference.
GstCaps *transform_caps(const ResizeSettings &settings, GstPadDirection direction, GstCaps *caps,
                        const GValue *other_formats);

// Fixates `othercaps` (taken; not empty) for the fixed `caps` on the other
// side: keeps what can be kept: the first structure that allows the given
// format (and, where the direction turns by 90 degrees (`swapped`), the
// turned size: the base class puts the untransformed caps first), that
// format, the given size where the other side leaves it open. A new
// reference.
GstCaps *fixate_caps(bool swapped, GstCaps *caps, GstCaps *othercaps);

}  // namespace cudaprep::cudaresize
