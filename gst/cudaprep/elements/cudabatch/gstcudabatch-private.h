// cudabatch's insides, shared by its files: the element
// (gstcudabatch.cpp: pads, caps and negotiation, queries and events; its
// properties in gstcudabatchproperties.cpp), the waiting batch's items (gstcudabatchitems.cpp:
// frames taken from the pads, items appended and dropped, the batch written and pushed, the
// statistics as it leaves), regions as items (gstcudabatchregions.cpp) and when a batch leaves
// (gstcudabatchaggregate.cpp: live sources earliest first within the latency budget, other sources
// in turn); clips (gstcudabatchclips.cpp: the settings, frames into their clips, and the clip
// tensors of gstcudabatchcliptensors.h leaving). The pad (gstcudabatchpad.h) and a source's
// statistics (gstcudabatchstats.h) are objects of their own. Not installed.
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/gst.h>

#include <string>
#include <vector>

#include "cudaprep/tensorize.h"
#include "base/gstcudaprepbatchwriter.h"
#include "base/gstcudaprepcore.h"
#include "base/gstcudapreptensorformat.h"
#include "elements/cudabatch/gstcudabatchcliptensors.h"
#include "elements/cudabatch/gstcudabatch.h"
#include "elements/cudabatch/gstcudabatchpad.h"

GST_DEBUG_CATEGORY_EXTERN(gst_cuda_prep_batch_debug);

#define DEFAULT_BATCH_SIZE 4
#define DEFAULT_LATENCY_BUDGET (40 * GST_MSECOND)
#define DEFAULT_MAX_SOURCE_FRAMES 0
#define DEFAULT_SOURCE_POLICY GST_CUDA_PREP_BATCH_SOURCE_POLICY_WAIT
#define DEFAULT_LAYOUT static_cast<gint>(cudaprep::TensorLayout::kNCHW)
#define DEFAULT_STATS_INTERVAL 0
#define MAX_STATS_INTERVAL 3600000
#define DEFAULT_LATENCY_WINDOW 300
#define MAX_LATENCY_WINDOW 100000

// The layout and clip properties are the shared clip settings'.
struct BatchSettings : GstCudaPrepClipSettings {
  guint batch_size = DEFAULT_BATCH_SIZE;
  guint max_source_frames = DEFAULT_MAX_SOURCE_FRAMES;  // 0: no limit
  GstCudaPrepBatchSourcePolicy source_policy = DEFAULT_SOURCE_POLICY;
  guint stats_interval = DEFAULT_STATS_INTERVAL;  // ms; 0: no messages
  guint latency_window = DEFAULT_LATENCY_WINDOW;  // items per source

  GstCudaPrepClipRule clip_rule() const { return rule(batch_size); }
};

struct GstCudaPrepBatchPrivate {
  explicit GstCudaPrepBatchPrivate(GstElement *element, guint first_core_prop)
      : core(gst_cuda_prep_core_new(element, first_core_prop)),
        writer(element, core, GST_CUDA_PREP_BATCH_TENSOR_ID),
        clips(element, core, GST_CUDA_PREP_BATCH_CLIP_TENSOR_ID) {}
  ~GstCudaPrepBatchPrivate() { gst_cuda_prep_core_free(core); }

  GstCudaPrepCore *core;
  GstCudaPrepBatchWriter writer;  // writes each batch's tensor
  BatchSettings settings;         // object lock

  // Streaming (aggregate) thread.
  gboolean has_info = FALSE;
  GstCudaPrepPlanarInfo info;     // what every pad's chain makes
  cudaprep::TensorDesc desc;      // the negotiated tensor; for clips, one frame of a clip
  gboolean writes_clips = FALSE;  // clip_desc and `clips`, not `writer` and `items`
  cudaprep::ClipDesc clip_desc;
  GstCudaPrepBatchClipTensors clips;
  // The batch being filled: whole frames, or regions of one (the items of
  // one frame's regions follow each other), each holding a reference to its
  // frame.
  std::vector<GstCudaPrepBatchItem> items;
  // Where each item came from, in the order of `items`.
  struct Origin {
    GstCudaPrepBatchPad *pad;  // a reference
    gint flush_epoch;          // the pad's when the frame was taken
    GstClockTime running_time;
    GstClockTime arrival;  // at the pad (host monotonic time), NONE: unknown
  };
  std::vector<Origin> origins;
  GstClockTime first_running_time = GST_CLOCK_TIME_NONE;  // of items[0]'s frame
  // The aggregator's latency (upstream's and latency-budget) as aggregate()
  // last read it: get_next_time() runs under the lock that reading takes.
  GstClockTime total_latency = GST_CLOCK_TIME_NONE;
  // The sink pads (references) as aggregate() and get_next_time() scan them
  // for every frame, taken again when the element's pads change (its pads
  // cookie): one list, not a new one with 32 references per call.
  std::vector<GstCudaPrepBatchPad *> streaming_pads;
  guint32 streaming_pads_cookie = 0;
  gboolean has_streaming_pads = FALSE;
  guint next_pad = 0;   // where the next turn starts, so no source is always first
  guint64 batches = 0;  // batches pushed (object lock)
  GstClockTime next_stats = GST_CLOCK_TIME_NONE;  // when the next stats message is due
};

struct _GstCudaPrepBatch {
  GstAggregator parent;
  GstCudaPrepBatchPrivate *priv;
};

namespace cudaprep::batch {

// --- The element (gstcudabatch.cpp) ------------------------------------------

// A copy of the element's settings, taken under its object lock.
BatchSettings get_settings(GstCudaPrepBatch *self);
// The sink pads, each with a reference, in pad order.
std::vector<GstCudaPrepBatchPad *> sink_pads(GstCudaPrepBatch *self);
// Drops the references sink_pads() gave and empties `pads`.
void unref_pads(std::vector<GstCudaPrepBatchPad *> *pads);
// The sink pads for the aggregate thread (aggregate(), get_next_time()):
// priv->streaming_pads, taken again when the pads changed. Valid until the
// next call; no reference to drop.
const std::vector<GstCudaPrepBatchPad *> &streaming_sink_pads(GstCudaPrepBatch *self);
// Drops streaming_pads (the element stops or goes).
void clear_streaming_sink_pads(GstCudaPrepBatch *self);

// --- Properties (gstcudabatchproperties.cpp) ---------------------------------

// The id of the core's first property (they follow cudabatch's own).
extern const guint kFirstCoreProperty;
GType source_policy_get_type();
void install_properties(GObjectClass *gobject_class);
void set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec);
void get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec);

// --- The waiting batch's items (gstcudabatchitems.cpp) -----------------------
// All on the streaming (aggregate) thread, which owns the batch.

// Drops every waiting item (and its frame and pad references).
void drop_items(GstCudaPrepBatch *self);
// Drops the items of frames a pad took before its latest flush: a flush on
// one source discards what that source sent before it, and nothing of the
// others'.
void drop_flushed_items(GstCudaPrepBatch *self);
// cudabatch-stats: batches, and sources, a cudabatch-source-stats per pad
// (the `stats` property and the element message; any thread).
GstStructure *stats_structure(GstCudaPrepBatch *self);
// Writes the waiting items into a tensor buffer and pushes it (nothing
// when no item waits): one preprocess_batch() launch for every item whose
// frame carries pending work (every region item does), one tensorize launch
// for each frame that does not.
GstFlowReturn push_batch(GstCudaPrepBatch *self);
// The pad's next frame under the source policy (latest: its newest queued
// one, the older ones dropped), or NULL.
GstBuffer *take_frame(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad,
                      GstCudaPrepBatchSourcePolicy policy);
// The whole frame `buffer` of `pad` as an item (its PTS, geometry and
// source index; the buffer reference is the caller's).
GstCudaPrepBatchItem frame_item(GstCudaPrepBatchPad *pad, GstBuffer *buffer);
// Appends an item (taking its buffer reference); a full batch leaves.
GstFlowReturn append_item(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad,
                          const GstCudaPrepBatchItem &item);
// The frame's items: the whole frame, or one per region. Takes `buffer`.
GstFlowReturn add_frame(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad, GstBuffer *buffer);

// --- Regions as items (gstcudabatchregions.cpp) ------------------------------

// One item per region of the frame (appended with append_item()), each
// resized as the pad's cudaresize would resize that part (its letterbox or
// stretch, its method, pad value and colorimetry) and normalised as its
// cudanormalize would. A frame with more regions than the batch has room
// for goes on into the next batches. Does not take `buffer`.
GstFlowReturn add_frame_regions(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad, GstBuffer *buffer,
                                const GstCudaPrepBatchPadSettings &settings);

// --- Clips (gstcudabatchclips.cpp) -------------------------------------------

// Why the clip settings cannot work with these settings and pads (a
// sentence naming the property or the pad), or an empty string.
std::string clip_settings_error(const BatchSettings &settings,
                                const std::vector<GstCudaPrepBatchPad *> &pads);
// aggregate() with clip-length > 0: the frames waiting on the pads (live:
// earliest first; else one per pad in turn) into their clips, the clips of
// sources at EOS and those due ended, and the tensors ready pushed in
// order; every source at EOS pushes every tensor.
GstFlowReturn aggregate_clips(GstCudaPrepBatch *self,
                              const std::vector<GstCudaPrepBatchPad *> &pads,
                              const BatchSettings &settings, gboolean live, gboolean *all_eos);
// Ends the pad's clips as they are (its new caps).
void end_source_clips(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad);
// Pushes every open clip tensor as it is (new caps for the tensor).
GstFlowReturn push_all_clips(GstCudaPrepBatch *self);
// Tells the aggregator the latency clips add (live sinks then wait for
// them): the longest clip span, (T - 1) x clip-frame-stride frame durations
// of the slowest source with a frame rate.
void report_clip_latency(GstCudaPrepBatch *self);
// The host time the next clip or partial clip tensor falls due, or NONE.
GstClockTime clips_next_due(GstCudaPrepBatch *self);

// --- When a batch leaves (gstcudabatchaggregate.cpp) -------------------------

// The pad whose queued frame is the earliest (by running time), among those
// still under max-source-frames in the waiting batch; NULL when none has a
// frame.
GstCudaPrepBatchPad *earliest_pad(GstCudaPrepBatch *self,
                                  const std::vector<GstCudaPrepBatchPad *> &pads,
                                  const BatchSettings &settings);
// GstAggregator's aggregate(): the frames waiting on the pads into the
// batch, which leaves when full, due or at the end.
GstFlowReturn gst_cuda_prep_batch_aggregate(GstAggregator *agg, gboolean timeout);
// GstAggregator's get_next_time(): when aggregate() is next due without
// every pad holding a frame. Called with the aggregator's source lock held.
GstClockTime gst_cuda_prep_batch_get_next_time(GstAggregator *agg);

}  // namespace cudaprep::batch
