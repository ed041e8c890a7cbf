#include "elements/cudabatch/gstcudabatchpad.h"

#include <algorithm>

#include "base/gstcudapreppixelmetas.h"

enum {
  PAD_PROP_0,
  PAD_PROP_REGION_SOURCE,
  PAD_PROP_REGIONS,
  PAD_PROP_ROI_TYPE,
  PAD_PROP_MIN_CONFIDENCE,
  PAD_PROP_TILE_WIDTH,
  PAD_PROP_TILE_HEIGHT,
  PAD_PROP_TILE_OVERLAP,
  PAD_PROP_TILE_OVERLAP_PIXELS,
  PAD_PROP_TILE_WHOLE_FRAME,
};

#define DEFAULT_REGION_SOURCE GST_CUDA_PREP_BATCH_REGION_SOURCE_FRAME

G_DEFINE_TYPE(GstCudaPrepBatchPad, gst_cuda_prep_batch_pad, GST_TYPE_AGGREGATOR_PAD)

GType gst_cuda_prep_batch_region_source_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_CUDA_PREP_BATCH_REGION_SOURCE_FRAME, "One item per frame: the whole frame", "frame"},
      {GST_CUDA_PREP_BATCH_REGION_SOURCE_PROPERTY,
       "One item per rectangle of the pad's regions property, on every frame", "regions"},
      {GST_CUDA_PREP_BATCH_REGION_SOURCE_ROI_META,
       "One item per GstVideoRegionOfInterestMeta on the frame (of roi-type, if set); a frame "
       "with none gives none",
       "roi-meta"},
      {GST_CUDA_PREP_BATCH_REGION_SOURCE_DETECTIONS,
       "One item per object detection (GStreamer's GstAnalyticsODMtd, 1.24 on) on the frame (of "
       "roi-type, if set, with at least min-confidence); a frame with none gives none",
       "detections"},
      {GST_CUDA_PREP_BATCH_REGION_SOURCE_TILES,
       "One item per tile of the frame (tile-width, tile-height, tile-overlap or "
       "tile-overlap-pixels), row by row, "
       "then the whole frame with tile-whole-frame, on every frame",
       "tiles"},
      {0, nullptr, nullptr}};
  if (g_once_init_enter(&type)) {
    g_once_init_leave(&type, g_enum_register_static("GstCudaPrepBatchRegionSource", values));
  }
  return type;
}

GstCudaPrepBatchPadSettings gst_cuda_prep_batch_pad_get_settings(GstCudaPrepBatchPad *pad) {
  GST_OBJECT_LOCK(pad);
  const GstCudaPrepBatchPadSettings settings = *pad->settings;
  GST_OBJECT_UNLOCK(pad);
  return settings;
}

// `value` (a GstValueArray of <x, y, width, height> int arrays) as
// rectangles; FALSE with a reason naming the entry when it is not.
static gboolean parse_regions(const GValue *value, std::vector<cudaprep::PixelRect> *regions,
                              std::string *reason) {
  regions->clear();
  const guint count = gst_value_array_get_size(value);
  for (guint i = 0; i < count; ++i) {
    const GValue *entry = gst_value_array_get_value(value, i);
    gint numbers[4] = {};
    gboolean ok = GST_VALUE_HOLDS_ARRAY(entry) && gst_value_array_get_size(entry) == 4;
    for (guint n = 0; ok && n < 4; ++n) {
      const GValue *number = gst_value_array_get_value(entry, n);
      ok = G_VALUE_HOLDS_INT(number);
      if (ok) numbers[n] = g_value_get_int(number);
    }
    ok = ok && numbers[0] >= 0 && numbers[1] >= 0 && numbers[2] >= 1 && numbers[3] >= 1 &&
         static_cast<gint64>(numbers[0]) + numbers[2] <= G_MAXINT &&
         static_cast<gint64>(numbers[1]) + numbers[3] <= G_MAXINT;
    if (!ok) {
      gchar *text = gst_value_serialize(entry);
      *reason = "regions entry " + std::to_string(i) + " is " + (text != nullptr ? text : "?") +
                ", not <x, y, width, height> with x, y >= 0 and width, height >= 1";
      g_free(text);
      regions->clear();
      return FALSE;
    }
    regions->push_back(cudaprep::PixelRect{numbers[0], numbers[1], numbers[2], numbers[3]});
  }
  return TRUE;
}

std::string gst_cuda_prep_batch_pad_settings_error(GstCudaPrepBatchPad *pad,
                                                   const GstCudaPrepBatchPadSettings &settings) {
  const std::string name = GST_PAD_NAME(pad);
  if (!settings.regions_error.empty()) return name + ": " + settings.regions_error;
  const bool by_property = settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_PROPERTY;
  if (by_property && settings.regions.empty())
    return name +
           ": region-source=regions, but its regions property is empty; set it, e.g. "
           "regions=\"<<0,0,224,224>,<224,0,224,224>>\"";
  if (!by_property && !settings.regions.empty())
    return name + ": its regions property is set, but region-source is not regions; set " +
           "region-source=regions to batch those rectangles";
  if (settings.region_source != GST_CUDA_PREP_BATCH_REGION_SOURCE_TILES &&
      settings.tiling != cudaprep::batch::TilingRule{})
    return name + ": a tile property is set, but region-source is not tiles; set " +
           "region-source=tiles to batch the frame's tiles";
  const cudaprep::batch::TilingRule &tiling = settings.tiling;
  if (tiling.overlap_pixels >= std::min(tiling.tile_width, tiling.tile_height))
    return name + ": tile-overlap-pixels=" + std::to_string(tiling.overlap_pixels) +
           " is not smaller than the tile (tile-width=" + std::to_string(tiling.tile_width) +
           ", tile-height=" + std::to_string(tiling.tile_height) +
           "); set it below both sides, or to 0 to use tile-overlap's fraction";
  const bool by_detections = settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_DETECTIONS;
  if (settings.roi_type != 0 &&
      settings.region_source != GST_CUDA_PREP_BATCH_REGION_SOURCE_ROI_META && !by_detections)
    return name + ": roi-type is set, but region-source is neither roi-meta nor detections";
  if (settings.min_confidence > 0.0 && !by_detections)
    return name + ": min-confidence is set, but region-source is not detections";
  if (by_detections && !gst_cuda_prep_has_analytics())
    return name +
           ": region-source=detections reads GStreamer's analytics results, which this "
           "cudaprep was built without (it needs GStreamer >= 1.24 and its "
           "gstreamer-analytics-1.0 library when cudaprep is built)";
  return {};
}

static void gst_cuda_prep_batch_pad_set_property(GObject *object, guint prop_id,
                                                 const GValue *value, GParamSpec *pspec) {
  auto *pad = GST_CUDA_PREP_BATCH_PAD(object);
  gboolean regions_changed = FALSE;
  GST_OBJECT_LOCK(pad);
  GstCudaPrepBatchPadSettings &settings = *pad->settings;
  switch (prop_id) {
    case PAD_PROP_REGION_SOURCE:
      settings.region_source = static_cast<GstCudaPrepBatchRegionSource>(g_value_get_enum(value));
      regions_changed = TRUE;
      break;
    case PAD_PROP_REGIONS:
      settings.regions_error.clear();
      parse_regions(value, &settings.regions, &settings.regions_error);
      regions_changed = TRUE;
      break;
    case PAD_PROP_ROI_TYPE: {
      const gchar *type = g_value_get_string(value);
      settings.roi_type = type != nullptr && type[0] != '\0' ? g_quark_from_string(type) : 0;
      break;
    }
    case PAD_PROP_MIN_CONFIDENCE:
      settings.min_confidence = g_value_get_double(value);
      break;
    case PAD_PROP_TILE_WIDTH:
      settings.tiling.tile_width = g_value_get_int(value);
      break;
    case PAD_PROP_TILE_HEIGHT:
      settings.tiling.tile_height = g_value_get_int(value);
      break;
    case PAD_PROP_TILE_OVERLAP:
      settings.tiling.overlap = g_value_get_double(value);
      break;
    case PAD_PROP_TILE_OVERLAP_PIXELS:
      settings.tiling.overlap_pixels = g_value_get_int(value);
      break;
    case PAD_PROP_TILE_WHOLE_FRAME:
      settings.tiling.whole_frame = g_value_get_boolean(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(pad);
  // What the upload copies follows the regions: ask upstream to negotiate
  // the allocation again (nothing happens before the pad is linked).
  if (regions_changed) gst_pad_push_event(GST_PAD(pad), gst_event_new_reconfigure());
}

static void gst_cuda_prep_batch_pad_get_property(GObject *object, guint prop_id, GValue *value,
                                                 GParamSpec *pspec) {
  auto *pad = GST_CUDA_PREP_BATCH_PAD(object);
  const GstCudaPrepBatchPadSettings settings = gst_cuda_prep_batch_pad_get_settings(pad);
  switch (prop_id) {
    case PAD_PROP_REGION_SOURCE:
      g_value_set_enum(value, settings.region_source);
      break;
    case PAD_PROP_REGIONS:
      for (const cudaprep::PixelRect &rect : settings.regions) {
        GValue entry = G_VALUE_INIT, number = G_VALUE_INIT;
        g_value_init(&entry, GST_TYPE_ARRAY);
        g_value_init(&number, G_TYPE_INT);
        for (gint n : {rect.x, rect.y, rect.width, rect.height}) {
          g_value_set_int(&number, n);
          gst_value_array_append_value(&entry, &number);
        }
        gst_value_array_append_and_take_value(value, &entry);
        g_value_unset(&number);
      }
      break;
    case PAD_PROP_ROI_TYPE:
      g_value_set_string(value,
                         settings.roi_type != 0 ? g_quark_to_string(settings.roi_type) : nullptr);
      break;
    case PAD_PROP_MIN_CONFIDENCE:
      g_value_set_double(value, settings.min_confidence);
      break;
    case PAD_PROP_TILE_WIDTH:
      g_value_set_int(value, settings.tiling.tile_width);
      break;
    case PAD_PROP_TILE_HEIGHT:
      g_value_set_int(value, settings.tiling.tile_height);
      break;
    case PAD_PROP_TILE_OVERLAP:
      g_value_set_double(value, settings.tiling.overlap);
      break;
    case PAD_PROP_TILE_OVERLAP_PIXELS:
      g_value_set_int(value, settings.tiling.overlap_pixels);
      break;
    case PAD_PROP_TILE_WHOLE_FRAME:
      g_value_set_boolean(value, settings.tiling.whole_frame);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
}

// The statistics see each frame arrive (the latency's start) and whether the
// aggregator queued it.
static GstFlowReturn gst_cuda_prep_batch_pad_chain(GstPad *pad, GstObject *parent,
                                                   GstBuffer *buffer) {
  auto *self = GST_CUDA_PREP_BATCH_PAD(pad);
  self->stats->arrived(buffer, gst_util_get_timestamp());
  const GstBuffer *arrived = buffer;  // (the chain takes the reference)
  const GstFlowReturn ret = self->aggregator_chain(pad, parent, buffer);
  if (ret != GST_FLOW_OK) self->stats->refused(arrived);
  return ret;
}

static void gst_cuda_prep_batch_pad_constructed(GObject *object) {
  G_OBJECT_CLASS(gst_cuda_prep_batch_pad_parent_class)->constructed(object);
  auto *pad = GST_CUDA_PREP_BATCH_PAD(object);
  pad->aggregator_chain = GST_PAD_CHAINFUNC(pad);
  g_return_if_fail(pad->aggregator_chain != nullptr);  // a sink pad: GstAggregatorPad set it
  gst_pad_set_chain_function(GST_PAD(pad), gst_cuda_prep_batch_pad_chain);
}

// A flush stop: what the flush start discarded of the pad's queue.
static GstFlowReturn gst_cuda_prep_batch_pad_flush(GstAggregatorPad *aggpad, GstAggregator *agg) {
  GST_CUDA_PREP_BATCH_PAD(aggpad)->stats->clear_queue(TRUE);
  auto *parent_class = GST_AGGREGATOR_PAD_CLASS(gst_cuda_prep_batch_pad_parent_class);
  return parent_class->flush != nullptr ? parent_class->flush(aggpad, agg) : GST_FLOW_OK;
}

static void gst_cuda_prep_batch_pad_finalize(GObject *object) {
  auto *pad = GST_CUDA_PREP_BATCH_PAD(object);
  delete pad->settings;
  delete pad->stats;
  delete pad->tiles;
  G_OBJECT_CLASS(gst_cuda_prep_batch_pad_parent_class)->finalize(object);
}

static void gst_cuda_prep_batch_pad_class_init(GstCudaPrepBatchPadClass *klass) {
  auto *gobject_class = G_OBJECT_CLASS(klass);
  gobject_class->set_property = gst_cuda_prep_batch_pad_set_property;
  gobject_class->get_property = gst_cuda_prep_batch_pad_get_property;
  gobject_class->finalize = gst_cuda_prep_batch_pad_finalize;
  gobject_class->constructed = gst_cuda_prep_batch_pad_constructed;
  GST_AGGREGATOR_PAD_CLASS(klass)->flush = gst_cuda_prep_batch_pad_flush;
  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_PLAYING);
  g_object_class_install_property(
      gobject_class, PAD_PROP_REGION_SOURCE,
      g_param_spec_enum("region-source", "Region source",
                        "What one batch item is: the whole frame, each rectangle of regions, "
                        "each region of interest meta on the frame, each object detection "
                        "(GstAnalyticsODMtd) on it, or each tile of the frame (the regions modes "
                        "need the pad's cudaresize ! "
                        "cudanormalize to leave their work to cudabatch)",
                        gst_cuda_prep_batch_region_source_get_type(), DEFAULT_REGION_SOURCE,
                        flags));
  // Open ranges: a bad rectangle is named at READY->PAUSED or caps time
  // rather than dropped by GLib with a warning.
  g_object_class_install_property(
      gobject_class, PAD_PROP_REGIONS,
      gst_param_spec_array(
          "regions", "Regions",
          "Static regions (region-source=regions), each <x, y, width, height> in pixels of the "
          "source frame the pad's cudaresize receives, e.g. \"<<0,0,640,360>,<640,0,640,360>>\"; "
          "region ids are their indices; default: none. A change while playing applies from the "
          "next frame and makes the upload copy the new regions' bounding box",
          gst_param_spec_array(
              "region", "Region", "<x, y, width, height>",
              g_param_spec_int(
                  "value", "Value", "x, y, width or height", G_MININT, G_MAXINT, 0,
                  static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
              static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
          flags));
  g_object_class_install_property(
      gobject_class, PAD_PROP_ROI_TYPE,
      g_param_spec_string("roi-type", "ROI type",
                          "region-source=roi-meta: only metas of this roi_type (e.g. \"car\"); "
                          "region-source=detections: only detections of this object type; "
                          "NULL or empty: every one",
                          nullptr, flags));
  g_object_class_install_property(
      gobject_class, PAD_PROP_MIN_CONFIDENCE,
      g_param_spec_double("min-confidence", "Minimum confidence",
                          "region-source=detections: only detections whose location confidence "
                          "is at least this (0: every one)",
                          0.0, 1.0, 0.0, flags));
  const cudaprep::batch::TilingRule tiling;
  g_object_class_install_property(
      gobject_class, PAD_PROP_TILE_WIDTH,
      g_param_spec_int("tile-width", "Tile width",
                       "region-source=tiles: a tile's width in pixels of the source frame the "
                       "pad's cudaresize receives (a frame narrower than this: one column of "
                       "the frame's width)",
                       1, G_MAXINT, tiling.tile_width, flags));
  g_object_class_install_property(
      gobject_class, PAD_PROP_TILE_HEIGHT,
      g_param_spec_int("tile-height", "Tile height",
                       "region-source=tiles: a tile's height in pixels of the source frame the "
                       "pad's cudaresize receives (a frame lower than this: one row of the "
                       "frame's height)",
                       1, G_MAXINT, tiling.tile_height, flags));
  g_object_class_install_property(
      gobject_class, PAD_PROP_TILE_OVERLAP,
      g_param_spec_double("tile-overlap", "Tile overlap",
                          "region-source=tiles: the fraction of a tile's width (height) that "
                          "neighbouring tiles share, as SAHI's overlap_width_ratio and "
                          "overlap_height_ratio; the last tile of a row (column) is moved back to "
                          "end at the frame's edge; ignored when tile-overlap-pixels is set",
                          0.0, 0.9, tiling.overlap, flags));
  // Open above: one not smaller than the tile is named at start, with the
  // tile's size, rather than dropped by GLib with a warning.
  g_object_class_install_property(
      gobject_class, PAD_PROP_TILE_OVERLAP_PIXELS,
      g_param_spec_int("tile-overlap-pixels", "Tile overlap in pixels",
                       "region-source=tiles: the pixels of the source frame that neighbouring "
                       "tiles share along both axes, in place of tile-overlap's fraction (0: "
                       "use tile-overlap); it must be smaller than tile-width and tile-height",
                       0, G_MAXINT, tiling.overlap_pixels, flags));
  g_object_class_install_property(
      gobject_class, PAD_PROP_TILE_WHOLE_FRAME,
      g_param_spec_boolean("tile-whole-frame", "Whole frame after the tiles",
                           "region-source=tiles: add the whole frame as one more item after the "
                           "tiles (its region id: the number of tiles), as SAHI's "
                           "perform_standard_pred; none when the frame is a single tile",
                           tiling.whole_frame, flags));
}

static void gst_cuda_prep_batch_pad_init(GstCudaPrepBatchPad *pad) {
  new (&pad->info) GstCudaPrepPlanarInfo();
  pad->settings = new GstCudaPrepBatchPadSettings();
  pad->stats = new GstCudaPrepBatchSourceStats();
  pad->tiles = new GstCudaPrepBatchPadTiles();
  pad->taken_arrival = GST_CLOCK_TIME_NONE;
}

gboolean gst_cuda_prep_batch_pad_regions_read(GstCudaPrepBatchPad *pad, GstCudaPrepRegion *region) {
  const GstCudaPrepBatchPadSettings settings = gst_cuda_prep_batch_pad_get_settings(pad);
  if (settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_FRAME ||
      !gst_cuda_prep_batch_pad_settings_error(pad, settings).empty())
    return FALSE;
  *region = GstCudaPrepRegion{};
  if (settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_ROI_META ||
      settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_DETECTIONS ||
      settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_TILES) {
    region->rect = cudaprep::PixelRect{0, 0, G_MAXINT, G_MAXINT};
    return TRUE;
  }
  gint64 left = G_MAXINT, top = G_MAXINT, right = 0, bottom = 0;
  for (const cudaprep::PixelRect &rect : settings.regions) {
    left = std::min<gint64>(left, rect.x);
    top = std::min<gint64>(top, rect.y);
    right = std::max<gint64>(right, static_cast<gint64>(rect.x) + rect.width);
    bottom = std::max<gint64>(bottom, static_cast<gint64>(rect.y) + rect.height);
  }
  left &= ~static_cast<gint64>(1);
  top &= ~static_cast<gint64>(1);
  region->rect =
      cudaprep::PixelRect{static_cast<gint>(left), static_cast<gint>(top),
                          static_cast<gint>(right - left), static_cast<gint>(bottom - top)};
  return TRUE;
}

const std::vector<cudaprep::PixelRect> *gst_cuda_prep_batch_pad_static_regions(
    GstCudaPrepBatchPad *pad, const GstCudaPrepBatchPadSettings &settings, gint width, gint height,
    std::string *error) {
  static const std::vector<cudaprep::PixelRect> kNone;
  if (settings.region_source == GST_CUDA_PREP_BATCH_REGION_SOURCE_PROPERTY)
    return &settings.regions;
  if (settings.region_source != GST_CUDA_PREP_BATCH_REGION_SOURCE_TILES) return &kNone;
  GstCudaPrepBatchPadTiles &tiles = *pad->tiles;
  if (tiles.width != width || tiles.height != height || tiles.rule != settings.tiling) {
    // An overlap not smaller than the tile would step by 1 pixel: millions of tiles.
    *error = gst_cuda_prep_batch_pad_settings_error(pad, settings);
    if (!error->empty()) return nullptr;
    tiles.rule = settings.tiling;
    tiles.width = width;
    tiles.height = height;
    tiles.rects = cudaprep::batch::tile_regions(settings.tiling, width, height);
  }
  return &tiles.rects;
}
