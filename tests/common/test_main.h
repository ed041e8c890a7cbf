// What both gtest mains return, so meson counts a suite that ran nothing as
// skipped instead of passed.
#pragma once

#include <execinfo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

namespace cudaprep::test {

// The exit status for RUN_ALL_TESTS()'s `result`: 77 (meson's and
// automake's "skipped") when no test failed, none passed and some skipped,
// as every GPU test does without a GPU; `result` otherwise. A filter that
// selects no test at all is not a skip: it returns `result`.
inline int suite_exit_status(int result) {
  const ::testing::UnitTest &unit = *::testing::UnitTest::GetInstance();
  if (result == 0 && unit.failed_test_count() == 0 && unit.successful_test_count() == 0 &&
      unit.skipped_test_count() > 0) {
    std::printf("every test of this suite skipped (%d): exit 77, reported as skipped\n",
                unit.skipped_test_count());
    return 77;
  }
  return result;
}

// A crash (also after the tests, in teardown) prints its stack to stderr
// before the default action, so a log from a machine without a debugger
// still says where: addresses resolve against the unstripped build with
// addr2line.
inline void print_stack_on_crash() {
  const auto handler = [](int signal_number) {
    void *frames[64];
    const int count = backtrace(frames, 64);
    static const char kHeader[] = "\nfatal signal; stack:\n";
    if (write(STDERR_FILENO, kHeader, sizeof(kHeader) - 1) < 0) _exit(128 + signal_number);
    backtrace_symbols_fd(frames, count, STDERR_FILENO);
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  };
  for (const int signal_number : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
    std::signal(signal_number, handler);
}

}  // namespace cudaprep::test
