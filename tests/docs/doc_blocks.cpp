#include "docs/doc_blocks.h"

#include <glib.h>

#include <algorithm>
#include <cctype>

namespace cudaprep::docs {

namespace {

size_t indent_of(const std::string &line) {
  const size_t first = line.find_first_not_of(' ');
  return first == std::string::npos ? line.size() : first;
}

bool blank(const std::string &line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// The fence that `line` opens ("```", "~~~~"), or empty.
std::string fence_of(const std::string &line, std::string *info) {
  const size_t indent = indent_of(line);
  if (indent > 3 || indent >= line.size()) return {};
  const char c = line[indent];
  if (c != '`' && c != '~') return {};
  size_t end = indent;
  while (end < line.size() && line[end] == c) ++end;
  if (end - indent < 3) return {};
  if (info) *info = squeeze(line.substr(end));
  return line.substr(indent, end - indent);
}

bool closes(const std::string &line, const std::string &fence) {
  const size_t indent = indent_of(line);
  if (indent > 3) return false;
  size_t end = indent;
  while (end < line.size() && line[end] == fence[0]) ++end;
  return end - indent >= fence.size() && blank(line.substr(end));
}

// The content indent of a list item line ("- x": 2, "12. x": 4), or 0.
size_t list_item_indent(const std::string &line) {
  const size_t indent = indent_of(line);
  if (indent >= line.size()) return 0;
  size_t i = indent;
  if (line[i] == '-' || line[i] == '*' || line[i] == '+') {
    ++i;
  } else {
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i == indent || i >= line.size() || (line[i] != '.' && line[i] != ')')) return 0;
    ++i;
  }
  return i < line.size() && line[i] == ' ' ? i + 1 : 0;
}

}  // namespace

std::string Block::text() const {
  std::string out;
  for (const std::string &line : lines) out += line + "\n";
  if (!out.empty()) out.pop_back();
  return out;
}

std::string Block::first_line() const {
  for (const std::string &line : lines) {
    if (!blank(line)) return squeeze(line);
  }
  return {};
}

std::string squeeze(const std::string &text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string fingerprint(const std::string &text) {
  std::string joined = text;
  replace_all(&joined, "\\\n", " ");
  return squeeze(joined);
}

std::vector<std::string> doc_files(const std::string &root, std::string *error) {
  std::vector<std::string> files;
  if (!g_file_test((root + "/README.md").c_str(), G_FILE_TEST_IS_REGULAR)) {
    *error = root + "/README.md does not exist (set CUDAPREP_DOCS_DIR to the source root)";
    return files;
  }
  files.push_back("README.md");
  GError *gerror = nullptr;
  GDir *dir = g_dir_open((root + "/docs").c_str(), 0, &gerror);
  if (!dir) {
    *error = std::string("cannot list ") + root + "/docs: " + gerror->message;
    g_clear_error(&gerror);
    return files;
  }
  std::vector<std::string> docs;
  while (const char *name = g_dir_read_name(dir)) {
    if (g_str_has_suffix(name, ".md")) docs.push_back(std::string("docs/") + name);
  }
  g_dir_close(dir);
  std::sort(docs.begin(), docs.end());
  files.insert(files.end(), docs.begin(), docs.end());
  return files;
}

std::vector<Block> read_blocks(const std::string &root, const std::string &file,
                               std::string *error) {
  std::vector<Block> blocks;
  gchar *contents = nullptr;
  GError *gerror = nullptr;
  if (!g_file_get_contents((root + "/" + file).c_str(), &contents, nullptr, &gerror)) {
    *error = gerror->message;
    g_clear_error(&gerror);
    return blocks;
  }
  gchar **split = g_strsplit(contents, "\n", -1);
  g_free(contents);
  std::vector<std::string> lines;
  for (gchar **l = split; *l; ++l) lines.emplace_back(*l);
  g_strfreev(split);

  // What the line before was: an indented block may follow only a break.
  enum class Before { kBreak, kText } before = Before::kBreak;
  size_t list_indent = 0;  // content indent of the list item we are in
  for (size_t i = 0; i < lines.size();) {
    const std::string &line = lines[i];
    std::string info;
    const std::string fence = fence_of(line, &info);
    if (!fence.empty()) {
      Block block{file, static_cast<int>(i + 2), info, {}};
      for (++i; i < lines.size() && !closes(lines[i], fence); ++i) block.lines.push_back(lines[i]);
      ++i;  // the closing fence (or the end of the file)
      blocks.push_back(block);
      before = Before::kBreak;
      continue;
    }
    const size_t code_indent = list_indent + 4;
    if (before == Before::kBreak && !blank(line) && indent_of(line) >= code_indent) {
      Block block{file, static_cast<int>(i + 1), "", {}};
      for (; i < lines.size() && (blank(lines[i]) || indent_of(lines[i]) >= code_indent); ++i) {
        block.lines.push_back(blank(lines[i]) ? "" : lines[i].substr(code_indent));
      }
      while (!block.lines.empty() && block.lines.back().empty()) block.lines.pop_back();
      blocks.push_back(block);
      before = Before::kBreak;
      continue;
    }
    if (blank(line)) {
      before = Before::kBreak;
    } else if (line.rfind('#', 0) == 0) {
      before = Before::kBreak;
      list_indent = 0;
    } else {
      before = Before::kText;
      if (const size_t item = list_item_indent(line)) {
        list_indent = item;
      } else if (indent_of(line) < list_indent) {
        list_indent = 0;  // a paragraph of its own ends the list
      }
    }
    ++i;
  }
  return blocks;
}

std::vector<Logical> logical_lines(const Block &block) {
  std::vector<Logical> out;
  Logical current;
  for (size_t i = 0; i < block.lines.size(); ++i) {
    std::string line = block.lines[i];
    if (current.text.empty()) {
      const std::string trimmed = squeeze(line);
      if (trimmed.empty() || trimmed[0] == '#') continue;
      current.line = block.line + static_cast<int>(i);
    }
    // A backslash at the end joins the next line, inside double quotes too.
    if (!line.empty() && line.back() == '\\') {
      line.pop_back();
      current.text += line;
      continue;
    }
    current.text += line;
    out.push_back(current);
    current = Logical{};
  }
  if (!current.text.empty()) out.push_back(current);
  return out;
}

bool shell_words(const std::string &command, std::vector<std::string> *words, std::string *error) {
  words->clear();
  gint argc = 0;
  gchar **argv = nullptr;
  GError *gerror = nullptr;
  if (!g_shell_parse_argv(command.c_str(), &argc, &argv, &gerror)) {
    *error = gerror->message;
    g_clear_error(&gerror);
    return false;
  }
  for (gint i = 0; i < argc; ++i) words->emplace_back(argv[i]);
  g_strfreev(argv);
  return true;
}

bool is_assignment(const std::string &word, std::string *name, std::string *value) {
  const size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  if (!std::isalpha(static_cast<unsigned char>(word[0])) && word[0] != '_') return false;
  for (size_t i = 0; i < eq; ++i) {
    const unsigned char c = static_cast<unsigned char>(word[i]);
    if (!std::isalnum(c) && c != '_') return false;
  }
  if (name) *name = word.substr(0, eq);
  if (value) *value = word.substr(eq + 1);
  return true;
}

std::string expand(const std::string &word, const std::map<std::string, std::string> &variables,
                   std::vector<std::string> *unset) {
  std::string out;
  for (size_t i = 0; i < word.size();) {
    if (word[i] != '$' || i + 1 == word.size()) {
      out += word[i++];
      continue;
    }
    size_t start = i + 1, end;
    const bool braces = word[start] == '{';
    if (braces) {
      ++start;
      end = word.find('}', start);
      if (end == std::string::npos) end = word.size();
    } else {
      end = start;
      while (end < word.size() &&
             (std::isalnum(static_cast<unsigned char>(word[end])) || word[end] == '_')) {
        ++end;
      }
    }
    const std::string name = word.substr(start, end - start);
    const size_t next = braces ? std::min(end + 1, word.size()) : end;
    const auto found = variables.find(name);
    if (name.empty() || found == variables.end()) {
      if (!name.empty() && unset) unset->push_back(name);
      out += word.substr(i, next - i);
    } else {
      out += found->second;
    }
    i = next;
  }
  return out;
}

int replace_all(std::string *text, const std::string &from, const std::string &to) {
  if (from.empty()) return 0;
  int count = 0;
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at)) {
    text->replace(at, from.size(), to);
    at += to.size();
    ++count;
  }
  return count;
}

}  // namespace cudaprep::docs
