#include "gstcudapreppool.h"

#include <gst/video/video.h>

#include "gstcudaprepformat-private.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_pool_debug

struct _GstCudaPrepBufferPool {
  GstBufferPool parent;
  gint device_id;
  GstAllocator *allocator;
  GstVideoInfo device_info;
};

G_DEFINE_TYPE(GstCudaPrepBufferPool, gst_cuda_prep_buffer_pool, GST_TYPE_BUFFER_POOL)

static const gchar **gst_cuda_prep_buffer_pool_get_options(GstBufferPool *pool) {
  (void)pool;
  static const gchar *options[] = {GST_BUFFER_POOL_OPTION_VIDEO_META, nullptr};
  return options;
}

static gboolean gst_cuda_prep_buffer_pool_set_config(GstBufferPool *pool, GstStructure *config) {
  GstCudaPrepBufferPool *self = GST_CUDA_PREP_BUFFER_POOL(pool);
  GstCaps *caps = nullptr;
  guint size, min_buffers, max_buffers;
  if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min_buffers, &max_buffers) ||
      caps == nullptr) {
    GST_WARNING_OBJECT(pool, "pool configuration without caps");
    return FALSE;
  }
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) {
    GST_WARNING_OBJECT(pool, "caps are not video caps: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  if (!gst_cuda_prep_device_video_info(&info, &self->device_info)) {
    GST_WARNING_OBJECT(pool, "no pitched device layout for %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&self->device_info),
                                    min_buffers, max_buffers);
  gst_buffer_pool_config_set_allocator(config, self->allocator, nullptr);
  return GST_BUFFER_POOL_CLASS(gst_cuda_prep_buffer_pool_parent_class)->set_config(pool, config);
}

static GstFlowReturn gst_cuda_prep_buffer_pool_alloc_buffer(GstBufferPool *pool, GstBuffer **buffer,
                                                            GstBufferPoolAcquireParams *params) {
  (void)params;
  GstCudaPrepBufferPool *self = GST_CUDA_PREP_BUFFER_POOL(pool);
  const GstVideoInfo *info = &self->device_info;
  GstMemory *memory = gst_allocator_alloc(self->allocator, GST_VIDEO_INFO_SIZE(info), nullptr);
  if (memory == nullptr) {
    GST_ERROR_OBJECT(pool, "could not allocate %" G_GSIZE_FORMAT " bytes on CUDA device %d",
                     GST_VIDEO_INFO_SIZE(info), self->device_id);
    return GST_FLOW_ERROR;
  }
  *buffer = gst_buffer_new();
  gst_buffer_append_memory(*buffer, memory);
  gsize offsets[GST_VIDEO_MAX_PLANES];
  gint strides[GST_VIDEO_MAX_PLANES];
  for (int plane = 0; plane < GST_VIDEO_MAX_PLANES; ++plane) {
    offsets[plane] = info->offset[plane];
    strides[plane] = info->stride[plane];
  }
  GstVideoMeta *meta = gst_buffer_add_video_meta_full(
      *buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(info), GST_VIDEO_INFO_WIDTH(info),
      GST_VIDEO_INFO_HEIGHT(info), GST_VIDEO_INFO_N_PLANES(info), offsets, strides);
  // Pooled: the layout is the memory's, it survives the pool's reset.
  meta->meta.flags = static_cast<GstMetaFlags>(meta->meta.flags | GST_META_FLAG_POOLED);
  return GST_FLOW_OK;
}

// An element may have moved the frame's GstVideoMeta (cudacrop's views):
// give every frame back its own layout.
static void gst_cuda_prep_buffer_pool_reset_buffer(GstBufferPool *pool, GstBuffer *buffer) {
  GST_BUFFER_POOL_CLASS(gst_cuda_prep_buffer_pool_parent_class)->reset_buffer(pool, buffer);
  const GstVideoInfo *info = &GST_CUDA_PREP_BUFFER_POOL(pool)->device_info;
  GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  if (meta == nullptr) return;
  meta->width = GST_VIDEO_INFO_WIDTH(info);
  meta->height = GST_VIDEO_INFO_HEIGHT(info);
  for (guint plane = 0; plane < meta->n_planes; ++plane) {
    meta->offset[plane] = GST_VIDEO_INFO_PLANE_OFFSET(info, plane);
    meta->stride[plane] = GST_VIDEO_INFO_PLANE_STRIDE(info, plane);
  }
}

static void gst_cuda_prep_buffer_pool_finalize(GObject *object) {
  GstCudaPrepBufferPool *self = GST_CUDA_PREP_BUFFER_POOL(object);
  gst_clear_object(&self->allocator);
  G_OBJECT_CLASS(gst_cuda_prep_buffer_pool_parent_class)->finalize(object);
}

static void gst_cuda_prep_buffer_pool_class_init(GstCudaPrepBufferPoolClass *klass) {
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS(klass);
  G_OBJECT_CLASS(klass)->finalize = gst_cuda_prep_buffer_pool_finalize;
  pool_class->get_options = gst_cuda_prep_buffer_pool_get_options;
  pool_class->set_config = gst_cuda_prep_buffer_pool_set_config;
  pool_class->alloc_buffer = gst_cuda_prep_buffer_pool_alloc_buffer;
  pool_class->reset_buffer = gst_cuda_prep_buffer_pool_reset_buffer;
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_pool_debug, "cudapreppool", 0, "cudaprep buffer pools");
}

static void gst_cuda_prep_buffer_pool_init(GstCudaPrepBufferPool *self) {
  (void)self;
}

GstBufferPool *gst_cuda_prep_buffer_pool_new(gint device_id) {
  auto *self = GST_CUDA_PREP_BUFFER_POOL(g_object_new(GST_TYPE_CUDA_PREP_BUFFER_POOL, nullptr));
  gst_object_ref_sink(self);
  self->device_id = device_id;
  self->allocator = gst_cuda_prep_allocator_get(device_id);
  return GST_BUFFER_POOL(self);
}

gint gst_cuda_prep_buffer_pool_get_device_id(GstBufferPool *pool) {
  return GST_CUDA_PREP_BUFFER_POOL(pool)->device_id;
}

GstBufferPool *gst_cuda_prep_block_pool_new(gint device_id, GstCaps *caps, guint size,
                                            guint min_buffers, guint max_buffers) {
  GstAllocator *allocator = gst_cuda_prep_allocator_get(device_id);
  GstBufferPool *pool = gst_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, size, min_buffers, max_buffers);
  gst_buffer_pool_config_set_allocator(config, allocator, nullptr);
  gst_object_unref(allocator);
  if (!gst_buffer_pool_set_config(pool, config)) gst_clear_object(&pool);
  return pool;
}
