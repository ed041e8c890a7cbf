// A real RTSP server (gst-rtsp-server) on 127.0.0.1 in the test process,
// serving live H.264 (videotestsrc ! x264enc) on mounts, optionally behind
// basic authentication. stop() closes every client and the listening
// socket, as a camera that goes away; start() again serves the same port.
#pragma once

#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
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
    int fps = 30;
    // GstRTSPLowerTrans flags the mount offers; 0: the server's default.
    unsigned protocols = 0;
  };

  RtspServer() : context_(g_main_context_new()), loop_(g_main_loop_new(context_, FALSE)) {
    // Returns once the thread owns the context: an invoke() before that
    // would acquire it and run in this thread, and the thread's
    // push_thread_default (which acquires it too) would fail.
    std::promise<void> owned;
    thread_ = std::thread([this, &owned] {
      g_main_context_push_thread_default(context_);
      owned.set_value();
      g_main_loop_run(loop_);
      g_main_context_pop_thread_default(context_);
    });
    owned.get_future().wait();
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
  // The port the next start() serves (0: a free one); start() then reads it back.
  void set_port(int port) { port_ = port; }

  // Serves the mounts (on the port of the last start, or a free one).
  bool start() {
    return invoke([this] {
      server_ = gst_rtsp_server_new();
      gst_rtsp_server_set_address(server_, "127.0.0.1");
      gst_rtsp_server_set_service(server_, port_ ? std::to_string(port_).c_str() : "0");
      // Clients are served in this thread (max-threads 0), not in a thread
      // of gst-rtsp-server's pool: gst_rtsp_client_close() (stop()) is not
      // safe from another thread than its client's (it closes the
      // connection's streams while the client's watch may be reading them:
      // a SIGSEGV in libgstrtsp as a camera's TEARDOWN met stop()).
      GstRTSPThreadPool *pool = gst_rtsp_server_get_thread_pool(server_);
      gst_rtsp_thread_pool_set_max_threads(pool, 0);
      g_object_unref(pool);
      GstRTSPMountPoints *points = gst_rtsp_server_get_mount_points(server_);
      GstRTSPAuth *auth = nullptr;
      for (const auto &[path, mount] : mounts_) {
        GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
        const std::string launch =
            "( videotestsrc is-live=true pattern=ball ! video/x-raw,width=" +
            std::to_string(mount.width) + ",height=" + std::to_string(mount.height) +
            ",framerate=" + std::to_string(mount.fps) +
            "/1 ! valve name=gate ! x264enc tune=zerolatency "
            "speed-preset=ultrafast key-int-max=10 ! rtph264pay name=pay0 pt=96 "
            "config-interval=-1 )";
        gst_rtsp_media_factory_set_launch(factory, launch.c_str());
        if (mount.protocols != 0) {
          gst_rtsp_media_factory_set_protocols(factory,
                                               static_cast<GstRTSPLowerTrans>(mount.protocols));
        }
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

  // Closes every client and the listening socket; returns when the
  // server's media are gone.
  void stop() {
    GList *closed = nullptr;
    invoke([this, &closed] {
      if (!server_) return true;
      // Closed in this thread, the clients' own (max-threads 0, start()).
      // Each is kept (a reference) until the idles its close left behind
      // have run: a send that fails on a closing client queues
      // gst-rtsp-server's do_close() in this context with no reference of
      // its own, which ran on a freed client when the close's unref was the
      // last (SIGSEGV in gst_rtsp_client_close, under valgrind).
      closed = gst_rtsp_server_client_filter(server_, nullptr, nullptr);
      for (GList *client = closed; client; client = client->next)
        gst_rtsp_client_close(GST_RTSP_CLIENT(client->data));
      g_source_destroy(source_);
      g_source_unref(source_);
      source_ = nullptr;
      g_clear_object(&server_);
      std::lock_guard<std::mutex> guard(lock_);
      for (GstElement *media : media_) gst_object_unref(media);
      media_.clear();
      return true;
    });
    if (closed) {
      // At G_PRIORITY_LOW: after those idles (G_PRIORITY_DEFAULT_IDLE).
      std::promise<void> released;
      struct Release {
        GList *clients;
        std::promise<void> *done;
      } release{closed, &released};
      GSource *idle = g_idle_source_new();
      g_source_set_priority(idle, G_PRIORITY_LOW);
      g_source_set_callback(
          idle,
          [](gpointer data) -> gboolean {
            auto *r = static_cast<Release *>(data);
            g_list_free_full(r->clients, g_object_unref);
            r->done->set_value();
            return G_SOURCE_REMOVE;
          },
          &release, nullptr);
      g_source_attach(idle, context_);
      g_source_unref(idle);
      released.get_future().wait();
    }
    // The media are unprepared and freed as their clients close and go:
    // waited for, so that no media of this server still runs (and logs)
    // when the next test starts, or when gst_deinit() frees what they use
    // at exit.
    std::unique_lock<std::mutex> lock(live_->lock);
    if (!live_->gone.wait_for(lock, std::chrono::seconds(10), [&] { return live_->media == 0; }))
      g_printerr("RTSP server: %d media still alive 10 s after stop()\n", live_->media);
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
    GstElement *element = gst_rtsp_media_get_element(media);
    {
      std::lock_guard<std::mutex> guard(self->live_->lock);
      ++self->live_->media;
    }
    // The media's bin goes last, as the media is finalized (after its
    // unprepare). (The count outlives the server: a media may go after it.)
    g_object_weak_ref(
        G_OBJECT(element),
        [](gpointer data, GObject *) {
          auto *live = static_cast<std::shared_ptr<Live> *>(data);
          {
            std::lock_guard<std::mutex> guard((*live)->lock);
            --(*live)->media;
          }
          (*live)->gone.notify_all();
          delete live;
        },
        new std::shared_ptr<Live>(self->live_));
    std::lock_guard<std::mutex> guard(self->lock_);
    self->media_.push_back(element);
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
  // The media this server made whose bins are not finalized yet.
  struct Live {
    std::mutex lock;
    std::condition_variable gone;
    int media = 0;
  };
  std::shared_ptr<Live> live_ = std::make_shared<Live>();
};

}  // namespace cudaprep::test
