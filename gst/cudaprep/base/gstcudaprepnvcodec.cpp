#include "gstcudaprepnvcodec.h"

#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/video/video.h>

#include <mutex>
#include <vector>

#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_nvcodec_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_nvcodec_debug

gboolean gst_cuda_prep_caps_are_nvcodec(const GstCaps *caps) {
  if (caps == nullptr || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return FALSE;
  GstCapsFeatures *features = gst_caps_get_features(caps, 0);
  return features != nullptr &&
         gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_NVCODEC);
}

// The wrapped primary context of each device, made once and kept for the
// process (the primary context itself lives as long as the runtime).
static GstCudaContext *primary_context(gint device_id, gchar **error) {
  static std::mutex lock;
  static std::vector<GstCudaContext *> contexts;  // index: device id
  static gsize debug_initialized = 0;
  if (g_once_init_enter(&debug_initialized)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_nvcodec_debug, "cudaprepnvcodec", 0,
                            "cudaprep and nvcodec's CUDA context and memory");
    g_once_init_leave(&debug_initialized, 1);
  }
  std::lock_guard<std::mutex> guard(lock);
  if (device_id < 0) {
    *error = g_strdup("no CUDA device chosen");
    return nullptr;
  }
  if (static_cast<size_t>(device_id) < contexts.size() && contexts[device_id] != nullptr)
    return contexts[device_id];
  // libgstcuda calls the driver through pointers it loads here; without
  // this its first call (CuInit) asserts.
  if (!gst_cuda_load_library()) {
    *error = g_strdup("libgstcuda could not load the CUDA driver library (libcuda.so.1)");
    return nullptr;
  }
  GstCudaPrepScopedDevice device(device_id);
  // cudaFree(nullptr) makes the runtime create the primary context and make
  // it current on this thread; popping and pushing it back reads its handle
  // through the driver entry points libgstcuda loaded.
  CUcontext handle = nullptr;
  CUdevice cu_device = 0;
  cudaError_t err = cudaFree(nullptr);
  if (err != cudaSuccess || CuCtxPopCurrent(&handle) != CUDA_SUCCESS || handle == nullptr ||
      CuCtxPushCurrent(handle) != CUDA_SUCCESS ||
      CuDeviceGet(&cu_device, device_id) != CUDA_SUCCESS) {
    *error = g_strdup_printf("could not get the primary CUDA context of device %d%s%s", device_id,
                             err != cudaSuccess ? ": " : "",
                             err != cudaSuccess ? cudaGetErrorString(err) : "");
    return nullptr;
  }
  GstCudaContext *context = gst_cuda_context_new_wrapped(handle, cu_device);
  if (context == nullptr) {
    *error =
        g_strdup_printf("libgstcuda could not wrap the primary context of device %d", device_id);
    return nullptr;
  }
  GST_OBJECT_FLAG_SET(context, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  if (static_cast<size_t>(device_id) >= contexts.size()) contexts.resize(device_id + 1);
  contexts[device_id] = context;
  GST_INFO("wrapped the primary context %p of CUDA device %d", handle, device_id);
  return context;
}

gpointer gst_cuda_prep_nvcodec_primary_context_handle(gint device_id, gchar **error) {
  GstCudaContext *context = primary_context(device_id, error);
  return context != nullptr ? gst_cuda_context_get_handle(context) : nullptr;
}

gboolean gst_cuda_prep_nvcodec_answer_query(GstElement *element, GstQuery *query, gint device_id) {
  const gchar *context_type = nullptr;
  if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT ||
      !gst_query_parse_context_type(query, &context_type) ||
      g_strcmp0(context_type, GST_CUDA_PREP_NVCODEC_CONTEXT_TYPE) != 0)
    return FALSE;
  gchar *error = nullptr;
  GstCudaContext *context = primary_context(device_id, &error);
  if (context == nullptr) {
    GST_WARNING_OBJECT(element, "not answering %s: %s", GST_CUDA_PREP_NVCODEC_CONTEXT_TYPE, error);
    g_free(error);
    return FALSE;
  }
  return gst_cuda_handle_context_query(element, query, context);
}

void gst_cuda_prep_nvcodec_announce_context(GstElement *element, gint device_id) {
  gchar *error = nullptr;
  GstCudaContext *context = primary_context(device_id, &error);
  if (context == nullptr) {
    GST_WARNING_OBJECT(element, "not announcing %s: %s", GST_CUDA_PREP_NVCODEC_CONTEXT_TYPE, error);
    g_free(error);
    return;
  }
  gst_element_post_message(
      element,
      gst_message_new_have_context(GST_OBJECT(element), gst_context_new_cuda_context(context)));
}

gboolean gst_cuda_prep_context_is_nvcodec(GstContext *context) {
  return g_strcmp0(gst_context_get_context_type(context), GST_CUDA_PREP_NVCODEC_CONTEXT_TYPE) == 0;
}

namespace {

// The decoder's buffer, mapped for CUDA, held until our readers are done.
struct BorrowedFrame {
  GstBuffer *buffer;
  GstMemory *memory;
  GstMapInfo map;
};

void release_frame(gpointer data) {
  auto *frame = static_cast<BorrowedFrame *>(data);
  gst_memory_unmap(frame->memory, &frame->map);
  gst_buffer_unref(frame->buffer);
  delete frame;
}

}  // namespace

GstBuffer *gst_cuda_prep_nvcodec_wrap_buffer(GstBuffer *input, gint device_id, gchar **error) {
  GstMemory *memory = gst_buffer_n_memory(input) == 1 ? gst_buffer_peek_memory(input, 0) : nullptr;
  if (memory == nullptr || !gst_is_cuda_memory(memory)) {
    *error = g_strdup(
        "a memory:CUDAMemory frame must be one GstCudaMemory (from nvcodec's decoders or "
        "cudaupload)");
    return nullptr;
  }
  auto *cuda_memory = GST_CUDA_MEMORY_CAST(memory);
  gpointer primary = gst_cuda_prep_nvcodec_primary_context_handle(device_id, error);
  if (primary == nullptr) return nullptr;
  if (gst_cuda_context_get_handle(cuda_memory->context) != primary) {
    gint frame_device = -1;
    g_object_get(cuda_memory->context, "cuda-device-id", &frame_device, nullptr);
    *error = g_strdup_printf(
        "the frame lives in CUDA context %p of device %d, not in the primary context of device "
        "%d that cudaprep runs on; cudaprep copies nothing through the host. Let cudaprep's "
        "elements provide the gst.cuda.context (do not set one on the pipeline or the decoder), "
        "or give the decoder a context that wraps the device's primary context "
        "(gst_cuda_context_new_wrapped), and use the same device (device-id / cuda-device-id)",
        gst_cuda_context_get_handle(cuda_memory->context), frame_device, device_id);
    return nullptr;
  }
  auto *frame = new BorrowedFrame{gst_buffer_ref(input), memory, {}};
  // A map for CUDA gives the device pointer; where the library tracks a
  // producer's stream (GStreamer >= 1.24) it also waits for that producer.
  if (!gst_memory_map(memory, &frame->map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
    gst_buffer_unref(frame->buffer);
    delete frame;
    *error = g_strdup("could not map the GstCudaMemory frame for CUDA");
    return nullptr;
  }
  GstMemory *borrowed = gst_cuda_prep_memory_new_borrowed(
      device_id, static_cast<guint8 *>(frame->map.data), memory->size, release_frame, frame);
  if (borrowed == nullptr) {
    release_frame(frame);
    *error = g_strdup_printf("could not create the synchronisation events of a frame: %s",
                             cudaGetErrorString(gst_cuda_prep_memory_get_last_allocation_error()));
    return nullptr;
  }
  GstBuffer *output = gst_buffer_new();
  gst_buffer_append_memory(output, borrowed);
  gst_buffer_copy_into(
      output, input,
      static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS |
                                      GST_BUFFER_COPY_META),
      0, -1);
  // The layout is the memory's own (GstCudaMemory's info), whatever meta
  // the decoder attached.
  GstVideoInfo *info = &cuda_memory->info;
  GstVideoMeta *meta = gst_buffer_get_video_meta(output);
  if (meta != nullptr) gst_buffer_remove_meta(output, GST_META_CAST(meta));
  gst_buffer_add_video_meta_full(output, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(info),
                                 GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info),
                                 GST_VIDEO_INFO_N_PLANES(info), info->offset, info->stride);
  return output;
}
