// A real RTSP server (gst-rtsp-server) on 127.0.0.1 in the test process,
// serving live H.264 (videotestsrc ! x264enc) on mounts, optionally behind
// basic authentication. stop() closes every client and the listening
// socket, as a camera that goes away; start() again serves the same port.
#pragma once

#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>

#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cudaprep::test {

class RtspServer {
 public:
  struct Mount {
    int width = 320, height = 240;
    std::string user, password;  // empty: no authentication
  };

  RtspServer() : context_(g_main_context_new()), loop_(g_main_loop_new(context_, FALSE)) {
    thread_ = std::thread([this] {
      g_main_context_push_thread_default(context_);
      g_main_loop_run(loop_);
      g_main_context_pop_thread_default(context_);
    });
  }
  ~RtspServer() {
    stop();
    g_main_loop_quit(loop_);
    thread_.join();
    g_main_loop_unref(loop_);
    g_main_context_unref(context_);
  }
  RtspServer(const RtspServer &) = delete;
  RtspServer &operator=(const RtspServer &) = delete;

  void set_mount(const std::string &path, const Mount &mount) { mounts_[path] = mount; }

  // Serves the mounts (on the port of the last start, or a free one).
  bool start() {
    return invoke([this] {
      server_ = gst_rtsp_server_new();
      gst_rtsp_server_set_address(server_, "127.0.0.1");
      gst_rtsp_server_set_service(server_, port_ ? std::to_string(port_).c_str() : "0");
      GstRTSPMountPoints *points = gst_rtsp_server_get_mount_points(server_);
      GstRTSPAuth *auth = nullptr;
      for (const auto &[path, mount] : mounts_) {
        GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
        const std::string launch =
            "( videotestsrc is-live=true pattern=ball ! video/x-raw,width=" +
            std::to_string(mount.width) + ",height=" + std::to_string(mount.height) +
            ",framerate=30/1 ! valve name=gate ! x264enc tune=zerolatency "
            "speed-preset=ultrafast key-int-max=10 ! rtph264pay name=pay0 pt=96 "
            "config-interval=-1 )";
        gst_rtsp_media_factory_set_launch(factory, launch.c_str());
        g_signal_connect(factory, "media-configure", G_CALLBACK(&RtspServer::on_media), this);
        if (!mount.user.empty()) {
          if (!auth) auth = gst_rtsp_auth_new();
          GstRTSPToken *token = gst_rtsp_token_new(GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING,
                                                   mount.user.c_str(), nullptr);
          gchar *basic = gst_rtsp_auth_make_basic(mount.user.c_str(), mount.password.c_str());
          gst_rtsp_auth_add_basic(auth, basic, token);
          g_free(basic);
          gst_rtsp_token_unref(token);
          gst_rtsp_media_factory_add_role(
              factory, mount.user.c_str(), GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
              GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, nullptr);
        }
        gst_rtsp_mount_points_add_factory(points, path.c_str(), factory);
      }
      g_object_unref(points);
      if (auth) {
        gst_rtsp_server_set_auth(server_, auth);
        g_object_unref(auth);
      }
      GError *error = nullptr;
      source_ = gst_rtsp_server_create_source(server_, nullptr, &error);
      if (!source_) {
        g_printerr("RTSP server: %s\n", error ? error->message : "no source");
        g_clear_error(&error);
        g_clear_object(&server_);
        return false;
      }
      g_source_attach(source_, context_);
      port_ = gst_rtsp_server_get_bound_port(server_);
      return true;
    });
  }

  // Closes every client and the listening socket.
  void stop() {
    invoke([this] {
      if (!server_) return true;
      gst_rtsp_server_client_filter(
          server_,
          [](GstRTSPServer *, GstRTSPClient *client, gpointer) {
            gst_rtsp_client_close(client);
            return GST_RTSP_FILTER_REMOVE;
          },
          nullptr);
      g_source_destroy(source_);
      g_source_unref(source_);
      source_ = nullptr;
      g_clear_object(&server_);
      std::lock_guard<std::mutex> guard(lock_);
      for (GstElement *media : media_) gst_object_unref(media);
      media_.clear();
      return true;
    });
  }

  // Stops (true) or restarts (false) the frames of every media served now,
  // keeping the connections: a camera that stalls.
  void gate(bool drop) {
    std::lock_guard<std::mutex> guard(lock_);
    for (GstElement *media : media_) {
      GstElement *valve = gst_bin_get_by_name(GST_BIN(media), "gate");
      if (!valve) continue;
      g_object_set(valve, "drop", drop, nullptr);
      gst_object_unref(valve);
    }
  }

  int port() const { return port_; }
  std::string uri(const std::string &path, const std::string &user_info = "") const {
    return "rtspt://" + (user_info.empty() ? "" : user_info + "@") +
           "127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  static void on_media(GstRTSPMediaFactory *, GstRTSPMedia *media, RtspServer *self) {
    std::lock_guard<std::mutex> guard(self->lock_);
    self->media_.push_back(gst_rtsp_media_get_element(media));
  }

  // Runs `work` in the server's thread and waits for it.
  bool invoke(std::function<bool()> work) {
    std::promise<bool> done;
    struct Call {
      std::function<bool()> *work;
      std::promise<bool> *done;
    } call{&work, &done};
    g_main_context_invoke(
        context_,
        [](gpointer data) -> gboolean {
          auto *c = static_cast<Call *>(data);
          c->done->set_value((*c->work)());
          return G_SOURCE_REMOVE;
        },
        &call);
    return done.get_future().get();
  }

  GMainContext *context_;
  GMainLoop *loop_;
  std::thread thread_;
  GstRTSPServer *server_ = nullptr;
  GSource *source_ = nullptr;
  int port_ = 0;
  std::map<std::string, Mount> mounts_;
  std::mutex lock_;
  std::vector<GstElement *> media_;
};

}  // namespace cudaprep::test
