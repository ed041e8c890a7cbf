// A camera that hangs mid-handshake, for the source tests.
#pragma once

#include <gio/gio.h>
#include <gtest/gtest.h>

#include <string>

namespace cudaprep::test {

// A TCP port that accepts connections and never answers: a camera that
// hangs mid-handshake (the kernel completes the connection, nobody reads).
class SilentServer {
 public:
  SilentServer() {
    GError *error = nullptr;
    socket_ =
        g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
    GInetAddress *loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
    GSocketAddress *address = g_inet_socket_address_new(loopback, 0);
    g_object_unref(loopback);
    const bool bound = socket_ && g_socket_bind(socket_, address, TRUE, &error) &&
                       g_socket_listen(socket_, &error);
    g_object_unref(address);
    if (!bound) {
      ADD_FAILURE() << "silent server: " << (error ? error->message : "no socket");
      g_clear_error(&error);
      return;
    }
    GSocketAddress *local = g_socket_get_local_address(socket_, &error);
    port_ = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(local));
    g_object_unref(local);
  }
  ~SilentServer() {
    if (socket_) g_object_unref(socket_);
  }
  SilentServer(const SilentServer &) = delete;
  SilentServer &operator=(const SilentServer &) = delete;
  std::string uri() const { return "rtsp://127.0.0.1:" + std::to_string(port_) + "/cam"; }

 private:
  GSocket *socket_ = nullptr;
  guint16 port_ = 0;
};

}  // namespace cudaprep::test
