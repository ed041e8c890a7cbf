// cudabatch's request sink pads (sink_N), one source each: their
// properties (region-source, regions, the tiling rule, roi-type, min-confidence), the
// snapshot of them the streaming threads work from, and each pad's state (its source
// index, negotiated planar frame and tiles). Part of cudabatch (elements/cudabatch/).
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/gst.h>

#include <string>
#include <vector>

#include "cudaprep/resize.h"
#include "base/gstcudaprepregion.h"
#include "base/gstcudapreptensorformat.h"
#include "elements/cudabatch/gstcudabatchstats.h"
#include "elements/cudabatch/gstcudabatchtiles.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PREP_BATCH_PAD (gst_cuda_prep_batch_pad_get_type())
G_DECLARE_FINAL_TYPE(GstCudaPrepBatchPad, gst_cuda_prep_batch_pad, GST, CUDA_PREP_BATCH_PAD,
                     GstAggregatorPad)

// Where a sink pad's batch items come from (the pad's `region-source`).
typedef enum {
  GST_CUDA_PREP_BATCH_REGION_SOURCE_FRAME,     // one item per frame: the whole frame
  GST_CUDA_PREP_BATCH_REGION_SOURCE_PROPERTY,  // one item per rectangle of the pad's `regions`
  GST_CUDA_PREP_BATCH_REGION_SOURCE_ROI_META,  // one per GstVideoRegionOfInterestMeta on the frame
  GST_CUDA_PREP_BATCH_REGION_SOURCE_DETECTIONS,  // one per GstAnalyticsODMtd (GStreamer >= 1.24)
  GST_CUDA_PREP_BATCH_REGION_SOURCE_TILES,       // one per tile of the pad's tiling rule
} GstCudaPrepBatchRegionSource;

GType gst_cuda_prep_batch_region_source_get_type(void);

G_END_DECLS

// A pad's region settings: the properties (the pad's object lock), and
// the snapshot the streaming threads work from.
struct GstCudaPrepBatchPadSettings {
  GstCudaPrepBatchRegionSource region_source = GST_CUDA_PREP_BATCH_REGION_SOURCE_FRAME;
  std::vector<cudaprep::PixelRect> regions;  // parsed from `regions`
  std::string regions_error;                 // why `regions` as set cannot work; empty if it can
  cudaprep::batch::TilingRule tiling;        // tile-width, tile-height, tile-overlap, ...
  GQuark roi_type = 0;                       // 0: every ROI meta or detection
  double min_confidence = 0.0;               // detections: the lowest confidence taken
};

// The tiles of the last source frame size seen (recomputed when the frame
// size or the rule changes: a caps change upstream, a property change).
struct GstCudaPrepBatchPadTiles {
  cudaprep::batch::TilingRule rule;
  gint width = 0, height = 0;
  std::vector<cudaprep::PixelRect> rects;
};

struct _GstCudaPrepBatchPad {
  GstAggregatorPad parent;
  gint source_index;  // N of sink_N
  gboolean has_info;  // info holds this pad's negotiated planar frame
  // Counts the pad's flushes (atomic: FLUSH_START arrives on the upstream
  // thread); an item whose frame was taken under an older count is dropped.
  gint flush_epoch;
  gint taken_epoch;            // flush_epoch when the streaming thread took its last frame
  GstClockTime taken_arrival;  // when that frame arrived at the pad (NONE: unknown)
  GstCudaPrepPlanarInfo info;
  GstCudaPrepBatchPadSettings *settings;  // the pad's object lock
  GstCudaPrepBatchSourceStats *stats;     // its own lock
  GstCudaPrepBatchPadTiles *tiles;        // the streaming thread's
  GstPadChainFunction aggregator_chain;   // GstAggregatorPad's, which ours wraps
};

// A copy of the pad's settings, taken under its object lock.
GstCudaPrepBatchPadSettings gst_cuda_prep_batch_pad_get_settings(GstCudaPrepBatchPad *pad);

// Why the pad's settings cannot work (a sentence naming the pad), or an
// empty string.
std::string gst_cuda_prep_batch_pad_settings_error(GstCudaPrepBatchPad *pad,
                                                   const GstCudaPrepBatchPadSettings &settings);

// The rectangles that become items of a width x height source frame under
// the pad's static rule: its `regions` (region-source=regions, the list in
// `settings`), or its tiles (region-source=tiles, kept by the pad until the
// next call). Tiles are computed, and their rule checked, only when the
// frame size or the rule changed: a tile property may change while playing,
// and a rule that cannot work gives NULL with `error` naming it. Empty for
// the other sources. Called from one thread at a time.
const std::vector<cudaprep::PixelRect> *gst_cuda_prep_batch_pad_static_regions(
    GstCudaPrepBatchPad *pad, const GstCudaPrepBatchPadSettings &settings, gint width, gint height,
    std::string *error);

// What a pad's regions read of each source frame, announced upstream in
// its allocation answer; FALSE for whole-frame items (whose chain reads what
// its own elements announce). Static regions: their bounding box, origin
// rounded down to even so that chroma-subsampled frames can be copied by it
// (the region protocol carries one rectangle). Tiles cover the whole frame,
// and ROI metas differ per frame and may lie anywhere: the whole frame,
// whatever its size (a rectangle no frame fits, so the upload copies whole
// frames). The chain's cudanormalize and cudaresize, leaving their work
// here, hand it on in place of what they would read themselves
// (cudaresize's rows of a whole-frame downscale), and the upload checks it
// against the frame.
gboolean gst_cuda_prep_batch_pad_regions_read(GstCudaPrepBatchPad *pad, GstCudaPrepRegion *region);
