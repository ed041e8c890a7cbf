// A sampling profiler of host CPU time, for the GPU machine (no perf there):
// LD_PRELOAD it into a benchmark and every HOST_PROFILE_US microseconds of
// the process's CPU time (ITIMER_PROF, any thread) one call stack is kept;
// at exit the stacks, each with its thread's name, and /proc/self/maps go to
// $HOST_PROFILE_OUT.PID, which bench/host_profile/report.py symbolises
// against the unstripped build.
//   HOST_PROFILE_OUT=/tmp/p.txt LD_PRELOAD=libhost_profile.so bench_pipeline ...
#include <execinfo.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kDepth = 24;
constexpr int kSlots = 200000;

void *stacks[kSlots][kDepth];
int depths[kSlots];
char thread_names[kSlots][16];  // PR_GET_NAME's at most 16 bytes
std::atomic<int> next_slot{0};  // lock-free: safe in the handler

void on_prof(int) {
  const int slot = next_slot.fetch_add(1);
  if (slot >= kSlots) return;
  depths[slot] = backtrace(stacks[slot], kDepth);
  prctl(PR_GET_NAME, thread_names[slot]);  // a system call: safe in the handler
}

void write_profile() {
  // One file per process (a wrapper such as timeout takes the preload too).
  char path[4096];
  std::snprintf(path, sizeof path, "%s.%d", getenv("HOST_PROFILE_OUT"), static_cast<int>(getpid()));
  itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, nullptr);
  FILE *out = std::fopen(path, "w");
  if (out == nullptr) return;
  int count = next_slot.load();
  if (count > kSlots) count = kSlots;
  if (count == 0) {
    std::fclose(out);
    std::remove(path);
    return;
  }
  fprintf(out, "samples %d interval_us %s\n", count, getenv("HOST_PROFILE_US"));
  for (int i = 0; i < count; ++i) {
    // The name first, its spaces made '_', then the addresses.
    for (char *c = thread_names[i]; *c != '\0'; ++c)
      if (*c == ' ') *c = '_';
    fprintf(out, "%s ", thread_names[i][0] != '\0' ? thread_names[i] : "?");
    for (int d = 0; d < depths[i]; ++d)
      fprintf(out, "%s%lx", d ? " " : "", reinterpret_cast<unsigned long>(stacks[i][d]));
    fputc('\n', out);
  }
  fputs("maps\n", out);
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps != nullptr && fgets(line, sizeof line, maps) != nullptr) fputs(line, out);
  if (maps != nullptr) fclose(maps);
  fclose(out);
}

__attribute__((constructor)) void start() {
  if (getenv("HOST_PROFILE_OUT") == nullptr) return;
  void *warm[4];
  backtrace(warm, 4);  // loads the unwinder now, not in the handler
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_prof;
  action.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &action, nullptr);
  const char *us = getenv("HOST_PROFILE_US");
  const long interval = us != nullptr ? atol(us) : 200;
  itimerval timer = {{0, interval}, {0, interval}};
  setitimer(ITIMER_PROF, &timer, nullptr);
  atexit(write_profile);
}

}  // namespace
