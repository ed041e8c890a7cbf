// What both gtest mains return, so meson counts a suite that ran nothing as
// skipped instead of passed.
#pragma once

#include <dirent.h>
#include <execinfo.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
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

// Writes "threads alive:" and each thread's id and name (/proc/self/task)
// to stderr, with system calls only: a crash at exit in a driver's thread
// says which other threads still ran.
inline void write_threads_alive() {
  static const char kHeader[] = "threads alive:";
  if (write(STDERR_FILENO, kHeader, sizeof(kHeader) - 1) < 0) return;
  const int tasks = open("/proc/self/task", O_RDONLY | O_DIRECTORY);
  if (tasks < 0) return;
  alignas(8) char entries[4096];
  long length;
  while ((length = syscall(SYS_getdents64, tasks, entries, sizeof(entries))) > 0) {
    for (long at = 0; at < length;) {
      const auto *entry = reinterpret_cast<const dirent64 *>(entries + at);
      at += entry->d_reclen;
      if (entry->d_name[0] == '.') continue;
      char path[64] = "/proc/self/task/";
      size_t end = sizeof("/proc/self/task/") - 1;
      for (const char *c = entry->d_name; *c != '\0' && end < 40; ++c) path[end++] = *c;
      const size_t id_end = end;
      for (const char *c = "/comm"; *c != '\0'; ++c) path[end++] = *c;
      path[end] = '\0';
      char name[32] = {};
      const int comm = open(path, O_RDONLY);
      const ssize_t name_length = comm < 0 ? 0 : read(comm, name, sizeof(name) - 1);
      if (comm >= 0) close(comm);
      if (write(STDERR_FILENO, " ", 1) < 0 ||
          write(STDERR_FILENO, path + sizeof("/proc/self/task/") - 1,
                id_end - (sizeof("/proc/self/task/") - 1)) < 0 ||
          write(STDERR_FILENO, ":", 1) < 0) {
        break;
      }
      // comm ends in a newline; the names go on one line.
      if (name_length > 1 && write(STDERR_FILENO, name, name_length - 1) < 0) break;
    }
  }
  close(tasks);
  if (write(STDERR_FILENO, "\n", 1) < 0) return;
}

// A crash (also after the tests, in teardown) prints its stack and the
// threads alive to stderr before the default action, so a log from a
// machine without a debugger still says where: addresses resolve against
// the unstripped build with addr2line.
inline void print_stack_on_crash() {
  const auto handler = [](int signal_number) {
    void *frames[64];
    const int count = backtrace(frames, 64);
    static const char kHeader[] = "\nfatal signal; stack:\n";
    if (write(STDERR_FILENO, kHeader, sizeof(kHeader) - 1) < 0) _exit(128 + signal_number);
    backtrace_symbols_fd(frames, count, STDERR_FILENO);
    write_threads_alive();
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  };
  for (const int signal_number : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
    std::signal(signal_number, handler);
}

}  // namespace cudaprep::test
