// GStreamer 1.28's .modelinfo (gst-libs/gst/analytics/modelinfo.c, format
// version 1.x): a key file, [modelinfo] version=1.0, one group per tensor.
// The input tensor's group gives its dims (1,3,H,W or 1,H,W,3), type and
// per-channel ranges: out = in * (max - min) / 255 + min. It names no
// resampling: the chain stretches the frame to H x W with cudaresize's
// bilinear, as GStreamer's inference elements take whatever size upstream
// scaled to.
#include <glib.h>

#include <cstdlib>
#include <set>

#include "modelconfig-private.h"

namespace cudaprep::modelconfig {
namespace {

struct KeyFile {
  GKeyFile *file = g_key_file_new();
  ~KeyFile() { g_key_file_free(file); }
  std::string get(const char *group, const char *key) const {
    gchar *value = g_key_file_get_string(file, group, key, nullptr);
    std::string text = value != nullptr ? value : "";
    g_free(value);
    return text;
  }
};

bool parse_floats(const std::string &text, std::vector<double> *values) {
  gchar **parts = g_strsplit(text.c_str(), ",", -1);
  bool ok = true;
  for (gchar **part = parts; *part != nullptr; ++part) {
    gchar *end = nullptr;
    const double value = g_ascii_strtod(g_strstrip(*part), &end);
    if (end == *part || *end != '\0') ok = false;
    values->push_back(value);
  }
  g_strfreev(parts);
  return ok;
}

}  // namespace

bool parse_modelinfo(const std::string &text, Recipe *recipe, std::string *error) {
  KeyFile keys;
  g_key_file_set_list_separator(keys.file, ',');  // dims=1,3,224,224, as GStreamer reads it
  GError *gerror = nullptr;
  if (!g_key_file_load_from_data(keys.file, text.c_str(), text.size(), G_KEY_FILE_NONE, &gerror)) {
    const std::string reason = std::string("not a key file (") + gerror->message + ")";
    g_error_free(gerror);
    return fail(error, reason);
  }
  if (!g_key_file_has_group(keys.file, "modelinfo"))
    return fail(error, "group [modelinfo] is missing (GStreamer 1.28's format has it)");
  const std::string version = keys.get("modelinfo", "version");
  if (version.rfind("1.", 0) != 0)
    return fail(error, "key 'modelinfo.version': \"" + version + "\" is not a 1.x version");
  recipe->format = "modelinfo";
  recipe->model = keys.get("modelinfo", "group-id");
  if (recipe->model.empty()) recipe->model = "a .modelinfo model";

  // Every key of every group must be one of the format's.
  const std::set<std::string> modelinfo_keys = {"version", "group-id"};
  const std::set<std::string> tensor_keys = {"id", "dir", "type", "dims", "ranges", "dims-order"};
  gchar **groups = g_key_file_get_groups(keys.file, nullptr);
  std::string input_group, problem;
  for (gchar **group = groups; *group != nullptr && problem.empty(); ++group) {
    const bool is_modelinfo = g_str_equal(*group, "modelinfo");
    gchar **names = g_key_file_get_keys(keys.file, *group, nullptr, nullptr);
    for (gchar **name = names; name != nullptr && *name != nullptr; ++name) {
      if ((is_modelinfo ? modelinfo_keys : tensor_keys).count(*name) == 0) {
        problem = std::string("unknown key '") + *group + "." + *name + "'";
        break;
      }
    }
    g_strfreev(names);
    if (is_modelinfo || !problem.empty()) continue;
    if (keys.get(*group, "dir") == "input") {
      if (!input_group.empty())
        problem = "groups [" + input_group + "] and [" + *group +
                  "] are both inputs: cudaprep makes one tensor";
      input_group = *group;
    }
  }
  g_strfreev(groups);
  if (!problem.empty()) return fail(error, problem);
  if (input_group.empty()) return fail(error, "no group has dir=input");
  const std::string where = "'" + input_group + ".";

  const std::string type = keys.get(input_group.c_str(), "type");
  if (type != "float32" && type != "float16") {
    return fail(error, "key " + where + "type': \"" + type +
                           "\": cudaprep makes float32 or float16 tensors");
  }
  recipe->dtype = type;
  const std::string order = keys.get(input_group.c_str(), "dims-order");
  if (!order.empty() && order != "row-major")
    return fail(error, "key " + where + "dims-order': \"" + order + "\": only row-major");

  gsize count = 0;
  gint *dims = g_key_file_get_integer_list(keys.file, input_group.c_str(), "dims", &count, nullptr);
  std::vector<int> shape(dims, dims + (dims != nullptr ? count : 0));
  g_free(dims);
  if (shape.size() != 4 || shape[0] != 1)
    return fail(error, "key " + where + "dims' must be 1,3,H,W or 1,H,W,3");
  if (shape[1] == 3 && shape[2] > 0 && shape[3] > 0) {
    recipe->layout = "nchw";
    recipe->height = shape[2];
    recipe->width = shape[3];
  } else if (shape[3] == 3 && shape[1] > 0 && shape[2] > 0) {
    recipe->layout = "nhwc";
    recipe->height = shape[1];
    recipe->width = shape[2];
  } else {
    return fail(error,
                "key " + where + "dims' must be 1,3,H,W or 1,H,W,3 with fixed sides (no -1)");
  }
  recipe->size_rule = SizeRule::kFixed;
  recipe->method = "bilinear";

  // ranges: one "min,max" for all channels or three separated by ';'.
  const std::string ranges = keys.get(input_group.c_str(), "ranges");
  std::vector<std::array<double, 2>> pairs;
  gchar **parts = g_strsplit(ranges.c_str(), ";", -1);
  bool ranges_ok = !ranges.empty();
  for (gchar **part = parts; *part != nullptr && ranges_ok; ++part) {
    std::vector<double> values;
    ranges_ok = parse_floats(*part, &values) && values.size() == 2 && values[1] > values[0];
    if (ranges_ok) pairs.push_back({values[0], values[1]});
  }
  g_strfreev(parts);
  if (!ranges_ok || (pairs.size() != 1 && pairs.size() != 3)) {
    return fail(error, "key " + where +
                           "ranges' must be min,max (max > min) once or per channel (three, "
                           "separated by ';')");
  }
  if (pairs.size() == 1 || (pairs[0] == pairs[1] && pairs[1] == pairs[2])) {
    // out = in * scale + min with scale = (max - min) / 255, as GStreamer.
    recipe->scale = (pairs[0][1] - pairs[0][0]) / 255.0;
    recipe->mean = {-pairs[0][0], -pairs[0][0], -pairs[0][0]};
    recipe->std = {1.0, 1.0, 1.0};
  } else {
    // Per channel: (in / 255 - mean) / std with std = 1 / (max - min) and
    // mean = -min / (max - min).
    recipe->scale = 1.0 / 255.0;
    for (int c = 0; c < 3; ++c) {
      const double span = pairs[c][1] - pairs[c][0];
      recipe->mean[c] = -pairs[c][0] / span;
      recipe->std[c] = 1.0 / span;
    }
  }
  return true;
}

}  // namespace cudaprep::modelconfig
