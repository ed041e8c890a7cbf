// The command blocks of README.md and docs/*.md, and the shell-like reading
// of them that the docs-commands suite needs (no GStreamer here).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cudaprep::docs {

// One code block of a Markdown file: an indented block (4 spaces) or a
// ``` fence, its lines without the indentation.
struct Block {
  std::string file;  // relative to the docs root: "README.md", "docs/sources.md"
  int line = 0;      // of its first line (1-based)
  std::string info;  // a fence's info string ("c", "python"); empty otherwise
  std::vector<std::string> lines;

  std::string text() const;        // the lines joined with '\n'
  std::string first_line() const;  // the first non-blank line, trimmed
};

// README.md and docs/*.md under `root` (sorted), relative to it.
std::vector<std::string> doc_files(const std::string &root, std::string *error);

// Every code block of `root`/`file`. CommonMark's rules as these files use
// them: an indented block starts after a blank line, a heading or a fence
// (never inside a paragraph or a list item's text), a fence ends at the
// next fence of the same character and at least the same length.
std::vector<Block> read_blocks(const std::string &root, const std::string &file,
                               std::string *error);

// `text` with runs of blanks made one space and the ends trimmed.
std::string squeeze(const std::string &text);

// What a table row matches a block by: its text squeezed, a line that ends
// in a backslash read as one with the next (as the shell reads it).
std::string fingerprint(const std::string &text);

// A block as the shell reads it: backslash-newlines removed (inside double
// quotes too), comment lines and blank lines dropped. Each entry is one
// logical command line and the block line it started on.
struct Logical {
  std::string text;
  int line = 0;  // within the Markdown file
};
std::vector<Logical> logical_lines(const Block &block);

// Splits `command` the shell way (g_shell_parse_argv: quotes, escapes; no
// expansion). False and `error` when the quoting is unbalanced.
bool shell_words(const std::string &command, std::vector<std::string> *words, std::string *error);

// NAME=VALUE (a shell variable or environment assignment word).
bool is_assignment(const std::string &word, std::string *name = nullptr,
                   std::string *value = nullptr);

// `word` with $NAME and ${NAME} of `variables` replaced by their values
// (what a double-quoted "$NAME" gives: no word splitting). A reference to a
// variable the block does not set is left as it is and named in `unset`.
std::string expand(const std::string &word, const std::map<std::string, std::string> &variables,
                   std::vector<std::string> *unset);

// Every occurrence of `from` in `text` replaced by `to`; the count.
int replace_all(std::string *text, const std::string &from, const std::string &to);

}  // namespace cudaprep::docs
