// A kernel cache of the test process's own, empty at the start: made in a
// global test environment, before any element reads where the cache is
// (CUDAPREP_KERNEL_CACHE_DIR), and removed at the end. It also swaps the log
// function before any thread logs (common/bus_log.h).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/bus_log.h"

namespace cudaprep::test {

class OwnKernelCacheEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    LogTap::install();
    char pattern[] = "/tmp/cudaprep-kernel-cache-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    directory_ = pattern;
    setenv("CUDAPREP_KERNEL_CACHE_DIR", directory_.c_str(), 1);
  }
  void TearDown() override {
    const std::string command = "rm -rf '" + directory_ + "'";
    if (std::system(command.c_str()) != 0)
      std::fprintf(stderr, "could not remove %s\n", directory_.c_str());
  }
  static const std::string &directory() { return directory_; }

 private:
  static inline std::string directory_;
};

}  // namespace cudaprep::test
