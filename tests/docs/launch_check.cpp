#include "docs/launch_check.h"

#include <gst/gst.h>

#include <algorithm>
#include <cctype>

#include "docs/doc_blocks.h"

namespace cudaprep::docs {

namespace {

bool is_placeholder(const std::string &word) {
  return word.find("...") != std::string::npos;
}

// "video/x-raw,width=1" or "video/x-raw(memory:CUDAPitched),...": a media
// type (with a slash) before any field.
bool is_caps(const std::string &word) {
  const size_t end = word.find_first_of(",(=");
  return word.substr(0, end).find('/') != std::string::npos;
}

// "b.sink_0", "b.": a reference to a named element's pad.
bool is_reference(const std::string &word) {
  return word.find('=') == std::string::npos && word.find('.') != std::string::npos &&
         word.find('/') == std::string::npos;
}

// "name=value" or "pad::name=value" with GStreamer's property name syntax.
bool split_property(const std::string &word, PropertyUse *use) {
  const size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  const std::string key = word.substr(0, eq);
  const size_t sep = key.find("::");
  const std::string pad = sep == std::string::npos ? "" : key.substr(0, sep);
  const std::string name = sep == std::string::npos ? key : key.substr(sep + 2);
  auto valid = [](const std::string &s) {
    if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    });
  };
  if (!valid(name) || (sep != std::string::npos && !valid(pad))) return false;
  *use = PropertyUse{pad, name, word.substr(eq + 1)};
  return true;
}

std::string type_name(GType type) {
  return g_type_name(type) ? g_type_name(type) : "?";
}

// A problem with `value` for `pspec`, or empty.
std::string value_problem(GParamSpec *pspec, const std::string &value) {
  if (value.empty() || is_placeholder(value)) return {};
  GValue v = G_VALUE_INIT;
  g_value_init(&v, pspec->value_type);
  std::string problem;
  if (!gst_value_deserialize_with_pspec(&v, value.c_str(), pspec)) {
    problem = "'" + value + "' is not a " + type_name(pspec->value_type);
  } else if (g_param_value_validate(pspec, &v)) {
    problem = "'" + value + "' is outside the property's range";
  }
  g_value_unset(&v);
  return problem;
}

std::string check_chain(const ElementUse &use, const PropertyUse &property,
                        const std::vector<std::string> &gpu_only, std::vector<std::string> *notes) {
  GError *error = nullptr;
  GstElement *bin = gst_parse_bin_from_description_full(property.value.c_str(), TRUE, nullptr,
                                                        GST_PARSE_FLAG_FATAL_ERRORS, &error);
  std::string problem;
  if (!bin) {
    problem = use.factory + " chain=\"" + property.value +
              "\" does not parse: " + (error ? error->message : "no bin");
  } else {
    gst_object_unref(gst_object_ref_sink(bin));
  }
  g_clear_error(&error);
  std::vector<std::string> words;
  std::string split_error;
  if (!description_words(property.value, &words, &split_error)) return problem + split_error;
  for (const std::string &inner : check_names(elements_of(words), gpu_only, notes)) {
    problem += (problem.empty() ? "" : "; ") + std::string("in chain: ") + inner;
  }
  return problem;
}

}  // namespace

std::vector<ElementUse> elements_of(const std::vector<std::string> &raw) {
  std::vector<ElementUse> uses;
  bool current = false;  // the last element named is still taking properties
  for (std::string word : raw) {
    // Optional parts written [! cudacrop x= ...]: the brackets go.
    if (!word.empty() && word.front() == '[') word.erase(0, 1);
    if (!word.empty() && word.back() == ']') word.pop_back();
    if (word.empty()) continue;
    PropertyUse property;
    if (word == "!") {
      current = false;
    } else if (word == "..." || (is_placeholder(word) && word.find('=') == std::string::npos)) {
      current = false;
    } else if (is_caps(word) || is_reference(word)) {
      current = false;
    } else if (split_property(word, &property)) {
      if (!current) continue;  // a placeholder's property
      if (property.name == "name" && property.pad.empty()) uses.back().name = property.value;
      uses.back().properties.push_back(property);
    } else {
      uses.push_back(ElementUse{word, "", {}});
      current = true;
    }
  }
  return uses;
}

bool description_words(const std::string &description, std::vector<std::string> *words,
                       std::string *error) {
  return shell_words(description, words, error);
}

std::vector<std::string> check_names(const std::vector<ElementUse> &uses,
                                     const std::vector<std::string> &gpu_only,
                                     std::vector<std::string> *notes) {
  std::vector<std::string> problems;
  for (const ElementUse &use : uses) {
    GstElement *element = gst_element_factory_make(use.factory.c_str(), nullptr);
    if (!element) {
      if (std::find(gpu_only.begin(), gpu_only.end(), use.factory) != gpu_only.end()) {
        if (notes) {
          notes->push_back(use.factory +
                           " is not registered here (nvcodec registers it only with a GPU): its "
                           "properties are not checked");
        }
        continue;
      }
      problems.push_back("no element \"" + use.factory + "\" (gst_element_factory_make failed)");
      continue;
    }
    gst_object_ref_sink(element);
    for (const PropertyUse &property : use.properties) {
      GObject *owner = G_OBJECT(element);
      GstPad *pad = nullptr;
      bool requested = false;
      if (!property.pad.empty()) {
        pad = gst_element_get_static_pad(element, property.pad.c_str());
        if (!pad) {
          pad = gst_element_request_pad_simple(element, property.pad.c_str());
          requested = pad != nullptr;
        }
        if (!pad) {
          problems.push_back(use.factory + " has no pad " + property.pad + " (for " + property.pad +
                             "::" + property.name + ")");
          continue;
        }
        owner = G_OBJECT(pad);
      }
      const std::string what = use.factory + (pad ? " pad " + property.pad : std::string()) +
                               " property " + property.name;
      GParamSpec *pspec =
          g_object_class_find_property(G_OBJECT_GET_CLASS(owner), property.name.c_str());
      if (!pspec) {
        problems.push_back(use.factory + (pad ? "'s pad " + property.pad : std::string()) +
                           " has no property \"" + property.name + "\"");
      } else if (!(pspec->flags & G_PARAM_WRITABLE)) {
        problems.push_back(what + " is read-only");
      } else if (const std::string bad = value_problem(pspec, property.value); !bad.empty()) {
        problems.push_back(what + ": " + bad);
      } else if (property.name == "chain" && pspec->value_type == G_TYPE_STRING &&
                 !property.value.empty() && !is_placeholder(property.value)) {
        const std::string bad_chain = check_chain(use, property, gpu_only, notes);
        if (!bad_chain.empty()) problems.push_back(bad_chain);
      }
      if (requested) gst_element_release_request_pad(element, pad);
      if (pad) gst_object_unref(pad);
    }
    gst_object_unref(element);
  }
  return problems;
}

std::vector<std::string> check_parse(const std::vector<std::string> &words) {
  std::vector<std::string> problems;
  std::vector<const gchar *> argv;
  for (const std::string &w : words) argv.push_back(w.c_str());
  argv.push_back(nullptr);
  GstParseContext *context = gst_parse_context_new();
  GError *error = nullptr;
  GstElement *top =
      gst_parse_launchv_full(argv.data(), context, GST_PARSE_FLAG_FATAL_ERRORS, &error);
  if (error || !top) {
    std::string problem =
        std::string("gst_parse_launchv: ") + (error ? error->message : "no pipeline");
    if (error && g_error_matches(error, GST_PARSE_ERROR, GST_PARSE_ERROR_NO_SUCH_ELEMENT)) {
      gchar **missing = gst_parse_context_get_missing_elements(context);
      for (gchar **m = missing; m && *m; ++m) problem += std::string(" (missing: ") + *m + ")";
      g_strfreev(missing);
    }
    problems.push_back(problem);
  }
  g_clear_error(&error);
  gst_parse_context_free(context);
  if (!top) return problems;
  gst_object_ref_sink(top);
  for (const ElementUse &use : elements_of(words)) {
    for (const PropertyUse &property : use.properties) {
      if (property.pad.empty() || is_placeholder(property.value)) continue;
      const std::string label = property.pad + "::" + property.name;
      GstElement *element = nullptr;
      if (!use.name.empty() && GST_IS_BIN(top)) {
        element = gst_bin_get_by_name(GST_BIN(top), use.name.c_str());
      } else if (!use.name.empty() && use.name == GST_OBJECT_NAME(top)) {
        element = GST_ELEMENT(gst_object_ref(top));
      }
      if (!element) {
        problems.push_back(use.factory + " " + label + ": give the element a name= so that the " +
                           "suite can check the pad property was applied");
        continue;
      }
      GstPad *pad = gst_element_get_static_pad(element, property.pad.c_str());
      GParamSpec *pspec =
          pad ? g_object_class_find_property(G_OBJECT_GET_CLASS(pad), property.name.c_str())
              : nullptr;
      if (!pad) {
        problems.push_back(use.factory + " " + label + " was never applied: no pad " +
                           property.pad + " exists after parsing (link it in the description)");
      } else if (pspec) {
        GValue expected = G_VALUE_INIT, actual = G_VALUE_INIT;
        g_value_init(&expected, pspec->value_type);
        g_value_init(&actual, pspec->value_type);
        g_object_get_property(G_OBJECT(pad), property.name.c_str(), &actual);
        if (gst_value_deserialize_with_pspec(&expected, property.value.c_str(), pspec) &&
            gst_value_compare(&expected, &actual) != GST_VALUE_EQUAL) {
          gchar *got = gst_value_serialize(&actual);
          problems.push_back(use.factory + " " + label + "=" + property.value +
                             " was not applied: the pad has " + (got ? got : "(unserialisable)"));
          g_free(got);
        }
        g_value_unset(&expected);
        g_value_unset(&actual);
      }
      if (pad) gst_object_unref(pad);
      gst_object_unref(element);
    }
  }
  gst_object_unref(top);
  return problems;
}

std::vector<std::string> descriptions_in_code(const std::string &code) {
  std::vector<std::string> found;
  std::string joined;
  bool open = false;  // `joined` may still take an adjacent literal
  for (size_t i = 0; i < code.size();) {
    if (code[i] != '"') {
      if (open && !std::isspace(static_cast<unsigned char>(code[i]))) {
        if (joined.find(" ! ") != std::string::npos) found.push_back(joined);
        joined.clear();
        open = false;
      }
      ++i;
      continue;
    }
    std::string literal;
    for (++i; i < code.size() && code[i] != '"'; ++i) {
      if (code[i] == '\\' && i + 1 < code.size()) {
        const char next = code[++i];
        literal += next == 'n' ? '\n' : next == 't' ? '\t' : next;
      } else {
        literal += code[i];
      }
    }
    ++i;  // the closing quote
    joined += literal;
    open = true;
  }
  if (joined.find(" ! ") != std::string::npos) found.push_back(joined);
  return found;
}

}  // namespace cudaprep::docs
