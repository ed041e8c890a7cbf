// The test data folder (tests/data, or CUDAPREP_TEST_DATA_DIR where the
// suites run from a stage): paths and URIs of its files.
#pragma once

#include <gst/gst.h>

#include <string>

namespace cudaprep::test {

// tests/data/`name` (a path below the folder, such as "models/x.json").
inline std::string test_data_path(const std::string &name) {
  const char *dir = g_getenv("CUDAPREP_TEST_DATA_DIR");
  return std::string(dir != nullptr ? dir : CUDAPREP_TEST_DATA_DIR) + "/" + name;
}

inline std::string test_data_uri(const std::string &name) {
  gchar *uri = gst_filename_to_uri(test_data_path(name).c_str(), nullptr);
  std::string out = uri != nullptr ? uri : "";
  g_free(uri);
  return out;
}

}  // namespace cudaprep::test
