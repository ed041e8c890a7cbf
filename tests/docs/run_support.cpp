#include "docs/run_support.h"

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cctype>
#include <csignal>
#include <cstdio>

#include "docs/docs_places.h"
#include "docs/launch_check.h"

namespace cudaprep::docs {

const Row &row_by_id(const std::string &id) {
  for (const Row &row : table()) {
    if (row.id == id) return row;
  }
  static const Row none;
  ADD_FAILURE() << "no row " << id << " in tests/docs/docs_table.cpp";
  return none;
}

bool uses(const Row &row, const std::string &token) {
  for (const auto &[from, to] : row.substitutions) {
    if (to.find(token) != std::string::npos) return true;
  }
  return false;
}

// ---- TempDir

TempDir::TempDir() {
  gchar *dir = g_dir_make_tmp("cudaprep-docs-XXXXXX", nullptr);
  if (dir) path_ = dir;
  g_free(dir);
}

namespace {

void remove_tree(const std::string &path) {
  if (GDir *dir = g_dir_open(path.c_str(), 0, nullptr)) {
    while (const char *name = g_dir_read_name(dir)) remove_tree(path + "/" + name);
    g_dir_close(dir);
    if (g_rmdir(path.c_str()) != 0) std::fprintf(stderr, "cannot remove %s\n", path.c_str());
  } else if (g_remove(path.c_str()) != 0) {
    std::fprintf(stderr, "cannot remove %s\n", path.c_str());
  }
}

// `needle` in `text` as a whole name: no name character (letter, digit,
// '-', '_') right before or after it, so "--size" is not found in "--sizes".
bool has_name(const std::string &text, const std::string &needle) {
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  };
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    const size_t end = at + needle.size();
    if ((at == 0 || !name_char(text[at - 1])) && (end == text.size() || !name_char(text[end]))) {
      return true;
    }
  }
  return false;
}

std::string read_text(const std::string &path, bool *ok) {
  gchar *contents = nullptr;
  *ok = g_file_get_contents(path.c_str(), &contents, nullptr, nullptr);
  std::string out = *ok ? contents : "";
  g_free(contents);
  return out;
}

}  // namespace

TempDir::~TempDir() {
  if (!path_.empty()) remove_tree(path_);
}

int TempDir::count_files(const std::string &suffix) const {
  int count = 0;
  if (GDir *dir = g_dir_open(path_.c_str(), 0, nullptr)) {
    while (const char *name = g_dir_read_name(dir)) count += g_str_has_suffix(name, suffix.c_str());
    g_dir_close(dir);
  }
  return count;
}

// ---- the RTSP server

bool ServerChild::start(int mounts, std::string *error) {
  if (places().server.empty()) {
    *error =
        "rtsp-test-server was not found: it is built with the tests where "
        "gstreamer-rtsp-server-1.0 is installed (Debian: libgstrtspserver-1.0-dev); or set "
        "CUDAPREP_RTSP_TEST_SERVER";
    return false;
  }
  const std::vector<std::string> argv = {
      places().server, "--port", "0",          "--mounts", std::to_string(mounts),
      "--user",        "user",   "--password", "password"};
  if (!child_.start(argv, "/", environment_with({}), error)) return false;
  if (!child_.wait_for_line("ready", 15)) {
    *error = places().server + " did not say \"ready\" within 15 s:\n" + child_.tail();
    return false;
  }
  gchar **lines = g_strsplit(child_.output().c_str(), "\n", -1);
  for (gchar **line = lines; *line; ++line) {
    if (g_str_has_prefix(*line, "rtsp://")) uris_.emplace_back(*line);
  }
  g_strfreev(lines);
  if (static_cast<int>(uris_.size()) != mounts) {
    *error = "rtsp-test-server printed " + std::to_string(uris_.size()) + " URIs for " +
             std::to_string(mounts) + " mounts:\n" + child_.tail();
    return false;
  }
  return true;
}

// ---- the MP4

namespace {

struct SharedMp4 {
  TempDir dir;
  std::string path, error;
  bool tried = false;
};

}  // namespace

std::string shared_mp4(std::string *error) {
  static SharedMp4 made;  // removed at exit with its folder
  if (!made.tried) {
    made.tried = true;
    // Encoded here: a raw H.264 stream has no timestamps for mp4mux.
    const std::string path = made.dir.path() + "/cam.mp4";
    const std::vector<std::string> argv = {
        places().gst_launch,
        "-q",
        "videotestsrc",
        "num-buffers=60",
        "!",
        "video/x-raw,format=I420,width=640,height=360,framerate=30/1",
        "!",
        "x264enc",
        "speed-preset=ultrafast",
        "key-int-max=30",
        "!",
        "h264parse",
        "!",
        "mp4mux",
        "!",
        "filesink",
        "location=" + path};
    Child child;
    int status = 0;
    if (!made.dir.ok()) {
      made.error = "no temporary folder for the MP4";
    } else if (!child.start(argv, "/", environment_with({}), &made.error)) {
    } else if (!child.wait_exit(30, &status) || describe_status(status) != "exit 0") {
      made.error = "making " + path + " failed (" + describe_status(status) + "):\n" + child.tail();
    } else {
      made.path = path;
    }
  }
  *error = made.error;
  return made.path;
}

std::map<std::string, std::string> placeholders(const std::string &tmp, const ServerChild *server,
                                                const std::string &mp4) {
  std::map<std::string, std::string> out = {{"@TMP@", tmp},
                                            {"@DATA@", places().data_dir},
                                            {"@MP4@", mp4.empty() ? tmp + "/cam.mp4" : mp4}};
  for (int i = 0; i < 2; ++i) {
    const std::string name = "@RTSP" + std::to_string(i) + "@";
    out[name] = server && i < server->mounts()
                    ? server->uri(i)
                    : "rtsp://user:password@127.0.0.1:9/cam" + std::to_string(i);
  }
  return out;
}

std::string plugin_path_problem(const LaunchCommand &command) {
  for (const std::string &word : command.env) {
    std::string name, value;
    if (!is_assignment(word, &name, &value) || name != "GST_PLUGIN_PATH") continue;
    if (!g_str_has_suffix(value.c_str(), "/gst/cudaprep")) {
      return "GST_PLUGIN_PATH=" + value + " is not where the build puts the plugin " +
             "(BUILD/gst/cudaprep)";
    }
    const std::string built = places().build_plugin + "/libgstcudaprep.so";
    if (!places().build_plugin.empty() && !g_file_test(built.c_str(), G_FILE_TEST_EXISTS)) {
      return "GST_PLUGIN_PATH=" + value + ": the build has no " + built;
    }
  }
  return {};
}

std::vector<std::string> with_stand_ins(const std::vector<std::string> &words, const Row &row,
                                        std::vector<std::string> *notes) {
  std::vector<std::string> out = words;
  for (const std::string &factory : row.gpu_only) {
    GstElementFactory *found = gst_element_factory_find(factory.c_str());
    if (found) {
      gst_object_unref(found);
      continue;
    }
    // decodebin takes what the decoder takes and links on later (its pads
    // come with the stream), so the rest of the line parses as it is.
    for (std::string &word : out) {
      if (word == factory) word = "decodebin";
    }
    notes->push_back(factory +
                     " is not registered here (nvcodec registers it only with a GPU): "
                     "parsed with decodebin in its place (the link after it is not "
                     "checked here)");
  }
  return out;
}

// ---- gst-launch-1.0 runs

namespace {

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", s);
  return text;
}

}  // namespace

RunResult run_launch(const LaunchCommand &command, const Row &row, const std::string &file) {
  RunResult result;
  std::vector<std::string> argv = {places().gst_launch};
  std::vector<std::string> options = command.options;
  const bool live = row.sigint_after > 0;
  bool has_e = false;
  for (const std::string &o : options) has_e = has_e || o == "-e" || o == "--eos-on-shutdown";
  if (live && !has_e) options.insert(options.begin(), "-e");
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), command.description.begin(), command.description.end());
  std::vector<std::string> env = {"GST_PLUGIN_PATH=" + places().plugin_dir};
  for (const std::string &word : command.env) {
    if (word.rfind("GST_PLUGIN_PATH=", 0) != 0) env.push_back(word);
  }
  for (const std::string &word : env) {
    gchar *quoted = g_shell_quote(word.c_str());
    result.command_line += std::string(quoted) + " ";
    g_free(quoted);
  }
  for (const std::string &word : argv) {
    gchar *quoted = g_shell_quote(word.c_str());
    result.command_line += std::string(quoted) + " ";
    g_free(quoted);
  }

  Child child;
  std::string error;
  if (!child.start(argv, places().docs_root, environment_with(env), &error)) {
    result.problems.push_back(error);
    return result;
  }
  int status = 0;
  bool exited = false;
  if (live) {
    if (child.wait_exit(row.sigint_after, &status)) {
      result.problems.push_back("it ended by itself (" + describe_status(status) +
                                ") before SIGINT; a live line runs until Ctrl-C");
      exited = true;
    } else {
      if (!child.signal(SIGINT)) result.problems.push_back("SIGINT could not be sent");
      exited = child.wait_exit(row.exit_within, &status);
      if (!exited) {
        result.problems.push_back("it did not end within " + seconds(row.exit_within) +
                                  " of SIGINT (with -e gst-launch-1.0 waits for EOS to reach "
                                  "every sink): killed");
      }
    }
  } else {
    exited = child.wait_exit(row.timeout, &status);
    if (!exited) {
      result.problems.push_back("it did not end within " + seconds(row.timeout) + ": killed");
    }
  }
  child.stop();
  if (exited && describe_status(status) != "exit 0") {
    result.problems.push_back("it ended with " + describe_status(status) + ", not exit 0");
  }
  result.output = child.output();
  result.output_tail = child.tail(6000);
  gchar **lines = g_strsplit(result.output.c_str(), "\n", -1);
  for (gchar **line = lines; *line; ++line) {
    if (g_str_has_prefix(*line, "ERROR")) {
      result.problems.push_back(std::string("a bus error: ") + *line);
    } else if (live && g_str_has_prefix(*line, "WARNING: from element")) {
      result.problems.push_back(std::string("a warning while the server was up: ") + *line);
    }
  }
  g_strfreev(lines);
  if (!command.grep.empty() && result.output.find(command.grep) == std::string::npos) {
    result.problems.push_back(file + " pipes it into grep " + command.grep +
                              ", which finds nothing in its output");
  }
  return result;
}

// ---- the other kinds

std::vector<std::string> name_problems(const Row &row, const Block &block,
                                       std::vector<std::string> *notes) {
  std::vector<std::string> problems;
  const std::string text = block.text();
  for (const std::string &name : row.names) {
    const size_t colon = name.find(':');
    ElementUse use{name.substr(0, colon), "", {}};
    if (colon != std::string::npos) {
      std::string property = name.substr(colon + 1), pad;
      if (const size_t sep = property.find("::"); sep != std::string::npos) {
        pad = property.substr(0, sep);
        property = property.substr(sep + 2);
      }
      std::string python = property;
      for (char &c : python) c = c == '-' ? '_' : c;
      if (!has_name(text, property) && !has_name(text, python)) {
        problems.push_back(row.id + ": the block no longer mentions " + property +
                           ": update the row's names");
      }
      use.properties.push_back({pad, property, ""});
    }
    for (const std::string &p : check_names({use}, row.gpu_only, notes)) {
      problems.push_back(block.file + ":" + std::to_string(block.line) + ": " + p);
    }
  }
  return problems;
}

std::vector<std::string> description_problems(const Row &row, const Block &block,
                                              std::vector<std::string> *notes) {
  std::vector<std::string> descriptions = descriptions_in_code(block.text());
  if (descriptions.empty() && row.kind == Kind::kFragment &&
      block.text().find(" ! ") != std::string::npos) {
    descriptions.push_back(squeeze(block.text()));
  }
  std::vector<std::string> problems;
  for (const std::string &description : descriptions) {
    std::vector<std::string> words;
    std::string error;
    if (!description_words(description, &words, &error)) {
      problems.push_back("\"" + description + "\" cannot be read: " + error);
      continue;
    }
    for (const std::string &p : check_names(elements_of(words), row.gpu_only, notes)) {
      problems.push_back("in \"" + description + "\": " + p);
    }
  }
  return problems;
}

std::vector<std::string> claim_problems(const Row &row) {
  std::vector<std::string> problems;
  for (const FileClaim &claim : row.claims) {
    bool ok = false;
    const std::string text = read_text(places().docs_root + "/" + claim.path, &ok);
    if (!ok) {
      problems.push_back(row.id + ": " + claim.path + ", which covers the block, does not exist");
      continue;
    }
    for (const std::string &needle : claim.contains) {
      if (text.find(needle) == std::string::npos) {
        problems.push_back(row.id + ": " + claim.path + " no longer holds \"" + needle +
                           "\", which the row says covers the block");
      }
    }
  }
  return problems;
}

namespace {

bool is_tree_path(const std::string &word) {
  if (word.find_first_of("*$") != std::string::npos) return false;
  for (const char *top : {"tools/", "tests/", "python/", "examples/", "bench/", "docs/", ".ci/",
                          "kernels/", "gst/", "gst-libs/", "io/"}) {
    if (word.rfind(top, 0) == 0) return true;
  }
  return false;
}

// The simple commands of a shell line: split at && || | ; and without $(...).
std::vector<std::vector<std::string>> simple_commands(const std::vector<std::string> &words) {
  std::vector<std::vector<std::string>> out(1);
  int depth = 0;  // inside $( ... )
  for (std::string word : words) {
    if (word.rfind("$(", 0) == 0) ++depth;
    if (depth > 0) {
      if (word.back() == ')') --depth;
      continue;
    }
    const bool ends = !word.empty() && word.back() == ';';
    if (ends) word.pop_back();
    if (word == "&&" || word == "||" || word == "|" || word == ";") {
      out.emplace_back();
      continue;
    }
    if (!word.empty()) out.back().push_back(word);
    if (ends) out.emplace_back();
  }
  return out;
}

}  // namespace

std::vector<std::string> shell_problems(const Block &block) {
  std::vector<std::string> problems;
  const std::string root = places().docs_root;
  bool ok = false;
  std::string options = read_text(root + "/meson_options.txt", &ok);
  if (!ok) options = read_text(root + "/meson.options", &ok);
  for (const Logical &line : logical_lines(block)) {
    std::vector<std::string> words;
    std::string error;
    if (!shell_words(line.text, &words, &error)) {
      problems.push_back(block.file + ":" + std::to_string(line.line) + ": " + error);
      continue;
    }
    const std::string at = block.file + ":" + std::to_string(line.line) + ": ";
    for (const std::vector<std::string> &command : simple_commands(words)) {
      std::string script;  // the first file of the tree the command names
      for (const std::string &word : command) {
        if (is_tree_path(word)) {
          if (!g_file_test((root + "/" + word).c_str(), G_FILE_TEST_EXISTS)) {
            problems.push_back(at + word + " does not exist");
          } else if (script.empty() &&
                     g_file_test((root + "/" + word).c_str(), G_FILE_TEST_IS_REGULAR)) {
            script = word;
          }
        } else if (!script.empty() && word.rfind("--", 0) == 0 && word.size() > 2) {
          const std::string option = word.substr(0, word.find('='));
          bool read = false;
          if (!has_name(read_text(root + "/" + script, &read), option)) {
            problems.push_back(at + script + " has no option " + option);
          }
        } else if (!command.empty() && command[0] == "meson" && word.rfind("-D", 0) == 0) {
          const std::string name = word.substr(2, word.find('=') - 2);
          if (options.find("option('" + name + "'") == std::string::npos) {
            problems.push_back(at + "meson option " + name + " is not in meson_options.txt");
          }
        }
      }
    }
  }
  return problems;
}

}  // namespace cudaprep::docs
