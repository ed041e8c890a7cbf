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

// Each structure gives two on the other side: first the same format (when
// possible there) and, without a size rule, the same size (width and height
// exchanged by a direction that turns by 90 degrees), so that fixation and
// passthrough prefer "no change"; then every format of the other side at
// any size. With a size rule the output gets the rule's size instead.
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
      if (settings.uses_size_rule())
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

// Keeps what can be kept: the first structure that allows the given format
// (and, for a direction turning by 90 degrees, the turned size: the base
// class puts the untransformed caps first), that format, the given size
// where the other side leaves it open.
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
  if (gst_structure_get_int(given, swapped ? "height" : "width", &width))
    gst_structure_fixate_field_nearest_int(structure, "width", width);
  if (gst_structure_get_int(given, swapped ? "width" : "height", &height))
    gst_structure_fixate_field_nearest_int(structure, "height", height);
  if (gst_structure_has_field(structure, "pixel-aspect-ratio"))
    gst_structure_fixate_field_nearest_fraction(structure, "pixel-aspect-ratio", 1, 1);
  return gst_caps_fixate(result);
}

}  // namespace cudaprep::cudaresize
