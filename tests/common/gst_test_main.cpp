// gtest main for every suite: initialises GStreamer and registers the plugin
// from the build tree, so the binaries run directly (no install, no env).
#include <gst/gst.h>
#include <gtest/gtest.h>

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (!gst_registry_scan_path(gst_registry_get(), CUDAPREP_PLUGIN_DIR) &&
      gst_registry_find_plugin(gst_registry_get(), "cudaprep") == nullptr) {
    g_printerr("cudaprep plugin not found in %s\n", CUDAPREP_PLUGIN_DIR);
    return 1;
  }
  const int result = RUN_ALL_TESTS();
  gst_deinit();
  return result;
}
