/**
 * SECTION:element-cudatensorsink
 *
 * The end of a cudaprep pipeline: hands the application each tensor of
 * cudatensorize as a GstSample, like appsink: pull it (pull-tensor,
 * try-pull-tensor, or gst_cuda_tensor_sink_pull_tensor()), or be told
 * (emit-signals=true and the new-tensor signal). The tensor stays in device
 * memory; its GstCudaPrepTensorMeta gives the device pointer, shape, strides
 * and the ready event an application's stream waits on. See
 * gstcudatensorsink.h for the C API, including the zero-copy DLPack export.
 *
 * At most max-buffers tensors wait in the sink (default 1); when it is full
 * the pipeline waits for the application (drop=false, default: no tensor is
 * lost) or the oldest tensor is dropped (drop=true: for live sources, and for
 * gst-launch-1.0 where nobody pulls).
 *
 * location="tensor-%05d.npy" also writes each tensor as a NumPy .npy file
 * (shape in layout order with N = the frames of the batch): a device-to-host
 * copy on the sink's own stream after the ready event, so the host waits
 * for it. For debugging, not for speed.
 *
 *   gst-launch-1.0 videotestsrc num-buffers=3 ! cudaframeupload ! cudanormalize ! cudatensorize !
 * cudatensorsink drop=true location=tensor-%05d.npy
 */
#include "gstcudatensorsink.h"

#include <string>
#include <vector>

#include "cudaprep/dlpack_export.h"
#include "cudaprep/npy.h"
#include "gstcudaprepcuda.h"
#include "gstcudaprepmemory.h"
#include "gstcudapreptensorformat.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_tensor_sink_debug);
#define GST_CAT_DEFAULT gst_cuda_tensor_sink_debug

enum { PROP_0, PROP_EMIT_SIGNALS, PROP_MAX_BUFFERS, PROP_DROP, PROP_LOCATION };
enum { SIGNAL_NEW_TENSOR, SIGNAL_PULL_TENSOR, SIGNAL_TRY_PULL_TENSOR, LAST_SIGNAL };

#define DEFAULT_EMIT_SIGNALS FALSE
#define DEFAULT_MAX_BUFFERS 1
#define DEFAULT_DROP FALSE

static guint signals[LAST_SIGNAL];

struct _GstCudaTensorSink {
  GstBaseSink parent;

  // Properties (object lock).
  gboolean emit_signals;
  guint max_buffers;
  gboolean drop;
  gchar *location;

  // The queue of samples and its state (lock).
  GMutex lock;
  GCond cond;  // a sample was queued or taken, or the state changed
  GQueue samples;
  gboolean started;   // between start and stop
  gboolean flushing;  // unlock() to unlock_stop()
  gboolean eos;

  // .npy writing (streaming thread): created on first use.
  cudaStream_t npy_stream;
  gint npy_device;
  guint npy_index;
};

G_DEFINE_TYPE(GstCudaTensorSink, gst_cuda_tensor_sink, GST_TYPE_BASE_SINK)
GST_ELEMENT_REGISTER_DEFINE(cudatensorsink, "cudatensorsink", GST_RANK_NONE,
                            GST_TYPE_CUDA_TENSOR_SINK)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_CUDA_PREP_TENSOR_CAPS));

namespace {

// The image tensor of `buffer` as the kernels describe it, N cut to the
// frames it holds (a partial batch's padding left out).
bool filled_tensor_desc(GstBuffer *buffer, const GstCudaPrepTensor **tensor_out,
                        cudaprep::TensorDesc *desc) {
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
  if (meta == nullptr || meta->num_tensors == 0) return false;
  const GstCudaPrepTensor *tensor = meta->tensors[0];
  if (!gst_cuda_prep_tensor_to_desc(tensor, desc)) return false;
  if (tensor->batch_filled > 0)
    desc->dims[cudaprep::tensor_axes(desc->layout).batch] =
        static_cast<int64_t>(tensor->batch_filled);
  *tensor_out = tensor;
  return true;
}

// Makes `device_id` current for the scope (DLPack deleters run on any thread).
class ScopedDevice {
 public:
  explicit ScopedDevice(gint device_id) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (previous_ != device_id) result_ = cudaSetDevice(device_id);
  }
  ~ScopedDevice() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  cudaError_t result() const { return result_; }

 private:
  gint previous_ = -1;
  cudaError_t result_ = cudaSuccess;
};

struct DLPackOwner {
  GstBuffer *buffer;
  cudaStream_t stream;
  gint device_id;
};

void release_dlpack(void *user_data) {
  auto *owner = static_cast<DLPackOwner *>(user_data);
  {
    ScopedDevice device(owner->device_id);
    const cudaError_t err =
        gst_cuda_prep_memory_end_read(gst_buffer_peek_memory(owner->buffer, 0), owner->stream);
    if (err != cudaSuccess)
      GST_ERROR("recording the DLPack consumer's reads failed: %s", cudaGetErrorString(err));
  }
  gst_buffer_unref(owner->buffer);
  g_free(owner);
}

}  // namespace

GstSample *gst_cuda_tensor_sink_try_pull_tensor(GstCudaTensorSink *sink, GstClockTime timeout) {
  g_return_val_if_fail(GST_IS_CUDA_TENSOR_SINK(sink), nullptr);
  const gint64 deadline = GST_CLOCK_TIME_IS_VALID(timeout)
                              ? g_get_monotonic_time() + timeout / GST_USECOND
                              : G_MAXINT64;
  g_mutex_lock(&sink->lock);
  while (g_queue_is_empty(&sink->samples) && sink->started && !sink->eos) {
    if (deadline == G_MAXINT64)
      g_cond_wait(&sink->cond, &sink->lock);
    else if (!g_cond_wait_until(&sink->cond, &sink->lock, deadline))
      break;
  }
  auto *sample = static_cast<GstSample *>(g_queue_pop_head(&sink->samples));
  if (sample != nullptr) g_cond_broadcast(&sink->cond);  // room for the streaming thread
  g_mutex_unlock(&sink->lock);
  return sample;
}

GstSample *gst_cuda_tensor_sink_pull_tensor(GstCudaTensorSink *sink) {
  return gst_cuda_tensor_sink_try_pull_tensor(sink, GST_CLOCK_TIME_NONE);
}

gboolean gst_cuda_tensor_sink_is_eos(GstCudaTensorSink *sink) {
  g_return_val_if_fail(GST_IS_CUDA_TENSOR_SINK(sink), FALSE);
  g_mutex_lock(&sink->lock);
  const gboolean eos = sink->eos && g_queue_is_empty(&sink->samples);
  g_mutex_unlock(&sink->lock);
  return eos;
}

const GstCudaPrepTensor *gst_cuda_tensor_sink_sample_get_tensor(GstSample *sample) {
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

cudaError_t gst_cuda_tensor_sink_sample_begin_read(GstSample *sample, cudaStream_t stream) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample), cudaErrorInvalidValue);
  GstMemory *memory = sample_memory(sample);
  if (memory == nullptr) return cudaErrorInvalidValue;
  return gst_cuda_prep_memory_begin_read(memory, stream);
}

cudaError_t gst_cuda_tensor_sink_sample_end_read(GstSample *sample, cudaStream_t stream) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample), cudaErrorInvalidValue);
  GstMemory *memory = sample_memory(sample);
  if (memory == nullptr) return cudaErrorInvalidValue;
  return gst_cuda_prep_memory_end_read(memory, stream);
}

DLManagedTensor *gst_cuda_tensor_sink_sample_to_dlpack(GstSample *sample, cudaStream_t stream) {
  g_return_val_if_fail(GST_IS_SAMPLE(sample), nullptr);
  GstMemory *memory = sample_memory(sample);
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  const GstCudaPrepTensor *tensor = nullptr;
  cudaprep::TensorDesc desc;
  if (memory == nullptr || !filled_tensor_desc(buffer, &tensor, &desc)) {
    GST_WARNING("the sample holds no cudaprep tensor");
    return nullptr;
  }
  {
    ScopedDevice device(tensor->device_id);
    const cudaError_t err = device.result() != cudaSuccess
                                ? device.result()
                                : gst_cuda_prep_memory_begin_read(memory, stream);
    if (err != cudaSuccess) {
      GST_WARNING("ordering the DLPack consumer's stream after the tensor failed: %s",
                  cudaGetErrorString(err));
      return nullptr;
    }
  }
  auto *owner = g_new(DLPackOwner, 1);
  *owner = DLPackOwner{gst_buffer_ref(buffer), stream, tensor->device_id};
  DLManagedTensor *managed =
      cudaprep::export_dlpack(desc, tensor->data, tensor->device_id, release_dlpack, owner);
  if (managed == nullptr) {
    gst_buffer_unref(owner->buffer);
    g_free(owner);
  }
  return managed;
}

// Writes the tensor of `buffer` to the next .npy file of `location`.
static gboolean write_npy(GstCudaTensorSink *self, GstBuffer *buffer, const gchar *location) {
  const GstCudaPrepTensor *tensor = nullptr;
  cudaprep::TensorDesc desc;
  if (!filled_tensor_desc(buffer, &tensor, &desc)) return FALSE;
  if (self->npy_stream != nullptr && self->npy_device != tensor->device_id) {
    cudaStreamDestroy(self->npy_stream);
    self->npy_stream = nullptr;
  }
  if (!CUDAPREP_CHECK(self, cudaSetDevice(tensor->device_id))) return FALSE;
  if (self->npy_stream == nullptr) {
    if (!CUDAPREP_CHECK(self, cudaStreamCreateWithFlags(&self->npy_stream, cudaStreamNonBlocking)))
      return FALSE;
    self->npy_device = tensor->device_id;
  }
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  std::vector<guint8> host(cudaprep::tensor_span_bytes(desc));
  if (!CUDAPREP_CHECK(self, gst_cuda_prep_memory_begin_read(memory, self->npy_stream)) ||
      !CUDAPREP_CHECK(self, cudaMemcpyAsync(host.data(), tensor->data, host.size(),
                                            cudaMemcpyDeviceToHost, self->npy_stream)) ||
      !CUDAPREP_CHECK(self, gst_cuda_prep_memory_end_read(memory, self->npy_stream)) ||
      !CUDAPREP_CHECK(self, cudaStreamSynchronize(self->npy_stream)))
    return FALSE;
  gchar *path = g_strdup_printf(location, self->npy_index);
  std::string error;
  const bool written = cudaprep::write_npy(path, host.data(), desc, &error);
  if (!written)
    GST_ELEMENT_ERROR(self, RESOURCE, WRITE,
                      ("Could not write tensor file %s: %s", path, error.c_str()), (nullptr));
  else
    GST_DEBUG_OBJECT(self, "wrote %s", path);
  g_free(path);
  self->npy_index++;
  return written;
}

static GstFlowReturn gst_cuda_tensor_sink_render(GstBaseSink *bsink, GstBuffer *buffer) {
  auto *self = GST_CUDA_TENSOR_SINK(bsink);
  const GstCudaPrepTensor *tensor = nullptr;
  cudaprep::TensorDesc desc;
  if (gst_buffer_n_memory(buffer) != 1 ||
      !gst_is_cuda_prep_memory(gst_buffer_peek_memory(buffer, 0)) ||
      !filled_tensor_desc(buffer, &tensor, &desc)) {
    GST_ELEMENT_ERROR(self, STREAM, WRONG_TYPE,
                      ("cudatensorsink received a buffer without a cudaprep tensor: put "
                       "cudatensorize before it"),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  GST_OBJECT_LOCK(self);
  gchar *location = g_strdup(self->location);
  const guint max_buffers = self->max_buffers;
  const gboolean drop = self->drop;
  const gboolean emit_signals = self->emit_signals;
  GST_OBJECT_UNLOCK(self);
  if (location != nullptr) {
    const gboolean written = write_npy(self, buffer, location);
    g_free(location);
    if (!written) return GST_FLOW_ERROR;
  }

  GstCaps *caps = gst_pad_get_current_caps(GST_BASE_SINK_PAD(bsink));
  GstSample *sample = gst_sample_new(buffer, caps, &bsink->segment, nullptr);
  if (caps != nullptr) gst_caps_unref(caps);

  g_mutex_lock(&self->lock);
  while (max_buffers > 0 && g_queue_get_length(&self->samples) >= max_buffers && !self->flushing) {
    if (drop) {
      gst_sample_unref(static_cast<GstSample *>(g_queue_pop_head(&self->samples)));
      GST_DEBUG_OBJECT(self, "dropped the oldest tensor: the application is behind");
    } else {
      g_cond_wait(&self->cond, &self->lock);
    }
  }
  if (self->flushing) {
    g_mutex_unlock(&self->lock);
    gst_sample_unref(sample);
    return GST_FLOW_FLUSHING;
  }
  g_queue_push_tail(&self->samples, sample);
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);

  GstFlowReturn ret = GST_FLOW_OK;
  if (emit_signals) g_signal_emit(self, signals[SIGNAL_NEW_TENSOR], 0, &ret);
  return ret;
}

static void clear_samples(GstCudaTensorSink *self) {
  while (!g_queue_is_empty(&self->samples))
    gst_sample_unref(static_cast<GstSample *>(g_queue_pop_head(&self->samples)));
}

static gboolean gst_cuda_tensor_sink_event(GstBaseSink *bsink, GstEvent *event) {
  auto *self = GST_CUDA_TENSOR_SINK(bsink);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_EOS:
      g_mutex_lock(&self->lock);
      self->eos = TRUE;
      g_cond_broadcast(&self->cond);
      g_mutex_unlock(&self->lock);
      break;
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock(&self->lock);
      clear_samples(self);
      self->eos = FALSE;
      g_mutex_unlock(&self->lock);
      break;
    default:
      break;
  }
  return GST_BASE_SINK_CLASS(gst_cuda_tensor_sink_parent_class)->event(bsink, event);
}

static gboolean gst_cuda_tensor_sink_start(GstBaseSink *bsink) {
  auto *self = GST_CUDA_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  self->started = TRUE;
  self->flushing = FALSE;
  self->eos = FALSE;
  g_mutex_unlock(&self->lock);
  self->npy_index = 0;
  return TRUE;
}

static gboolean gst_cuda_tensor_sink_stop(GstBaseSink *bsink) {
  auto *self = GST_CUDA_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  self->started = FALSE;
  clear_samples(self);
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);
  gboolean ok = TRUE;
  if (self->npy_stream != nullptr) {
    ok = CUDAPREP_CHECK(self, cudaSetDevice(self->npy_device)) &&
         CUDAPREP_CHECK(self, cudaStreamDestroy(self->npy_stream));
    self->npy_stream = nullptr;
  }
  return ok;
}

// Wakes a render() waiting for room and pulls waiting for tensors.
static gboolean gst_cuda_tensor_sink_unlock(GstBaseSink *bsink) {
  auto *self = GST_CUDA_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  self->flushing = TRUE;
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);
  return TRUE;
}

static gboolean gst_cuda_tensor_sink_unlock_stop(GstBaseSink *bsink) {
  auto *self = GST_CUDA_TENSOR_SINK(bsink);
  g_mutex_lock(&self->lock);
  self->flushing = FALSE;
  g_mutex_unlock(&self->lock);
  return TRUE;
}

static void gst_cuda_tensor_sink_set_property(GObject *object, guint prop_id, const GValue *value,
                                              GParamSpec *pspec) {
  auto *self = GST_CUDA_TENSOR_SINK(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_EMIT_SIGNALS:
      self->emit_signals = g_value_get_boolean(value);
      break;
    case PROP_MAX_BUFFERS:
      self->max_buffers = g_value_get_uint(value);
      break;
    case PROP_DROP:
      self->drop = g_value_get_boolean(value);
      break;
    case PROP_LOCATION:
      g_free(self->location);
      self->location = g_value_dup_string(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
  if (prop_id == PROP_MAX_BUFFERS || prop_id == PROP_DROP) {
    // A waiting render() re-checks the room.
    g_mutex_lock(&self->lock);
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
  }
}

static void gst_cuda_tensor_sink_get_property(GObject *object, guint prop_id, GValue *value,
                                              GParamSpec *pspec) {
  auto *self = GST_CUDA_TENSOR_SINK(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_EMIT_SIGNALS:
      g_value_set_boolean(value, self->emit_signals);
      break;
    case PROP_MAX_BUFFERS:
      g_value_set_uint(value, self->max_buffers);
      break;
    case PROP_DROP:
      g_value_set_boolean(value, self->drop);
      break;
    case PROP_LOCATION:
      g_value_set_string(value, self->location);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_tensor_sink_finalize(GObject *object) {
  auto *self = GST_CUDA_TENSOR_SINK(object);
  clear_samples(self);
  g_free(self->location);
  g_mutex_clear(&self->lock);
  g_cond_clear(&self->cond);
  G_OBJECT_CLASS(gst_cuda_tensor_sink_parent_class)->finalize(object);
}

static void gst_cuda_tensor_sink_class_init(GstCudaTensorSinkClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS(klass);

  gobject_class->set_property = gst_cuda_tensor_sink_set_property;
  gobject_class->get_property = gst_cuda_tensor_sink_get_property;
  gobject_class->finalize = gst_cuda_tensor_sink_finalize;

  const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property(
      gobject_class, PROP_EMIT_SIGNALS,
      g_param_spec_boolean("emit-signals", "Emit signals",
                           "Emit new-tensor when a tensor is queued (off by default: a signal "
                           "per tensor costs a little; pull instead)",
                           DEFAULT_EMIT_SIGNALS, flags));
  g_object_class_install_property(
      gobject_class, PROP_MAX_BUFFERS,
      g_param_spec_uint("max-buffers", "Max buffers",
                        "Tensors waiting for the application at most (0: unlimited, which holds "
                        "device memory without bound if nobody pulls); when full, see drop",
                        0, G_MAXUINT, DEFAULT_MAX_BUFFERS, flags));
  g_object_class_install_property(
      gobject_class, PROP_DROP,
      g_param_spec_boolean("drop", "Drop",
                           "When max-buffers tensors wait: false makes the pipeline wait for the "
                           "application (no tensor lost); true drops the oldest (live sources, "
                           "or gst-launch-1.0 where nobody pulls)",
                           DEFAULT_DROP, flags));
  g_object_class_install_property(
      gobject_class, PROP_LOCATION,
      g_param_spec_string("location", "Location",
                          "Also write each tensor to a NumPy .npy file named by this printf "
                          "pattern of the tensor's index, e.g. \"tensor-%05d.npy\" (NULL: no "
                          "files); the host waits for each copy, so only for debugging",
                          nullptr, flags));

  // GstFlowReturn handler(GstCudaTensorSink *sink, gpointer user_data): pull
  // the tensor from it (streaming thread; do not block long).
  signals[SIGNAL_NEW_TENSOR] =
      g_signal_new("new-tensor", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, nullptr, nullptr,
                   nullptr, GST_TYPE_FLOW_RETURN, 0, G_TYPE_NONE);
  signals[SIGNAL_PULL_TENSOR] =
      g_signal_new_class_handler("pull-tensor", G_TYPE_FROM_CLASS(klass),
                                 static_cast<GSignalFlags>(G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION),
                                 G_CALLBACK(gst_cuda_tensor_sink_pull_tensor), nullptr, nullptr,
                                 nullptr, GST_TYPE_SAMPLE, 0, G_TYPE_NONE);
  signals[SIGNAL_TRY_PULL_TENSOR] =
      g_signal_new_class_handler("try-pull-tensor", G_TYPE_FROM_CLASS(klass),
                                 static_cast<GSignalFlags>(G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION),
                                 G_CALLBACK(gst_cuda_tensor_sink_try_pull_tensor), nullptr, nullptr,
                                 nullptr, GST_TYPE_SAMPLE, 1, GST_TYPE_CLOCK_TIME);

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA tensor sink", "Sink/Hardware",
      "Hands the application each CUDA tensor (pull API and signal, like appsink) with its ready "
      "event and a zero-copy DLPack export; optionally writes them as .npy files",
      "cudaprep developers");

  sink_class->render = gst_cuda_tensor_sink_render;
  sink_class->event = gst_cuda_tensor_sink_event;
  sink_class->start = gst_cuda_tensor_sink_start;
  sink_class->stop = gst_cuda_tensor_sink_stop;
  sink_class->unlock = gst_cuda_tensor_sink_unlock;
  sink_class->unlock_stop = gst_cuda_tensor_sink_unlock_stop;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_tensor_sink_debug, "cudatensorsink", 0, "CUDA tensor sink");
}

static void gst_cuda_tensor_sink_init(GstCudaTensorSink *self) {
  self->emit_signals = DEFAULT_EMIT_SIGNALS;
  self->max_buffers = DEFAULT_MAX_BUFFERS;
  self->drop = DEFAULT_DROP;
  g_mutex_init(&self->lock);
  g_cond_init(&self->cond);
  g_queue_init(&self->samples);
  self->npy_device = -1;
}
