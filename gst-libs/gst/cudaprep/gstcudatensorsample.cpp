// The sample API of gstcudatensorsample.h, and the one device-to-host copy
// of the library (gstcudatensorsample-private.h), which the download and the
// sink's .npy writer share.
#include "gstcudatensorsample.h"

#include "cudaprep/array.h"
#include "cudaprep/dlpack_export.h"
#include "gstcudaprepcuda-private.h"
#include "gstcudaprepmemory.h"
#include "gstcudaprepmeta-private.h"
#include "gstcudatensorsample-private.h"

#define GST_CAT_DEFAULT gst_cuda_prep_tensor_sink_debug

bool gst_cuda_prep_filled_tensor_array(GstBuffer *buffer, const GstCudaPrepTensor **tensor_out,
                                       cudaprep::ArrayDesc *array) {
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
  if (meta == nullptr || meta->num_tensors == 0) return false;
  const GstCudaPrepTensor *tensor = meta->tensors[0];
  cudaprep::TensorDesc image_or_first_frames;
  if (!gst_cuda_prep_tensor_to_desc(tensor, &image_or_first_frames) ||
      !gst_cuda_prep_tensor_to_array(tensor, array)) {
    return false;
  }
  // N is dims[0] in every layout, images' and clips'.
  if (tensor->batch_filled > 0) array->dims[0] = static_cast<int64_t>(tensor->batch_filled);
  *tensor_out = tensor;
  return true;
}

namespace {

struct DLPackOwner {
  GstBuffer *buffer;
  cudaStream_t stream;
  gint device_id;
  bool record_reads;  // false when the consumer synchronises itself (stream -1)
};

void release_dlpack(void *user_data) {
  auto *owner = static_cast<DLPackOwner *>(user_data);
  if (owner->record_reads) {
    GstCudaPrepScopedDevice device(owner->device_id);
    const cudaError_t err = gst_cuda_prep_consume_error(
        gst_cuda_prep_memory_end_read(gst_buffer_peek_memory(owner->buffer, 0), owner->stream));
    if (err != cudaSuccess)
      GST_ERROR("recording the DLPack consumer's reads failed: %s", cudaGetErrorString(err));
  }
  gst_buffer_unref(owner->buffer);
  g_free(owner);
}

// DLPack 1.0 around a 0.6 export: the versioned struct shares the inner
// tensor's shape and strides and deletes it with itself.
void delete_versioned(GstCudaPrepDLManagedTensorVersioned *versioned) {
  auto *inner = static_cast<DLManagedTensor *>(versioned->manager_ctx);
  inner->deleter(inner);
  g_free(versioned);
}

GstCudaPrepDLManagedTensorVersioned *wrap_versioned(DLManagedTensor *inner) {
  auto *versioned = g_new0(GstCudaPrepDLManagedTensorVersioned, 1);
  versioned->version.major = GST_CUDA_PREP_DLPACK_MAJOR_VERSION;
  versioned->version.minor = GST_CUDA_PREP_DLPACK_MINOR_VERSION;
  versioned->manager_ctx = inner;
  versioned->deleter = delete_versioned;
  versioned->flags = 0;
  versioned->dl_tensor = inner->dl_tensor;
  return versioned;
}

}  // namespace

const GstCudaPrepTensor *gst_cuda_prep_tensor_sink_sample_get_tensor(GstSample *sample) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample), nullptr);
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  if (buffer == nullptr) return nullptr;
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
  return meta != nullptr && meta->num_tensors > 0 ? meta->tensors[0] : nullptr;
}

static GstMemory *sample_memory(GstSample *sample) {
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  if (buffer == nullptr || gst_buffer_n_memory(buffer) != 1) return nullptr;
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  return gst_is_cuda_prep_memory(memory) ? memory : nullptr;
}

cudaError_t gst_cuda_prep_tensor_sink_sample_begin_read(GstSample *sample, cudaStream_t stream) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample), cudaErrorInvalidValue);
  GstMemory *memory = sample_memory(sample);
  if (memory == nullptr) return cudaErrorInvalidValue;
  return gst_cuda_prep_memory_begin_read(memory, stream);
}

cudaError_t gst_cuda_prep_tensor_sink_sample_end_read(GstSample *sample, cudaStream_t stream) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample), cudaErrorInvalidValue);
  GstMemory *memory = sample_memory(sample);
  if (memory == nullptr) return cudaErrorInvalidValue;
  return gst_cuda_prep_memory_end_read(memory, stream);
}

DLManagedTensor *gst_cuda_prep_tensor_sink_sample_to_dlpack(GstSample *sample,
                                                            cudaStream_t stream) {
  return static_cast<DLManagedTensor *>(gst_cuda_prep_tensor_sink_sample_export_dlpack(
      sample, stream, GST_CUDA_PREP_DLPACK_FLAGS_NONE));
}

gpointer gst_cuda_prep_tensor_sink_sample_export_dlpack(GstSample *sample, cudaStream_t stream,
                                                        GstCudaPrepDLPackFlags flags) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample), nullptr);
  GstMemory *memory = sample_memory(sample);
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  const GstCudaPrepTensor *tensor = nullptr;
  cudaprep::ArrayDesc array;
  if (memory == nullptr || !gst_cuda_prep_filled_tensor_array(buffer, &tensor, &array)) {
    GST_WARNING("the sample holds no cudaprep tensor");
    return nullptr;
  }
  const bool consumer_syncs = (flags & GST_CUDA_PREP_DLPACK_CONSUMER_SYNCS) != 0;
  if (!consumer_syncs) {
    GstCudaPrepScopedDevice device(tensor->device_id);
    const cudaError_t err = gst_cuda_prep_consume_error(
        device.result() != cudaSuccess ? device.result()
                                       : gst_cuda_prep_memory_begin_read(memory, stream));
    if (err != cudaSuccess) {
      GST_WARNING("ordering the DLPack consumer's stream after the tensor failed: %s",
                  cudaGetErrorString(err));
      return nullptr;
    }
  }
  auto *owner = g_new(DLPackOwner, 1);
  *owner = DLPackOwner{gst_buffer_ref(buffer), stream, tensor->device_id, !consumer_syncs};
  DLManagedTensor *managed =
      cudaprep::export_dlpack(array, tensor->data, tensor->device_id, release_dlpack, owner);
  if (managed == nullptr) {
    gst_buffer_unref(owner->buffer);
    g_free(owner);
    return nullptr;
  }
  if ((flags & GST_CUDA_PREP_DLPACK_VERSIONED) != 0) return wrap_versioned(managed);
  return managed;
}

gsize gst_cuda_prep_tensor_sink_sample_get_size(GstSample *sample) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample), 0);
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  const GstCudaPrepTensor *tensor = nullptr;
  cudaprep::ArrayDesc array;
  if (buffer == nullptr || !gst_cuda_prep_filled_tensor_array(buffer, &tensor, &array)) return 0;
  return static_cast<gsize>(cudaprep::array_element_count(array)) *
         cudaprep::data_type_size(array.dtype);
}

// One stream for every copy to the host: the calling thread's per-thread
// default stream (cudaStreamPerThread) on the tensor's device. The host
// waits for each copy, so a stream of our own would buy no overlap, only
// state: the per-thread stream exists for every thread and device without
// being created or destroyed (nothing to tear down when the sink stops or to
// remake when the tensor's device changes), threads that copy at once (an
// application's, several sinks' streaming threads) never share it, and it
// waits for the tensor's ready event, not for the work of other streams;
// only the legacy default stream (NULL) and it still wait for each other.
cudaError_t gst_cuda_prep_tensor_copy_to_host(GstMemory *memory, const GstCudaPrepTensor *tensor,
                                              const cudaprep::ArrayDesc &array, gpointer dest,
                                              const gchar **failed_call) {
  const cudaStream_t stream = cudaStreamPerThread;
  GstCudaPrepScopedDevice device(tensor->device_id);
  cudaError_t err = device.result();
  const gchar *call = "cudaSetDevice(tensor->device_id)";
  // Each step runs if every one before it succeeded, and names itself.
#define COPY_STEP(step)     \
  if (err == cudaSuccess) { \
    err = (step);           \
    call = #step;           \
  }
  COPY_STEP(gst_cuda_prep_memory_begin_read(memory, stream))
  COPY_STEP(cudaMemcpyAsync(dest, tensor->data, cudaprep::array_span_bytes(array),
                            cudaMemcpyDeviceToHost, stream))
  COPY_STEP(gst_cuda_prep_memory_end_read(memory, stream))
  COPY_STEP(cudaStreamSynchronize(stream))
#undef COPY_STEP
  if (failed_call != nullptr) *failed_call = err == cudaSuccess ? nullptr : call;
  return err;
}

cudaError_t gst_cuda_prep_tensor_sink_sample_download(GstSample *sample, gpointer dest,
                                                      gsize dest_size) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample) && dest != nullptr, cudaErrorInvalidValue);
  GstMemory *memory = sample_memory(sample);
  const GstCudaPrepTensor *tensor = nullptr;
  cudaprep::ArrayDesc array;
  if (memory == nullptr ||
      !gst_cuda_prep_filled_tensor_array(gst_sample_get_buffer(sample), &tensor, &array)) {
    GST_WARNING("the sample holds no cudaprep tensor");
    return cudaErrorInvalidValue;
  }
  // cudatensorize writes dense tensors; a strided one would need a gather.
  if (!cudaprep::array_is_contiguous(array)) {
    GST_WARNING("downloading a strided tensor is not supported");
    return cudaErrorNotSupported;
  }
  const gsize size = gst_cuda_prep_tensor_sink_sample_get_size(sample);
  if (dest_size < size) {
    GST_WARNING("download needs %" G_GSIZE_FORMAT " bytes, got %" G_GSIZE_FORMAT, size, dest_size);
    return cudaErrorInvalidValue;
  }
  // Contiguous: its span is these `size` dense bytes.
  return gst_cuda_prep_tensor_copy_to_host(memory, tensor, array, dest, nullptr);
}
