// W5 (issue 12): hardware-decoded H.264 into the W1 tensor. N pipelines in
// one process decode the same MP4 file with nvh264dec, each looping over it
// (segment seeks) so that a measurement holds about FRAMES frames in all,
// in four modes, at each N, in one run:
//   decode          ... ! nvh264dec ! fakesink: decoding alone, the frames
//                   stay in CUDA memory (each decoder in a context of its own,
//                   as gst-launch would do it);
//   decode-primary  the same, the application handing every decoder the
//                   device's primary context (what the decoders get in "ours"),
//                   which separates the cost of the context from ours;
//   ours            ... ! nvh264dec ! cudaresize (letterbox) ! cudanormalize !
//                   cudatensorize ! cudatensorsink: the W1 chain reading the
//                   decoder's memory in place;
//   ours-queue      ours with a queue (3 frames) after the decoder: the
//                   decoder's thread goes on decoding while the chain and
//                   its launches run in the queue's thread;
//   roundtrip       ... ! nvh264dec ! cudadownload ! video/x-raw,format=NV12 !
//                   cudaframeupload ! (the W1 chain): what users did before.
// With a tensor sink, a consumer thread per pipeline pulls every tensor and
// waits on its ready event (cudaEventSynchronize), as an inference loop
// would. Per mode and N: frames/s of all pipelines together (over the whole
// run, and while all N ran: up to the first pipeline's end), host CPU time
// of the process per frame (getrusage), the consumers' share of it, and the
// host <-> device crossings seen at the pads: buffer probes count the frames
// the decoder hands over in system-memory caps (it downloaded them), those
// cudadownload hands on and those cudaframeupload takes in system-memory
// caps, and whether cudatensorize's fused kernel read the decoder's own
// device pointer. That is a count of crossings between elements, not a PCIe
// counter: run `nvidia-smi dmon -s ut` beside it for the bus. Every
// measurement prints the device memory in use, the open file descriptors and
// the threads after its teardown: in one
// process the later measurements ran with more host CPU per frame (see
// bench/RESULTS.md, W5: decode-only decoders that make their own contexts
// leave ~570 MB each behind); run one mode and N per process.
//   bench_decode FILE.mp4 [modes] [N list] [frames] [repeats] [decoder]
//   defaults: decode,decode-primary,ours,roundtrip 1,8,16,32 48000 1 nvh264dec
// At N < 8 a measurement holds FRAMES * N / 8 frames (the run in
// bench/RESULTS.md used 9600: 1.8 s, too short to settle 5%). Another decoder
// (e.g. openh264dec) runs the decode modes without a GPU, to try the loop.
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "base/gstcudaprepnvcodec.h"
#include "cpu_time.h"

namespace {

using Clock = std::chrono::steady_clock;

const char *const kModes[] = {"decode", "decode-primary", "ours", "ours-queue", "roundtrip"};

// What the probes and the consumer count, per pipeline.
struct Counts {
  std::atomic<long> decoded{0};             // frames out of the decoder
  std::atomic<long> decoded_on_device{0};   // in GstCudaMemory
  std::atomic<long> decoded_in_primary{0};  // ... of the device's primary context
  std::atomic<long> decoded_to_host{0};     // in host memory: the decoder downloaded
  std::atomic<long> downloaded{0};          // device -> host at cudadownload
  std::atomic<long> uploaded{0};            // host memory into cudaframeupload
  std::atomic<long> read_in_place{0};       // cudatensorize read a decoder pointer
  std::atomic<long> tensors{0};             // tensors the consumer waited for
  std::atomic<bool> wait_failed{false};
};

// The same, summed over the pipelines after a measurement.
struct Totals {
  long decoded = 0, decoded_on_device = 0, decoded_in_primary = 0, decoded_to_host = 0,
       downloaded = 0, uploaded = 0, read_in_place = 0, tensors = 0;
};

struct Stream {
  GstElement *pipeline = nullptr, *sink = nullptr;
  Counts counts;
  std::mutex pointers_lock;  // the probes of one pipeline; cheap, uncontended
  std::set<guintptr> decoder_pointers;
  gpointer primary = nullptr;  // CUcontext handle to compare with
  int loops_left = 1;
  bool done = false;
  std::atomic<bool> stop{false};  // tells the consumer to end without EOS
  std::string error;
  std::thread consumer;
  double consumer_cpu = 0;  // thread CPU seconds
};

// Entries of /proc/self/fd (-1 where there is no /proc): descriptors left
// open by a teardown accumulate here.
int open_file_descriptors() {
  GDir *fds = g_dir_open("/proc/self/fd", 0, nullptr);
  if (fds == nullptr) return -1;
  int count = 0;
  while (g_dir_read_name(fds) != nullptr) ++count;
  g_dir_close(fds);
  return count;
}

// The process's threads (the Threads: line of /proc/self/status), -1 unknown.
int process_threads() {
  gchar *status = nullptr;
  if (!g_file_get_contents("/proc/self/status", &status, nullptr, nullptr)) return -1;
  const gchar *line = strstr(status, "\nThreads:");
  const int threads = line != nullptr ? std::atoi(line + strlen("\nThreads:")) : -1;
  g_free(status);
  return threads;
}

// Wall-clock time of day, to line the measurements up with nvidia-smi dmon.
std::string time_of_day() {
  const time_t now = time(nullptr);
  tm local;
  localtime_r(&now, &local);
  char text[16];
  strftime(text, sizeof(text), "%H:%M:%S", &local);
  return text;
}

// Whether the frames on `pad` are device frames for the element that takes
// them. By the caps, not by the allocator: cudadownload hands on
// GstCudaMemory in system-memory caps, which the next element maps for the
// host, and that map is the download.
bool pad_carries_device_frames(GstPad *pad) {
  GstCaps *caps = gst_pad_get_current_caps(pad);
  if (caps == nullptr) return false;
  GstCapsFeatures *features = gst_caps_get_features(caps, 0);
  const bool device = features != nullptr &&
                      (gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_NVCODEC) ||
                       gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED));
  gst_caps_unref(caps);
  return device;
}

GstPadProbeReturn on_decoded(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
  auto *s = static_cast<Stream *>(data);
  GstMemory *memory = gst_buffer_peek_memory(GST_PAD_PROBE_INFO_BUFFER(info), 0);
  ++s->counts.decoded;
  if (!gst_is_cuda_memory(memory) || !pad_carries_device_frames(pad)) {
    ++s->counts.decoded_to_host;  // NVDEC writes device memory: the decoder copied it out
    return GST_PAD_PROBE_OK;
  }
  ++s->counts.decoded_on_device;
  if (s->primary != nullptr &&
      gst_cuda_context_get_handle(GST_CUDA_MEMORY_CAST(memory)->context) == s->primary)
    ++s->counts.decoded_in_primary;
  GstMapInfo map;
  if (gst_memory_map(memory, &map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
    std::lock_guard<std::mutex> guard(s->pointers_lock);
    s->decoder_pointers.insert(reinterpret_cast<guintptr>(map.data));
    gst_memory_unmap(memory, &map);
  }
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn on_downloaded(GstPad *pad, GstPadProbeInfo *, gpointer data) {
  if (!pad_carries_device_frames(pad)) ++static_cast<Stream *>(data)->counts.downloaded;
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn on_upload_input(GstPad *pad, GstPadProbeInfo *, gpointer data) {
  if (!pad_carries_device_frames(pad)) ++static_cast<Stream *>(data)->counts.uploaded;
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn on_tensorize_input(GstPad *, GstPadProbeInfo *info, gpointer data) {
  auto *s = static_cast<Stream *>(data);
  GstMemory *memory = gst_buffer_peek_memory(GST_PAD_PROBE_INFO_BUFFER(info), 0);
  if (!gst_is_cuda_prep_memory(memory)) return GST_PAD_PROBE_OK;
  const auto pointer = reinterpret_cast<guintptr>(gst_cuda_prep_memory_get_device_pointer(memory));
  std::lock_guard<std::mutex> guard(s->pointers_lock);
  if (s->decoder_pointers.count(pointer) != 0) ++s->counts.read_in_place;
  return GST_PAD_PROBE_OK;
}

bool add_probe(GstElement *pipeline, const char *element_name, const char *pad_name,
               GstPadProbeCallback callback, Stream *s) {
  GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline), element_name);
  if (element == nullptr) return false;
  GstPad *pad = gst_element_get_static_pad(element, pad_name);
  gst_object_unref(element);
  if (pad == nullptr) return false;
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, callback, s, nullptr);
  gst_object_unref(pad);
  return true;
}

std::string description(const std::string &mode, const std::string &file,
                        const std::string &decoder) {
  const std::string head =
      "filesrc location=\"" + file + "\" ! qtdemux ! h264parse ! " + decoder + " name=dec";
  const std::string w1 =
      " ! cudaresize add-borders=true pad-value=\"<114,114,114>\" ! "
      "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB ! cudanormalize ! "
      "cudatensorize name=tensorize ! cudatensorsink name=sink consumer=application "
      "max-buffers=4 sync=false";
  if (mode == "ours") return head + w1;
  if (mode == "ours-queue")
    return head + " ! queue max-size-buffers=3 max-size-bytes=0 max-size-time=0" + w1;
  if (mode == "roundtrip")
    return head + " ! cudadownload name=download ! video/x-raw,format=NV12 ! " +
           "cudaframeupload name=upload" + w1;
  return head + " ! fakesink name=sink sync=false";
}

// The primary context of device 0 as a gst.cuda.context, for decode-primary.
GstContext *primary_gst_context(std::string *error) {
  gchar *message = nullptr;
  const gpointer handle = gst_cuda_prep_nvcodec_primary_context_handle(0, &message);
  if (handle == nullptr) {
    *error = message != nullptr ? message : "no primary context";
    g_free(message);
    return nullptr;
  }
  CUdevice device = 0;
  if (CuDeviceGet(&device, 0) != CUDA_SUCCESS) {
    *error = "cuDeviceGet(0) failed";
    return nullptr;
  }
  GstCudaContext *context = gst_cuda_context_new_wrapped(static_cast<CUcontext>(handle), device);
  if (context == nullptr) {
    *error = "gst_cuda_context_new_wrapped failed";
    return nullptr;
  }
  GstContext *gst_context = gst_context_new_cuda_context(context);
  gst_object_unref(context);
  return gst_context;
}

// Bus messages of every pipeline, handed to the main thread (a sync
// handler must not seek from the streaming thread that posts).
struct Messages {
  std::mutex lock;
  std::condition_variable ready;
  std::deque<std::pair<Stream *, GstMessage *>> queue;
};

struct BusHook {
  Messages *messages;
  Stream *stream;
};

GstBusSyncReply on_message(GstBus *, GstMessage *message, gpointer data) {
  auto *hook = static_cast<BusHook *>(data);
  const GstMessageType type = GST_MESSAGE_TYPE(message);
  // Nobody pops the buses: the others are dropped (the bus unrefs them).
  if (type != GST_MESSAGE_EOS && type != GST_MESSAGE_ERROR && type != GST_MESSAGE_SEGMENT_DONE)
    return GST_BUS_DROP;
  {
    std::lock_guard<std::mutex> guard(hook->messages->lock);
    hook->messages->queue.emplace_back(hook->stream, gst_message_ref(message));
  }
  hook->messages->ready.notify_one();
  return GST_BUS_DROP;
}

bool wait_for_preroll(Stream &s) {
  GstState state;
  const GstStateChangeReturn ret =
      gst_element_get_state(s.pipeline, &state, nullptr, 30 * GST_SECOND);
  if (ret == GST_STATE_CHANGE_SUCCESS && state == GST_STATE_PAUSED) return true;
  s.error = ret == GST_STATE_CHANGE_ASYNC ? "did not preroll within 30 s" : "could not pause";
  return false;
}

// Frames a pipeline may count on one side of the start and not the other.
constexpr long kPrerollSlack = 8;

Totals sum(const std::vector<std::unique_ptr<Stream>> &streams) {
  Totals t;
  for (const auto &s : streams) {
    t.decoded += s->counts.decoded;
    t.decoded_on_device += s->counts.decoded_on_device;
    t.decoded_in_primary += s->counts.decoded_in_primary;
    t.decoded_to_host += s->counts.decoded_to_host;
    t.downloaded += s->counts.downloaded;
    t.uploaded += s->counts.uploaded;
    t.read_in_place += s->counts.read_in_place;
    t.tensors += s->counts.tensors;
  }
  return t;
}

// Non-flushing seek to the start: with SEGMENT, the file ends in
// SEGMENT_DONE and the next loop follows without a gap; the last loop
// ends in EOS.
bool seek_to_start(Stream &s, bool flush) {
  const int flags =
      (flush ? GST_SEEK_FLAG_FLUSH : 0) | (s.loops_left > 1 ? GST_SEEK_FLAG_SEGMENT : 0);
  return gst_element_seek(s.pipeline, 1.0, GST_FORMAT_TIME, static_cast<GstSeekFlags>(flags),
                          GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE);
}

// Frames in one pass over the file: its duration times the decoder's frame rate.
long frames_in_file(Stream &s) {
  gint64 duration = 0;
  GstElement *decoder = gst_bin_get_by_name(GST_BIN(s.pipeline), "dec");
  GstPad *pad = gst_element_get_static_pad(decoder, "src");
  GstCaps *caps = gst_pad_get_current_caps(pad);
  gint rate_n = 0, rate_d = 1;
  if (caps != nullptr)
    gst_structure_get_fraction(gst_caps_get_structure(caps, 0), "framerate", &rate_n, &rate_d);
  if (caps != nullptr) gst_caps_unref(caps);
  gst_object_unref(pad);
  gst_object_unref(decoder);
  if (!gst_element_query_duration(s.pipeline, GST_FORMAT_TIME, &duration) || rate_n <= 0) return 0;
  return std::lround(static_cast<double>(duration) * rate_n / rate_d / GST_SECOND);
}

struct Result {
  double frames_per_second = 0, cpu_us_per_frame = 0, consumer_cpu_us_per_frame = 0, seconds = 0;
  // Until the first pipeline ended: all N ran, so the decoders were never
  // short of work (the end of a run, where fewer than N are left, is not).
  double all_running_frames_per_second = 0, first_done_seconds = 0;
  long frames = 0;
  Totals totals;  // from the start of the measurement
  bool ok = false;
};

Result measure(const std::string &mode, int n, long target_frames, const std::string &file,
               const std::string &decoder, GstContext *primary_context, gpointer primary) {
  Result result;
  const bool tensors = mode == "ours" || mode == "ours-queue" || mode == "roundtrip";
  Messages messages;
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<std::unique_ptr<BusHook>> hooks;
  bool failed = false;
  for (int i = 0; i < n && !failed; ++i) {
    streams.push_back(std::make_unique<Stream>());
    Stream &s = *streams.back();
    s.primary = primary;
    GError *error = nullptr;
    s.pipeline = gst_parse_launch(description(mode, file, decoder).c_str(), &error);
    if (s.pipeline == nullptr || error != nullptr) {
      std::fprintf(stderr, "%s: pipeline: %s\n", mode.c_str(), error ? error->message : "?");
      g_clear_error(&error);
      failed = true;
      break;
    }
    if (mode == "decode-primary") gst_element_set_context(s.pipeline, primary_context);
    s.sink = gst_bin_get_by_name(GST_BIN(s.pipeline), "sink");
    failed =
        !add_probe(s.pipeline, "dec", "src", on_decoded, &s) ||
        (tensors && !add_probe(s.pipeline, "tensorize", "sink", on_tensorize_input, &s)) ||
        (mode == "roundtrip" && (!add_probe(s.pipeline, "download", "src", on_downloaded, &s) ||
                                 !add_probe(s.pipeline, "upload", "sink", on_upload_input, &s)));
    hooks.push_back(std::make_unique<BusHook>(BusHook{&messages, &s}));
    GstBus *bus = gst_element_get_bus(s.pipeline);
    gst_bus_set_sync_handler(bus, on_message, hooks.back().get(), nullptr);
    gst_object_unref(bus);
    if (tensors)
      s.consumer = std::thread([&s] {
        // A pull gives NULL at once while the sink is not started or is
        // flushing (the first seek): then it looks again, until EOS.
        while (!s.stop) {
          GstSample *sample =
              gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(s.sink));
          if (sample == nullptr) {
            if (gst_cuda_prep_tensor_sink_is_eos(GST_CUDA_PREP_TENSOR_SINK(s.sink))) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
          }
          const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
          if (cudaEventSynchronize(tensor->ready_event) != cudaSuccess) s.counts.wait_failed = true;
          gst_sample_unref(sample);
          ++s.counts.tensors;
        }
        s.consumer_cpu = thread_cpu_now();
      });
    if (gst_element_set_state(s.pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
      s.error = "could not pause";
      failed = true;
    }
  }
  // Preroll, then loop over the file: loops chosen from its frame count.
  long per_file = 0;
  for (auto &s : streams) {
    if (failed) break;
    failed = !wait_for_preroll(*s);
    if (!failed && per_file == 0) per_file = frames_in_file(*s);
  }
  const int loops = per_file > 0 ? std::max(1L, std::lround(static_cast<double>(target_frames) /
                                                            (static_cast<double>(n) * per_file)))
                                 : 1;
  for (auto &s : streams) {
    if (failed) break;
    s->loops_left = loops;
    if (!seek_to_start(*s, true)) s->error = "the first seek failed";
    failed = !s->error.empty() || !wait_for_preroll(*s);
  }
  // What was counted before the start (the frames of the preroll) is left
  // out: a frame prerolled is counted by the decoder's probe before the
  // start and by the consumer after it, so the two may differ by the few
  // frames a pipeline holds.
  const Totals before = sum(streams);
  const double cpu_start = process_cpu_seconds();
  const Clock::time_point start = Clock::now();
  const std::string started_at = time_of_day();
  for (auto &s : streams)
    if (!failed &&
        gst_element_set_state(s->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
      s->error = "could not play";
      failed = true;
    }
  int running = failed ? 0 : n;
  const Clock::time_point deadline = start + std::chrono::seconds(120);
  while (running > 0) {
    std::unique_lock<std::mutex> guard(messages.lock);
    if (!messages.ready.wait_until(guard, deadline, [&] { return !messages.queue.empty(); })) {
      std::fprintf(stderr, "%s N=%d: %d pipelines not done after 120 s\n", mode.c_str(), n,
                   running);
      failed = true;
      break;
    }
    auto [s, message] = messages.queue.front();
    messages.queue.pop_front();
    guard.unlock();
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_SEGMENT_DONE) {
      --s->loops_left;
      if (!seek_to_start(*s, false)) s->error = "a loop's seek failed";
    } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error(message, &error, &debug);
      s->error = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ": " + error->message +
                 " (" + (debug ? debug : "") + ")";
      g_clear_error(&error);
      g_free(debug);
    }
    if (!s->done && (GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS || !s->error.empty())) {
      s->done = true;
      if (running == n) {
        const Totals now = sum(streams);
        result.first_done_seconds = std::chrono::duration<double>(Clock::now() - start).count();
        const long frames_so_far =
            tensors ? now.tensors - before.tensors : now.decoded - before.decoded;
        result.all_running_frames_per_second = frames_so_far / result.first_done_seconds;
      }
      --running;
      if (!s->error.empty()) {
        failed = true;
        s->stop = true;
        gst_element_set_state(s->pipeline, GST_STATE_NULL);  // unblocks its consumer
      }
    }
    gst_message_unref(message);
  }
  if (failed)
    for (auto &s : streams) {
      s->stop = true;
      if (s->pipeline != nullptr) gst_element_set_state(s->pipeline, GST_STATE_NULL);
    }
  for (auto &s : streams)
    if (s->consumer.joinable()) s->consumer.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu_used = process_cpu_seconds() - cpu_start;

  const Totals after = sum(streams);
  Totals &t = result.totals;
  t.decoded = after.decoded - before.decoded;
  t.decoded_on_device = after.decoded_on_device - before.decoded_on_device;
  t.decoded_in_primary = after.decoded_in_primary - before.decoded_in_primary;
  t.decoded_to_host = after.decoded_to_host - before.decoded_to_host;
  t.downloaded = after.downloaded - before.downloaded;
  t.uploaded = after.uploaded - before.uploaded;
  t.read_in_place = after.read_in_place - before.read_in_place;
  t.tensors = after.tensors - before.tensors;
  result.frames = tensors ? t.tensors : t.decoded;
  double consumer_cpu = 0;
  for (size_t i = 0; i < streams.size(); ++i) {
    Stream &s = *streams[i];
    consumer_cpu += s.consumer_cpu;
    if (s.counts.wait_failed) s.error = "waiting on a tensor's ready event failed";
    if (!s.error.empty()) {
      std::fprintf(stderr, "%s N=%d pipeline %zu: %s\n", mode.c_str(), n, i, s.error.c_str());
      failed = true;
    }
  }
  // Every pipeline plays the file `loops` times: more than the few frames
  // of a preroll short is a loss (a loop that did not happen).
  const long expected = n * (loops * per_file - kPrerollSlack);
  if (!failed && t.decoded < expected) {
    std::fprintf(stderr, "%s N=%d: %ld frames decoded, %ld expected\n", mode.c_str(), n, t.decoded,
                 expected);
    failed = true;
  }
  if (!failed && tensors && std::labs(t.tensors - t.decoded) > n * kPrerollSlack) {
    std::fprintf(stderr, "%s N=%d: %ld tensors of %ld decoded frames\n", mode.c_str(), n, t.tensors,
                 t.decoded);
    failed = true;
  }
  result.ok = !failed && result.frames > 0;
  if (result.ok) {
    result.frames_per_second = result.frames / result.seconds;
    result.cpu_us_per_frame = 1e6 * cpu_used / result.frames;
    result.consumer_cpu_us_per_frame = 1e6 * consumer_cpu / result.frames;
  }
  std::printf("%s %s N=%d: %ld loops x %ld frames per pipeline, started %s\n", mode.c_str(),
              result.ok ? "ok" : "FAILED", n, static_cast<long>(loops), per_file,
              started_at.c_str());
  for (auto &s : streams) {
    if (s->pipeline == nullptr) continue;
    gst_element_set_state(s->pipeline, GST_STATE_NULL);
    GstBus *bus = gst_element_get_bus(s->pipeline);
    gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
    gst_object_unref(bus);
    if (s->sink != nullptr) gst_object_unref(s->sink);
    gst_object_unref(s->pipeline);
  }
  for (auto &[s, message] : messages.queue) {
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {  // why a start failed
      GError *error = nullptr;
      gst_message_parse_error(message, &error, nullptr);
      std::fprintf(stderr, "%s N=%d: %s: %s\n", mode.c_str(), n,
                   GST_OBJECT_NAME(GST_MESSAGE_SRC(message)), error->message);
      g_clear_error(&error);
    }
    gst_message_unref(message);
  }
  // What the process holds after the teardown: growth from one measurement
  // to the next is a leak that would skew the later ones.
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
    std::printf(
        "after teardown: device memory in use %.0f MB, host CPU so far %.1f s, %d open file "
        "descriptors, %d threads\n",
        (total_bytes - free_bytes) / 1e6, process_cpu_seconds(), open_file_descriptors(),
        process_threads());
  return result;
}

std::vector<std::string> split(const std::string &list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ',');) items.push_back(item);
  return items;
}

}  // namespace

int main(int argc, char **argv) {
  // No GL window system: 1.22's nvcodec decoders would load NVIDIA's EGL
  // driver for a GL display this bench never uses (docs/faults.md).
  g_setenv("GST_GL_WINDOW", "none", FALSE);
  gst_init(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s FILE.mp4 [decode,decode-primary,ours,ours-queue,roundtrip] [1,8,16,32] "
                 "[frames 48000] [repeats 1] [decoder nvh264dec]\n",
                 argv[0]);
    return 2;
  }
  const std::string file = argv[1];
  const std::vector<std::string> modes =
      split(argc > 2 ? argv[2] : "decode,decode-primary,ours,roundtrip");
  std::vector<int> counts;
  for (const std::string &n : split(argc > 3 ? argv[3] : "1,8,16,32"))
    counts.push_back(std::atoi(n.c_str()));
  const long frames = argc > 4 ? std::atol(argv[4]) : 48000;  // ~9 s of an H100 NVDEC
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 1;
  const std::string decoder = argc > 6 ? argv[6] : "nvh264dec";
  for (const std::string &mode : modes)
    if (std::find(std::begin(kModes), std::end(kModes), mode) == std::end(kModes)) {
      std::fprintf(stderr,
                   "unknown mode %s: decode, decode-primary, ours, ours-queue or roundtrip\n",
                   mode.c_str());
      return 2;
    }
  if (frames < 1 || repeats < 1 ||
      std::any_of(counts.begin(), counts.end(), [](int n) { return n < 1; })) {
    std::fprintf(stderr, "pipelines, frames and repeats must be at least 1\n");
    return 2;
  }
  // The primary context: compared with the decoders' (every mode), and
  // handed to them in decode-primary. Without a GPU only the decode mode runs.
  GstContext *primary_context = nullptr;
  gpointer primary = nullptr;
  std::string context_error;
  if (gst_cuda_load_library()) {
    primary_context = primary_gst_context(&context_error);
    gchar *message = nullptr;
    primary = gst_cuda_prep_nvcodec_primary_context_handle(0, &message);
    g_free(message);
  } else {
    context_error = "libgstcuda could not load libcuda";
  }
  bool all_ok = true;
  std::printf(
      "mode N | frames | frames/s | while all N ran: frames/s, first end at | host CPU us/frame "
      "(consumers) | decoded: on device, in the "
      "primary context, to host | downloaded | uploaded | read in place by cudatensorize | host "
      "<-> device copies per frame\n");
  for (int repeat = 0; repeat < repeats; ++repeat)
    for (const int n : counts)
      for (const std::string &mode : modes) {
        if (mode == "decode-primary" && primary_context == nullptr) {
          std::fprintf(stderr, "decode-primary: %s\n", context_error.c_str());
          all_ok = false;
          continue;
        }
        const long target = n >= 8 ? frames : frames * n / 8;
        const Result r = measure(mode, n, target, file, decoder, primary_context, primary);
        all_ok = all_ok && r.ok;
        if (!r.ok) continue;
        const Totals &t = r.totals;
        const long crossings = t.decoded_to_host + t.downloaded + t.uploaded;
        std::printf(
            "RESULT %s %d | %ld in %.2f s | %.0f | %.0f, %.2f s | %.0f (%.0f) | %ld, %ld, %ld | "
            "%ld "
            "| %ld | %ld | %.2f\n",
            mode.c_str(), n, r.frames, r.seconds, r.frames_per_second,
            r.all_running_frames_per_second, r.first_done_seconds, r.cpu_us_per_frame,
            r.consumer_cpu_us_per_frame, t.decoded_on_device, t.decoded_in_primary,
            t.decoded_to_host, t.downloaded, t.uploaded, t.read_in_place,
            static_cast<double>(crossings) / t.decoded);
        std::fflush(stdout);
      }
  if (primary_context != nullptr) gst_context_unref(primary_context);
  return all_ok ? 0 : 1;
}
