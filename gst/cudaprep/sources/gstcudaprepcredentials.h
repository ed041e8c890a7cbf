// Credentials in source URIs never leave a source element in clear: every
// log line, bus message, statistic and error of cudaprepsrc goes through
// gst_cuda_prep_mask_credentials(), and the URI handed to the child
// elements carries no user information at all (the user and password go to
// their `user-id`/`user-pw` properties instead).
#pragma once

#include <gst/gst.h>

#include <string>

// What replaces a secret.
#define GST_CUDA_PREP_CREDENTIALS_MASK "***"

// `text` (a URI, or any message that may quote URIs) with every secret it
// holds masked:
//   - the password of a URI's user information: scheme://user:***@host
//     (a user information without ':' may be a token: it becomes ***@host);
//     the authority ends at the first '/', '?', '#', blank or quote after
//     "://", and the user information at its last '@', so an unencoded '@'
//     in a password is masked with it;
//   - the value of query parameters that carry secrets (password, passwd,
//     pwd, pass, secret, token, auth, access_token, api_key, apikey, key,
//     user-pw, any case): ?password=*** .
// NULL gives "".
std::string gst_cuda_prep_mask_credentials(const gchar *text);

// A URI split into what its children may see and the credentials.
struct GstCudaPrepUriCredentials {
  std::string uri;       // the URI without its user information
  std::string user;      // percent-decoded; empty when the URI has none
  std::string password;  // percent-decoded; empty when the URI has none
  bool has_user_info = false;
};

// Splits `uri`'s user information (scheme://user:password@host...) off.
GstCudaPrepUriCredentials gst_cuda_prep_split_uri_credentials(const gchar *uri);

// g_strdup() of the masked text, for GError messages and GST_* format "%s".
gchar *gst_cuda_prep_mask_credentials_dup(const gchar *text);
