#include "docs/child_process.h"

#include <fcntl.h>
#include <glib.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace cudaprep::docs {

namespace {

// In the child before exec: it dies with the suite (a crashed or killed
// test never leaves a server or a pipeline behind).
void die_with_parent(gpointer) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
}

gint64 deadline_in(double seconds) {
  return g_get_monotonic_time() + static_cast<gint64>(seconds * G_USEC_PER_SEC);
}

}  // namespace

Child::~Child() {
  stop();
}

bool Child::start(const std::vector<std::string> &argv, const std::string &cwd,
                  const std::vector<std::string> &env, std::string *error) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    *error = std::string("pipe2: ") + std::strerror(errno);
    return false;
  }
  std::vector<const gchar *> args, envp;
  for (const std::string &a : argv) args.push_back(a.c_str());
  args.push_back(nullptr);
  for (const std::string &e : env) envp.push_back(e.c_str());
  envp.push_back(nullptr);
  GError *gerror = nullptr;
  GPid pid = 0;
  const gboolean ok = g_spawn_async_with_pipes_and_fds(
      cwd.c_str(), args.data(), envp.data(),
      static_cast<GSpawnFlags>(G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_CLOEXEC_PIPES), die_with_parent,
      nullptr, -1, out[1], out[1], nullptr, nullptr, 0, &pid, &in_fd_, nullptr, nullptr, &gerror);
  close(out[1]);
  if (!ok) {
    close(out[0]);
    *error = std::string("cannot start ") + argv[0] + ": " + gerror->message;
    g_clear_error(&gerror);
    return false;
  }
  pid_ = pid;
  out_fd_ = out[0];
  exited_ = false;
  output_.clear();
  return true;
}

bool Child::reap(bool block) {
  if (pid_ <= 0) return true;
  int status = 0;
  const pid_t got = waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (got == pid_ || (got < 0 && errno == ECHILD)) {
    status_ = got == pid_ ? status : 0;
    exited_ = true;
    pid_ = -1;
    return true;
  }
  return false;
}

void Child::read_until(long long deadline, const std::string *line, bool *line_seen) {
  size_t scanned = output_.size();
  while (out_fd_ >= 0) {
    if (line && line_seen) {
      // A whole line: preceded by the start or '\n', followed by '\n'.
      for (size_t at = output_.find(*line, scanned > line->size() ? scanned - line->size() - 1 : 0);
           at != std::string::npos; at = output_.find(*line, at + 1)) {
        const size_t end = at + line->size();
        if ((at == 0 || output_[at - 1] == '\n') && end < output_.size() && output_[end] == '\n') {
          *line_seen = true;
          return;
        }
      }
      scanned = output_.size();
    }
    const gint64 left_us = deadline - g_get_monotonic_time();
    if (left_us <= 0) return;
    struct pollfd p {
      out_fd_, POLLIN, 0
    };
    const int ready = poll(&p, 1, static_cast<int>(std::min<gint64>(left_us / 1000 + 1, 100)));
    if (ready < 0 && errno != EINTR) return;
    if (ready > 0) {
      char buffer[8192];
      const ssize_t got = read(out_fd_, buffer, sizeof buffer);
      if (got > 0) {
        output_.append(buffer, static_cast<size_t>(got));
        continue;
      }
      if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(out_fd_);  // EOF: every writer (the child and its children) is gone
        out_fd_ = -1;
        return;
      }
    }
    // A child whose own children keep the pipe open still ends here.
    if (!line && reap(false)) return;
  }
}

bool Child::wait_exit(double seconds, int *status) {
  const gint64 deadline = deadline_in(seconds);
  while (!exited_) {
    read_until(deadline, nullptr, nullptr);
    if (reap(false)) break;
    if (g_get_monotonic_time() >= deadline) return false;
    if (out_fd_ < 0) g_usleep(10000);  // output closed; the process still ending
  }
  // What it wrote last, before its exit, without waiting for grandchildren.
  read_until(std::min(deadline_in(0.2), std::max(deadline, g_get_monotonic_time())), nullptr,
             nullptr);
  if (status) *status = status_;
  return true;
}

bool Child::wait_for_line(const std::string &line, double seconds) {
  bool seen = false;
  read_until(deadline_in(seconds), &line, &seen);
  return seen;
}

void Child::pump(double seconds) {
  const gint64 deadline = deadline_in(seconds);
  while (g_get_monotonic_time() < deadline) {
    read_until(deadline, nullptr, nullptr);
    if (out_fd_ < 0) g_usleep(10000);
  }
}

bool Child::signal(int sig) {
  return pid_ > 0 && kill(pid_, sig) == 0;
}

void Child::stop(double grace) {
  if (in_fd_ >= 0) {
    close(in_fd_);
    in_fd_ = -1;
  }
  if (pid_ > 0 && !reap(false)) {
    kill(pid_, SIGTERM);
    if (!wait_exit(grace, nullptr)) {
      kill(pid_, SIGKILL);
      reap(true);
    }
  }
  if (out_fd_ >= 0) {
    close(out_fd_);
    out_fd_ = -1;
  }
}

std::string Child::tail(size_t bytes) const {
  if (output_.size() <= bytes) return output_;
  return "[...]" + output_.substr(output_.size() - bytes);
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "wait status " + std::to_string(status);
}

std::vector<std::string> environment_with(const std::vector<std::string> &set) {
  std::vector<std::string> env;
  gchar **current = g_get_environ();
  for (gchar **e = current; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string &s : set) replaced = replaced || s.substr(0, s.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  g_strfreev(current);
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

}  // namespace cudaprep::docs
