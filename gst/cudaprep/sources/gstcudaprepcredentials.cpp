#include "sources/gstcudaprepcredentials.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

namespace {

// Where a URI quoted in free text ends.
bool ends_uri(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == '<' ||
         c == '>' || c == '`';
}

bool ends_authority(char c) {
  return ends_uri(c) || c == '/' || c == '?' || c == '#';
}

bool is_scheme_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

bool is_secret_key(std::string key) {
  static const std::array<const char *, 13> secret_keys = {
      "password",     "passwd",  "pwd",    "pass", "secret",  "token",  "auth",
      "access_token", "api_key", "apikey", "key",  "user-pw", "user_pw"};
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::any_of(secret_keys.begin(), secret_keys.end(),
                     [&](const char *secret) { return key == secret; });
}

// The query of a URI (after '?', before '#') with the values of secret keys masked.
std::string mask_query(const std::string &query) {
  std::string out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find_first_of("&;", start);
    if (end == std::string::npos) end = query.size();
    const std::string parameter = query.substr(start, end - start);
    const size_t equals = parameter.find('=');
    if (equals != std::string::npos && is_secret_key(parameter.substr(0, equals)))
      out += parameter.substr(0, equals + 1) + GST_CUDA_PREP_CREDENTIALS_MASK;
    else
      out += parameter;
    if (end < query.size()) out += query[end];
    start = end + 1;
  }
  return out;
}

// The part of a URI after its authority (path, query, fragment), its query masked.
std::string mask_after_authority(const std::string &rest) {
  const size_t question = rest.find('?');
  if (question == std::string::npos) return rest;
  const size_t hash = rest.find('#', question);
  const size_t query_end = hash == std::string::npos ? rest.size() : hash;
  return rest.substr(0, question + 1) +
         mask_query(rest.substr(question + 1, query_end - question - 1)) + rest.substr(query_end);
}

std::string percent_decode(const std::string &text) {
  gchar *decoded = g_uri_unescape_string(text.c_str(), nullptr);
  // NULL: an invalid escape (or an encoded NUL); the text as written then.
  std::string out = decoded ? decoded : text;
  g_free(decoded);
  return out;
}

}  // namespace

std::string gst_cuda_prep_mask_credentials(const gchar *text) {
  if (!text) return "";
  const std::string in = text;
  std::string out;
  size_t copied = 0;  // in[0, copied) is in out
  size_t search = 0;
  while (true) {
    const size_t separator = in.find("://", search);
    if (separator == std::string::npos) break;
    size_t scheme_start = separator;
    while (scheme_start > copied && is_scheme_char(in[scheme_start - 1])) --scheme_start;
    const size_t authority_start = separator + 3;
    size_t authority_end = authority_start;
    while (authority_end < in.size() && !ends_authority(in[authority_end])) ++authority_end;
    size_t uri_end = authority_end;
    while (uri_end < in.size() && !ends_uri(in[uri_end])) ++uri_end;
    if (scheme_start == separator) {  // "://" without a scheme: not a URI
      search = authority_start;
      continue;
    }
    out += in.substr(copied, authority_start - copied);
    const std::string authority = in.substr(authority_start, authority_end - authority_start);
    const size_t at = authority.rfind('@');
    if (at == std::string::npos) {
      out += authority;
    } else {
      const size_t colon = authority.find(':');
      if (colon == std::string::npos || colon > at)
        out += GST_CUDA_PREP_CREDENTIALS_MASK;
      else
        out += authority.substr(0, colon + 1) + GST_CUDA_PREP_CREDENTIALS_MASK;
      out += authority.substr(at);
    }
    out += mask_after_authority(in.substr(authority_end, uri_end - authority_end));
    copied = search = uri_end;
  }
  out += in.substr(copied);
  return out;
}

gchar *gst_cuda_prep_mask_credentials_dup(const gchar *text) {
  return g_strdup(gst_cuda_prep_mask_credentials(text).c_str());
}

GstCudaPrepUriCredentials gst_cuda_prep_split_uri_credentials(const gchar *uri) {
  GstCudaPrepUriCredentials split;
  split.uri = uri ? uri : "";
  const size_t separator = split.uri.find("://");
  if (separator == std::string::npos) return split;
  const size_t authority_start = separator + 3;
  size_t authority_end = authority_start;
  while (authority_end < split.uri.size() && !ends_authority(split.uri[authority_end]))
    ++authority_end;
  const std::string authority = split.uri.substr(authority_start, authority_end - authority_start);
  const size_t at = authority.rfind('@');
  if (at == std::string::npos) return split;
  const std::string user_info = authority.substr(0, at);
  const size_t colon = user_info.find(':');
  split.has_user_info = true;
  split.user = percent_decode(user_info.substr(0, colon));
  if (colon != std::string::npos) split.password = percent_decode(user_info.substr(colon + 1));
  split.uri.erase(authority_start, at + 1);
  return split;
}
