// gtest main for every suite: initialises GStreamer and registers the plugin
// from the build tree, so the binaries run directly (no install, no env).
// CUDAPREP_PLUGIN_DIR in the environment overrides the build tree's folder
// (for binaries copied to another machine, see tests/stage-for-gpu.sh).
// A suite whose tests all skipped exits 77 (common/test_main.h).
#include <gst/gst.h>
#include <gtest/gtest.h>

#include "common/test_main.h"

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const char *plugin_dir = g_getenv("CUDAPREP_PLUGIN_DIR");
  if (plugin_dir == nullptr) plugin_dir = CUDAPREP_PLUGIN_DIR;
  gst_registry_scan_path(gst_registry_get(), plugin_dir);
  GstPlugin *plugin = gst_registry_find_plugin(gst_registry_get(), "cudaprep");
  if (plugin == nullptr) {
    g_printerr("cudaprep plugin not found in %s\n", plugin_dir);
    return 1;
  }
  gst_object_unref(plugin);
  const int result = RUN_ALL_TESTS();
  gst_deinit();
  return cudaprep::test::suite_exit_status(result);
}
