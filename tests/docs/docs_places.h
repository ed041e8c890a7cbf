// Where the docs-commands suite finds what it runs, in the build tree and in
// the GPU stage (tests/stage-for-gpu.sh): each from its environment variable
// first, then the build's path, then beside the suite's binary as staged.
#pragma once

#include <string>

namespace cudaprep::docs {

struct Places {
  std::string docs_root;     // README.md and docs/ (CUDAPREP_DOCS_DIR)
  std::string plugin_dir;    // libgstcudaprep.so (CUDAPREP_PLUGIN_DIR)
  std::string data_dir;      // tests/data (CUDAPREP_TEST_DATA_DIR)
  std::string server;        // rtsp-test-server (CUDAPREP_RTSP_TEST_SERVER); empty: none
  std::string build_dir;     // the build (or stage) folder: examples/ under it
  std::string build_plugin;  // the build's own plugin folder, empty when staged
  std::string gst_launch;    // gst-launch-1.0 from PATH; empty: none
  bool source_tree = false;  // docs_root is a source tree (meson.build there)
};

const Places &places();

// A line per place, for the log.
std::string describe(const Places &p);

}  // namespace cudaprep::docs
