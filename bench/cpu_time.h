// Host CPU time, of the whole process, of the calling thread and of every
// thread by name, in seconds.
#pragma once

#include <dirent.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>

inline double process_cpu_seconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

inline double thread_cpu_now() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + 1e-9 * now.tv_nsec;
}

// A thread's CPU seconds from its scheduler clock (nanoseconds, as glibc's
// pthread_getcpuclockid() builds it from a thread id), or -1 where the
// kernel refuses it. /proc's stat counts in 10 ms ticks, too coarse for
// threads that run 20 us a frame.
inline double thread_cpu_clock_seconds(long tid) {
  const clockid_t clock = static_cast<clockid_t>((~static_cast<unsigned long>(tid) << 3) | 6);
  timespec now;
  if (clock_gettime(clock, &now) != 0) return -1;
  return now.tv_sec + 1e-9 * now.tv_nsec;
}

// CPU seconds of each thread of this process, by thread id: name, seconds.
inline std::map<std::string, std::pair<std::string, double>> thread_cpu_seconds() {
  std::map<std::string, std::pair<std::string, double>> threads;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  DIR *dir = opendir("/proc/self/task");
  if (dir == nullptr) return threads;
  while (const dirent *entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const std::string stat_path = std::string("/proc/self/task/") + entry->d_name + "/stat";
    FILE *file = std::fopen(stat_path.c_str(), "r");
    if (file == nullptr) continue;  // the thread ended meanwhile
    char stat[1024] = {};
    const size_t length = std::fread(stat, 1, sizeof stat - 1, file);
    std::fclose(file);
    stat[length] = '\0';
    // "tid (name) state ..." : utime and stime are fields 14 and 15.
    const char *open = std::strchr(stat, '(');
    const char *close = std::strrchr(stat, ')');
    unsigned long utime = 0, stime = 0;
    if (open != nullptr && close != nullptr &&
        std::sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                    &stime) == 2) {
      const double precise = thread_cpu_clock_seconds(std::atol(entry->d_name));
      threads[entry->d_name] = {std::string(open + 1, close),
                                precise >= 0 ? precise : (utime + stime) / ticks};
    }
  }
  closedir(dir);
  return threads;
}

// The CPU seconds threads spent between two thread_cpu_seconds() readings,
// summed by name with every run of digits read as "N" (the 32 "src12:src"
// streaming threads of 32 sources are one "srcN:src").
inline std::map<std::string, double> cpu_seconds_by_thread_kind(
    const std::map<std::string, std::pair<std::string, double>> &before,
    const std::map<std::string, std::pair<std::string, double>> &after) {
  std::map<std::string, double> kinds;
  for (const auto &[tid, thread] : after) {
    std::string kind;
    for (const char c : thread.first) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        kind += c;
      else if (kind.empty() || kind.back() != 'N')
        kind += 'N';
    }
    const auto earlier = before.find(tid);
    kinds[kind] += thread.second - (earlier != before.end() ? earlier->second.second : 0.0);
  }
  return kinds;
}
