// A block of gst-launch-1.0 lines read as the shell reads it: variable
// assignments (chain="..."), environment words before the program, the
// program's options, the description, and a pipe into grep.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "docs/doc_blocks.h"

namespace cudaprep::docs {

struct LaunchCommand {
  int line = 0;
  std::vector<std::string> env;          // NAME=VALUE words before gst-launch-1.0
  std::vector<std::string> options;      // -e, -m, -v ...
  std::vector<std::string> description;  // the words after the options, variables expanded
  std::string grep;                      // "| grep PATTERN": what the reader expects to see
};

struct LaunchBlock {
  std::vector<LaunchCommand> commands;
  std::vector<std::vector<std::string>> fragments;  // lines starting with "...": their words
  std::vector<std::string> problems;                // one sentence each
};

// Reads `block` after applying `substitutions` (each must match; one that
// no longer does is a problem naming it) and then `placeholders` (every
// "@NAME@" the text holds must be among them).
LaunchBlock read_launch_block(const Block &block,
                              const std::vector<std::pair<std::string, std::string>> &substitutions,
                              const std::map<std::string, std::string> &placeholders);

}  // namespace cudaprep::docs
