#include "gstcudaprepanalytics.h"

#include <map>
#include <utility>

#include "gstcudaprepview.h"

#ifdef CUDAPREP_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#ifdef CUDAPREP_HAVE_GST_ANALYTICS

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_analytics_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_analytics_debug

static void init_debug(void) {
  static gsize initialized = 0;
  if (g_once_init_enter(&initialized)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_analytics_debug, "cudaprepanalytics", 0,
                            "GStreamer's analytics results on cudaprep frames");
    g_once_init_leave(&initialized, 1);
  }
}

namespace {

// An upright detection's box; FALSE for a rotated one.
bool upright_location(const GstAnalyticsODMtd *od, gint *x, gint *y, gint *w, gint *h,
                      gfloat *confidence) {
#if GST_CHECK_VERSION(1, 26, 0)
  gfloat angle = 0.0f;
  if (!gst_analytics_od_mtd_get_oriented_location(od, x, y, w, h, &angle, confidence)) return false;
  return angle == 0.0f;
#else
  return gst_analytics_od_mtd_get_location(od, x, y, w, h, confidence);
#endif
}

// One result of a relation meta, as plain values, so that the meta can be
// replaced (also on the same buffer) before its copy is added.
struct Result {
  guint old_id = 0;
  GstAnalyticsMtdType kind = 0;
  // detection
  GQuark type = 0;
  gint x = 0, y = 0, w = 0, h = 0;
  gfloat confidence = 0.0f;
  // classification
  std::vector<gfloat> levels;
  std::vector<GQuark> classes;
  // tracking
  guint64 tracking_id = 0;
  GstClockTime first_seen = GST_CLOCK_TIME_NONE, last_seen = GST_CLOCK_TIME_NONE;
  gboolean lost = FALSE;
};

// The results of `meta` that can be moved through `step`, their boxes mapped.
std::vector<Result> movable_results(GstAnalyticsRelationMeta *meta,
                                    const cudaprep::FrameGeometry &step, gint out_width,
                                    gint out_height) {
  std::vector<Result> results;
  gpointer state = nullptr;
  GstAnalyticsMtd mtd;
  while (gst_analytics_relation_meta_iterate(meta, &state, GST_ANALYTICS_MTD_TYPE_ANY, &mtd)) {
    Result result;
    result.old_id = gst_analytics_mtd_get_id(&mtd);
    result.kind = gst_analytics_mtd_get_mtd_type(&mtd);
    if (result.kind == gst_analytics_od_mtd_get_mtd_type()) {
      const auto *od = reinterpret_cast<const GstAnalyticsODMtd *>(&mtd);
      cudaprep::PixelRect mapped;
      if (!upright_location(od, &result.x, &result.y, &result.w, &result.h, &result.confidence) ||
          !gst_cuda_prep_map_rect(step, result.x, result.y, result.w, result.h, out_width,
                                  out_height, &mapped)) {
        GST_DEBUG("detection %u (%s) is rotated or lies outside the %dx%d output: removed",
                  result.old_id, g_quark_to_string(gst_analytics_od_mtd_get_obj_type(od)),
                  out_width, out_height);
        continue;
      }
      result.type = gst_analytics_od_mtd_get_obj_type(od);
      result.x = mapped.x, result.y = mapped.y, result.w = mapped.width, result.h = mapped.height;
    } else if (result.kind == gst_analytics_cls_mtd_get_mtd_type()) {
      const auto *cls = reinterpret_cast<const GstAnalyticsClsMtd *>(&mtd);
      for (gsize i = 0; i < gst_analytics_cls_mtd_get_length(cls); ++i) {
        result.levels.push_back(gst_analytics_cls_mtd_get_level(cls, i));
        result.classes.push_back(gst_analytics_cls_mtd_get_quark(cls, i));
      }
    } else if (result.kind == gst_analytics_tracking_mtd_get_mtd_type()) {
      gst_analytics_tracking_mtd_get_info(reinterpret_cast<const GstAnalyticsTrackingMtd *>(&mtd),
                                          &result.tracking_id, &result.first_seen,
                                          &result.last_seen, &result.lost);
    } else {
      GST_DEBUG("result %u of kind %s has pixels cudaprep cannot move: removed", result.old_id,
                gst_analytics_mtd_type_get_name(result.kind));
      continue;
    }
    results.push_back(std::move(result));
  }
  return results;
}

// Adds `result` to `meta`; its new id, or FALSE.
bool add_result(GstAnalyticsRelationMeta *meta, Result &result, guint *new_id) {
  GstAnalyticsMtd added;
  gboolean ok = FALSE;
  if (result.kind == gst_analytics_od_mtd_get_mtd_type()) {
    ok = gst_analytics_relation_meta_add_od_mtd(meta, result.type, result.x, result.y, result.w,
                                                result.h, result.confidence,
                                                reinterpret_cast<GstAnalyticsODMtd *>(&added));
  } else if (result.kind == gst_analytics_cls_mtd_get_mtd_type()) {
    ok = gst_analytics_relation_meta_add_cls_mtd(meta, result.levels.size(), result.levels.data(),
                                                 result.classes.data(),
                                                 reinterpret_cast<GstAnalyticsClsMtd *>(&added));
  } else {
    auto *tracking = reinterpret_cast<GstAnalyticsTrackingMtd *>(&added);
    ok = gst_analytics_relation_meta_add_tracking_mtd(meta, result.tracking_id, result.first_seen,
                                                      tracking);
    if (ok && GST_CLOCK_TIME_IS_VALID(result.last_seen))
      ok = gst_analytics_tracking_mtd_update_last_seen(tracking, result.last_seen);
    if (ok && result.lost) ok = gst_analytics_tracking_mtd_set_lost(tracking);
  }
  if (ok) *new_id = gst_analytics_mtd_get_id(&added);
  return ok;
}

}  // namespace

gboolean gst_cuda_prep_has_analytics(void) {
  return TRUE;
}

gboolean gst_cuda_prep_meta_is_analytics(const GstMeta *meta) {
  return meta->info->api == GST_ANALYTICS_RELATION_META_API_TYPE;
}

std::vector<GstCudaPrepDetection> gst_cuda_prep_buffer_detections(GstBuffer *buffer, GQuark type,
                                                                  double min_confidence) {
  init_debug();
  std::vector<GstCudaPrepDetection> detections;
  GstAnalyticsRelationMeta *meta = gst_buffer_get_analytics_relation_meta(buffer);
  if (meta == nullptr) return detections;
  gpointer state = nullptr;
  GstAnalyticsODMtd od;
  while (
      gst_analytics_relation_meta_iterate(meta, &state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
    gint x, y, w, h;
    gfloat confidence;
    const GQuark obj_type = gst_analytics_od_mtd_get_obj_type(&od);
    if (!upright_location(&od, &x, &y, &w, &h, &confidence)) {
      GST_LOG("detection %u is rotated: no region", gst_analytics_mtd_get_id(&od));
      continue;
    }
    if ((type != 0 && obj_type != type) || confidence < min_confidence) continue;
    detections.push_back(GstCudaPrepDetection{cudaprep::PixelRect{x, y, w, h},
                                              gst_analytics_mtd_get_id(&od), obj_type, confidence});
  }
  return detections;
}

void gst_cuda_prep_buffer_move_analytics(GstBuffer *inbuf, GstBuffer *outbuf,
                                         const cudaprep::FrameGeometry &step, gint out_width,
                                         gint out_height) {
  init_debug();
  GstAnalyticsRelationMeta *in_meta = gst_buffer_get_analytics_relation_meta(inbuf);
  if (in_meta == nullptr) return;
  std::vector<Result> results = movable_results(in_meta, step, out_width, out_height);
  // The relations among the kept results, by their old ids.
  std::vector<std::pair<std::pair<guint, guint>, GstAnalyticsRelTypes>> relations;
  for (const Result &first : results)
    for (const Result &second : results) {
      const GstAnalyticsRelTypes relation =
          gst_analytics_relation_meta_get_relation(in_meta, first.old_id, second.old_id);
      if (first.old_id != second.old_id && relation != GST_ANALYTICS_REL_TYPE_NONE)
        relations.push_back({{first.old_id, second.old_id}, relation});
    }
  while (GstMeta *meta = gst_buffer_get_meta(outbuf, GST_ANALYTICS_RELATION_META_API_TYPE))
    gst_buffer_remove_meta(outbuf, meta);
  if (results.empty()) return;
  GstAnalyticsRelationMeta *out_meta = gst_buffer_add_analytics_relation_meta(outbuf);
  std::map<guint, guint> new_ids;
  for (Result &result : results) {
    guint new_id;
    if (out_meta == nullptr || !add_result(out_meta, result, &new_id)) {
      GST_WARNING("could not copy analytics result %u onto the output: dropped", result.old_id);
      continue;
    }
    new_ids[result.old_id] = new_id;
  }
  for (const auto &[ids, relation] : relations) {
    const auto first = new_ids.find(ids.first), second = new_ids.find(ids.second);
    if (first != new_ids.end() && second != new_ids.end())
      gst_analytics_relation_meta_set_relation(out_meta, relation, first->second, second->second);
  }
}

#else

gboolean gst_cuda_prep_has_analytics(void) {
  return FALSE;
}

gboolean gst_cuda_prep_meta_is_analytics(const GstMeta *meta) {
  (void)meta;
  return FALSE;
}

std::vector<GstCudaPrepDetection> gst_cuda_prep_buffer_detections(GstBuffer *buffer, GQuark type,
                                                                  double min_confidence) {
  (void)buffer;
  (void)type;
  (void)min_confidence;
  return {};
}

void gst_cuda_prep_buffer_move_analytics(GstBuffer *inbuf, GstBuffer *outbuf,
                                         const cudaprep::FrameGeometry &step, gint out_width,
                                         gint out_height) {
  (void)inbuf;
  (void)outbuf;
  (void)step;
  (void)out_width;
  (void)out_height;
}

#endif
