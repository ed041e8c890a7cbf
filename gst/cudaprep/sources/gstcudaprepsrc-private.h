// cudaprepsrc's insides, shared by its files: the element
// (gstcudaprepsrc.cpp: property values, states, messages, the stable part),
// its properties (gstcudaprepsrcproperties.cpp: their enum types and specs),
// the decoder (gstcudaprepsrcdecoder.cpp: a uridecodebin per connection and
// the probes that watch its frames), the worker (gstcudaprepsrcworker.cpp:
// faults, back-off, reconnects, the messages it posts) and the GL display
// its decoder gets (gstcudaprepsrcgl.h). Not installed.
#pragma once

#include <gst/gst.h>
#include <gst/rtsp/gstrtsptransport.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "sources/gstcudaprepsrc.h"
#include "sources/gstcudaprepsrcgl.h"

GST_DEBUG_CATEGORY_EXTERN(gst_cuda_prep_src_debug);

namespace cudaprep::source {

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

constexpr guint kMaxMilliseconds = 3600 * 1000;
constexpr guint DEFAULT_RECONNECT_INTERVAL = 1000;
constexpr guint DEFAULT_RECONNECT_INTERVAL_MAX = 30000;
constexpr gint DEFAULT_RECONNECT_ATTEMPTS = -1;
constexpr guint DEFAULT_STALL_TIMEOUT = 5000;
// Past rtspsrc's UDP-to-TCP fallback (5 s), its jitter buffer and a GPU
// decoder's first CUDA context.
constexpr guint DEFAULT_CONNECT_TIMEOUT = 20000;
// Analytics, not playback: a short jitter buffer that drops what comes late.
constexpr guint DEFAULT_LATENCY = 200;
constexpr gboolean DEFAULT_DROP_ON_LATENCY = TRUE;
constexpr guint DEFAULT_PROTOCOLS =
    GST_RTSP_LOWER_TRANS_UDP | GST_RTSP_LOWER_TRANS_UDP_MCAST | GST_RTSP_LOWER_TRANS_TCP;
// Consecutive faults of the chain (not the camera) before they are an ERROR.
constexpr guint kMaxChainFaults = 3;
constexpr guint DEFAULT_STATS_INTERVAL = 0;
constexpr guint DEFAULT_QUEUE_SIZE = 4;
constexpr guint kMaxQueueSize = 1000;
constexpr gboolean DEFAULT_PREFER_GPU_DECODER = TRUE;
constexpr GstCudaPrepSrcOnEos DEFAULT_ON_EOS = GST_CUDA_PREP_SRC_ON_EOS_AUTO;

struct Settings {
  std::string uri;      // as set: may hold credentials, never printed
  std::string user_id;  // the properties; override the URI's
  std::string user_pw;
  std::string chain;
  bool prefer_gpu_decoder = DEFAULT_PREFER_GPU_DECODER;
  guint reconnect_interval = DEFAULT_RECONNECT_INTERVAL;
  guint reconnect_interval_max = DEFAULT_RECONNECT_INTERVAL_MAX;
  gint reconnect_attempts = DEFAULT_RECONNECT_ATTEMPTS;
  guint stall_timeout = DEFAULT_STALL_TIMEOUT;
  guint connect_timeout = DEFAULT_CONNECT_TIMEOUT;
  guint latency = DEFAULT_LATENCY;
  bool drop_on_latency = DEFAULT_DROP_ON_LATENCY;
  guint protocols = DEFAULT_PROTOCOLS;
  guint stats_interval = DEFAULT_STATS_INTERVAL;
  guint queue_size = DEFAULT_QUEUE_SIZE;
  GstCudaPrepSrcOnEos on_eos = DEFAULT_ON_EOS;
};

// The element's properties (gstcudaprepsrcproperties.cpp installs them).
enum {
  PROP_0,
  PROP_URI,
  PROP_USER_ID,
  PROP_USER_PW,
  PROP_CHAIN,
  PROP_PREFER_GPU_DECODER,
  PROP_RECONNECT_INTERVAL,
  PROP_RECONNECT_INTERVAL_MAX,
  PROP_RECONNECT_ATTEMPTS,
  PROP_STALL_TIMEOUT,
  PROP_CONNECT_TIMEOUT,
  PROP_LATENCY,
  PROP_DROP_ON_LATENCY,
  PROP_PROTOCOLS,
  PROP_STATS_INTERVAL,
  PROP_QUEUE_SIZE,
  PROP_ON_EOS,
  PROP_STATS,
};

// What the worker thread has to post or do, set by streaming threads.
struct Pending {
  bool fault = false;
  std::string fault_reason;  // masked
  bool chain_fault = false;  // the chain's, not the camera's (handle_fault)
  bool connected = false;    // first frame of a decoder
  bool ended = false;        // EOS of the source
};

struct GstCudaPrepSrcPrivate {
  std::mutex lock;  // everything below up to decoder_lock; `wake` waits on it
  std::condition_variable wake;
  Settings settings;
  GstCudaPrepSrcState state = GST_CUDA_PREP_SRC_STATE_STOPPED;
  Pending pending;
  bool live = false;     // the decoder answered NO_PREROLL
  bool playing = false;  // the bin's target is PLAYING
  bool quit = false;
  bool eos_requested = false;       // the application sent EOS: no reconnect, EOS flows out
  Clock::time_point last_activity;  // decoder built, PLAYING reached, or last frame
  Clock::time_point reconnect_at;
  Clock::time_point next_stats;
  guint failures = 0;      // consecutive faults without a frame between them
  guint chain_faults = 0;  // consecutive faults of the chain without a frame out
  guint64 reconnects = 0;
  guint64 frames_in = 0, frames_out = 0, dropped_queue_full = 0;
  guint64 caps_changes = 0;
  std::string last_error;  // masked
  std::string decoder_name;
  std::thread worker;

  std::mutex decoder_lock;  // the decoder's life: build, state, teardown
  GstElement *decoder = nullptr;

  // The stable part (built once, kept across reconnects).
  GstElement *queue = nullptr;
  GstElement *chain = nullptr;  // from `chain`, NULL→READY to READY→NULL
  GstPad *src = nullptr;        // the always ghost pad
  GstPad *out_pad = nullptr;    // its target, counting frames out
  gulong out_probe = 0;
  // handle_fault()'s flush of the stable part runs (priv->lock): the src
  // pad keeps it inside the bin.
  bool fault_flush = false;

  // What the decoder gets when it asks for a GL display (its own lock).
  GstCudaPrepSrcGlDisplay gl_display;
};

// --- the properties (gstcudaprepsrcproperties.cpp)

// Installs cudaprepsrc's properties on its class: their names, blurbs,
// ranges and defaults (Settings' values). The enum types of
// gstcudaprepsrc.h are registered in the same file.
void install_properties(GObjectClass *gobject_class);

// --- the worker (gstcudaprepsrcworker.cpp)

// The state's nick (`stats`' `state`).
const gchar *state_nick(GstCudaPrepSrcState state);
// The URI with its credentials masked (priv->lock held).
std::string masked_uri(GstCudaPrepSrcPrivate *priv);
// The statistics (priv->lock held).
GstStructure *stats_locked(GstCudaPrepSrc *self);
// Posts an element message of `self` taking `structure`.
void post_element_message(GstCudaPrepSrc *self, GstStructure *structure);
// A new structure `name` naming the source and its masked URI.
GstStructure *event_structure(GstCudaPrepSrc *self, const gchar *name);
// Records a fault for the worker (priv->lock held); one per decoder, none
// once the source stops or ends. `chain_fault`: the chain's, not the camera's.
void note_fault_locked(GstCudaPrepSrc *self, const std::string &reason, bool chain_fault);
// READY -> PAUSED: counts reset, the worker thread started.
void start_worker(GstCudaPrepSrc *self);
// PAUSED -> READY: the worker asked to quit and joined.
void stop_worker(GstCudaPrepSrc *self);

// --- the decoder (gstcudaprepsrcdecoder.cpp)

// Builds and starts a decoder for the URI, its state locked; returns the
// state change's result.
GstStateChangeReturn connect_decoder(GstCudaPrepSrc *self);
// Stops and removes the decoder, from a thread that is not its streaming
// thread.
void teardown_decoder(GstCudaPrepSrc *self);
// Sets the decoder (if any) to `state`; a failure is a fault.
void set_decoder_state(GstCudaPrepSrc *self, GstState state);
// The queue's sink pad: frames in, the first of a connection, caps, EOS.
GstPadProbeReturn on_queue_sink_data(GstPad *, GstPadProbeInfo *info, GstCudaPrepSrc *self);
// The src pad's target: frames out; the EOS of a queue or chain stopped by
// a flow error, and the flush that restarts them, stay inside the bin.
GstPadProbeReturn on_src_data(GstPad *, GstPadProbeInfo *info, GstCudaPrepSrc *self);
// The queue's overrun: a live source's dropped frame.
void on_queue_overrun(GstElement *queue, GstCudaPrepSrc *self);
// Notes the decoder factory for the statistics.
void on_deep_element_added(GstBin *, GstBin *, GstElement *element, GstCudaPrepSrc *self);

}  // namespace cudaprep::source

struct _GstCudaPrepSrc {
  GstBin parent;
  cudaprep::source::GstCudaPrepSrcPrivate *priv;
};
