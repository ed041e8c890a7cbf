#include "docs/docs_places.h"

#include <glib.h>

#include <initializer_list>

// Set by tests/meson.build; the stage's copy of the suite falls back to the
// places beside its binary when these are not there.
#ifndef CUDAPREP_DOCS_SOURCE_DIR
#define CUDAPREP_DOCS_SOURCE_DIR ""
#endif
#ifndef CUDAPREP_DOCS_BUILD_DIR
#define CUDAPREP_DOCS_BUILD_DIR ""
#endif
#ifndef CUDAPREP_RTSP_TEST_SERVER
#define CUDAPREP_RTSP_TEST_SERVER ""
#endif
#ifndef CUDAPREP_TEST_DATA_DIR
#define CUDAPREP_TEST_DATA_DIR ""
#endif

namespace cudaprep::docs {

namespace {

std::string exe_dir() {
  gchar *exe = g_file_read_link("/proc/self/exe", nullptr);
  if (!exe) return ".";
  gchar *dir = g_path_get_dirname(exe);
  std::string out = dir;
  g_free(dir);
  g_free(exe);
  return out;
}

bool exists(const std::string &path, GFileTest test = G_FILE_TEST_EXISTS) {
  return !path.empty() && g_file_test(path.c_str(), test);
}

// The environment's value, else the first candidate where `marker` (a path
// under it, or "" for the folder itself) exists, else the last candidate.
std::string pick(const char *variable, std::initializer_list<std::string> candidates,
                 const std::string &marker) {
  if (const char *value = g_getenv(variable); value && *value) return value;
  std::string last;
  for (const std::string &candidate : candidates) {
    if (candidate.empty()) continue;
    last = candidate;
    if (exists(marker.empty() ? candidate : candidate + "/" + marker)) return candidate;
  }
  return last;
}

Places find_places() {
  const std::string here = exe_dir();
  const std::string build = CUDAPREP_DOCS_BUILD_DIR;
  Places p;
  p.docs_root =
      pick("CUDAPREP_DOCS_DIR", {CUDAPREP_DOCS_SOURCE_DIR, here + "/../docs-root"}, "README.md");
  p.plugin_dir =
      pick("CUDAPREP_PLUGIN_DIR", {build.empty() ? "" : build + "/gst/cudaprep", here + "/../gst"},
           "libgstcudaprep.so");
  p.data_dir = pick("CUDAPREP_TEST_DATA_DIR", {CUDAPREP_TEST_DATA_DIR, here + "/../data"}, "");
  p.server = pick("CUDAPREP_RTSP_TEST_SERVER",
                  {here + "/rtsp-test-server", CUDAPREP_RTSP_TEST_SERVER}, "");
  if (!exists(p.server, G_FILE_TEST_IS_EXECUTABLE)) p.server.clear();
  p.build_dir = exists(build + "/build.ninja") ? build : here + "/..";
  p.build_plugin = exists(build + "/build.ninja") ? build + "/gst/cudaprep" : "";
  gchar *launch = g_find_program_in_path("gst-launch-1.0");
  p.gst_launch = launch ? launch : "";
  g_free(launch);
  p.source_tree = exists(p.docs_root + "/meson.build");
  return p;
}

}  // namespace

const Places &places() {
  static const Places p = find_places();
  return p;
}

std::string describe(const Places &p) {
  return "docs " + p.docs_root + (p.source_tree ? " (source tree)" : " (docs only)") + "\nplugin " +
         p.plugin_dir + "\ndata " + p.data_dir + "\nrtsp-test-server " +
         (p.server.empty() ? "(none)" : p.server) + "\nbuild " + p.build_dir + "\ngst-launch-1.0 " +
         (p.gst_launch.empty() ? "(not on PATH)" : p.gst_launch) + "\n";
}

}  // namespace cudaprep::docs
