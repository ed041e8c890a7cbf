// cudaprepsrc's properties: its enum types and its property specs (names,
// blurbs, ranges, defaults). Part of cudaprepsrc (gstcudaprepsrc-private.h).
#include <gst/rtsp/gstrtsp-enumtypes.h>

#include "sources/gstcudaprepsrc-private.h"

GType gst_cuda_prep_src_state_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_SRC_STATE_STOPPED, "Not started", "stopped"},
      {GST_CUDA_PREP_SRC_STATE_CONNECTING, "Decoder built, no frame yet", "connecting"},
      {GST_CUDA_PREP_SRC_STATE_STREAMING, "Frames flow", "streaming"},
      {GST_CUDA_PREP_SRC_STATE_RECONNECTING, "Waiting to reconnect after a fault", "reconnecting"},
      {GST_CUDA_PREP_SRC_STATE_ENDED, "The source sent EOS", "ended"},
      {GST_CUDA_PREP_SRC_STATE_FAILED, "Reconnect attempts spent", "failed"},
      {0, nullptr, nullptr}};
  if (g_once_init_enter(&type)) {
    GType registered = g_enum_register_static("GstCudaPrepSrcState", values);
    g_once_init_leave(&type, registered);
  }
  return type;
}

GType gst_cuda_prep_src_on_eos_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_SRC_ON_EOS_AUTO, "A live source reconnects, a file ends", "auto"},
      {GST_CUDA_PREP_SRC_ON_EOS_END, "The source ends: its src pad sends EOS", "end"},
      {GST_CUDA_PREP_SRC_ON_EOS_RECONNECT, "A fault: reconnect", "reconnect"},
      {0, nullptr, nullptr}};
  if (g_once_init_enter(&type)) {
    GType registered = g_enum_register_static("GstCudaPrepSrcOnEos", values);
    g_once_init_leave(&type, registered);
  }
  return type;
}

namespace cudaprep::source {

void install_properties(GObjectClass *gobject_class) {
  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  const auto ready_flags = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_READY);
  const auto playing_flags = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_PLAYING);
  g_object_class_install_property(
      gobject_class, PROP_URI,
      g_param_spec_string("uri", "URI",
                          "What to play (rtsp://user:password@host/path, file:///..., any URI "
                          "uridecodebin reads); read back with its credentials masked; used "
                          "from the next connection",
                          nullptr, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_USER_ID,
      g_param_spec_string("user-id", "User ID",
                          "User for the source's authentication; empty: the URI's user", nullptr,
                          playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_USER_PW,
      g_param_spec_string("user-pw", "User password",
                          "Password for the source's authentication; empty: the URI's password "
                          "(write-only: never read back, logged or posted)",
                          nullptr,
                          static_cast<GParamFlags>(G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS |
                                                   GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property(
      gobject_class, PROP_CHAIN,
      g_param_spec_string("chain", "Chain",
                          "gst-launch description of elements between the decoder and the src "
                          "pad, kept across reconnects (e.g. \"cudaresize ! cudanormalize\"); "
                          "empty: decoded frames",
                          nullptr, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_PREFER_GPU_DECODER,
      g_param_spec_boolean("prefer-gpu-decoder", "Prefer GPU decoder",
                           "Try nvcodec's decoders (nvh264dec, nvh265dec, ...) before the "
                           "others, so that frames stay on the GPU (memory:CUDAMemory)",
                           DEFAULT_PREFER_GPU_DECODER, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_RECONNECT_INTERVAL,
      g_param_spec_uint("reconnect-interval", "Reconnect interval",
                        "Milliseconds from a fault to the first reconnect; each further "
                        "consecutive fault doubles it, up to reconnect-interval-max",
                        1, kMaxMilliseconds, DEFAULT_RECONNECT_INTERVAL, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_RECONNECT_INTERVAL_MAX,
      g_param_spec_uint("reconnect-interval-max", "Longest reconnect interval",
                        "Milliseconds the back-off grows to at most", 1, kMaxMilliseconds,
                        DEFAULT_RECONNECT_INTERVAL_MAX, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_RECONNECT_ATTEMPTS,
      g_param_spec_int("reconnect-attempts", "Reconnect attempts",
                       "Reconnects after consecutive faults (a frame resets the count) before "
                       "the source gives up and its src pad sends EOS; -1: no limit, 0: none",
                       -1, G_MAXINT, DEFAULT_RECONNECT_ATTEMPTS, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_STALL_TIMEOUT,
      g_param_spec_uint("stall-timeout", "Stall timeout",
                        "Milliseconds without a frame while PLAYING, counted from a "
                        "connection's first decoded frame, after which the source counts as "
                        "failed and reconnects (before the first frame: connect-timeout); 0: "
                        "never",
                        0, kMaxMilliseconds, DEFAULT_STALL_TIMEOUT, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_CONNECT_TIMEOUT,
      g_param_spec_uint("connect-timeout", "Connect timeout",
                        "Milliseconds from building a decoder (connecting) to its first "
                        "decoded frame while PLAYING, after which the attempt counts as failed "
                        "and reconnects; covers rtspsrc's UDP-to-TCP fallback, the jitter "
                        "buffer and a GPU decoder's start; 0: never",
                        0, kMaxMilliseconds, DEFAULT_CONNECT_TIMEOUT, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_LATENCY,
      g_param_spec_uint("latency", "Latency",
                        "RTSP: milliseconds of the jitter buffer (rtspsrc's latency; its own "
                        "default, 2000, suits playback); used from the next connection",
                        0, kMaxMilliseconds, DEFAULT_LATENCY, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_DROP_ON_LATENCY,
      g_param_spec_boolean("drop-on-latency", "Drop on latency",
                           "RTSP: drop packets that would hold the jitter buffer past latency "
                           "instead of letting latency grow (rtspsrc's drop-on-latency); used "
                           "from the next connection",
                           DEFAULT_DROP_ON_LATENCY, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_PROTOCOLS,
      g_param_spec_flags("protocols", "Protocols",
                         "RTSP: lower transports allowed (rtspsrc's protocols): udp, udp-mcast, "
                         "tcp, http, tls; with UDP and TCP, rtspsrc tries UDP first and falls "
                         "back to TCP (rtspt:// URIs: TCP only); used from the next connection",
                         GST_TYPE_RTSP_LOWER_TRANS, DEFAULT_PROTOCOLS, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint("stats-interval", "Statistics interval",
                        "Milliseconds between cudaprepsrc-stats element messages (the fields "
                        "of `stats`); 0: none",
                        0, kMaxMilliseconds, DEFAULT_STATS_INTERVAL, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_QUEUE_SIZE,
      g_param_spec_uint("queue-size", "Queue size",
                        "Decoded frames held between the decoder and the src pad; a live "
                        "source then drops its oldest (counted as dropped-queue-full), a "
                        "file waits",
                        1, kMaxQueueSize, DEFAULT_QUEUE_SIZE, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_ON_EOS,
      g_param_spec_enum("on-eos", "On EOS",
                        "What the source's EOS means: auto (a live source such as rtspsrc, "
                        "which ends its stream when the server closes, reconnects; a file "
                        "ends), end (the src pad sends EOS), reconnect (a fault)",
                        gst_cuda_prep_src_on_eos_get_type(), DEFAULT_ON_EOS, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_STATS,
      g_param_spec_boxed("stats", "Statistics",
                         "cudaprepsrc-stats: source, uri (masked), state, frames-in (decoded), "
                         "frames-out (pushed from the src pad), dropped-queue-full, reconnects, "
                         "failures (in a row), caps-changes, live, decoder, last-error (masked)",
                         GST_TYPE_STRUCTURE,
                         static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

}  // namespace cudaprep::source
