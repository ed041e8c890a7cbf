#include "docs/launch_block.h"

#include <cctype>

namespace cudaprep::docs {

namespace {

// "2>&1", ">/dev/null", "2>err.log": redirections, which gst-launch never sees.
bool is_redirection(const std::string &word) {
  size_t i = 0;
  while (i < word.size() && std::isdigit(static_cast<unsigned char>(word[i]))) ++i;
  return i < word.size() && (word[i] == '>' || word[i] == '<');
}

std::string where(const Block &block, int line) {
  return block.file + ":" + std::to_string(line);
}

}  // namespace

LaunchBlock read_launch_block(const Block &block,
                              const std::vector<std::pair<std::string, std::string>> &substitutions,
                              const std::map<std::string, std::string> &placeholders) {
  LaunchBlock out;
  std::string text = block.text();
  for (const auto &[from, to] : substitutions) {
    if (replace_all(&text, from, to) == 0) {
      out.problems.push_back(where(block, block.line) + ": the table replaces \"" + from +
                             "\" but the block no longer holds it: update the row");
    }
  }
  for (const auto &[name, value] : placeholders) replace_all(&text, name, value);
  // Any @NAME@ left is a placeholder the suite does not know.
  for (size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at + 1)) {
    size_t end = at + 1;
    while (end < text.size() &&
           (std::isupper(static_cast<unsigned char>(text[end])) ||
            std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '_')) {
      ++end;
    }
    if (end > at + 1 && end < text.size() && text[end] == '@') {
      out.problems.push_back("placeholder " + text.substr(at, end - at + 1) +
                             " is not one the suite provides");
    }
  }
  Block substituted = block;
  substituted.lines.clear();
  for (size_t start = 0;;) {
    const size_t end = text.find('\n', start);
    substituted.lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }

  std::map<std::string, std::string> variables;
  for (const Logical &logical : logical_lines(substituted)) {
    std::vector<std::string> words;
    std::string error;
    if (!shell_words(logical.text, &words, &error)) {
      out.problems.push_back(where(block, logical.line) + ": the shell cannot read it: " + error);
      continue;
    }
    if (words.empty()) continue;
    if (words[0].rfind("...", 0) == 0) {
      out.fragments.push_back(words);
      continue;
    }
    size_t i = 0;
    LaunchCommand command;
    command.line = logical.line;
    std::vector<std::string> unset;
    for (; i < words.size() && is_assignment(words[i]); ++i) {
      command.env.push_back(expand(words[i], variables, &unset));
    }
    if (i == words.size()) {  // assignments alone: shell variables for later lines
      for (const std::string &assignment : command.env) {
        std::string name, value;
        is_assignment(assignment, &name, &value);
        variables[name] = value;
      }
      continue;
    }
    if (words[i] != "gst-launch-1.0") {
      out.problems.push_back(where(block, logical.line) + ": \"" + words[i] +
                             "\" is not gst-launch-1.0: the row's kind should not be launch");
      continue;
    }
    for (++i; i < words.size() && words[i].size() > 1 && words[i][0] == '-'; ++i) {
      command.options.push_back(words[i]);
    }
    for (; i < words.size(); ++i) {
      if (words[i] == "|") break;
      if (is_redirection(words[i])) continue;
      command.description.push_back(expand(words[i], variables, &unset));
    }
    if (i < words.size()) {  // a pipe: only "| grep PATTERN" is understood
      if (i + 3 == words.size() && words[i + 1] == "grep") {
        command.grep = words[i + 2];
      } else {
        out.problems.push_back(where(block, logical.line) +
                               ": only a pipe into \"grep PATTERN\" is understood here");
      }
    }
    for (const std::string &name : unset) {
      out.problems.push_back(where(block, logical.line) + ": $" + name +
                             " is not set by the block");
    }
    out.commands.push_back(command);
  }
  return out;
}

}  // namespace cudaprep::docs
