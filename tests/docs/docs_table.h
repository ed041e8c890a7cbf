// The table that accounts for every code block of README.md and docs/*.md:
// how each is covered (docs_table.cpp holds the rows).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cudaprep::docs {

enum class Kind {
  kLaunch,    // gst-launch-1.0 lines: parsed here, run as the user runs them
  kShell,     // setup/build/test commands that CI or the GPU runner runs
  kPython,    // Python code: an existing test runs it
  kC,         // C code: an existing test runs it
  kFragment,  // part of a pipeline or program: its names are checked
  kText,      // not a command: a diagram, a layout, the shape of an output
};

const char *kind_name(Kind kind);

// A file that must exist under the source root and hold these strings.
struct FileClaim {
  std::string path;
  std::vector<std::string> contains;
};

struct Row {
  std::string id;     // the test's name: letters, digits and '_'
  std::string file;   // "README.md", "docs/sources.md"
  std::string first;  // the block starts with this (blanks squeezed, lines joined)
  Kind kind = Kind::kText;
  std::string why;  // how it is covered, or why it is not run

  // kLaunch. Replacements in the block's text before it is read, each of
  // which must apply: placeholders a user replaces (@RTSP0@, @RTSP1@: the
  // mounts of an rtsp-test-server the suite starts; @MP4@: an H.264 MP4 the
  // suite encodes; @DATA@: tests/data; @TMP@: the test's own folder).
  std::vector<std::pair<std::string, std::string>> substitutions;
  bool gpu = false;                   // runs only with a GPU (parsed everywhere)
  double sigint_after = 0;            // > 0: live; -e added, SIGINT after this many s
  double exit_within = 5;             // after SIGINT
  double timeout = 60;                // a bounded run's limit
  int min_tensor_files = 0;           // files @TMP@ must hold afterwards (*.npy)
  std::vector<std::string> gpu_only;  // factories registered only with a GPU

  // kShell, kPython, kC, kFragment: what covers it, checked to exist.
  std::vector<FileClaim> claims;
  // Names the block mentions that must exist: "element", "element:property"
  // or "element:pad::property"; each must appear in the block (a property
  // also with '_' for '-', as Python keywords write it).
  std::vector<std::string> names;
  // kShell: a program of the build (relative to the build or stage folder)
  // that the block runs, run here on a GPU; its output must hold `expect`.
  std::string program;
  std::string expect;

  Row &sub(const std::string &from, const std::string &to) {
    substitutions.emplace_back(from, to);
    return *this;
  }
  Row &needs_gpu() {
    gpu = true;
    return *this;
  }
  Row &live(double seconds, double exit_bound = 5) {
    sigint_after = seconds;
    exit_within = exit_bound;
    return *this;
  }
  Row &tensors(int count) {
    min_tensor_files = count;
    return *this;
  }
  Row &only_with_gpu(const std::string &factory) {
    gpu_only.push_back(factory);
    return *this;
  }
  Row &claim(const std::string &path, std::vector<std::string> contains = {}) {
    claims.push_back({path, std::move(contains)});
    return *this;
  }
  Row &name(const std::string &n) {
    names.push_back(n);
    return *this;
  }
  Row &runs(const std::string &path, const std::string &output) {
    program = path;
    expect = output;
    return *this;
  }
};

// Every row; ids unique.
const std::vector<Row> &table();

}  // namespace cudaprep::docs
