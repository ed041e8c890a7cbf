// What the format readers of modelconfig/ share: one reader per format
// (huggingface.cpp, timm.cpp, torchvision.cpp, ultralytics.cpp,
// modelinfo.cpp) and the key bookkeeping that makes every key either used,
// listed as not about the image, or an error naming it.
#pragma once

#include <json-glib/json-glib.h>

#include <set>
#include <string>

#include "modelconfig.h"

namespace cudaprep::modelconfig {

// Sets *error (when given) and returns false: every reader's way out.
inline bool fail(std::string *error, const std::string &reason) {
  if (error != nullptr) *error = reason;
  return false;
}

// The keys of one JSON object: typed getters that mark a key as read, and a
// final check that names the first key nobody read.
class JsonKeys {
 public:
  // `where` prefixes key names in errors ("pretrained_cfg." for a nested one).
  JsonKeys(JsonObject *object, std::string where) : object_(object), where_(std::move(where)) {}

  bool has(const char *key) const;
  // Whether the key is there and not JSON null (null reads as absent).
  bool present(const char *key) const;
  // Each returns false with `error` naming the key when it is there with the
  // wrong type; leaves *value unchanged when the key is absent or null.
  bool get_bool(const char *key, bool *value, std::string *error);
  bool get_int(const char *key, int *value, std::string *error);
  bool get_double(const char *key, double *value, std::string *error);
  bool get_string(const char *key, std::string *value, std::string *error);
  // Three numbers (a per-channel mean or std).
  bool get_triple(const char *key, std::array<double, 3> *value, std::string *error);
  JsonNode *take(const char *key);
  // Keys that say nothing about the image (labels, architecture): accepted.
  void accept(std::initializer_list<const char *> keys);
  // False with `error` naming the first key neither read nor accepted.
  bool check_all_read(const std::string &format, std::string *error) const;

  std::string name(const char *key) const { return "'" + where_ + key + "'"; }

 private:
  JsonObject *object_;
  std::string where_;
  std::set<std::string> read_;
};

// `path`: the file's, where a video processor's config.json is looked for.
bool parse_huggingface(JsonObject *root, const std::string &path, Recipe *recipe,
                       std::string *error);
bool parse_timm(JsonObject *root, Recipe *recipe, std::string *error);
bool parse_torchvision(JsonObject *root, Recipe *recipe, std::string *error);
bool parse_ultralytics(JsonObject *root, Recipe *recipe, std::string *error);
bool parse_modelinfo(const std::string &text, Recipe *recipe, std::string *error);

// Shared by timm and torchvision: an interpolation name as torchvision's
// InterpolationMode spells it -> cudaresize's method; false for one we lack.
bool torchvision_method(const std::string &interpolation, std::string *method);

}  // namespace cudaprep::modelconfig
