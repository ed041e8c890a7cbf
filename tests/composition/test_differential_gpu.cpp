// The differential composition test on the GPU (issue 23): for every seed
// in [CUDAPREP_DIFF_FIRST, CUDAPREP_DIFF_FIRST + CUDAPREP_DIFF_COUNT) (from
// the environment; default 0 and 50) the generated pipeline
// (composition/generator.h: cudatensorize or cudabatch) runs with its frames
// (the regions of interest the generator gives each attached) and events,
// every tensor is pulled from appsink and every item compared with the
// composed CPU reference (composition/reference.h) of its frame's caps
// segment: values, geometry, PTS, region rectangle, the tensor's shape, the
// zeros of unfilled items. Items are matched to their frame by PTS and to
// their region by region_id.
//
// Events: GAP, equal caps and tags through appsrc's send_event; a caps
// change through gst_app_src_set_caps (appsrc queues caps, buffers and
// serialized events in one queue, in order); a flush: the harness drains
// (every frame sent has come out of cudanormalize, counted by a pad probe,
// or an element said it dropped it; every full tensor is pulled), then seeks
// the pipeline with GST_SEEK_FLAG_FLUSH to the hole after the frame, appsrc
// stream-type=seekable accepting it in seek-data. GstBaseSrc then sends
// FLUSH_START, FLUSH_STOP and the new segment from its streaming thread, in
// order; FLUSH_START/FLUSH_STOP pushed on appsrc's pad from the application
// thread would race its streaming thread and leave downstream without a
// segment after FLUSH_STOP (appsrc does not resend it).
//
// Every frame is accounted for: pushed = in tensors + none expected (no
// region) + dropped by a flush (the partial batch the flush drops, as
// batching() plans it) + dropped with a reason (an element's "dropping ..."
// log line, caught through a GStreamer log function) + lost to a posted
// error (itself a mismatch); anything else is lost without a reason, a
// failure. One summary line:
//   differential: seeds A..B, N pipelines, F frames, E events, M mismatches, L lost without a
//   reason
// (A..B inclusive), then two lines of details: drops, the resampled values
// off by a step, the items, the frames a flush dropped, and the pipelines
// per terminal kind and the events per kind. Each mismatching seed is
// printed with the one command that reproduces it (CUDAPREP_DIFF_VERBOSE=1
// prints every seed's pipeline). Skips, saying why, without a GPU.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "composition/generator.h"
#include "composition/reference.h"

namespace {

using namespace cudaprep;
using namespace cudaprep::composition;

uint64_t env_seed(const char *name, uint64_t fallback) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char *end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0') {
    ADD_FAILURE() << name << "=" << text << " is not a non-negative integer";
    return fallback;
  }
  return value;
}

// Counts the frames an element says it drops ("dropping a frame ...", at
// INFO level in cudacrop and cudaresize), from every cudaprep debug
// category, while it lives; other messages at WARNING or worse go on to
// GStreamer's default log function (which it replaces: INFO lines would
// flood the output).
class DropLog {
 public:
  DropLog() {
    for (const char *category : {"cudacrop", "cudaresize", "cudanormalize", "cudatensorize",
                                 "cudabatch", "cudaframeupload", "cudaprep*"})
      gst_debug_set_threshold_for_name(category, GST_LEVEL_INFO);
    gst_debug_set_active(TRUE);
    default_removed_ = gst_debug_remove_log_function(gst_debug_log_default) > 0;
    gst_debug_add_log_function(log, this, nullptr);
  }
  ~DropLog() {
    gst_debug_remove_log_function(log);
    if (default_removed_) gst_debug_add_log_function(gst_debug_log_default, nullptr, nullptr);
  }
  int take() { return drops_.exchange(0); }
  int count() const { return drops_.load(); }
  std::string last_reason() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_reason_;
  }

 private:
  static void log(GstDebugCategory *category, GstDebugLevel level, const gchar *file,
                  const gchar *function, gint line, GObject *object, GstDebugMessage *message,
                  gpointer data) {
    auto *self = static_cast<DropLog *>(data);
    const char *name = gst_debug_category_get_name(category);
    const gchar *text = gst_debug_message_get(message);
    if (text != nullptr && std::strncmp(name, "cuda", 4) == 0 &&
        std::strstr(text, "dropping") != nullptr) {
      ++self->drops_;
      std::lock_guard<std::mutex> lock(self->mutex_);
      self->last_reason_ = std::string(name) + ": " + text;
    }
    if (level <= GST_LEVEL_WARNING)
      gst_debug_log_default(category, level, file, function, line, object, message, nullptr);
  }
  std::atomic<int> drops_{0};
  mutable std::mutex mutex_;
  std::string last_reason_;
  bool default_removed_ = false;
};

struct Totals {
  int pipelines = 0;
  int64_t frames = 0, events = 0, events_refused = 0;
  int64_t items = 0, frames_without_items = 0;
  int64_t flushed_frames = 0, flushed_items = 0;  // dropped by a flush with the partial batch
  // Pipelines per terminal (and region source), events per kind.
  std::map<std::string, int64_t> kinds;
  int mismatches = 0;
  int64_t lost = 0, dropped = 0, errored = 0;
  int64_t resampled = 0, resampled_differing = 0;
  double worst_steps = 0;
  std::vector<uint64_t> failed_seeds;
};

// The errors posted on the pipeline's bus so far.
std::vector<std::string> bus_errors(GstElement *pipeline) {
  std::vector<std::string> errors;
  GstBus *bus = gst_element_get_bus(pipeline);
  while (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(message, &error, &debug);
    errors.push_back(std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ": " +
                     error->message + (debug ? std::string(" (") + debug + ")" : ""));
    g_error_free(error);
    g_free(debug);
    gst_message_unref(message);
  }
  gst_object_unref(bus);
  return errors;
}

// The event appsrc sends for `event` (not a caps change or a flush, which
// the harness makes otherwise), `caps_text` the caps in effect.
GstEvent *make_event(const Pipeline &pipeline, const Event &event, int after_frame,
                     const std::string &caps_text) {
  switch (event.kind) {
    case EventKind::kGap:
      // The hole between frame i (PTS 2i) and frame i + 1 (PTS 2i + 2).
      return gst_event_new_gap((2 * after_frame + 1) * kFrameNs, kFrameNs);
    case EventKind::kEqualCaps: {
      GstCaps *caps = gst_caps_from_string(caps_text.c_str());
      GstEvent *caps_event = gst_event_new_caps(caps);
      gst_caps_unref(caps);
      return caps_event;
    }
    case EventKind::kTags: {
      GstTagList *tags = nullptr;
      if (event.tag == TagKind::kTitle) {
        const std::string title = "differential seed " + std::to_string(pipeline.seed);
        tags = gst_tag_list_new(GST_TAG_TITLE, title.c_str(), nullptr);
        gst_tag_list_set_scope(tags, GST_TAG_SCOPE_STREAM);
      } else {
        tags = gst_tag_list_new(GST_TAG_IMAGE_ORIENTATION, "rotate-90", nullptr);
        gst_tag_list_set_scope(tags, GST_TAG_SCOPE_GLOBAL);
      }
      return gst_event_new_tag(tags);
    }
    case EventKind::kCapsChange:  // gst_app_src_set_caps
    case EventKind::kFlush:       // a flushing seek on the pipeline
      break;
  }
  return nullptr;
}

bool geometry_matches(const GstCudaPrepGeometry &actual, const FrameGeometry &expected,
                      std::string *why) {
  // test_batch's tolerances for a composed geometry.
  const bool ok = std::fabs(actual.crop_x - expected.crop_x) <= 1e-9 &&
                  std::fabs(actual.crop_y - expected.crop_y) <= 1e-9 &&
                  std::fabs(actual.scale_x - expected.scale_x) <= 1e-12 &&
                  std::fabs(actual.scale_y - expected.scale_y) <= 1e-12 &&
                  std::fabs(actual.pad_x - expected.pad_x) <= 1e-9 &&
                  std::fabs(actual.pad_y - expected.pad_y) <= 1e-9 &&
                  actual.orientation == static_cast<gint>(expected.orientation);
  if (!ok) {
    std::ostringstream text;
    text << "geometry crop (" << actual.crop_x << ", " << actual.crop_y << ") scale ("
         << actual.scale_x << ", " << actual.scale_y << ") pad (" << actual.pad_x << ", "
         << actual.pad_y << ") orientation " << actual.orientation << ", expected crop ("
         << expected.crop_x << ", " << expected.crop_y << ") scale (" << expected.scale_x << ", "
         << expected.scale_y << ") pad (" << expected.pad_x << ", " << expected.pad_y
         << ") orientation " << static_cast<int>(expected.orientation);
    *why = text.str();
  }
  return ok;
}

// The first element of `bin` made by `factory` (a reference), or null.
GstElement *first_element_of(GstElement *bin, const char *factory) {
  GstIterator *it = gst_bin_iterate_elements(GST_BIN(bin));
  GValue item = G_VALUE_INIT;
  GstElement *found = nullptr;
  while (found == nullptr && gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    auto *element = GST_ELEMENT(g_value_get_object(&item));
    if (std::strcmp(GST_OBJECT_NAME(gst_element_get_factory(element)), factory) == 0)
      found = GST_ELEMENT(gst_object_ref(element));
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
  return found;
}

GstPadProbeReturn count_buffer(GstPad *, GstPadProbeInfo *, gpointer data) {
  ++*static_cast<std::atomic<int> *>(data);
  return GST_PAD_PROBE_OK;
}

gboolean accept_seek(GstAppSrc *, guint64, gpointer) {
  return TRUE;
}

// The frame whose PTS is `pts` (frame i at 2 * i * kFrameNs), or -1.
int frame_of(GstClockTime pts) {
  return GST_CLOCK_TIME_IS_VALID(pts) && pts % (2 * kFrameNs) == 0
             ? static_cast<int>(pts / (2 * kFrameNs))
             : -1;
}

// A pipeline's kind in the summary: its terminal element (cudabatch with
// its region source).
std::string terminal_kind(const Pipeline &p) {
  if (p.terminal == Terminal::kTensorize) return "cudatensorize";
  return std::string("cudabatch ") + region_source_nick(p.batch.source);
}

// Runs one seed's pipeline; adds to `totals`; returns the problems found
// (empty: the seed passed).
std::vector<std::string> run_seed(uint64_t seed, DropLog *drops, Totals *totals) {
  std::vector<std::string> problems;
  const Pipeline p = generate(seed);
  ++totals->pipelines;
  totals->frames += p.frame_count;
  totals->events += p.event_count();
  ++totals->kinds[terminal_kind(p)];
  for (const auto &after : p.events)
    for (const Event &event : after)
      ++totals->kinds[std::string("event ") + event_kind_name(event.kind)];
  drops->take();

  // The frames and what each should become (first: the reference may throw),
  // each for the caps it is sent under (its segment).
  std::mt19937 rng(static_cast<uint32_t>(seed * 2654435761u + 1));
  std::vector<GstBuffer *> frames;
  std::vector<Pipeline> segments;
  // Per frame: its items (whole frame, or regions) and what each becomes.
  std::vector<std::vector<ItemSpec>> specs;
  std::vector<std::vector<ItemReference>> expected(p.frame_count);
  for (int i = 0; i < p.frame_count; ++i) {
    try {
      segments.push_back(segment(p, i));
    } catch (...) {
      for (GstBuffer *made : frames) gst_buffer_unref(made);
      throw;
    }
    const Pipeline &s = segments[i];
    if (i > 0 && (s.tensor_width != segments[i - 1].tensor_width ||
                  s.tensor_height != segments[i - 1].tensor_height))
      ++totals->kinds["caps change to a new tensor"];
    const GstVideoInfo info = test::video_info(s.input_caps());
    GstBuffer *frame = test::random_frame(info, rng);
    ref::HostFrame host(s.input_format, s.width, s.height);
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane)
      host.planes[plane] = test::plane_bytes(frame, info, plane);
    frames.push_back(frame);
    specs.push_back(frame_items(p, i));
    try {
      for (const ItemSpec &spec : specs[i]) expected[i].push_back(item_reference(s, host, spec));
    } catch (...) {
      for (GstBuffer *made : frames) gst_buffer_unref(made);
      throw;
    }
    if (i < static_cast<int>(p.rois.size())) {
      for (const RegionOfInterest &roi : p.rois[i]) {
        GstVideoRegionOfInterestMeta *meta = gst_buffer_add_video_region_of_interest_meta(
            frame, roi.type.c_str(), roi.x, roi.y, roi.width, roi.height);
        meta->id = roi.id;
      }
    }
    GST_BUFFER_PTS(frame) = 2 * i * kFrameNs;
    GST_BUFFER_DURATION(frame) = kFrameNs;
  }

  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(p.description().c_str(), &parse_error);
  if (pipeline == nullptr || parse_error != nullptr) {
    problems.push_back(std::string("parse: ") + (parse_error ? parse_error->message : "?"));
    if (parse_error) g_error_free(parse_error);
    if (pipeline) gst_object_unref(pipeline);
    for (GstBuffer *frame : frames) gst_buffer_unref(frame);
    totals->errored += p.frame_count;
    return problems;
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");

  // Every tensor: its shape, and each item against its frame's reference.
  std::vector<std::vector<int>> seen(p.frame_count);
  for (int i = 0; i < p.frame_count; ++i) seen[i].assign(specs[i].size(), 0);
  std::vector<std::string> errors;
  int tensors = 0;
  const auto handle = [&](GstSample *sample) {
    ++tensors;
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
    if (meta == nullptr || meta->num_tensors != 1) {
      problems.push_back("tensor " + std::to_string(tensors) + " has no tensor meta");
      return;
    }
    const GstCudaPrepTensor *tensor = meta->tensors[0];
    // Its shape is its first item's caps segment's (every item's).
    const int first = tensor->batch_filled > 0 ? frame_of(tensor->items[0].pts) : -1;
    if (first < 0 || first >= p.frame_count) {
      problems.push_back("tensor " + std::to_string(tensors) + " has no item of a frame sent");
      return;
    }
    const TensorDesc desc = tensor_desc(segments[first]);
    bool shape_ok = tensor->num_dims == 4;
    for (int axis = 0; axis < 4 && shape_ok; ++axis)
      shape_ok = tensor->dims[axis] == static_cast<gsize>(desc.dims[axis]) &&
                 tensor->strides[axis] == static_cast<gsize>(desc.strides_bytes[axis]);
    if (!shape_ok) {
      problems.push_back("tensor " + std::to_string(tensors) +
                         " has another shape or strides than frame " + std::to_string(first) +
                         "'s caps give");
      return;
    }
    const std::vector<uint8_t> bytes = test::tensor_bytes(buffer);
    for (gsize n = 0; n < tensor->batch_size; ++n) {
      if (n >= tensor->batch_filled) {
        // Unfilled items are zeros.
        const size_t begin = n * desc.strides_bytes[0], end = begin + desc.strides_bytes[0];
        for (size_t i = begin; i < end && i < bytes.size(); ++i) {
          if (bytes[i] != 0) {
            problems.push_back("tensor " + std::to_string(tensors) + " unfilled item " +
                               std::to_string(n) + " is not zeros");
            break;
          }
        }
        continue;
      }
      const GstCudaPrepTensorItem &item = tensor->items[n];
      const GstClockTime pts = item.pts;
      const int frame = frame_of(pts);
      if (frame < 0 || frame >= p.frame_count) {
        problems.push_back("tensor " + std::to_string(tensors) + " item " + std::to_string(n) +
                           " has PTS " + std::to_string(pts) + ", no frame's");
        continue;
      }
      const TensorDesc item_desc = tensor_desc(segments[frame]);
      if (!std::equal(item_desc.dims, item_desc.dims + 4, desc.dims)) {
        problems.push_back("tensor " + std::to_string(tensors) + " holds frame " +
                           std::to_string(frame) + ", whose caps give another tensor than frame " +
                           std::to_string(first) + "'s");
        continue;
      }
      // Its (frame, region): whole frames have region_id -1.
      int index = -1;
      for (size_t k = 0; k < specs[frame].size(); ++k)
        if (specs[frame][k].region_id == item.region_id) index = static_cast<int>(k);
      const std::string name = "frame " + std::to_string(frame) +
                               (item.region_id == GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME
                                    ? std::string()
                                    : " region " + std::to_string(item.region_id));
      if (index < 0) {
        problems.push_back(name + ": no such item expected");
        continue;
      }
      if (seen[frame][index]++ > 0) {
        problems.push_back(name + " in more than one item");
        continue;
      }
      const ItemSpec &spec = specs[frame][index];
      if (p.terminal == Terminal::kBatch && item.source_index != 0)
        problems.push_back(name + ": source index " + std::to_string(item.source_index));
      const PixelRect rect = spec.whole_frame ? PixelRect{} : spec.rect;
      if (item.region_x != rect.x || item.region_y != rect.y || item.region_width != rect.width ||
          item.region_height != rect.height)
        problems.push_back(name + ": region <" + std::to_string(item.region_x) + "," +
                           std::to_string(item.region_y) + "," + std::to_string(item.region_width) +
                           "," + std::to_string(item.region_height) + ">, expected <" +
                           std::to_string(rect.x) + "," + std::to_string(rect.y) + "," +
                           std::to_string(rect.width) + "," + std::to_string(rect.height) + ">");
      const ItemReference &reference = expected[frame][index];
      const ItemComparison result =
          compare_item(segments[frame], bytes, static_cast<int>(n), reference);
      totals->resampled += result.resampled;
      if (result.resampled > 0) totals->resampled_differing += result.differing;
      totals->worst_steps = std::max(totals->worst_steps, result.worst_steps);
      if (result.beyond > 0)
        problems.push_back(name + ": " + std::to_string(result.beyond) + " of " +
                           std::to_string(result.elements) +
                           " values beyond the tolerance, first " + result.first_beyond);
      std::string why;
      if (!geometry_matches(item.geometry, reference.geometry, &why))
        problems.push_back(name + ": " + why);
    }
  };
  // One tensor within `wait` (true), or none: the errors posted so far
  // collected.
  const auto pull = [&](GstClockTime wait) {
    GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), wait);
    if (sample == nullptr) {
      const std::vector<std::string> posted = bus_errors(pipeline);
      errors.insert(errors.end(), posted.begin(), posted.end());
      return false;
    }
    handle(sample);
    gst_sample_unref(sample);
    return true;
  };

  // Frames that reached the terminal element (buffers out of cudanormalize):
  // what a drain waits for, with the frames an element said it dropped.
  std::atomic<int> reached{0};
  GstElement *normalize = first_element_of(pipeline, "cudanormalize");
  GstPad *normalize_src = gst_element_get_static_pad(normalize, "src");
  gst_pad_add_probe(normalize_src, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, &reached, nullptr);
  gst_object_unref(normalize_src);
  gst_object_unref(normalize);
  // appsrc stream-type=seekable asks before it seeks.
  if (p.has_flush()) g_signal_connect(src, "seek-data", G_CALLBACK(accept_seek), nullptr);
  const Batching plan = batching(p);
  size_t flushes = 0;

  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  // appsrc keeps buffers, caps (gst_app_src_set_caps) and serialized events
  // in one queue, in the order given.
  Pipeline current = p;  // the caps in effect
  for (int i = 0; i < p.frame_count; ++i) {
    if (gst_app_src_push_buffer(GST_APP_SRC(src), frames[i]) != GST_FLOW_OK)
      problems.push_back("appsrc refused frame " + std::to_string(i));
    for (const Event &event : p.events[i]) {
      if (event.kind == EventKind::kCapsChange) {
        current.set_input(event.caps);
        GstCaps *caps = gst_caps_from_string(current.input_caps().c_str());
        gst_app_src_set_caps(GST_APP_SRC(src), caps);
        gst_caps_unref(caps);
        continue;
      }
      if (event.kind == EventKind::kFlush) {
        // Drain: every frame sent reached the terminal element (or was
        // dropped with a reason) and every full tensor arrived; what the
        // flush then drops is the partial batch alone.
        const int wanted = plan.tensors_before_flush[flushes++];
        bool drained = false;
        for (GstClockTime idle = 0; idle < 10 * GST_SECOND && errors.empty();) {
          drained = reached.load() + drops->count() >= i + 1 && tensors >= wanted;
          if (drained) break;
          if (pull(200 * GST_MSECOND))
            idle = 0;
          else
            idle += 200 * GST_MSECOND;
        }
        if (!drained && errors.empty())
          problems.push_back("no drain before the flush after frame " + std::to_string(i) +
                             " within 10 s: " + std::to_string(reached.load()) + " of " +
                             std::to_string(i + 1) + " frames reached the terminal element, " +
                             std::to_string(tensors) + " of " + std::to_string(wanted) +
                             " tensors arrived");
        // To the hole after frame i: the next frames are inside the new
        // segment.
        if (!gst_element_seek(pipeline, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
                              GST_SEEK_TYPE_SET, (2 * i + 1) * kFrameNs, GST_SEEK_TYPE_NONE,
                              GST_CLOCK_TIME_NONE))
          problems.push_back("the flushing seek after frame " + std::to_string(i) + " was refused");
        continue;
      }
      if (!gst_element_send_event(src, make_event(p, event, i, current.input_caps()))) {
        // Not the elements' doing: appsrc did not take it. Counted apart.
        ++totals->events_refused;
        std::printf("seed %llu: appsrc refused a %s event\n", static_cast<unsigned long long>(seed),
                    event_kind_name(event.kind));
      }
    }
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));

  // Every tensor until EOS, an error, or 10 s without a tensor.
  for (GstClockTime idle = 0; idle < 10 * GST_SECOND && errors.empty();) {
    if (pull(200 * GST_MSECOND)) {
      idle = 0;
      continue;
    }
    if (gst_app_sink_is_eos(GST_APP_SINK(sink))) break;
    idle += 200 * GST_MSECOND;
  }
  const std::vector<std::string> late = bus_errors(pipeline);
  errors.insert(errors.end(), late.begin(), late.end());
  if (errors.empty() && !gst_app_sink_is_eos(GST_APP_SINK(sink)))
    problems.push_back("no EOS at appsink within 10 s of the last tensor");
  for (const std::string &error : errors) problems.push_back("error: " + error);

  // Every frame accounted for: all its items arrived or were dropped by a
  // flush with the partial batch, or it has none (no region: not a loss), or
  // an element said it dropped it.
  std::vector<std::vector<bool>> flushed(p.frame_count);
  for (int i = 0; i < p.frame_count; ++i) flushed[i].assign(specs[i].size(), false);
  for (const ItemRef &item : plan.flushed) flushed[item.frame][item.index] = true;
  int missing = 0;
  for (int i = 0; i < p.frame_count; ++i) {
    const int wanted = static_cast<int>(specs[i].size());
    int arrived = 0, by_flush = 0;
    for (size_t k = 0; k < seen[i].size(); ++k) {
      arrived += seen[i][k] > 0;
      by_flush += seen[i][k] == 0 && flushed[i][k];
    }
    totals->items += wanted;
    totals->flushed_items += by_flush;
    totals->flushed_frames += by_flush > 0;
    if (wanted == 0) {
      ++totals->frames_without_items;
    } else if (arrived == 0 && by_flush == 0) {
      ++missing;
    } else if (arrived + by_flush < wanted) {
      // Part of a frame's regions: no element drops part of a frame.
      ++totals->lost;
      problems.push_back("frame " + std::to_string(i) + ": " + std::to_string(arrived) + " of " +
                         std::to_string(wanted) + " items (" + std::to_string(by_flush) +
                         " dropped by a flush)");
    }
  }
  const int dropped = drops->take();
  totals->dropped += std::min(dropped, missing);
  if (missing > dropped) {
    if (!errors.empty()) {
      totals->errored += missing - dropped;
    } else {
      totals->lost += missing - dropped;
      problems.push_back(std::to_string(missing - dropped) + " of " +
                         std::to_string(p.frame_count) + " frames lost without a reason");
    }
  } else if (dropped > 0) {
    // A generated pipeline never changes its settings: a drop is a finding
    // even with its reason.
    problems.push_back(std::to_string(dropped) + " frames dropped: " + drops->last_reason());
  }
  const int expected_tensors = p.tensor_count();
  if (errors.empty() && dropped == 0 && tensors != expected_tensors)
    problems.push_back(std::to_string(tensors) + " tensors, expected " +
                       std::to_string(expected_tensors));

  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return problems;
}

TEST(Differential, GeneratedPipelinesEqualTheComposedReference) {
  CUDAPREP_REQUIRE_GPU();
  const uint64_t first = env_seed("CUDAPREP_DIFF_FIRST", 0);
  const uint64_t count = env_seed("CUDAPREP_DIFF_COUNT", 50);
  ASSERT_GT(count, 0u) << "CUDAPREP_DIFF_COUNT=0 runs nothing";
  DropLog drops;
  Totals totals;
  const bool verbose = env_seed("CUDAPREP_DIFF_VERBOSE", 0) != 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    std::vector<std::string> problems;
    try {
      problems = run_seed(seed, &drops, &totals);
    } catch (const std::exception &error) {
      // The generator or the reference refused its own pipeline: a bug here,
      // reported as this seed's mismatch rather than ending the run.
      problems.push_back(std::string("the reference threw: ") + error.what());
    }
    if (verbose)
      std::printf("seed %llu %s: %s\n", static_cast<unsigned long long>(seed),
                  problems.empty() ? "ok" : "MISMATCH", generate(seed).description().c_str());
    if (problems.empty()) continue;
    ++totals.mismatches;
    totals.failed_seeds.push_back(seed);
    std::printf("MISMATCH seed %llu: %s\n", static_cast<unsigned long long>(seed),
                generate(seed).description().c_str());
    for (const std::string &problem : problems) std::printf("  %s\n", problem.c_str());
    std::printf(
        "  reproduce: CUDAPREP_DIFF_FIRST=%llu CUDAPREP_DIFF_COUNT=1 "
        "tests/test_differential_gpu\n",
        static_cast<unsigned long long>(seed));
  }
  const double off_fraction =
      totals.resampled > 0 ? static_cast<double>(totals.resampled_differing) / totals.resampled
                           : 0.0;
  std::printf(
      "differential: seeds %llu..%llu, %d pipelines, %lld frames, %lld events, "
      "%d mismatches, %lld lost without a reason\n",
      static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + count - 1),
      totals.pipelines, static_cast<long long>(totals.frames),
      static_cast<long long>(totals.events), totals.mismatches,
      static_cast<long long>(totals.lost));
  std::printf(
      "  (dropped with a reason %lld, lost to an error %lld, events appsrc refused %lld; "
      "resampled values off by up to a step: %lld of %lld (%.3f%%, at most %.0f%%), "
      "worst %.3f steps)\n",
      static_cast<long long>(totals.dropped), static_cast<long long>(totals.errored),
      static_cast<long long>(totals.events_refused),
      static_cast<long long>(totals.resampled_differing), static_cast<long long>(totals.resampled),
      100.0 * off_fraction, 100.0 * kMaxOffFraction, totals.worst_steps);
  std::string kinds;
  for (const auto &[kind, count] : totals.kinds)
    kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
  std::printf(
      "  (%lld items, %lld frames with no item, dropped by a flush: %lld frames, %lld items; "
      "per kind: %s)\n",
      static_cast<long long>(totals.items), static_cast<long long>(totals.frames_without_items),
      static_cast<long long>(totals.flushed_frames), static_cast<long long>(totals.flushed_items),
      kinds.c_str());
  EXPECT_EQ(totals.mismatches, 0) << "first failing seed " << totals.failed_seeds.front();
  EXPECT_EQ(totals.lost, 0);
  EXPECT_LE(off_fraction, kMaxOffFraction)
      << "too many resampled values off by one step (test_full_chain allows 2%)";
}

}  // namespace
