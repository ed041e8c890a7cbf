// Every code block of README.md and docs/*.md is accounted for by a row of
// docs_table.cpp, and each runs or is checked as its row says (issue 32):
// gst-launch-1.0 lines are parsed in this process (elements, properties,
// pads, links) and run by the real gst-launch-1.0 against a real RTSP
// server and files the suite makes; those that need a GPU skip after
// parsing where there is none. Shell, Python and C blocks point at what
// runs them, which must exist and hold what the block uses.
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "common/cuda_test.h"
#include "docs/child_process.h"
#include "docs/doc_blocks.h"
#include "docs/docs_places.h"
#include "docs/docs_table.h"
#include "docs/launch_block.h"
#include "docs/launch_check.h"
#include "docs/run_support.h"

namespace cudaprep::docs {
namespace {

bool block_matches(const Row &row, const Block &block) {
  return row.file == block.file && fingerprint(block.text()).rfind(fingerprint(row.first), 0) == 0;
}

const std::vector<Block> &all_blocks(std::string *error) {
  static std::string load_error;
  static const std::vector<Block> blocks = [] {
    std::vector<Block> out;
    for (const std::string &file : doc_files(places().docs_root, &load_error)) {
      std::vector<Block> more = read_blocks(places().docs_root, file, &load_error);
      out.insert(out.end(), more.begin(), more.end());
    }
    return out;
  }();
  *error = load_error;
  return blocks;
}

// The one block of `row`, or a failure that says why not.
const Block *block_of(const Row &row) {
  std::string error;
  const std::vector<Block> &blocks = all_blocks(&error);
  EXPECT_EQ(error, "") << "reading the docs under " << places().docs_root;
  const Block *found = nullptr;
  for (const Block &block : blocks) {
    if (!block_matches(row, block)) continue;
    EXPECT_EQ(found, nullptr) << row.id << " matches " << row.file << ":" << found->line
                              << " and :" << block.line << ": make its `first` longer";
    found = &block;
  }
  EXPECT_NE(found, nullptr) << "row " << row.id << ": no block of " << row.file << " starts with \""
                            << row.first << "\" any more: update or remove the row";
  return found;
}

bool has_gpu() {
  return cudaprep::test::cuda_unavailable_reason().empty();
}

std::string joined(const std::vector<std::string> &lines, const char *separator = "\n  ") {
  std::string out;
  for (const std::string &line : lines) out += separator + line;
  return out;
}

// ---- the accounting --------------------------------------------------------

TEST(DocsBlocks, EveryBlockHasARowAndEveryRowItsBlock) {
  std::string error;
  const std::vector<Block> &blocks = all_blocks(&error);
  ASSERT_EQ(error, "") << "reading the docs under " << places().docs_root;
  ASSERT_FALSE(blocks.empty()) << "no code block found under " << places().docs_root;
  std::set<std::string> ids;
  std::map<std::string, int> rows_matched;
  std::map<std::string, int> per_kind;
  int gpu_rows = 0;
  for (const Row &row : table()) {
    EXPECT_TRUE(ids.insert(row.id).second) << "two rows are called " << row.id;
    rows_matched[row.id] = 0;
  }
  for (const Block &block : blocks) {
    std::vector<const Row *> rows;
    for (const Row &row : table()) {
      if (block_matches(row, block)) rows.push_back(&row);
    }
    if (rows.empty()) {
      ADD_FAILURE() << block.file << ":" << block.line << ": a code block no row accounts for:\n  "
                    << block.first_line()
                    << "\nAdd a row to tests/docs/docs_table.cpp saying how it is covered "
                       "(launch, shell, python, c, fragment or text).";
      continue;
    }
    for (const Row *row : rows) ++rows_matched[row->id];
    if (rows.size() > 1) {
      ADD_FAILURE() << block.file << ":" << block.line << " matches rows " << rows[0]->id << " and "
                    << rows[1]->id << ": make their `first` longer";
    }
    const Row &row = *rows[0];
    ++per_kind[kind_name(row.kind)];
    gpu_rows += row.gpu || !row.program.empty();
    std::printf("%-26s %-9s %-4s %s\n", (block.file + ":" + std::to_string(block.line)).c_str(),
                kind_name(row.kind), row.gpu || !row.program.empty() ? "GPU" : "", row.id.c_str());
  }
  for (const auto &[id, count] : rows_matched) {
    EXPECT_GT(count, 0) << "row " << id
                        << " accounts for no block: its block was changed or removed; update or "
                           "remove the row in tests/docs/docs_table.cpp";
  }
  std::printf("%zu blocks:", blocks.size());
  for (const auto &[kind, count] : per_kind) std::printf(" %d %s,", count, kind.c_str());
  std::printf(" %d of them run on a GPU\n", gpu_rows);
}

TEST(DocsBlocks, MarkdownIsReadAsCommonMarkReadsIt) {
  char *dir = g_dir_make_tmp("cudaprep-docs-md-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  const std::string md =
      "# Title\n    code after a heading\n\ntext\n    not code: a paragraph goes on\n\n"
      "- item\n\n    still the item's text\n\n      code in the item\n\nplain\n\n"
      "    code\n\n    same block\n```c\nint x;\n```\n````\n```\ninner\n````\n";
  ASSERT_TRUE(g_file_set_contents((std::string(dir) + "/t.md").c_str(), md.c_str(), -1, nullptr));
  std::string error;
  const std::vector<Block> blocks = read_blocks(dir, "t.md", &error);
  EXPECT_EQ(g_remove((std::string(dir) + "/t.md").c_str()), 0);
  EXPECT_EQ(g_rmdir(dir), 0);
  g_free(dir);
  ASSERT_EQ(error, "");
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_EQ(blocks[0].text(), "code after a heading");
  EXPECT_EQ(blocks[1].text(), "code in the item");
  EXPECT_EQ(blocks[2].text(), "code\n\nsame block");
  EXPECT_EQ(blocks[2].line, 15);
  EXPECT_EQ(blocks[3].info, "c");
  EXPECT_EQ(blocks[3].text(), "int x;");
  EXPECT_EQ(blocks[4].text(), "```\ninner");
  Block shell{"x", 1, "", {"a=\"1 \\", "  2\"", "# comment", "gst-launch-1.0 x \\", "  ! y"}};
  const std::vector<Logical> lines = logical_lines(shell);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "a=\"1   2\"");
  EXPECT_EQ(lines[1].line, 4);
  EXPECT_EQ(expand("chain=$a!${a}$b", {{"a", "x y"}}, nullptr), "chain=x y!x y$b");
}

// ---- gst-launch-1.0 lines --------------------------------------------------

class Launch : public ::testing::TestWithParam<std::string> {};

TEST_P(Launch, ParsesAndRunsAsTheUserRunsIt) {
  const Row &row = row_by_id(GetParam());
  const Block *block = block_of(row);
  ASSERT_NE(block, nullptr);
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  const bool gpu = has_gpu();
  const bool run = !row.gpu || gpu;

  // Parse first, everywhere: with stand-ins for what is made at run time.
  std::map<std::string, std::string> parse_places = placeholders(tmp.path(), nullptr, "");
  const LaunchBlock parsed = read_launch_block(*block, row.substitutions, parse_places);
  ASSERT_TRUE(parsed.problems.empty()) << joined(parsed.problems);
  ASSERT_FALSE(parsed.commands.empty()) << row.id << ": no gst-launch-1.0 command in the block";
  std::vector<std::string> notes;
  for (const std::vector<std::string> &fragment : parsed.fragments) {
    const auto problems = check_names(elements_of(fragment), row.gpu_only, &notes);
    EXPECT_TRUE(problems.empty()) << block->file << ":" << block->line << " (fragment)"
                                  << joined(problems);
  }
  for (const LaunchCommand &command : parsed.commands) {
    EXPECT_TRUE(plugin_path_problem(command).empty()) << plugin_path_problem(command);
    const std::vector<std::string> words = with_stand_ins(command.description, row, &notes);
    auto problems = check_names(elements_of(words), row.gpu_only, &notes);
    const auto parse_problems = check_parse(words);
    problems.insert(problems.end(), parse_problems.begin(), parse_problems.end());
    EXPECT_TRUE(problems.empty()) << block->file << ":" << command.line
                                  << ": the line does not parse as written" << joined(problems);
  }
  for (const std::string &note : notes) std::printf("note: %s\n", note.c_str());
  if (::testing::Test::HasFailure()) return;
  if (!run) {
    GTEST_SKIP() << block->file << ":" << block->line << " parsed; running it needs a GPU ("
                 << cudaprep::test::cuda_unavailable_reason() << ")";
  }

  // Run it as the user does, with what the placeholders stand for.
  ASSERT_FALSE(places().gst_launch.empty()) << "gst-launch-1.0 is not on PATH";
  std::unique_ptr<ServerChild> server;
  std::string mp4;
  if (uses(row, "@RTSP")) {
    server = std::make_unique<ServerChild>();
    std::string error;
    ASSERT_TRUE(server->start(2, &error)) << error;
  }
  if (uses(row, "@MP4@")) {
    std::string error;
    mp4 = shared_mp4(&error);
    ASSERT_FALSE(mp4.empty()) << error;
  }
  const LaunchBlock ready =
      read_launch_block(*block, row.substitutions, placeholders(tmp.path(), server.get(), mp4));
  ASSERT_TRUE(ready.problems.empty()) << joined(ready.problems);
  for (const LaunchCommand &command : ready.commands) {
    const RunResult result = run_launch(command, row, block->file);
    EXPECT_TRUE(result.problems.empty())
        << block->file << ":" << command.line << " as run:\n  " << result.command_line
        << joined(result.problems) << "\n--- output (tail) ---\n"
        << result.output_tail;
  }
  if (row.min_tensor_files > 0) {
    const int files = tmp.count_files(".npy");
    EXPECT_GE(files, row.min_tensor_files)
        << block->file << ":" << block->line << ": the sink wrote " << files
        << " tensor file(s) into " << tmp.path() << ", expected at least " << row.min_tensor_files;
  }
}

std::vector<std::string> ids_of(bool launch) {
  std::vector<std::string> ids;
  for (const Row &row : table()) {
    if ((row.kind == Kind::kLaunch) == launch) ids.push_back(row.id);
  }
  return ids;
}

std::string param_name(const ::testing::TestParamInfo<std::string> &info) {
  return info.param;
}

INSTANTIATE_TEST_SUITE_P(Docs, Launch, ::testing::ValuesIn(ids_of(true)), param_name);

// ---- shell, Python, C, fragments, text ---------------------------------------

class Covered : public ::testing::TestWithParam<std::string> {};

TEST_P(Covered, WhatCoversItExistsAndHoldsWhatTheBlockUses) {
  const Row &row = row_by_id(GetParam());
  const Block *block = block_of(row);
  ASSERT_NE(block, nullptr);
  std::printf("%s:%d %s: %s\n", block->file.c_str(), block->line, kind_name(row.kind),
              row.why.c_str());
  // The names it uses exist (every kind: a renamed property fails here).
  std::vector<std::string> notes;
  for (const std::string &problem : name_problems(row, *block, &notes)) ADD_FAILURE() << problem;
  if (row.kind == Kind::kPython || row.kind == Kind::kC || row.kind == Kind::kFragment) {
    for (const std::string &problem : description_problems(row, *block, &notes)) {
      ADD_FAILURE() << block->file << ":" << block->line << ": " << problem;
    }
  }
  for (const std::string &note : notes) std::printf("note: %s\n", note.c_str());
  if (!places().source_tree) {
    GTEST_SKIP() << places().docs_root
                 << " is not a source tree: what covers the block is checked in CI";
  }
  for (const std::string &problem : claim_problems(row)) ADD_FAILURE() << problem;
  if (row.kind == Kind::kShell) {
    for (const std::string &problem : shell_problems(*block)) ADD_FAILURE() << problem;
  }
}

INSTANTIATE_TEST_SUITE_P(Docs, Covered, ::testing::ValuesIn(ids_of(false)), param_name);

// ---- programs a shell block runs ---------------------------------------------

class Program : public ::testing::TestWithParam<std::string> {};

TEST_P(Program, RunsAndSaysWhatTheDocsSay) {
  const Row &row = row_by_id(GetParam());
  // (Without a GPU first: `meson test` builds what the tests need, and the
  // examples are no test's.)
  if (!has_gpu()) {
    GTEST_SKIP() << row.program << " needs a GPU (" << cudaprep::test::cuda_unavailable_reason()
                 << ")";
  }
  const std::string path = places().build_dir + "/" + row.program;
  ASSERT_TRUE(g_file_test(path.c_str(), G_FILE_TEST_IS_EXECUTABLE)) << path << " was not built";
  Child child;
  std::string error;
  ASSERT_TRUE(child.start({path}, places().docs_root,
                          environment_with({"GST_PLUGIN_PATH=" + places().plugin_dir}), &error))
      << error;
  int status = 0;
  const bool exited = child.wait_exit(120, &status);
  EXPECT_TRUE(exited) << path << " did not end within 120 s\n" << child.tail();
  if (!exited) return;
  EXPECT_EQ(describe_status(status), "exit 0") << child.tail();
  EXPECT_NE(child.output().find(row.expect), std::string::npos)
      << path << " did not say \"" << row.expect << "\"; it said:\n"
      << child.tail();
}

std::vector<std::string> program_ids() {
  std::vector<std::string> ids;
  for (const Row &row : table()) {
    if (!row.program.empty()) ids.push_back(row.id);
  }
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Docs, Program, ::testing::ValuesIn(program_ids()), param_name);

// ---- the harness itself ------------------------------------------------------

// What the live rows rely on, without a GPU: two mounts of one server with
// authentication, a line written as the README writes it, placeholders,
// -e and SIGINT, and frames reaching both sinks. A live row that fails on
// the GPU then fails for its own line, not for the harness.
TEST(DocsHarness, ALiveLineRunsAgainstTheServerAndEndsBySigint) {
  ASSERT_FALSE(places().gst_launch.empty()) << "gst-launch-1.0 is not on PATH";
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  ServerChild server;
  std::string error;
  ASSERT_TRUE(server.start(2, &error)) << error;
  Row row;
  row.id = "harness";
  row.substitutions = {{"rtsp://user:password@10.0.0.7/stream1", "@RTSP0@"},
                       {"rtsp://user:password@10.0.0.8/stream1", "@RTSP1@"}};
  row.live(3);
  const Block block{
      "harness.md",
      1,
      "",
      {"gst-launch-1.0 -v \\", "  uridecodebin uri=rtsp://user:password@10.0.0.7/stream1 ! \\",
       "    fakesink name=s0 silent=false \\",
       "  uridecodebin uri=rtsp://user:password@10.0.0.8/stream1 ! \\",
       "    fakesink name=s1 silent=false"}};
  const LaunchBlock ready =
      read_launch_block(block, row.substitutions, placeholders(tmp.path(), &server, ""));
  ASSERT_TRUE(ready.problems.empty()) << joined(ready.problems);
  ASSERT_EQ(ready.commands.size(), 1u);
  const RunResult result = run_launch(ready.commands[0], row, block.file);
  EXPECT_TRUE(result.problems.empty())
      << result.command_line << joined(result.problems) << "\n--- output (tail) ---\n"
      << result.output_tail;
  for (const char *sink : {"s0", "s1"}) {
    const std::string frame = std::string("GstFakeSink:") + sink + ": last-message = chain";
    EXPECT_NE(result.output.find(frame), std::string::npos)
        << "no frame reached " << sink << " from " << server.uri(sink[1] - '0');
  }
}

// The MP4 that stands for the README's files decodes to the end.
TEST(DocsHarness, TheMp4ThatStandsForTheReadmesFilesPlays) {
  ASSERT_FALSE(places().gst_launch.empty()) << "gst-launch-1.0 is not on PATH";
  std::string error;
  const std::string mp4 = shared_mp4(&error);
  ASSERT_FALSE(mp4.empty()) << error;
  Row row;
  row.id = "harness";
  row.timeout = 30;
  const Block block{
      "harness.md", 1, "", {"gst-launch-1.0 uridecodebin uri=file://@MP4@ ! fakesink"}};
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  const LaunchBlock ready = read_launch_block(block, {}, placeholders(tmp.path(), nullptr, mp4));
  ASSERT_TRUE(ready.problems.empty()) << joined(ready.problems);
  ASSERT_EQ(ready.commands.size(), 1u);
  const RunResult result = run_launch(ready.commands[0], row, block.file);
  EXPECT_TRUE(result.problems.empty())
      << result.command_line << joined(result.problems) << "\n--- output (tail) ---\n"
      << result.output_tail;
  EXPECT_NE(result.output.find("Got EOS from element"), std::string::npos) << result.output_tail;
}

// ---- the README's live cameras without a GPU ---------------------------------

// The README's "Many live cameras" line with a CPU chain in place of the
// batch (cudaprepsrc decodes with openh264dec or avdec_h264 here): frames
// must reach both sinks, and the pipeline must end within 5 s of SIGINT.
// Without a GPU this is what CI can run of that line (issue 32: it once
// made no tensor and never ended after SIGINT with -e).
TEST(DocsCpuTwin, ReadmeLiveCamerasDeliverFramesWithACpuChain) {
  // (A named id: GCC 14 takes a reference returned for a temporary argument
  // for a dangling one.)
  const std::string id = "readme_live_cameras";
  const Row &row = row_by_id(id);
  const Block *block = block_of(row);
  ASSERT_NE(block, nullptr);
  ASSERT_FALSE(places().gst_launch.empty()) << "gst-launch-1.0 is not on PATH";
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  auto server = std::make_unique<ServerChild>();
  std::string error;
  ASSERT_TRUE(server->start(2, &error)) << error;
  Row twin = row;
  twin.substitutions = {
      {"rtsp://user:password@10.0.0.7/stream1", "@RTSP0@"},
      {"rtsp://user:password@10.0.0.8/stream1", "@RTSP1@"},
      {"cudabatch name=b batch-size=8 ! cudatensorsink", ""},
      {"chain=\"$chain\" ! b.sink_0", "prefer-gpu-decoder=false ! fakesink name=s0 silent=false"},
      {"chain=\"$chain\" ! b.sink_1", "prefer-gpu-decoder=false ! fakesink name=s1 silent=false"},
  };
  twin.gpu = false;
  const LaunchBlock ready =
      read_launch_block(*block, twin.substitutions, placeholders(tmp.path(), server.get(), ""));
  ASSERT_TRUE(ready.problems.empty()) << joined(ready.problems);
  ASSERT_EQ(ready.commands.size(), 1u);
  LaunchCommand command = ready.commands[0];
  command.options.push_back("-v");  // each frame a sink takes is printed
  const RunResult result = run_launch(command, twin, block->file);
  EXPECT_TRUE(result.problems.empty())
      << result.command_line << joined(result.problems) << "\n--- output (tail) ---\n"
      << result.output_tail;
  for (const char *sink : {"s0", "s1"}) {
    const std::string frame = std::string("GstFakeSink:") + sink + ": last-message = chain";
    EXPECT_NE(result.output.find(frame), std::string::npos)
        << "no frame reached " << sink << " (cudaprepsrc of " << server->uri(sink[1] - '0') << ")";
  }
}

}  // namespace
}  // namespace cudaprep::docs
