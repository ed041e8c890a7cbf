#include "gstcudapreppixelmetas.h"

#include <gst/video/video.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <gst/cudaprep/gstcudaprepgeometry-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "gstcudaprepregion.h"

#ifdef CUDAPREP_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_pixel_metas_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_pixel_metas_debug

namespace {

void init_debug() {
  static gsize initialized = 0;
  if (g_once_init_enter(&initialized)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_pixel_metas_debug, "cudapreppixelmetas", 0,
                            "Metas that name pixels, moved with the pixels");
    g_once_init_leave(&initialized, 1);
  }
}

void remove_metas(GstBuffer *buffer, GType api) {
  while (GstMeta *meta = gst_buffer_get_meta(buffer, api)) gst_buffer_remove_meta(buffer, meta);
}

// The input's geometry, read and converted once; `outbuf`'s set to it
// followed by `step`.
cudaprep::FrameGeometry move_geometry(GstBuffer *inbuf, GstBuffer *outbuf,
                                      const cudaprep::FrameGeometry &step) {
  GstCudaPrepGeometryMeta *in_meta = gst_buffer_get_cuda_prep_geometry_meta(inbuf);
  const cudaprep::FrameGeometry input = in_meta != nullptr
                                            ? gst_cuda_prep_geometry_to_frame(in_meta->geometry)
                                            : cudaprep::FrameGeometry();
  const GstCudaPrepGeometry moved = gst_cuda_prep_geometry_from_frame(input.then(step));
  GstCudaPrepGeometryMeta *out_meta =
      outbuf == inbuf ? in_meta : gst_buffer_get_cuda_prep_geometry_meta(outbuf);
  if (out_meta != nullptr)
    out_meta->geometry = moved;
  else
    gst_buffer_add_cuda_prep_geometry_meta(outbuf, &moved);
  return input;
}

// What a GstVideoRegionOfInterestMeta says, held while its buffer's metas
// are replaced.
struct RegionOfInterest {
  GQuark roi_type;
  gint id, parent_id;
  guint x, y, w, h;
  std::vector<GstStructure *> params;  // owned
};

std::vector<RegionOfInterest> take_regions_of_interest(GstBuffer *inbuf) {
  std::vector<RegionOfInterest> regions;
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta_filtered(
             inbuf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    const auto *roi = reinterpret_cast<GstVideoRegionOfInterestMeta *>(meta);
    RegionOfInterest region{roi->roi_type, roi->id, roi->parent_id, roi->x,
                            roi->y,        roi->w,  roi->h,         {}};
    for (GList *param = roi->params; param != nullptr; param = param->next)
      region.params.push_back(gst_structure_copy(static_cast<GstStructure *>(param->data)));
    regions.push_back(region);
  }
  return regions;
}

void move_regions_of_interest(GstBuffer *inbuf, GstBuffer *outbuf,
                              const cudaprep::FrameGeometry &step, gint out_width,
                              gint out_height) {
  std::vector<RegionOfInterest> regions = take_regions_of_interest(inbuf);
  remove_metas(outbuf, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
  for (RegionOfInterest &region : regions) {
    cudaprep::PixelRect mapped;
    if (!gst_cuda_prep_map_rect(step, region.x, region.y, region.w, region.h, out_width, out_height,
                                &mapped)) {
      GST_LOG("region of interest %d (%s) lies outside the %dx%d output: removed", region.id,
              g_quark_to_string(region.roi_type), out_width, out_height);
      for (GstStructure *param : region.params) gst_structure_free(param);
      continue;
    }
    GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta_id(
        outbuf, region.roi_type, mapped.x, mapped.y, mapped.width, mapped.height);
    roi->id = region.id;
    roi->parent_id = region.parent_id;
    for (GstStructure *param : region.params)
      gst_video_region_of_interest_meta_add_param(roi, param);  // takes it
  }
}

// The written pixels of a view: the input's, moved by the crop and clipped.
void move_region_into_view(GstBuffer *inbuf, GstBuffer *outbuf, const cudaprep::FrameGeometry &crop,
                           gint out_width, gint out_height) {
  const GstCudaPrepRegionMeta *in_meta = gst_buffer_get_cuda_prep_region_meta(inbuf);
  if (in_meta == nullptr) {
    remove_metas(outbuf, GST_CUDA_PREP_REGION_META_API_TYPE);
    return;
  }
  g_return_if_fail(crop.orientation == cudaprep::Orientation::kIdentity && crop.scale_x == 1.0 &&
                   crop.scale_y == 1.0 && crop.pad_x == 0.0 && crop.pad_y == 0.0);
  GstCudaPrepRegion region = in_meta->region;
  const int dx = static_cast<int>(crop.crop_x), dy = static_cast<int>(crop.crop_y);
  const gint64 left = std::max<gint64>(0, region.rect.x - dx);
  const gint64 top = std::max<gint64>(0, region.rect.y - dy);
  const gint64 right = std::min<gint64>(out_width, gint64{region.rect.x} + region.rect.width - dx);
  const gint64 bottom =
      std::min<gint64>(out_height, gint64{region.rect.y} + region.rect.height - dy);
  // Nothing written inside the view: an empty rectangle, which holds no
  // reader's pixels.
  region.rect =
      right > left && bottom > top
          ? cudaprep::PixelRect{static_cast<int>(left), static_cast<int>(top),
                                static_cast<int>(right - left), static_cast<int>(bottom - top)}
          : cudaprep::PixelRect{0, 0, 0, 0};
  if (region.rows.period > 0) {
    region.rows.first -= dy;
    region.rows.last -= dy;
  }
  remove_metas(outbuf, GST_CUDA_PREP_REGION_META_API_TYPE);
  gst_buffer_add_cuda_prep_region_meta(outbuf, &region);
}

#ifdef CUDAPREP_HAVE_GST_ANALYTICS

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

void move_analytics(GstBuffer *inbuf, GstBuffer *outbuf, const cudaprep::FrameGeometry &step,
                    gint out_width, gint out_height) {
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
  remove_metas(outbuf, GST_ANALYTICS_RELATION_META_API_TYPE);
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

// Built without GStreamer's analytics: no results to move.
void move_analytics(GstBuffer *, GstBuffer *, const cudaprep::FrameGeometry &, gint, gint) {}

#endif

}  // namespace

cudaprep::FrameGeometry gst_cuda_prep_buffer_move_pixel_metas(GstBuffer *inbuf, GstBuffer *outbuf,
                                                              const cudaprep::FrameGeometry &step,
                                                              gint out_width, gint out_height,
                                                              GstCudaPrepPixelMove move) {
  init_debug();
  const cudaprep::FrameGeometry input = move_geometry(inbuf, outbuf, step);
  if (move == GstCudaPrepPixelMove::kPending) return input;
  move_regions_of_interest(inbuf, outbuf, step, out_width, out_height);
  move_analytics(inbuf, outbuf, step, out_width, out_height);
  if (move == GstCudaPrepPixelMove::kView)
    move_region_into_view(inbuf, outbuf, step, out_width, out_height);
  else
    remove_metas(outbuf, GST_CUDA_PREP_REGION_META_API_TYPE);
  return input;
}

cudaprep::FrameGeometry gst_cuda_prep_buffer_get_geometry(GstBuffer *buffer) {
  const GstCudaPrepGeometryMeta *meta = gst_buffer_get_cuda_prep_geometry_meta(buffer);
  return meta != nullptr ? gst_cuda_prep_geometry_to_frame(meta->geometry)
                         : cudaprep::FrameGeometry();
}

gboolean gst_cuda_prep_map_rect(const cudaprep::FrameGeometry &step, double x, double y,
                                double width, double height, gint out_width, gint out_height,
                                cudaprep::PixelRect *mapped) {
  double left = G_MAXDOUBLE, top = G_MAXDOUBLE, right = -G_MAXDOUBLE, bottom = -G_MAXDOUBLE;
  for (const double corner_x : {x, x + width}) {
    for (const double corner_y : {y, y + height}) {
      double out_x, out_y;
      step.to_output(corner_x, corner_y, &out_x, &out_y);
      left = std::min(left, out_x);
      right = std::max(right, out_x);
      top = std::min(top, out_y);
      bottom = std::max(bottom, out_y);
    }
  }
  // Whole output pixels that the image touches (exact for crops and turns).
  const double eps = 1e-9;
  const double l = std::max(0.0, std::floor(left + eps));
  const double t = std::max(0.0, std::floor(top + eps));
  const double r = std::min(static_cast<double>(out_width), std::ceil(right - eps));
  const double b = std::min(static_cast<double>(out_height), std::ceil(bottom - eps));
  if (r <= l || b <= t) return FALSE;
  *mapped = cudaprep::PixelRect{static_cast<int>(l), static_cast<int>(t), static_cast<int>(r - l),
                                static_cast<int>(b - t)};
  return TRUE;
}

#ifdef CUDAPREP_HAVE_GST_ANALYTICS

gboolean gst_cuda_prep_meta_marks_objects(const GstMeta *meta) {
  return meta->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE ||
         meta->info->api == GST_ANALYTICS_RELATION_META_API_TYPE;
}

gboolean gst_cuda_prep_has_analytics(void) {
  return TRUE;
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

#else

gboolean gst_cuda_prep_meta_marks_objects(const GstMeta *meta) {
  return meta->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE;
}

gboolean gst_cuda_prep_has_analytics(void) {
  return FALSE;
}

std::vector<GstCudaPrepDetection> gst_cuda_prep_buffer_detections(GstBuffer *buffer, GQuark type,
                                                                  double min_confidence) {
  (void)buffer;
  (void)type;
  (void)min_confidence;
  return {};
}

#endif
