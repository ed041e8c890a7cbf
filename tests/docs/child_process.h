// Child processes for the docs-commands suite: gst-launch-1.0 as a user runs
// it, and the rtsp-test-server. Every wait is bounded; a child still running
// when its Child goes away is killed and reaped, and every child dies with
// the suite (PR_SET_PDEATHSIG), so nothing is left behind.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cudaprep::docs {

class Child {
 public:
  Child() = default;
  ~Child();
  Child(const Child &) = delete;
  Child &operator=(const Child &) = delete;

  // Starts argv (argv[0] an absolute path) in `cwd` with the environment
  // `env` ("NAME=VALUE" each), stdout and stderr into one pipe the suite
  // reads, stdin a pipe the suite holds open until the child is stopped.
  bool start(const std::vector<std::string> &argv, const std::string &cwd,
             const std::vector<std::string> &env, std::string *error);

  // Reads output until the child exits or `seconds` pass; true when it
  // exited, with its wait status in `status`.
  bool wait_exit(double seconds, int *status);

  // Reads output until a whole line equal to `line` arrived, the child
  // exited or `seconds` passed; true when the line came.
  bool wait_for_line(const std::string &line, double seconds);

  // Reads what is there for `seconds` (the child keeps running).
  void pump(double seconds);

  bool signal(int sig);
  // Closes stdin, then SIGTERM, then SIGKILL after `grace` seconds; reaps.
  void stop(double grace = 2.0);

  bool running() const { return pid_ > 0; }
  const std::string &output() const { return output_; }
  // The last `bytes` of the output, for failure messages.
  std::string tail(size_t bytes = 4000) const;

 private:
  // Reads until `deadline` (g_get_monotonic_time() us) or EOF; reaps.
  void read_until(long long deadline, const std::string *line, bool *line_seen);
  bool reap(bool block);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int in_fd_ = -1;
  int status_ = 0;
  bool exited_ = false;
  std::string output_;
};

// "exit 0", "exit 3", "killed by signal 9 (Killed)".
std::string describe_status(int status);

// This process's environment with each "NAME=VALUE" of `set` replacing or
// adding NAME.
std::vector<std::string> environment_with(const std::vector<std::string> &set);

}  // namespace cudaprep::docs
