// The test data folder (tests/data, or CUDAPREP_TEST_DATA_DIR where the
// suites run from a stage) and URIs of its files.
#pragma once

#include <gst/gst.h>

#include <string>

namespace cudaprep::test {

inline std::string test_data_uri(const char *name) {
  const char *dir = g_getenv("CUDAPREP_TEST_DATA_DIR");
  gchar *uri = gst_filename_to_uri(
      (std::string(dir != nullptr ? dir : CUDAPREP_TEST_DATA_DIR) + "/" + name).c_str(), nullptr);
  std::string out = uri != nullptr ? uri : "";
  g_free(uri);
  return out;
}

}  // namespace cudaprep::test
