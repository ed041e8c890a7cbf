#include "gstcudaprepview.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepgeometry-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "gstcudaprepanalytics.h"
#include "gstcudaprepregion.h"

gboolean gst_cuda_prep_buffer_device_image(GstBuffer *buffer, const GstVideoInfo *info,
                                           cudaprep::Image *image, const gchar **error) {
  if (gst_buffer_n_memory(buffer) != 1) {
    *error = "a device frame must be one memory";
    return FALSE;
  }
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  if (!gst_is_cuda_prep_memory(memory)) {
    *error = "buffer memory is not CUDA pitched memory";
    return FALSE;
  }
  GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  if (meta == nullptr) {
    *error = "device frame without GstVideoMeta (its pitch is unknown)";
    return FALSE;
  }
  if (!gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(info), &image->format)) {
    *error = "unsupported video format";
    return FALSE;
  }
  if (meta->format != GST_VIDEO_INFO_FORMAT(info) ||
      meta->width < static_cast<guint>(GST_VIDEO_INFO_WIDTH(info)) ||
      meta->height < static_cast<guint>(GST_VIDEO_INFO_HEIGHT(info))) {
    *error = "GstVideoMeta does not match the negotiated caps";
    return FALSE;
  }
  image->width = GST_VIDEO_INFO_WIDTH(info);
  image->height = GST_VIDEO_INFO_HEIGHT(info);
  guint8 *base = gst_cuda_prep_memory_get_device_pointer(memory);
  const int num_planes = cudaprep::format_info(image->format).num_planes;
  for (int plane = 0; plane < num_planes; ++plane) {
    const gsize row_bytes = cudaprep::plane_row_bytes(image->format, plane, image->width);
    const gsize rows = cudaprep::plane_height(image->format, plane, image->height);
    if (meta->stride[plane] <= 0 || static_cast<gsize>(meta->stride[plane]) < row_bytes ||
        meta->offset[plane] + (rows - 1) * meta->stride[plane] + row_bytes > memory->size) {
      *error = "GstVideoMeta plane lies outside the memory";
      return FALSE;
    }
    image->planes[plane].data = base + meta->offset[plane];
    image->planes[plane].pitch_bytes = static_cast<size_t>(meta->stride[plane]);
  }
  return TRUE;
}

gboolean gst_cuda_prep_buffer_source_image(GstBuffer *buffer, cudaprep::Image *image,
                                           const gchar **error) {
  GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  GstVideoInfo info;
  if (meta == nullptr ||
      !gst_video_info_set_format(&info, meta->format, meta->width, meta->height)) {
    *error = "frame without a valid GstVideoMeta";
    return FALSE;
  }
  return gst_cuda_prep_buffer_device_image(buffer, &info, image, error);
}

gboolean gst_cuda_prep_post_frame_error(GstElement *element, const gchar *role,
                                        const gchar *reason) {
  GST_ELEMENT_ERROR(element, STREAM, FAILED, ("%s buffer is not a device frame: %s", role, reason),
                    (nullptr));
  return FALSE;
}

gboolean gst_cuda_prep_element_device_image(GstElement *element, GstBuffer *buffer,
                                            const GstVideoInfo *info, const gchar *role,
                                            cudaprep::Image *image) {
  const gchar *error = nullptr;
  if (gst_cuda_prep_buffer_device_image(buffer, info, image, &error)) return TRUE;
  return gst_cuda_prep_post_frame_error(element, role, error);
}

void gst_cuda_prep_buffer_set_view(GstBuffer *buffer, const cudaprep::Image &view) {
  GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  guint8 *base = gst_cuda_prep_memory_get_device_pointer(gst_buffer_peek_memory(buffer, 0));
  meta->width = view.width;
  meta->height = view.height;
  for (guint plane = 0; plane < meta->n_planes; ++plane)
    meta->offset[plane] = view.planes[plane].data - base;
}

GstBuffer *gst_cuda_prep_buffer_in_place_output(GstBuffer *input) {
  return gst_buffer_is_writable(input) ? input : gst_buffer_copy(input);
}

namespace {

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

void remove_metas(GstBuffer *buffer, GType api) {
  while (GstMeta *meta = gst_buffer_get_meta(buffer, api)) gst_buffer_remove_meta(buffer, meta);
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

}  // namespace

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

cudaprep::FrameGeometry gst_cuda_prep_buffer_get_geometry(GstBuffer *buffer) {
  const GstCudaPrepGeometryMeta *meta = gst_buffer_get_cuda_prep_geometry_meta(buffer);
  return meta != nullptr ? gst_cuda_prep_geometry_to_frame(meta->geometry)
                         : cudaprep::FrameGeometry();
}

void gst_cuda_prep_buffer_set_geometry(GstBuffer *buffer, const cudaprep::FrameGeometry &geometry) {
  const GstCudaPrepGeometry converted = gst_cuda_prep_geometry_from_frame(geometry);
  GstCudaPrepGeometryMeta *meta = gst_buffer_get_cuda_prep_geometry_meta(buffer);
  if (meta != nullptr)
    meta->geometry = converted;
  else
    gst_buffer_add_cuda_prep_geometry_meta(buffer, &converted);
}

void gst_cuda_prep_buffer_move_pixel_metas(GstBuffer *inbuf, GstBuffer *outbuf,
                                           const cudaprep::FrameGeometry &step, gint out_width,
                                           gint out_height, GstCudaPrepPixelMove move) {
  gst_cuda_prep_buffer_set_geometry(outbuf, gst_cuda_prep_buffer_get_geometry(inbuf).then(step));
  if (move == GstCudaPrepPixelMove::kPending) return;
  move_regions_of_interest(inbuf, outbuf, step, out_width, out_height);
  gst_cuda_prep_buffer_move_analytics(inbuf, outbuf, step, out_width, out_height);
  if (move == GstCudaPrepPixelMove::kView)
    move_region_into_view(inbuf, outbuf, step, out_width, out_height);
  else
    remove_metas(outbuf, GST_CUDA_PREP_REGION_META_API_TYPE);
}
