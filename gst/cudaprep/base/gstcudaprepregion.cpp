#include "gstcudaprepregion.h"

namespace {

// The announcement's structure fields.
constexpr const char *kRegionStructure = "region";

gboolean region_meta_init(GstMeta *meta, gpointer, GstBuffer *) {
  reinterpret_cast<GstCudaPrepRegionMeta *>(meta)->region = GstCudaPrepRegion{};
  return TRUE;
}

// A whole copy shares the memory and so the region; nothing else keeps it.
gboolean region_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *, GQuark type,
                               gpointer data) {
  if (!GST_META_TRANSFORM_IS_COPY(type) || static_cast<GstMetaTransformCopy *>(data)->region)
    return FALSE;
  const auto *source = reinterpret_cast<GstCudaPrepRegionMeta *>(meta);
  return gst_buffer_add_cuda_prep_region_meta(dest, &source->region) != nullptr;
}

bool rect_within(const cudaprep::PixelRect &rect, gint width, gint height) {
  return rect.x >= 0 && rect.y >= 0 && rect.width > 0 && rect.height > 0 &&
         static_cast<gint64>(rect.x) + rect.width <= width &&
         static_cast<gint64>(rect.y) + rect.height <= height;
}

bool rows_valid(const GstCudaPrepRegion &region) {
  const cudaprep::RowPattern &rows = region.rows;
  if (rows.period == 0) return true;
  return rows.period >= 2 && rows.period <= cudaprep::kMaxRowPeriod && rows.mask != 0 &&
         (rows.period == 32 || rows.mask < (1u << rows.period)) && rows.first == region.rect.y &&
         rows.last == region.rect.y + region.rect.height - 1;
}

}  // namespace

GType gst_cuda_prep_region_meta_api_get_type(void) {
  static GType type = 0;
  // Describes the memory's contents: dropped wherever new memory is made.
  static const gchar *tags[] = {GST_META_TAG_MEMORY_STR, nullptr};
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, gst_meta_api_type_register("GstCudaPrepRegionMetaAPI", tags));
  return type;
}

const GstMetaInfo *gst_cuda_prep_region_meta_get_info(void) {
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter(&info)) {
    const GstMetaInfo *registered = gst_meta_register(
        GST_CUDA_PREP_REGION_META_API_TYPE, "GstCudaPrepRegionMeta", sizeof(GstCudaPrepRegionMeta),
        region_meta_init, nullptr, region_meta_transform);
    g_once_init_leave(&info, registered);
  }
  return info;
}

GstCudaPrepRegionMeta *gst_buffer_add_cuda_prep_region_meta(GstBuffer *buffer,
                                                            const GstCudaPrepRegion *region) {
  auto *meta = reinterpret_cast<GstCudaPrepRegionMeta *>(
      gst_buffer_add_meta(buffer, gst_cuda_prep_region_meta_get_info(), nullptr));
  if (meta != nullptr) meta->region = *region;
  return meta;
}

GstCudaPrepRegionMeta *gst_buffer_get_cuda_prep_region_meta(GstBuffer *buffer) {
  return reinterpret_cast<GstCudaPrepRegionMeta *>(
      gst_buffer_get_meta(buffer, GST_CUDA_PREP_REGION_META_API_TYPE));
}

void gst_cuda_prep_query_add_region(GstQuery *query, const GstCudaPrepRegion *region) {
  const cudaprep::PixelRect &rect = region->rect;
  GstStructure *structure =
      gst_structure_new(kRegionStructure, "x", G_TYPE_INT, rect.x, "y", G_TYPE_INT, rect.y, "width",
                        G_TYPE_INT, rect.width, "height", G_TYPE_INT, rect.height, nullptr);
  if (region->rows.period > 0)
    gst_structure_set(structure, "row-period", G_TYPE_INT, region->rows.period, "row-mask",
                      G_TYPE_UINT, region->rows.mask, nullptr);
  if (region->of_result) gst_structure_set(structure, "of-result", G_TYPE_BOOLEAN, TRUE, nullptr);
  gst_query_add_allocation_meta(query, GST_CUDA_PREP_REGION_META_API_TYPE, structure);
  gst_structure_free(structure);
}

gboolean gst_cuda_prep_query_find_region(GstQuery *query, gint width, gint height,
                                         GstCudaPrepRegion *region) {
  guint index = 0;
  const GstStructure *structure = nullptr;
  if (!gst_query_find_allocation_meta(query, GST_CUDA_PREP_REGION_META_API_TYPE, &index))
    return FALSE;
  gst_query_parse_nth_allocation_meta(query, index, &structure);
  GstCudaPrepRegion found;
  cudaprep::PixelRect &rect = found.rect;
  if (structure == nullptr || !gst_structure_get_int(structure, "x", &rect.x) ||
      !gst_structure_get_int(structure, "y", &rect.y) ||
      !gst_structure_get_int(structure, "width", &rect.width) ||
      !gst_structure_get_int(structure, "height", &rect.height) ||
      !rect_within(rect, width, height))
    return FALSE;
  if (gst_structure_has_field(structure, "row-period")) {
    if (!gst_structure_get_int(structure, "row-period", &found.rows.period) ||
        !gst_structure_get_uint(structure, "row-mask", &found.rows.mask))
      return FALSE;
    found.rows.first = rect.y;
    found.rows.last = rect.y + rect.height - 1;
  }
  if (!rows_valid(found)) return FALSE;
  if (gst_structure_has_field(structure, "of-result") &&
      !gst_structure_get_boolean(structure, "of-result", &found.of_result))
    return FALSE;
  *region = found;
  return TRUE;
}

gboolean gst_cuda_prep_buffer_holds_rect(GstBuffer *buffer, const cudaprep::PixelRect &rect) {
  const GstCudaPrepRegionMeta *meta = gst_buffer_get_cuda_prep_region_meta(buffer);
  if (meta == nullptr) return TRUE;
  const cudaprep::PixelRect &written = meta->region.rect;
  if (meta->region.rows.period > 0) return FALSE;
  return rect.x >= written.x && rect.y >= written.y &&
         static_cast<gint64>(rect.x) + rect.width <=
             static_cast<gint64>(written.x) + written.width &&
         static_cast<gint64>(rect.y) + rect.height <=
             static_cast<gint64>(written.y) + written.height;
}

gboolean gst_cuda_prep_buffer_holds_rows(GstBuffer *buffer, const cudaprep::RowPattern &rows) {
  const GstCudaPrepRegionMeta *meta = gst_buffer_get_cuda_prep_region_meta(buffer);
  if (meta == nullptr || meta->region.rows.period == 0) return TRUE;
  return meta->region.rows == rows;
}
