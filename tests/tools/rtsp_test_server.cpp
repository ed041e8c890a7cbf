// rtsp-test-server: a real gst-rtsp-server on 127.0.0.1 serving live H.264
// test cameras, for tests (the docs-commands suite runs the README's live
// lines against it) and for people trying cudaprepsrc without a camera:
//
//   rtsp-test-server --mounts 2 --user user --password password
//
// prints one rtsp:// URI per mount, then a line "ready", and serves until
// SIGINT/SIGTERM, or until its standard input is closed when that is a pipe
// or socket (a parent that dies never leaves it behind; a terminal or
// /dev/null is not watched, so `rtsp-test-server &` keeps serving).
#include <glib-unix.h>
#include <gst/gst.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/rtsp_server.h"

namespace {

struct Options {
  int port = 0;
  int mounts = 1;
  std::string prefix = "/cam";
  int width = 320, height = 240, fps = 30;
  std::string user, password;
  std::string transport = "both";
};

bool parse_int(const char *text, int min, int max, int *out) {
  gint64 value = 0;
  GError *error = nullptr;
  if (!g_ascii_string_to_signed(text, 10, min, max, &value, &error)) {
    g_printerr("rtsp-test-server: %s\n", error->message);
    g_clear_error(&error);
    return false;
  }
  *out = static_cast<int>(value);
  return true;
}

bool parse_size(const char *text, Options *options) {
  int width = 0, height = 0;
  char extra = 0;
  if (std::sscanf(text, "%dx%d%c", &width, &height, &extra) != 2 || width < 16 || height < 16 ||
      width > 7680 || height > 4320 || width % 2 != 0 || height % 2 != 0) {
    g_printerr("rtsp-test-server: --size %s: expected WxH, even, 16x16 to 7680x4320\n", text);
    return false;
  }
  options->width = width;
  options->height = height;
  return true;
}

bool parse_options(int argc, char **argv, Options *options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      g_print(
          "usage: rtsp-test-server [--port N] [--mounts N] [--mount-prefix /cam] [--size WxH]\n"
          "                        [--fps N] [--user U --password P] [--transport "
          "udp|tcp|both]\n"
          "Serves live H.264 (videotestsrc ! x264enc) on 127.0.0.1 at PREFIX0..PREFIX(N-1);\n"
          "prints each mount's URI, then \"ready\". --port 0 (default) takes a free port.\n");
      std::exit(0);
    }
    if (i + 1 >= argc) {
      g_printerr("rtsp-test-server: %s needs a value (--help)\n", arg.c_str());
      return false;
    }
    const char *value = argv[++i];
    bool ok = true;
    if (arg == "--port") {
      ok = parse_int(value, 0, 65535, &options->port);
    } else if (arg == "--mounts") {
      ok = parse_int(value, 1, 256, &options->mounts);
    } else if (arg == "--mount-prefix") {
      options->prefix = value;
      ok = !options->prefix.empty() && options->prefix[0] == '/';
      if (!ok) g_printerr("rtsp-test-server: --mount-prefix must start with '/'\n");
    } else if (arg == "--size") {
      ok = parse_size(value, options);
    } else if (arg == "--fps") {
      ok = parse_int(value, 1, 240, &options->fps);
    } else if (arg == "--user") {
      options->user = value;
    } else if (arg == "--password") {
      options->password = value;
    } else if (arg == "--transport") {
      options->transport = value;
      ok = options->transport == "udp" || options->transport == "tcp" ||
           options->transport == "both";
      if (!ok) g_printerr("rtsp-test-server: --transport takes udp, tcp or both\n");
    } else {
      g_printerr("rtsp-test-server: unknown option %s (--help)\n", arg.c_str());
      return false;
    }
    if (!ok) return false;
  }
  if (options->user.empty() != options->password.empty()) {
    g_printerr("rtsp-test-server: --user and --password go together\n");
    return false;
  }
  return true;
}

unsigned lower_transports(const std::string &transport) {
  if (transport == "udp") return GST_RTSP_LOWER_TRANS_UDP;
  if (transport == "tcp") return GST_RTSP_LOWER_TRANS_TCP;
  return GST_RTSP_LOWER_TRANS_UDP | GST_RTSP_LOWER_TRANS_TCP;
}

gboolean on_signal(gpointer loop) {
  g_main_loop_quit(static_cast<GMainLoop *>(loop));
  return G_SOURCE_REMOVE;
}

// Reads and discards stdin; its end (the parent gone) quits.
gboolean on_stdin(gint fd, GIOCondition condition, gpointer loop) {
  char buffer[256];
  const ssize_t got = (condition & G_IO_IN) ? read(fd, buffer, sizeof buffer) : 0;
  if (got > 0) return G_SOURCE_CONTINUE;
  g_main_loop_quit(static_cast<GMainLoop *>(loop));
  return G_SOURCE_REMOVE;
}

bool stdin_is_pipe() {
  struct stat info {};
  return fstat(STDIN_FILENO, &info) == 0 && (S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode));
}

bool have_elements() {
  bool ok = true;
  for (const char *name : {"videotestsrc", "x264enc", "rtph264pay", "valve"}) {
    GstElementFactory *factory = gst_element_factory_find(name);
    if (!factory) {
      g_printerr("rtsp-test-server: GStreamer element %s is missing (%s)\n", name,
                 std::string(name) == "x264enc" ? "gstreamer1.0-plugins-ugly"
                                                : "gstreamer1.0-plugins-base/good");
      ok = false;
      continue;
    }
    gst_object_unref(factory);
  }
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  Options options;
  if (!parse_options(argc, argv, &options)) return 2;
  if (!have_elements()) return 1;

  int status = 0;
  {
    cudaprep::test::RtspServer server;
    server.set_port(options.port);
    for (int i = 0; i < options.mounts; ++i) {
      server.set_mount(options.prefix + std::to_string(i),
                       {options.width, options.height, options.user, options.password, options.fps,
                        lower_transports(options.transport)});
    }
    if (!server.start()) {
      g_printerr("rtsp-test-server: cannot serve on 127.0.0.1:%d\n", options.port);
      return 1;
    }
    const std::string user_info =
        options.user.empty() ? "" : options.user + ":" + options.password + "@";
    for (int i = 0; i < options.mounts; ++i) {
      std::printf("rtsp://%s127.0.0.1:%d%s%d\n", user_info.c_str(), server.port(),
                  options.prefix.c_str(), i);
    }
    std::printf("ready\n");
    std::fflush(stdout);

    GMainLoop *loop = g_main_loop_new(nullptr, FALSE);
    const guint sigint = g_unix_signal_add(SIGINT, on_signal, loop);
    const guint sigterm = g_unix_signal_add(SIGTERM, on_signal, loop);
    guint watch = 0;
    if (stdin_is_pipe()) {
      watch = g_unix_fd_add(STDIN_FILENO, static_cast<GIOCondition>(G_IO_IN | G_IO_HUP | G_IO_ERR),
                            on_stdin, loop);
    }
    if (sigint == 0 || sigterm == 0 || (stdin_is_pipe() && watch == 0)) {
      g_printerr("rtsp-test-server: cannot watch SIGINT/SIGTERM or stdin\n");
      status = 1;
    } else {
      g_main_loop_run(loop);
    }
    // A source that already fired (returned REMOVE) is gone: remove the rest.
    for (guint id : {sigint, sigterm, watch}) {
      GSource *source = id ? g_main_context_find_source_by_id(nullptr, id) : nullptr;
      if (source) g_source_destroy(source);
    }
    g_main_loop_unref(loop);
    server.stop();
  }
  gst_deinit();
  return status;
}
