// gtest main for every suite of elements: initialises GStreamer and registers
// the plugin's elements statically from the code linked into the suite (the
// same code the plugin module registers), so the binaries run anywhere with
// no plugin path and can call the elements' internals.
// A suite whose tests all skipped exits 77 (common/test_main.h).
#include <gst/gst.h>
#include <gtest/gtest.h>

#include "common/test_main.h"
#include "elements/gstcudaprepelements.h"

int main(int argc, char **argv) {
  cudaprep::test::print_stack_on_crash();
  // No GL window system (docs/faults.md): on GStreamer 1.22 every nvcodec
  // decoder makes a GL display when it opens, which loads NVIDIA's EGL
  // driver, whose thread can crash the process at exit; nothing here uses GL.
  g_setenv("GST_GL_WINDOW", "none", FALSE);
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (!gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "cudaprep",
                                  "cudaprep elements, linked into the test suite",
                                  gst_cuda_prep_register_elements, "0.1.0", "LGPL", "cudaprep",
                                  "cudaprep", "https://github.com/cudaprep/cudaprep")) {
    g_printerr("registering the cudaprep elements failed\n");
    return 1;
  }
  const int result = RUN_ALL_TESTS();
  gst_deinit();
  return cudaprep::test::suite_exit_status(result);
}
