// gtest main for the GStreamer-free suites (kernels, CPU references). A suite
// whose tests all skipped exits 77 (common/test_main.h).
#include <gtest/gtest.h>

#include "common/test_main.h"

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return cudaprep::test::suite_exit_status(RUN_ALL_TESTS());
}
