// cudaresize's caps maths (gstcudaresizecaps.h). Part of cudaresize.
#include "elements/cudaresize/gstcudaresizecaps.h"

#include <string>

namespace cudaprep::cudaresize {

// The output size the short-side rule derives from a width x height input,
// oriented first (90r of 1920x1080 is a 1080x1920 image to size).
bool rule_output_size(const ResizeSettings &settings, gint width, gint height, gint *out_width,
                      gint *out_height, std::string *reason) {
  return cudaprep::short_side_multiple_size(
      settings.swaps_size() ? height : width, settings.swaps_size() ? width : height,
      settings.short_side, MAX(settings.multiple_of, 1), out_width, out_height, reason);
}

// Exchanges the structure's width and height, where it has both.
static void swap_size(GstStructure *structure) {
  const GValue *width = gst_structure_get_value(structure, "width");
  const GValue *height = gst_structure_get_value(structure, "height");
  if (width == nullptr || height == nullptr) return;
  GValue old_width = G_VALUE_INIT;
  g_value_init(&old_width, G_VALUE_TYPE(width));
  g_value_copy(width, &old_width);
  gst_structure_set_value(structure, "width", height);
  gst_structure_take_value(structure, "height", &old_width);
}

// Replaces the structure's width and height by `width` and `height` (int or
// range values).
static void set_size(GstStructure *structure, const GValue *width, const GValue *height) {
  gst_structure_set_value(structure, "width", width);
  gst_structure_set_value(structure, "height", height);
}

// Output pixels are labelled square (a missing field already means 1/1, and
// leaving it missing keeps equal caps equal for passthrough); inputs may
// have any pixel-aspect-ratio.
static void label_pixel_aspect_ratio(GstStructure *structure, GstPadDirection direction) {
  if (direction == GST_PAD_SRC)
    gst_structure_remove_field(structure, "pixel-aspect-ratio");
  else if (gst_structure_has_field(structure, "pixel-aspect-ratio"))
    gst_structure_set(structure, "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, nullptr);
}

const GValue *template_formats(GstStaticPadTemplate *templ) {
  // Static caps live for the process; the field outlives this call.
  GstCaps *caps = gst_static_caps_get(&templ->static_caps);
  const GValue *formats = gst_structure_get_value(gst_caps_get_structure(caps, 0), "format");
  gst_caps_unref(caps);
  return formats;
}

// Each structure gives two on the other side: the same format first, then
// every format of the other side. The output: the rule's size, or any size
// (fixation keeps the input's; a same-size structure first would also win
// over a size a resize further downstream names, unlike videoscale, and only
// where the format stays). The input, without a rule: the same size (turned)
// first, then any.
GstCaps *transform_caps(const ResizeSettings &settings, GstPadDirection direction, GstCaps *caps,
                        const GValue *other_formats) {
  GstCaps *result = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    const GstStructure *given = gst_caps_get_structure(caps, i);
    GstCapsFeatures *features = gst_caps_get_features(caps, i);

    GValue width = G_VALUE_INIT, height = G_VALUE_INIT;
    gint given_width = 0, given_height = 0, rule_width = 0, rule_height = 0;
    std::string reason;
    const bool rule_sizes_output = settings.uses_size_rule() && direction == GST_PAD_SINK;
    // An impossible rule offers any size, so that the caps reach sink_event,
    // which names the reason (offering nothing gives a bare not-negotiated).
    if (rule_sizes_output && gst_structure_get_int(given, "width", &given_width) &&
        gst_structure_get_int(given, "height", &given_height) &&
        rule_output_size(settings, given_width, given_height, &rule_width, &rule_height, &reason)) {
      g_value_init(&width, G_TYPE_INT);
      g_value_set_int(&width, rule_width);
      g_value_init(&height, G_TYPE_INT);
      g_value_set_int(&height, rule_height);
    } else {
      g_value_init(&width, GST_TYPE_INT_RANGE);
      gst_value_set_int_range(&width, 1, G_MAXINT);
      g_value_init(&height, GST_TYPE_INT_RANGE);
      gst_value_set_int_range(&height, 1, G_MAXINT);
    }

    GValue same_formats = G_VALUE_INIT;
    const GValue *given_formats = gst_structure_get_value(given, "format");
    if (given_formats != nullptr &&
        gst_value_intersect(&same_formats, given_formats, other_formats)) {
      GstStructure *same = gst_structure_copy(given);
      gst_structure_take_value(same, "format", &same_formats);
      if (settings.uses_size_rule() || direction == GST_PAD_SINK)
        set_size(same, &width, &height);
      else if (settings.swaps_size())
        swap_size(same);
      label_pixel_aspect_ratio(same, direction);
      gst_caps_append_structure_full(result, same, gst_caps_features_copy(features));
    }

    GstStructure *any = gst_structure_copy(given);
    gst_structure_set_value(any, "format", other_formats);
    // Colorimetry and chroma siting describe the given format only.
    gst_structure_remove_fields(any, "colorimetry", "chroma-site", nullptr);
    set_size(any, &width, &height);
    label_pixel_aspect_ratio(any, direction);
    gst_caps_append_structure_full(result, any, gst_caps_features_copy(features));
    g_value_unset(&width);
    g_value_unset(&height);
  }
  return result;
}

// Whether `structure`'s `field` (absent: any) allows `value` (absent:
// anything). gst_value_can_intersect() only compares types.
static bool allows(const GstStructure *structure, const char *field, const GValue *value) {
  const GValue *allowed = gst_structure_get_value(structure, field);
  return value == nullptr || allowed == nullptr || gst_value_intersect(nullptr, allowed, value);
}

// The value of `structure`'s `field` nearest `target` (`target` where the
// field is absent: anything).
static gint nearest_allowed(const GstStructure *structure, const char *field, gint64 target) {
  const gint clamped = static_cast<gint>(CLAMP(target, 0, G_MAXINT));
  GstStructure *probe = gst_structure_copy(structure);
  gst_structure_fixate_field_nearest_int(probe, field, clamped);
  gint value = clamped;
  gst_structure_get_int(probe, field, &value);
  gst_structure_free(probe);
  return value;
}

// videoscale's choice where both sides are open and the output pixels are
// square: the height nearest the given one with the width that keeps the
// aspect ratio, else the width nearest the given one with its height, else
// whichever of the two is nearer that ratio. The given size itself where
// allowed.
static void fixate_size_keeping_aspect(GstStructure *structure, gint given_width,
                                       gint given_height) {
  const gint by_height_h = nearest_allowed(structure, "height", given_height);
  const gint64 by_height_exact =
      gst_util_uint64_scale_int_round(by_height_h, given_width, given_height);
  const gint by_height_w = nearest_allowed(structure, "width", by_height_exact);
  gint width = by_height_w, height = by_height_h;
  if (by_height_w != by_height_exact) {
    const gint by_width_w = nearest_allowed(structure, "width", given_width);
    const gint64 by_width_exact =
        gst_util_uint64_scale_int_round(by_width_w, given_height, given_width);
    const gint by_width_h = nearest_allowed(structure, "height", by_width_exact);
    // videoscale's comparison of the two misses (products, no division).
    if (by_width_h == by_width_exact || by_width_w * ABS(by_width_h - by_width_exact) <
                                            ABS(by_height_w - by_height_exact) * by_height_h) {
      width = by_width_w;
      height = by_width_h;
    }
  }
  gst_structure_set(structure, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, nullptr);
}

// Keeps what can be kept: the first structure that allows the given format
// (and, for a direction turning by 90 degrees, the turned size: the base
// class puts the untransformed caps first), that format, then the size as
// videoscale fixates it for square pixels.
GstCaps *fixate_caps(bool swapped, GstCaps *caps, GstCaps *othercaps) {
  const GstStructure *given = gst_caps_get_structure(caps, 0);
  const GValue *given_format = gst_structure_get_value(given, "format");
  // The given size as the other side sees it: turned by a 90 degree direction.
  const GValue *turned_width = gst_structure_get_value(given, swapped ? "height" : "width");
  const GValue *turned_height = gst_structure_get_value(given, swapped ? "width" : "height");
  guint chosen = 0;
  bool found = false;
  for (int pass = swapped ? 0 : 1; pass < 2 && !found; ++pass) {
    for (guint i = 0; i < gst_caps_get_size(othercaps); ++i) {
      const GstStructure *candidate = gst_caps_get_structure(othercaps, i);
      if (allows(candidate, "format", given_format) &&
          (pass == 1 || (allows(candidate, "width", turned_width) &&
                         allows(candidate, "height", turned_height)))) {
        chosen = i;
        found = true;
        break;
      }
    }
  }
  GstStructure *structure = gst_structure_copy(gst_caps_get_structure(othercaps, chosen));
  GstCaps *result = gst_caps_new_empty();
  gst_caps_append_structure_full(result, structure,
                                 gst_caps_features_copy(gst_caps_get_features(othercaps, chosen)));
  gst_caps_unref(othercaps);

  const gchar *format = gst_structure_get_string(given, "format");
  if (format != nullptr) gst_structure_fixate_field_string(structure, "format", format);
  gint width = 0, height = 0;
  const bool has_size = gst_structure_get_int(given, swapped ? "height" : "width", &width) &&
                        gst_structure_get_int(given, swapped ? "width" : "height", &height);
  const GValue *open_width = gst_structure_get_value(structure, "width");
  const GValue *open_height = gst_structure_get_value(structure, "height");
  if (has_size && open_width != nullptr && !gst_value_is_fixed(open_width) &&
      open_height != nullptr && !gst_value_is_fixed(open_height)) {
    fixate_size_keeping_aspect(structure, width, height);
  } else if (has_size) {
    // A side downstream fixes is kept; the other stays as near the given
    // size as allowed (not videoscale's: it would keep the aspect ratio).
    gst_structure_fixate_field_nearest_int(structure, "width", width);
    gst_structure_fixate_field_nearest_int(structure, "height", height);
  }
  if (gst_structure_has_field(structure, "pixel-aspect-ratio"))
    gst_structure_fixate_field_nearest_fraction(structure, "pixel-aspect-ratio", 1, 1);
  return gst_caps_fixate(result);
}

}  // namespace cudaprep::cudaresize
