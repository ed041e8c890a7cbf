#include "gstcudaprepcore.h"

#include <gst/video/video.h>

#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudapreppool.h>
#include "gstcudaprepcontext.h"
#include "cudaprep/kernel_runtime.h"
#include "gstcudaprepnvcodec.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_core_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_core_debug

namespace {

enum CoreProperty {
  PROP_DEVICE_ID,
  PROP_CUDA_DEVICE_ID,
  PROP_STREAM_PRIORITY,
  PROP_CUDA_STREAM,
  PROP_KERNEL_CACHE_DIR,
  N_PROPERTIES,
};

constexpr gint kDefaultDeviceId = -1;
constexpr gint kDefaultStreamPriority = 0;
// Wider than any GPU's range (today [-5, 0]); the value is clamped to it.
constexpr gint kMinStreamPriority = -100;
constexpr gint kMaxStreamPriority = 100;

}  // namespace

struct _GstCudaPrepCore {
  GstElement *element;  // not owned: the core lives inside it
  guint first_prop_id;

  // Properties (element's object lock).
  gint requested_device_id = kDefaultDeviceId;
  gint stream_priority = kDefaultStreamPriority;
  cudaStream_t external_stream = nullptr;

  // Device reached through a GstContext; -1 until known (atomic).
  gint context_device_id = -1;
  // The application set a gst.cuda.context of its own: never announce ours
  // over it (atomic).
  gint application_cuda_context = FALSE;

  // Valid between start and stop.
  gint device_id = -1;
  cudaStream_t own_stream = nullptr;
  cudaStream_t stream = nullptr;
};

guint gst_cuda_prep_core_install_properties(GObjectClass *klass, guint first_prop_id) {
  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_READY);
  const gchar *device_blurb =
      "CUDA device to run on; -1 takes the device the rest of the pipeline agreed on "
      "(GstContext), or device 0. A device this machine does not have is an error at start";
  g_object_class_install_property(klass, first_prop_id + PROP_DEVICE_ID,
                                  g_param_spec_int("device-id", "Device ID", device_blurb, -1,
                                                   G_MAXINT, kDefaultDeviceId, flags));
  g_object_class_install_property(
      klass, first_prop_id + PROP_CUDA_DEVICE_ID,
      g_param_spec_int("cuda-device-id", "CUDA device ID",
                       "The same as device-id, under the name GStreamer's nvcodec elements use", -1,
                       G_MAXINT, kDefaultDeviceId, flags));
  g_object_class_install_property(
      klass, first_prop_id + PROP_STREAM_PRIORITY,
      g_param_spec_int("stream-priority", "Stream priority",
                       "Priority of the element's own CUDA stream; lower numbers run first, "
                       "clamped to the device's range (cudaDeviceGetStreamPriorityRange, e.g. "
                       "[-5, 0]); unused when cuda-stream is set",
                       kMinStreamPriority, kMaxStreamPriority, kDefaultStreamPriority, flags));
  g_object_class_install_property(
      klass, first_prop_id + PROP_CUDA_STREAM,
      g_param_spec_pointer(
          "cuda-stream", "CUDA stream",
          "An application's cudaStream_t (e.g. from PyTorch or cudaStreamCreateWithPriority) to "
          "run on instead of the element's own. It must belong to the element's device (checked "
          "at start) and stay alive until the element is back in NULL; the element never "
          "destroys it. NULL (default): the element creates its own stream, which is not "
          "exposed",
          flags));
  g_object_class_install_property(
      klass, first_prop_id + PROP_KERNEL_CACHE_DIR,
      g_param_spec_string(
          "kernel-cache-dir", "Kernel cache directory",
          "Where the kernels compiled at run time for this GPU are kept between runs "
          "(docs/kernels.md), for the whole process: every cudaprep element reads and sets the "
          "same. \"\" keeps none. Until set: $CUDAPREP_KERNEL_CACHE_DIR, else "
          "$XDG_CACHE_HOME/cudaprep/kernels, else ~/.cache/cudaprep/kernels",
          nullptr, static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
  return first_prop_id + N_PROPERTIES;
}

GstCudaPrepCore *gst_cuda_prep_core_new(GstElement *element, guint first_prop_id) {
  static gsize debug_initialized = 0;
  if (g_once_init_enter(&debug_initialized)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_core_debug, "cudaprepcore", 0,
                            "cudaprep device, stream and pools of an element");
    g_once_init_leave(&debug_initialized, 1);
  }
  auto *core = new GstCudaPrepCore();
  core->element = element;
  core->first_prop_id = first_prop_id;
  return core;
}

void gst_cuda_prep_core_free(GstCudaPrepCore *core) {
  delete core;
}

gboolean gst_cuda_prep_core_set_property(GstCudaPrepCore *core, guint prop_id,
                                         const GValue *value) {
  if (prop_id < core->first_prop_id || prop_id >= core->first_prop_id + N_PROPERTIES) return FALSE;
  if (prop_id - core->first_prop_id == PROP_KERNEL_CACHE_DIR) {
    const gchar *directory = g_value_get_string(value);
    cudaprep::set_kernel_cache_directory(directory != nullptr ? directory : "");
    return TRUE;
  }
  GST_OBJECT_LOCK(core->element);
  switch (prop_id - core->first_prop_id) {
    case PROP_DEVICE_ID:
    case PROP_CUDA_DEVICE_ID:
      core->requested_device_id = g_value_get_int(value);
      break;
    case PROP_STREAM_PRIORITY:
      core->stream_priority = g_value_get_int(value);
      break;
    case PROP_CUDA_STREAM:
      core->external_stream = static_cast<cudaStream_t>(g_value_get_pointer(value));
      break;
  }
  GST_OBJECT_UNLOCK(core->element);
  return TRUE;
}

gboolean gst_cuda_prep_core_get_property(GstCudaPrepCore *core, guint prop_id, GValue *value) {
  if (prop_id < core->first_prop_id || prop_id >= core->first_prop_id + N_PROPERTIES) return FALSE;
  if (prop_id - core->first_prop_id == PROP_KERNEL_CACHE_DIR) {
    g_value_set_string(value, cudaprep::kernel_cache_directory().c_str());
    return TRUE;
  }
  GST_OBJECT_LOCK(core->element);
  switch (prop_id - core->first_prop_id) {
    case PROP_DEVICE_ID:
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int(value, core->device_id >= 0 ? core->device_id : core->requested_device_id);
      break;
    case PROP_STREAM_PRIORITY:
      g_value_set_int(value, core->stream_priority);
      break;
    case PROP_CUDA_STREAM:
      g_value_set_pointer(value, core->external_stream);
      break;
  }
  GST_OBJECT_UNLOCK(core->element);
  return TRUE;
}

void gst_cuda_prep_core_set_context(GstCudaPrepCore *core, GstContext *context) {
  if (gst_cuda_prep_context_is_nvcodec(context))
    g_atomic_int_set(&core->application_cuda_context, TRUE);
  gint device_id;
  if (gst_cuda_prep_context_get_device(context, &device_id) && device_id >= 0) {
    gint unknown = -1;
    // The first context wins; a running element keeps its device.
    g_atomic_int_compare_and_exchange(&core->context_device_id, unknown, device_id);
  }
}

// The device a query is answered with before start: device-id, else the one
// a context named, else device 0, which the element then keeps.
static gint answer_device(GstCudaPrepCore *core) {
  GST_OBJECT_LOCK(core->element);
  const gint requested_device_id = core->requested_device_id;
  GST_OBJECT_UNLOCK(core->element);
  if (requested_device_id >= 0) return requested_device_id;
  gint unknown = -1;
  g_atomic_int_compare_and_exchange(&core->context_device_id, unknown, 0);
  return g_atomic_int_get(&core->context_device_id);
}

gboolean gst_cuda_prep_core_answer_query(GstCudaPrepCore *core, GstQuery *query) {
  const gchar *context_type = nullptr;
  if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT ||
      !gst_query_parse_context_type(query, &context_type))
    return FALSE;
  // nvcodec's elements ask (usually while opening, before we start).
  if (g_strcmp0(context_type, GST_CUDA_PREP_NVCODEC_CONTEXT_TYPE) == 0)
    return gst_cuda_prep_nvcodec_answer_query(
        core->element, query, core->device_id >= 0 ? core->device_id : answer_device(core));
  return gst_cuda_prep_context_answer_query(query, g_atomic_int_get(&core->context_device_id));
}

static gboolean choose_device(GstCudaPrepCore *core, gint requested_device_id) {
  gint device_count = 0;
  cudaError_t err = cudaGetDeviceCount(&device_count);
  if (err != cudaSuccess || device_count == 0) {
    cudaGetLastError();
    GST_ELEMENT_ERROR(
        core->element, RESOURCE, NOT_FOUND,
        ("No usable CUDA device (no GPU, or no NVIDIA driver loaded): %s",
         err != cudaSuccess ? cudaGetErrorString(err) : "no GPU found"),
        ("cudaGetDeviceCount returned %s and %d devices", cudaGetErrorName(err), device_count));
    return FALSE;
  }
  gint device_id = requested_device_id;
  if (device_id < 0)
    device_id = gst_cuda_prep_context_find_device(core->element, &core->context_device_id);
  if (device_id >= device_count) {
    GST_ELEMENT_ERROR(core->element, RESOURCE, NOT_FOUND,
                      ("device-id=%d: CUDA device %d does not exist, this machine has %d "
                       "device(s); set device-id between 0 and %d",
                       device_id, device_id, device_count, device_count - 1),
                      (nullptr));
    return FALSE;
  }
  if (!CUDAPREP_CHECK(core->element, cudaSetDevice(device_id))) return FALSE;
  core->device_id = device_id;
  g_atomic_int_set(&core->context_device_id, device_id);
  return TRUE;
}

static gboolean set_up_stream(GstCudaPrepCore *core, cudaStream_t external_stream,
                              gint requested_priority) {
  if (external_stream != nullptr) {
    int stream_device = -1;
    if (!CUDAPREP_CHECK(core->element, cudaStreamGetDevice(external_stream, &stream_device)))
      return FALSE;
    if (stream_device != core->device_id) {
      GST_ELEMENT_ERROR(core->element, RESOURCE, SETTINGS,
                        ("The cuda-stream given belongs to CUDA device %d but the element runs "
                         "on device %d; set device-id to %d",
                         stream_device, core->device_id, stream_device),
                        (nullptr));
      return FALSE;
    }
    GST_INFO_OBJECT(core->element, "running on the application's stream %p", external_stream);
    core->stream = external_stream;
    return TRUE;
  }
  int least_priority = 0, greatest_priority = 0;
  if (!CUDAPREP_CHECK(core->element,
                      cudaDeviceGetStreamPriorityRange(&least_priority, &greatest_priority)))
    return FALSE;
  // Lower numbers are higher priorities: greatest_priority <= least_priority.
  const gint priority = CLAMP(requested_priority, greatest_priority, least_priority);
  if (priority != requested_priority)
    GST_WARNING_OBJECT(core->element, "stream-priority %d clamped to %d (device range [%d, %d])",
                       requested_priority, priority, greatest_priority, least_priority);
  if (!CUDAPREP_CHECK(core->element, cudaStreamCreateWithPriority(&core->own_stream,
                                                                  cudaStreamNonBlocking, priority)))
    return FALSE;
  core->stream = core->own_stream;
  return TRUE;
}

gboolean gst_cuda_prep_core_start(GstCudaPrepCore *core) {
  GST_OBJECT_LOCK(core->element);
  const gint requested_device_id = core->requested_device_id;
  const gint requested_priority = core->stream_priority;
  cudaStream_t external_stream = core->external_stream;
  GST_OBJECT_UNLOCK(core->element);

  if (!choose_device(core, requested_device_id)) return FALSE;
  if (!set_up_stream(core, external_stream, requested_priority)) {
    core->device_id = -1;
    return FALSE;
  }
  GST_DEBUG_OBJECT(core->element, "started on device %d, stream %p", core->device_id, core->stream);
  if (!g_atomic_int_get(&core->application_cuda_context))
    gst_cuda_prep_nvcodec_announce_context(core->element, core->device_id);
  return TRUE;
}

gboolean gst_cuda_prep_core_stop(GstCudaPrepCore *core) {
  gboolean ok = TRUE;
  if (core->stream != nullptr) {
    GstCudaPrepScopedDevice device(core->device_id);
    // Work still queued may read or write pooled memory about to be freed.
    ok = CUDAPREP_CHECK(core->element, cudaStreamSynchronize(core->stream));
    if (core->own_stream != nullptr)
      ok = CUDAPREP_CHECK(core->element, cudaStreamDestroy(core->own_stream)) && ok;
    // Frames borrowed from upstream (a decoder's) go back to their pools.
    gst_cuda_prep_memory_release_borrowed();
  }
  core->own_stream = nullptr;
  core->stream = nullptr;
  core->device_id = -1;
  return ok;
}

cudaStream_t gst_cuda_prep_core_get_stream(GstCudaPrepCore *core) {
  return core->stream;
}

gint gst_cuda_prep_core_get_device_id(GstCudaPrepCore *core) {
  return core->device_id;
}

gboolean gst_cuda_prep_core_make_current(GstCudaPrepCore *core) {
  if (core->device_id < 0) {
    GST_ELEMENT_ERROR(core->element, CORE, STATE_CHANGE,
                      ("The element has no CUDA device: it was not started"), (nullptr));
    return FALSE;
  }
  return CUDAPREP_CHECK(core->element, cudaSetDevice(core->device_id));
}

static gboolean for_each_device_memory(GstCudaPrepCore *core, GstBuffer *buffer,
                                       cudaError_t (*step)(GstMemory *, cudaStream_t),
                                       const gchar *step_name) {
  const guint n_memory = gst_buffer_n_memory(buffer);
  for (guint i = 0; i < n_memory; ++i) {
    GstMemory *memory = gst_buffer_peek_memory(buffer, i);
    if (!gst_is_cuda_prep_memory(memory)) continue;
    if (!gst_cuda_prep_check(core->element, step(memory, core->stream), step_name, __FILE__,
                             GST_FUNCTION, __LINE__))
      return FALSE;
  }
  return TRUE;
}

gboolean gst_cuda_prep_core_begin_read(GstCudaPrepCore *core, GstBuffer *buffer) {
  return for_each_device_memory(core, buffer, gst_cuda_prep_memory_begin_read, "begin_read");
}

gboolean gst_cuda_prep_core_end_read(GstCudaPrepCore *core, GstBuffer *buffer) {
  return for_each_device_memory(core, buffer, gst_cuda_prep_memory_end_read, "end_read");
}

gboolean gst_cuda_prep_core_begin_write(GstCudaPrepCore *core, GstBuffer *buffer) {
  return for_each_device_memory(core, buffer, gst_cuda_prep_memory_begin_write, "begin_write");
}

gboolean gst_cuda_prep_core_end_write(GstCudaPrepCore *core, GstBuffer *buffer) {
  return for_each_device_memory(core, buffer, gst_cuda_prep_memory_end_write, "end_write");
}

// Sets `pool` as the query's first pool (replacing one downstream offered).
static void set_query_pool(GstQuery *query, GstBufferPool *pool, guint size, guint min_buffers,
                           guint max_buffers) {
  if (gst_query_get_n_allocation_pools(query) > 0)
    gst_query_set_nth_allocation_pool(query, 0, pool, size, min_buffers, max_buffers);
  else
    gst_query_add_allocation_pool(query, pool, size, min_buffers, max_buffers);
}

// Configures a pool of device frames for `caps`; its buffer size, or 0.
static guint configure_frame_pool(GstBufferPool *pool, GstCaps *caps, guint min_buffers,
                                  guint max_buffers) {
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) return 0;
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), min_buffers,
                                    max_buffers);
  if (!gst_buffer_pool_set_config(pool, config)) return 0;
  config = gst_buffer_pool_get_config(pool);
  guint size = 0;
  gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
  gst_structure_free(config);
  return size;
}

gboolean gst_cuda_prep_core_propose_pool(GstCudaPrepCore *core, GstQuery *query) {
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  // Planar frames and tensors have no video layout: the producer makes its
  // own pool of blocks.
  GstVideoInfo info;
  if (!gst_cuda_prep_caps_are_device(caps) || !gst_video_info_from_caps(&info, caps) ||
      gst_query_get_n_allocation_pools(query) > 0)
    return TRUE;
  GstBufferPool *pool = gst_cuda_prep_buffer_pool_new(core->device_id);
  const guint size = configure_frame_pool(pool, caps, 0, 0);
  if (size == 0) {
    GST_WARNING_OBJECT(core->element, "could not configure a pool for %" GST_PTR_FORMAT, caps);
    gst_object_unref(pool);
    return FALSE;
  }
  gst_query_add_allocation_pool(query, pool, size, 0, 0);
  gst_object_unref(pool);
  return TRUE;
}

gboolean gst_cuda_prep_core_decide_frame_pool(GstCudaPrepCore *core, GstQuery *query) {
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstBufferPool *pool = nullptr;
  guint size = 0, min_buffers = 0, max_buffers = 0;
  if (gst_query_get_n_allocation_pools(query) > 0) {
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min_buffers, &max_buffers);
    if (pool != nullptr && (!GST_IS_CUDA_PREP_BUFFER_POOL(pool) ||
                            gst_cuda_prep_buffer_pool_get_device_id(pool) != core->device_id))
      gst_clear_object(&pool);
  }
  if (pool == nullptr) pool = gst_cuda_prep_buffer_pool_new(core->device_id);
  size = configure_frame_pool(pool, caps, min_buffers, max_buffers);
  if (size == 0) {
    GST_ELEMENT_ERROR(core->element, RESOURCE, SETTINGS,
                      ("Could not configure a pool of device frames for %" GST_PTR_FORMAT, caps),
                      (nullptr));
    gst_object_unref(pool);
    return FALSE;
  }
  set_query_pool(query, pool, size, min_buffers, max_buffers);
  gst_object_unref(pool);
  return TRUE;
}

gboolean gst_cuda_prep_core_decide_block_pool(GstCudaPrepCore *core, GstQuery *query, gsize size) {
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  guint min_buffers = 0, max_buffers = 0;
  if (gst_query_get_n_allocation_pools(query) > 0)
    gst_query_parse_nth_allocation_pool(query, 0, nullptr, nullptr, &min_buffers, &max_buffers);
  if (size > G_MAXUINT) {
    GST_ELEMENT_ERROR(
        core->element, RESOURCE, SETTINGS,
        ("Output buffers of %" G_GSIZE_FORMAT " bytes are too large (4 GiB at most)", size),
        (nullptr));
    return FALSE;
  }
  GstBufferPool *pool = gst_cuda_prep_block_pool_new(
      core->device_id, caps, static_cast<guint>(size), min_buffers, max_buffers);
  if (pool == nullptr) {
    GST_ELEMENT_ERROR(core->element, RESOURCE, SETTINGS,
                      ("Could not configure a pool of device buffers for %" GST_PTR_FORMAT, caps),
                      (nullptr));
    return FALSE;
  }
  set_query_pool(query, pool, static_cast<guint>(size), min_buffers, max_buffers);
  gst_object_unref(pool);
  return TRUE;
}

GstFlowReturn gst_cuda_prep_core_acquire(GstCudaPrepCore *core, GstBufferPool *pool,
                                         GstBuffer **buffer) {
  if (pool == nullptr) {
    GST_ELEMENT_ERROR(core->element, CORE, NEGOTIATION,
                      ("No pool of device buffers: caps not negotiated"), (nullptr));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!gst_buffer_pool_is_active(pool) && !gst_buffer_pool_set_active(pool, TRUE)) {
    GST_ELEMENT_ERROR(
        core->element, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate the buffers of a pool on CUDA device %d: %s", core->device_id,
         cudaGetErrorString(gst_cuda_prep_memory_get_last_allocation_error())),
        (nullptr));
    return GST_FLOW_ERROR;
  }
  const GstFlowReturn ret = gst_buffer_pool_acquire_buffer(pool, buffer, nullptr);
  if (ret == GST_FLOW_ERROR) {
    GstStructure *config = gst_buffer_pool_get_config(pool);
    guint size = 0;
    gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
    gst_structure_free(config);
    GST_ELEMENT_ERROR(
        core->element, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate a %u-byte buffer on CUDA device %d: %s", size, core->device_id,
         cudaGetErrorString(gst_cuda_prep_memory_get_last_allocation_error())),
        (nullptr));
  }
  return ret;
}
