// What the docs-commands suite runs and checks for a row: its temporary
// folder, the rtsp-test-server child, the MP4 it makes, gst-launch-1.0 runs
// and the checks of shell, code and text blocks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "docs/child_process.h"
#include "docs/doc_blocks.h"
#include "docs/docs_table.h"
#include "docs/launch_block.h"

namespace cudaprep::docs {

const Row &row_by_id(const std::string &id);

// Whether the row's substitutions put `token` ("@RTSP", "@MP4@") in.
bool uses(const Row &row, const std::string &token);

// A folder of the test's own, removed with what it holds.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string &path() const { return path_; }
  int count_files(const std::string &suffix) const;

 private:
  std::string path_;
};

// An rtsp-test-server child with N mounts behind basic authentication
// (user:password, as the README's URIs), killed when this goes away.
class ServerChild {
 public:
  bool start(int mounts, std::string *error);
  std::string uri(int index) const {
    return index < static_cast<int>(uris_.size()) ? uris_[index] : "";
  }
  int mounts() const { return static_cast<int>(uris_.size()); }

 private:
  Child child_;
  std::vector<std::string> uris_;
};

// An MP4 of 60 H.264 frames (640x360), made once per run (removed at exit);
// empty and `error` when it cannot be made.
std::string shared_mp4(std::string *error);

// What @TMP@, @DATA@, @MP4@ and @RTSPn@ stand for. Without a server the
// URIs name a port nothing serves (enough to parse); without `mp4`, a path
// under `tmp` that is not made.
std::map<std::string, std::string> placeholders(const std::string &tmp, const ServerChild *server,
                                                const std::string &mp4);

// GST_PLUGIN_PATH as the block sets it must name the build's plugin folder
// (BUILD/gst/cudaprep, with the build there); empty when it does, or is not set.
std::string plugin_path_problem(const LaunchCommand &command);

// `words` with each of the row's GPU-only factories that this machine lacks
// replaced by decodebin, so that the rest still parses (noted).
std::vector<std::string> with_stand_ins(const std::vector<std::string> &words, const Row &row,
                                        std::vector<std::string> *notes);

struct RunResult {
  std::string command_line;  // as a user would paste it
  std::string output;
  std::string output_tail;
  std::vector<std::string> problems;
};

// Runs one gst-launch-1.0 line with the plugin folder on GST_PLUGIN_PATH,
// in the docs root: live rows get -e and SIGINT after row.sigint_after and
// must end within row.exit_within; others within row.timeout. Exit 0, no
// "ERROR" line (a bus error), no WARNING from an element of a live row (a
// camera fault), and the grep's pattern in the output are required.
RunResult run_launch(const LaunchCommand &command, const Row &row, const std::string &file);

// The row's names ("element:property", "element:pad::property") each
// appear in the block and exist.
std::vector<std::string> name_problems(const Row &row, const Block &block,
                                       std::vector<std::string> *notes);

// Pipeline descriptions in code (string literals) or a fragment's own text:
// their elements and properties exist.
std::vector<std::string> description_problems(const Row &row, const Block &block,
                                              std::vector<std::string> *notes);

// The row's claims: each file exists under the source root and holds its strings.
std::vector<std::string> claim_problems(const Row &row);

// A shell block's paths into the source tree exist, options given to a
// script of the tree appear in it, and meson -D options are the project's.
std::vector<std::string> shell_problems(const Block &block);

}  // namespace cudaprep::docs
