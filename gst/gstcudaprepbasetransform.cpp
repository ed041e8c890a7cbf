#include "gstcudaprepbasetransform.h"

#include <gst/video/video.h>

#include "gstcudaprepcontext.h"
#include "gstcudaprepformat.h"
#include "gstcudaprepmemory.h"
#include "gstcudaprepmeta.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_base_transform_debug

enum {
  PROP_0,
  PROP_DEVICE_ID,
  PROP_STREAM_PRIORITY,
  PROP_CUDA_STREAM,
};

#define DEFAULT_DEVICE_ID -1
#define DEFAULT_STREAM_PRIORITY 0
// Wider than any GPU's range (today [-5, 0]); the value is clamped to it.
#define MIN_STREAM_PRIORITY -100
#define MAX_STREAM_PRIORITY 100

struct GstCudaPrepBaseTransformPrivate {
  // Properties (object lock).
  gint requested_device_id;
  gint stream_priority;
  cudaStream_t external_stream;

  // Device reached through a GstContext; -1 until known.
  gint context_device_id;

  // Valid between start and stop.
  gint device_id;
  cudaStream_t own_stream;
  cudaStream_t stream;
};

G_DEFINE_TYPE_WITH_PRIVATE(GstCudaPrepBaseTransform, gst_cuda_prep_base_transform,
                           GST_TYPE_BASE_TRANSFORM)

static GstCudaPrepBaseTransformPrivate *get_priv(GstCudaPrepBaseTransform *self) {
  return static_cast<GstCudaPrepBaseTransformPrivate *>(
      gst_cuda_prep_base_transform_get_instance_private(self));
}

cudaStream_t gst_cuda_prep_base_transform_get_stream(GstCudaPrepBaseTransform *self) {
  return get_priv(self)->stream;
}

gint gst_cuda_prep_base_transform_get_device_id(GstCudaPrepBaseTransform *self) {
  return get_priv(self)->device_id;
}

GstBuffer *gst_cuda_prep_buffer_in_place_output(GstBuffer *input) {
  return gst_buffer_is_writable(input) ? input : gst_buffer_copy(input);
}

void gst_cuda_prep_buffer_chain_geometry(GstBuffer *inbuf, GstBuffer *outbuf,
                                         const cudaprep::FrameGeometry &step) {
  GstCudaPrepGeometryMeta *in_meta = gst_buffer_get_cuda_prep_geometry_meta(inbuf);
  const cudaprep::FrameGeometry geometry = in_meta != nullptr ? in_meta->geometry.then(step) : step;
  GstCudaPrepGeometryMeta *out_meta = gst_buffer_get_cuda_prep_geometry_meta(outbuf);
  if (out_meta != nullptr)
    out_meta->geometry = geometry;
  else
    gst_buffer_add_cuda_prep_geometry_meta(outbuf, &geometry);
}

static void gst_cuda_prep_base_transform_set_property(GObject *object, guint prop_id,
                                                      const GValue *value, GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(object);
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      priv->requested_device_id = g_value_get_int(value);
      break;
    case PROP_STREAM_PRIORITY:
      priv->stream_priority = g_value_get_int(value);
      break;
    case PROP_CUDA_STREAM:
      priv->external_stream = static_cast<cudaStream_t>(g_value_get_pointer(value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_prep_base_transform_get_property(GObject *object, guint prop_id, GValue *value,
                                                      GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(object);
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      g_value_set_int(value, priv->device_id >= 0 ? priv->device_id : priv->requested_device_id);
      break;
    case PROP_STREAM_PRIORITY:
      g_value_set_int(value, priv->stream_priority);
      break;
    case PROP_CUDA_STREAM:
      g_value_set_pointer(value, priv->stream != nullptr ? priv->stream : priv->external_stream);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_prep_base_transform_set_context(GstElement *element, GstContext *context) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(element);
  gint device_id;
  if (gst_cuda_prep_context_get_device(context, &device_id) && device_id >= 0) {
    gint unknown = -1;
    // The first context wins; a running element keeps its device.
    g_atomic_int_compare_and_exchange(&get_priv(self)->context_device_id, unknown, device_id);
  }
  GST_ELEMENT_CLASS(gst_cuda_prep_base_transform_parent_class)->set_context(element, context);
}

static gboolean choose_device(GstCudaPrepBaseTransform *self, gint requested_device_id) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  gint device_count = 0;
  cudaError_t err = cudaGetDeviceCount(&device_count);
  if (err != cudaSuccess || device_count == 0) {
    cudaGetLastError();
    GST_ELEMENT_ERROR(
        self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device (no GPU, or no NVIDIA driver loaded): %s",
         err != cudaSuccess ? cudaGetErrorString(err) : "no GPU found"),
        ("cudaGetDeviceCount returned %s and %d devices", cudaGetErrorName(err), device_count));
    return FALSE;
  }
  gint device_id = requested_device_id;
  if (device_id < 0)
    device_id = gst_cuda_prep_context_find_device(GST_ELEMENT(self), &priv->context_device_id);
  if (device_id >= device_count) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                      ("CUDA device %d does not exist: this machine has %d device(s); set "
                       "device-id between 0 and %d",
                       device_id, device_count, device_count - 1),
                      (nullptr));
    return FALSE;
  }
  if (!CUDAPREP_CHECK(self, cudaSetDevice(device_id))) return FALSE;
  priv->device_id = device_id;
  g_atomic_int_set(&priv->context_device_id, device_id);
  return TRUE;
}

static gboolean create_stream(GstCudaPrepBaseTransform *self, cudaStream_t external_stream,
                              gint requested_priority) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  if (external_stream != nullptr) {
    int stream_device = -1;
    if (!CUDAPREP_CHECK(self, cudaStreamGetDevice(external_stream, &stream_device))) return FALSE;
    if (stream_device != priv->device_id) {
      GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                        ("The cuda-stream given belongs to CUDA device %d but the element runs "
                         "on device %d; set device-id to %d",
                         stream_device, priv->device_id, stream_device),
                        (nullptr));
      return FALSE;
    }
    GST_INFO_OBJECT(self, "running on the application's stream %p", external_stream);
    priv->stream = external_stream;
    return TRUE;
  }
  int least_priority = 0, greatest_priority = 0;
  if (!CUDAPREP_CHECK(self, cudaDeviceGetStreamPriorityRange(&least_priority, &greatest_priority)))
    return FALSE;
  // Lower numbers are higher priorities: greatest_priority <= least_priority.
  const gint priority = CLAMP(requested_priority, greatest_priority, least_priority);
  if (priority != requested_priority)
    GST_WARNING_OBJECT(self, "stream-priority %d clamped to %d (device range [%d, %d])",
                       requested_priority, priority, greatest_priority, least_priority);
  if (!CUDAPREP_CHECK(
          self, cudaStreamCreateWithPriority(&priv->own_stream, cudaStreamNonBlocking, priority)))
    return FALSE;
  priv->stream = priv->own_stream;
  return TRUE;
}

static gboolean gst_cuda_prep_base_transform_start(GstBaseTransform *trans) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  GST_OBJECT_LOCK(self);
  const gint requested_device_id = priv->requested_device_id;
  const gint requested_priority = priv->stream_priority;
  cudaStream_t external_stream = priv->external_stream;
  GST_OBJECT_UNLOCK(self);

  if (!choose_device(self, requested_device_id)) return FALSE;
  if (!create_stream(self, external_stream, requested_priority)) {
    priv->device_id = -1;
    return FALSE;
  }
  GST_DEBUG_OBJECT(self, "started on device %d, stream %p", priv->device_id, priv->stream);
  return TRUE;
}

static gboolean gst_cuda_prep_base_transform_stop(GstBaseTransform *trans) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  gboolean ok = TRUE;
  if (priv->stream != nullptr) {
    cudaSetDevice(priv->device_id);
    // Work still queued may read or write pooled memory about to be freed.
    ok = CUDAPREP_CHECK(self, cudaStreamSynchronize(priv->stream));
  }
  if (priv->own_stream != nullptr) {
    ok = CUDAPREP_CHECK(self, cudaStreamDestroy(priv->own_stream)) && ok;
    priv->own_stream = nullptr;
  }
  priv->stream = nullptr;
  priv->device_id = -1;
  return ok;
}

static gboolean gst_cuda_prep_base_transform_query(GstBaseTransform *trans,
                                                   GstPadDirection direction, GstQuery *query) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      gst_cuda_prep_context_answer_query(query,
                                         g_atomic_int_get(&get_priv(self)->context_device_id)))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
      ->query(trans, direction, query);
}

// Offers upstream a pool of device frames on this element's device.
static gboolean gst_cuda_prep_base_transform_propose_allocation(GstBaseTransform *trans,
                                                                GstQuery *decide_query,
                                                                GstQuery *query) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  if (gst_base_transform_is_passthrough(trans) || decide_query == nullptr) {
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
        ->propose_allocation(trans, decide_query, query);
  }
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  GstVideoInfo info;
  if (!gst_cuda_prep_caps_are_device(caps) || !gst_video_info_from_caps(&info, caps) ||
      gst_query_get_n_allocation_pools(query) > 0)
    return TRUE;

  GstBufferPool *pool = gst_cuda_prep_buffer_pool_new(get_priv(self)->device_id);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), 0, 0);
  if (!gst_buffer_pool_set_config(pool, config)) {
    GST_WARNING_OBJECT(self, "could not configure a pool for %" GST_PTR_FORMAT, caps);
    gst_object_unref(pool);
    return FALSE;
  }
  config = gst_buffer_pool_get_config(pool);
  guint size = 0;
  gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
  gst_structure_free(config);
  gst_query_add_allocation_pool(query, pool, size, 0, 0);
  gst_object_unref(pool);
  return TRUE;
}

// Uses downstream's pool when it is a pool of device frames on our device,
// otherwise one of our own; system-memory output goes the default way.
static gboolean gst_cuda_prep_base_transform_decide_allocation(GstBaseTransform *trans,
                                                               GstQuery *query) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) {
    GST_ERROR_OBJECT(self, "output caps are not video caps: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  if (!gst_cuda_prep_caps_are_device(caps)) {
    if (gst_query_get_n_allocation_pools(query) == 0) {
      GstBufferPool *pool = gst_video_buffer_pool_new();
      gst_query_add_allocation_pool(query, pool, GST_VIDEO_INFO_SIZE(&info), 0, 0);
      gst_object_unref(pool);
    }
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
        ->decide_allocation(trans, query);
  }
  const gint device_id = get_priv(self)->device_id;
  GstBufferPool *pool = nullptr;
  guint size = 0, min_buffers = 0, max_buffers = 0;
  const gboolean have_pool = gst_query_get_n_allocation_pools(query) > 0;
  if (have_pool) {
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min_buffers, &max_buffers);
    if (pool != nullptr && (!GST_IS_CUDA_PREP_BUFFER_POOL(pool) ||
                            gst_cuda_prep_buffer_pool_get_device_id(pool) != device_id))
      gst_clear_object(&pool);
  }
  if (pool == nullptr) pool = gst_cuda_prep_buffer_pool_new(device_id);

  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), min_buffers,
                                    max_buffers);
  if (!gst_buffer_pool_set_config(pool, config)) {
    GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                      ("Could not configure a pool of device frames for %" GST_PTR_FORMAT, caps),
                      (nullptr));
    gst_object_unref(pool);
    return FALSE;
  }
  config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
  gst_structure_free(config);
  if (have_pool)
    gst_query_set_nth_allocation_pool(query, 0, pool, size, min_buffers, max_buffers);
  else
    gst_query_add_allocation_pool(query, pool, size, min_buffers, max_buffers);
  gst_object_unref(pool);
  return TRUE;
}

static gboolean for_each_device_memory(GstCudaPrepBaseTransform *self, GstBuffer *buffer,
                                       cudaError_t (*step)(GstMemory *, cudaStream_t),
                                       const gchar *step_name) {
  cudaStream_t stream = get_priv(self)->stream;
  const guint n_memory = gst_buffer_n_memory(buffer);
  for (guint i = 0; i < n_memory; ++i) {
    GstMemory *memory = gst_buffer_peek_memory(buffer, i);
    if (!gst_is_cuda_prep_memory(memory)) continue;
    if (!gst_cuda_prep_check(GST_ELEMENT(self), step(memory, stream), step_name, __FILE__,
                             GST_FUNCTION, __LINE__))
      return FALSE;
  }
  return TRUE;
}

gboolean gst_cuda_prep_base_transform_begin_read(GstCudaPrepBaseTransform *self,
                                                 GstBuffer *buffer) {
  return for_each_device_memory(self, buffer, gst_cuda_prep_memory_begin_read, "begin_read");
}

gboolean gst_cuda_prep_base_transform_end_read(GstCudaPrepBaseTransform *self, GstBuffer *buffer) {
  return for_each_device_memory(self, buffer, gst_cuda_prep_memory_end_read, "end_read");
}

gboolean gst_cuda_prep_base_transform_begin_write(GstCudaPrepBaseTransform *self,
                                                  GstBuffer *buffer) {
  return for_each_device_memory(self, buffer, gst_cuda_prep_memory_begin_write, "begin_write");
}

gboolean gst_cuda_prep_base_transform_end_write(GstCudaPrepBaseTransform *self, GstBuffer *buffer) {
  return for_each_device_memory(self, buffer, gst_cuda_prep_memory_end_write, "end_write");
}

static GstFlowReturn gst_cuda_prep_base_transform_transform(GstBaseTransform *trans,
                                                            GstBuffer *inbuf, GstBuffer *outbuf) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  if (!CUDAPREP_CHECK(self, cudaSetDevice(get_priv(self)->device_id))) return GST_FLOW_ERROR;
  if (!gst_cuda_prep_base_transform_begin_read(self, inbuf) ||
      !gst_cuda_prep_base_transform_begin_write(self, outbuf))
    return GST_FLOW_ERROR;
  const GstFlowReturn result = klass->process(self, inbuf, outbuf);
  if (result != GST_FLOW_OK) return result;
  if (!gst_cuda_prep_base_transform_end_write(self, outbuf) ||
      !gst_cuda_prep_base_transform_end_read(self, inbuf))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

// The geometry meta follows every frame; elements that move pixels replace
// it with gst_cuda_prep_buffer_chain_geometry().
static gboolean gst_cuda_prep_base_transform_transform_meta(GstBaseTransform *trans,
                                                            GstBuffer *outbuf, GstMeta *meta,
                                                            GstBuffer *inbuf) {
  if (meta->info->api == GST_CUDA_PREP_GEOMETRY_META_API_TYPE) return TRUE;
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
      ->transform_meta(trans, outbuf, meta, inbuf);
}

static void gst_cuda_prep_base_transform_class_init(GstCudaPrepBaseTransformClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_cuda_prep_base_transform_set_property;
  gobject_class->get_property = gst_cuda_prep_base_transform_get_property;

  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_READY);
  g_object_class_install_property(
      gobject_class, PROP_DEVICE_ID,
      g_param_spec_int("device-id", "Device ID",
                       "CUDA device to run on; -1 takes the device the rest of the pipeline "
                       "agreed on (GstContext), or device 0",
                       -1, 1023, DEFAULT_DEVICE_ID, flags));
  g_object_class_install_property(
      gobject_class, PROP_STREAM_PRIORITY,
      g_param_spec_int("stream-priority", "Stream priority",
                       "Priority of the element's own CUDA stream; lower numbers run first, "
                       "clamped to the device's range (cudaDeviceGetStreamPriorityRange, e.g. "
                       "[-5, 0]); unused when cuda-stream is set",
                       MIN_STREAM_PRIORITY, MAX_STREAM_PRIORITY, DEFAULT_STREAM_PRIORITY, flags));
  g_object_class_install_property(
      gobject_class, PROP_CUDA_STREAM,
      g_param_spec_pointer("cuda-stream", "CUDA stream",
                           "An application's cudaStream_t (e.g. from PyTorch or "
                           "cudaStreamCreateWithPriority) to run on instead of the element's "
                           "own; the element never destroys it. NULL (default): the element "
                           "creates its own. Reading it while running gives the stream in use",
                           flags));

  element_class->set_context = gst_cuda_prep_base_transform_set_context;

  trans_class->start = gst_cuda_prep_base_transform_start;
  trans_class->stop = gst_cuda_prep_base_transform_stop;
  trans_class->query = gst_cuda_prep_base_transform_query;
  trans_class->propose_allocation = gst_cuda_prep_base_transform_propose_allocation;
  trans_class->decide_allocation = gst_cuda_prep_base_transform_decide_allocation;
  trans_class->transform = gst_cuda_prep_base_transform_transform;
  trans_class->transform_meta = gst_cuda_prep_base_transform_transform_meta;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_base_transform_debug, "cudaprepbasetransform", 0,
                          "cudaprep CUDA element base class");
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_BASE_TRANSFORM, static_cast<GstPluginAPIFlags>(0));
}

static void gst_cuda_prep_base_transform_init(GstCudaPrepBaseTransform *self) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  priv->requested_device_id = DEFAULT_DEVICE_ID;
  priv->stream_priority = DEFAULT_STREAM_PRIORITY;
  priv->context_device_id = -1;
  priv->device_id = -1;
}
