#include "gstcudaprepbasetransform.h"

#include <gst/cudaprep/gstcudaprepelementname-private.h>
#include <gst/cudaprep/gstcudaprepcuda-private.h>

#include "cudaprep/kernel_runtime.h"

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "gstcudaprepkernelwatch.h"
#include "gstcudaprepnvcodec.h"
#include "gstcudapreppendingmeta.h"
#include "gstcudapreptrace.h"
#include "gstcudaprepview.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_base_transform_debug

enum { PROP_0, PROP_FIRST_CORE };

struct GstCudaPrepBaseTransformPrivate {
  GstCudaPrepCore *core;
  GstCudaPrepGpuTimer *gpu_timer;  // process()'s GPU time, for the cudapreptime tracer
  // Negotiated (streaming thread).
  GstVideoInfo in_info, out_info;
  gboolean in_is_video, out_is_video;
  gboolean out_on_device;  // memory:CUDAPitched output (else system memory)
  gboolean in_is_nvcodec;  // input frames are GstCudaMemory, read in place
  // From the last allocation query (atomic: read by other threads' queries).
  gint downstream_reads_views;
  gint downstream_runs_pending;
  // The plan prepare_output_buffer chose for the buffer transform() gets.
  GstCudaPrepOutputPlan plan;
};

G_DEFINE_TYPE_WITH_PRIVATE(GstCudaPrepBaseTransform, gst_cuda_prep_base_transform,
                           GST_TYPE_BASE_TRANSFORM)

static GstCudaPrepBaseTransformPrivate *get_priv(GstCudaPrepBaseTransform *self) {
  return static_cast<GstCudaPrepBaseTransformPrivate *>(
      gst_cuda_prep_base_transform_get_instance_private(self));
}

GstCudaPrepCore *gst_cuda_prep_base_transform_get_core(GstCudaPrepBaseTransform *self) {
  return get_priv(self)->core;
}

cudaStream_t gst_cuda_prep_base_transform_get_stream(GstCudaPrepBaseTransform *self) {
  return gst_cuda_prep_core_get_stream(get_priv(self)->core);
}

gint gst_cuda_prep_base_transform_get_device_id(GstCudaPrepBaseTransform *self) {
  return gst_cuda_prep_core_get_device_id(get_priv(self)->core);
}

const GstVideoInfo *gst_cuda_prep_base_transform_get_in_info(GstCudaPrepBaseTransform *self) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  return priv->in_is_video ? &priv->in_info : nullptr;
}

const GstVideoInfo *gst_cuda_prep_base_transform_get_out_info(GstCudaPrepBaseTransform *self) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  return priv->out_is_video ? &priv->out_info : nullptr;
}

gboolean gst_cuda_prep_base_transform_input_image(GstCudaPrepBaseTransform *self, GstBuffer *buffer,
                                                  cudaprep::Image *image) {
  return gst_cuda_prep_element_device_image(GST_ELEMENT(self), buffer, &get_priv(self)->in_info,
                                            "Input", image);
}

gboolean gst_cuda_prep_base_transform_output_image(GstCudaPrepBaseTransform *self,
                                                   GstBuffer *buffer, cudaprep::Image *image) {
  return gst_cuda_prep_element_device_image(GST_ELEMENT(self), buffer, &get_priv(self)->out_info,
                                            "Output", image);
}

gboolean gst_cuda_prep_base_transform_downstream_reads_views(GstCudaPrepBaseTransform *self) {
  return g_atomic_int_get(&get_priv(self)->downstream_reads_views);
}

gboolean gst_cuda_prep_base_transform_downstream_runs_pending(GstCudaPrepBaseTransform *self) {
  return g_atomic_int_get(&get_priv(self)->downstream_runs_pending);
}

gboolean gst_cuda_prep_base_transform_ask_downstream_takes_pending(GstCudaPrepBaseTransform *self) {
  GstPad *src_pad = GST_BASE_TRANSFORM_SRC_PAD(self);
  GstCaps *caps = gst_pad_get_current_caps(src_pad);
  if (caps == nullptr) return FALSE;
  GstQuery *query = gst_query_new_allocation(caps, FALSE);
  const gboolean takes =
      gst_pad_peer_query(src_pad, query) &&
      gst_query_find_allocation_meta(query, GST_CUDA_PREP_PENDING_META_API_TYPE, nullptr);
  gst_query_unref(query);
  gst_caps_unref(caps);
  return takes;
}

static void gst_cuda_prep_base_transform_set_property(GObject *object, guint prop_id,
                                                      const GValue *value, GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(object);
  if (!gst_cuda_prep_core_set_property(get_priv(self)->core, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_cuda_prep_base_transform_get_property(GObject *object, guint prop_id, GValue *value,
                                                      GParamSpec *pspec) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(object);
  if (!gst_cuda_prep_core_get_property(get_priv(self)->core, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_cuda_prep_base_transform_set_context(GstElement *element, GstContext *context) {
  gst_cuda_prep_core_set_context(get_priv(GST_CUDA_PREP_BASE_TRANSFORM(element))->core, context);
  GST_ELEMENT_CLASS(gst_cuda_prep_base_transform_parent_class)->set_context(element, context);
}

// Posts the element's settings error, if any; FALSE then.
static gboolean check_settings(GstCudaPrepBaseTransform *self) {
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  gchar *error = klass->settings_error != nullptr ? klass->settings_error(self) : nullptr;
  if (error == nullptr) return TRUE;
  GstElementFactory *factory = gst_element_get_factory(GST_ELEMENT(self));
  GST_ELEMENT_ERROR(
      self, LIBRARY, SETTINGS,
      ("Invalid %s settings: %s",
       factory != nullptr ? GST_OBJECT_NAME(factory) : G_OBJECT_TYPE_NAME(self), error),
      (nullptr));
  g_free(error);
  return FALSE;
}

static GstStateChangeReturn gst_cuda_prep_base_transform_change_state(GstElement *element,
                                                                      GstStateChange transition) {
  if ((transition == GST_STATE_CHANGE_NULL_TO_READY ||
       transition == GST_STATE_CHANGE_READY_TO_PAUSED) &&
      !check_settings(GST_CUDA_PREP_BASE_TRANSFORM(element)))
    return GST_STATE_CHANGE_FAILURE;
  return GST_ELEMENT_CLASS(gst_cuda_prep_base_transform_parent_class)
      ->change_state(element, transition);
}

static gboolean gst_cuda_prep_base_transform_start(GstBaseTransform *trans) {
  return gst_cuda_prep_core_start(get_priv(GST_CUDA_PREP_BASE_TRANSFORM(trans))->core);
}

static gboolean gst_cuda_prep_base_transform_stop(GstBaseTransform *trans) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(GST_CUDA_PREP_BASE_TRANSFORM(trans));
  priv->in_is_video = priv->out_is_video = priv->in_is_nvcodec = FALSE;
  const gint device_id = gst_cuda_prep_core_get_device_id(priv->core);
  const gboolean stopped = gst_cuda_prep_core_stop(priv->core);  // (synchronises the stream)
  priv->gpu_timer->finish(GST_ELEMENT(trans), device_id);
  return stopped;
}

static gboolean gst_cuda_prep_base_transform_query(GstBaseTransform *trans,
                                                   GstPadDirection direction, GstQuery *query) {
  if (gst_cuda_prep_core_answer_query(get_priv(GST_CUDA_PREP_BASE_TRANSFORM(trans))->core, query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
      ->query(trans, direction, query);
}

static gboolean is_video(GstCaps *caps) {
  return gst_structure_has_name(gst_caps_get_structure(caps, 0), "video/x-raw");
}

// Input frames cudaprep cannot hold, or the element cannot take, are named
// when their caps arrive, even when accept-caps let them past (a format
// change mid-stream), rather than as a bare not-negotiated.
static gboolean gst_cuda_prep_base_transform_sink_event(GstBaseTransform *trans, GstEvent *event) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  GstCaps *caps = nullptr;
  GstVideoInfo info;
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    gst_event_parse_caps(event, &caps);
    gchar *error = nullptr;
    if (is_video(caps) &&
        (!gst_cuda_prep_frame_info_from_caps(GST_ELEMENT(self), caps, &info) ||
         (klass->input_error != nullptr && (error = klass->input_error(self, &info)) != nullptr))) {
      if (error != nullptr)
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("%s", error),
                          ("input caps %" GST_PTR_FORMAT, caps));
      g_free(error);
      gst_event_unref(event);
      return FALSE;
    }
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
      ->sink_event(trans, event);
}

static gboolean gst_cuda_prep_base_transform_set_caps(GstBaseTransform *trans, GstCaps *incaps,
                                                      GstCaps *outcaps) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  GstElement *element = GST_ELEMENT(self);
  // Caps are checked without a device too (an element that failed to
  // start); work on the device needs it current.
  if (!check_settings(self) || (gst_cuda_prep_core_get_device_id(priv->core) >= 0 &&
                                !gst_cuda_prep_core_make_current(priv->core)))
    return FALSE;
  priv->in_is_video = is_video(incaps);
  priv->out_is_video = is_video(outcaps);
  priv->out_on_device = gst_cuda_prep_caps_are_device(outcaps);
  priv->in_is_nvcodec = gst_cuda_prep_caps_are_nvcodec(incaps);
  if ((priv->in_is_video && !gst_cuda_prep_frame_info_from_caps(element, incaps, &priv->in_info)) ||
      (priv->out_is_video &&
       !gst_cuda_prep_frame_info_from_caps(element, outcaps, &priv->out_info)))
    return FALSE;
  if (klass->set_info == nullptr) return TRUE;
  return klass->set_info(self, incaps, gst_cuda_prep_base_transform_get_in_info(self), outcaps,
                         gst_cuda_prep_base_transform_get_out_info(self));
}

// The region a downstream that runs this element's work pending announced,
// when this element hands it its input frame untouched. Checked against the
// frame by the upload: the caps here may describe the result, not the
// source the buffers hold.
static gboolean forwards_downstream_region(GstCudaPrepBaseTransform *self, GstQuery *decide_query,
                                           GstCudaPrepRegion *region) {
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  return klass->hands_input_to_pending &&
         gst_query_find_allocation_meta(decide_query, GST_CUDA_PREP_PENDING_META_API_TYPE,
                                        nullptr) &&
         (klass->accepts_pending == nullptr || klass->accepts_pending(self)) &&
         gst_cuda_prep_query_find_region(decide_query, G_MAXINT, G_MAXINT, region) &&
         (!region->of_result || klass->pending_keeps_pixels);
}

// Offers upstream a pool of device frames on this element's device, and
// says what the element reads (region) and takes (pending work).
static gboolean gst_cuda_prep_base_transform_propose_allocation(GstBaseTransform *trans,
                                                                GstQuery *decide_query,
                                                                GstQuery *query) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  if (gst_base_transform_is_passthrough(trans) || decide_query == nullptr)
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
        ->propose_allocation(trans, decide_query, query);
  if (!gst_cuda_prep_core_propose_pool(get_priv(self)->core, query)) return FALSE;

  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  GstCudaPrepRegion region;
  if (forwards_downstream_region(self, decide_query, &region) ||
      (klass->region_read != nullptr && caps != nullptr && gst_video_info_from_caps(&info, caps) &&
       klass->region_read(self, &info, &region)))
    gst_cuda_prep_query_add_region(query, &region);
  if (klass->accepts_pending != nullptr && klass->accepts_pending(self)) {
    // What runs the work: this element, or the downstream it hands it to.
    GstCudaPrepPendingReader reader;
    const gboolean known = klass->pending_reader != nullptr
                               ? klass->pending_reader(self, caps, &reader)
                               : gst_cuda_prep_query_find_pending_reader(decide_query, &reader);
    gst_cuda_prep_query_add_pending_meta(query, known ? &reader : nullptr);
  }
  return TRUE;
}

// Device frames out: downstream's pool when it is one of device frames on
// our device, else our own. Other payloads: blocks of the element's size.
// System memory: the default way.
static gboolean decide_pools(GstBaseTransform *trans, GstQuery *query) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  g_atomic_int_set(&priv->downstream_reads_views,
                   gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr));
  g_atomic_int_set(
      &priv->downstream_runs_pending,
      gst_query_find_allocation_meta(query, GST_CUDA_PREP_PENDING_META_API_TYPE, nullptr));

  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  if (!is_video(caps)) {
    if (klass->output_block_size == nullptr) {
      GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Output caps are not video caps"),
                        ("%" GST_PTR_FORMAT, caps));
      return FALSE;
    }
    return gst_cuda_prep_core_decide_block_pool(priv->core, query, klass->output_block_size(self));
  }
  if (gst_cuda_prep_caps_are_device(caps))
    return gst_cuda_prep_core_decide_frame_pool(priv->core, query);
  GstVideoInfo info;
  if (gst_query_get_n_allocation_pools(query) == 0 && gst_video_info_from_caps(&info, caps)) {
    GstBufferPool *pool = gst_video_buffer_pool_new();
    gst_query_add_allocation_pool(query, pool, GST_VIDEO_INFO_SIZE(&info), 0, 0);
    gst_object_unref(pool);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
      ->decide_allocation(trans, query);
}

// The kernels this element will launch, or the fused one a downstream that
// runs its work announced, compiled now rather than on the first frame.
static void prepare_kernels(GstCudaPrepBaseTransform *self, GstQuery *query) {
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  if (klass->prepare_kernels == nullptr) return;
  GstCudaPrepPendingReader reader;
  const gboolean announced = gst_cuda_prep_query_find_pending_reader(query, &reader);
  if (gst_cuda_prep_base_transform_downstream_runs_pending(self) && !announced) return;
  GstCudaPrepScopedDevice device(gst_cuda_prep_base_transform_get_device_id(self));
  if (device.result() != cudaSuccess) return;  // the first frame reports it
  const cudaprep::KernelRuntimeStats before = cudaprep::kernel_runtime_stats();
  const cudaError_t prepared = klass->prepare_kernels(self, announced ? &reader : nullptr);
  if (prepared != cudaSuccess) {
    GST_WARNING_OBJECT(self, "kernels not prepared (the first frame tries again): %s %s",
                       cudaGetErrorName(prepared), cudaprep::kernel_runtime_error().c_str());
    return;
  }
  const cudaprep::KernelRuntimeStats after = cudaprep::kernel_runtime_stats();
  GST_INFO_OBJECT(self,
                  "kernels ready%s: %" G_GUINT64_FORMAT " compiled in %.3f s, %" G_GUINT64_FORMAT
                  " loaded from the cache",
                  announced ? " (for downstream's fused kernel)" : "",
                  after.compiled - before.compiled, after.compile_seconds - before.compile_seconds,
                  after.loaded_from_disk - before.loaded_from_disk);
}

static gboolean gst_cuda_prep_base_transform_decide_allocation(GstBaseTransform *trans,
                                                               GstQuery *query) {
  if (!decide_pools(trans, query)) return FALSE;
  prepare_kernels(GST_CUDA_PREP_BASE_TRANSFORM(trans), query);
  return TRUE;
}

static GstFlowReturn gst_cuda_prep_base_transform_prepare_output_buffer(GstBaseTransform *trans,
                                                                        GstBuffer *input,
                                                                        GstBuffer **output) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  if (gst_base_transform_is_passthrough(trans)) {
    *output = input;
    return GST_FLOW_OK;
  }
  priv->plan =
      klass->plan_output != nullptr ? klass->plan_output(self, input) : GST_CUDA_PREP_OUTPUT_RUN;
  switch (priv->plan) {
    case GST_CUDA_PREP_OUTPUT_IN_PLACE:
      *output = gst_cuda_prep_buffer_in_place_output(input);
      return GST_FLOW_OK;
    case GST_CUDA_PREP_OUTPUT_DROP:
      *output = input;  // transform() drops it
      return GST_FLOW_OK;
    case GST_CUDA_PREP_OUTPUT_ERROR:
      return GST_FLOW_ERROR;
    case GST_CUDA_PREP_OUTPUT_RUN:
      break;
  }
  // System memory out (download): GstBaseTransform's own way.
  if (!priv->out_on_device)
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
        ->prepare_output_buffer(trans, input, output);
  // Device memory: an allocation failure is named with its size and device.
  GstBufferPool *pool = gst_base_transform_get_buffer_pool(trans);
  const GstFlowReturn ret = gst_cuda_prep_core_acquire(priv->core, pool, output);
  if (pool != nullptr) gst_object_unref(pool);
  if (ret != GST_FLOW_OK) return ret;
  GST_BASE_TRANSFORM_GET_CLASS(trans)->copy_metadata(trans, input, *output);
  return GST_FLOW_OK;
}

static GstFlowReturn run(GstCudaPrepBaseTransform *self, GstBuffer *inbuf, GstBuffer *outbuf) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  GstCudaPrepCore *core = priv->core;
  if (!gst_cuda_prep_core_make_current(core) || !gst_cuda_prep_core_begin_read(core, inbuf) ||
      !gst_cuda_prep_core_begin_write(core, outbuf))
    return GST_FLOW_ERROR;
  // After the stream's waits for other elements: the pair spans this
  // element's own work.
  const cudaStream_t stream = gst_cuda_prep_core_get_stream(core);
  priv->gpu_timer->begin(GST_ELEMENT(self), stream);
  GstFlowReturn ret;
  {
    const GstCudaPrepKernelWatch watch(GST_ELEMENT(self));
    ret = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self)->process(self, inbuf, outbuf);
  }
  priv->gpu_timer->end(GST_ELEMENT(self), stream, 1);
  if (ret != GST_FLOW_OK) return ret;
  if (!gst_cuda_prep_core_end_write(core, outbuf) || !gst_cuda_prep_core_end_read(core, inbuf))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

static GstFlowReturn gst_cuda_prep_base_transform_transform(GstBaseTransform *trans,
                                                            GstBuffer *inbuf, GstBuffer *outbuf) {
  auto *self = GST_CUDA_PREP_BASE_TRANSFORM(trans);
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(self);
  const GstCudaPrepOutputPlan plan = get_priv(self)->plan;
  if (plan == GST_CUDA_PREP_OUTPUT_DROP) return GST_BASE_TRANSFORM_FLOW_DROPPED;
  if (klass->annotate_output != nullptr && !klass->annotate_output(self, inbuf, outbuf, plan))
    return GST_FLOW_ERROR;
  // The source mapping follows frames whose pixels do not move.
  GstCudaPrepGeometryMeta *geometry = gst_buffer_get_cuda_prep_geometry_meta(inbuf);
  if (outbuf != inbuf && geometry != nullptr &&
      gst_buffer_get_cuda_prep_geometry_meta(outbuf) == nullptr)
    gst_buffer_add_cuda_prep_geometry_meta(outbuf, &geometry->geometry);
  if (plan == GST_CUDA_PREP_OUTPUT_IN_PLACE) return GST_FLOW_OK;
  return run(self, inbuf, outbuf);
}

// The geometry meta is carried by transform(), after the element's own step.
static gboolean gst_cuda_prep_base_transform_transform_meta(GstBaseTransform *trans,
                                                            GstBuffer *outbuf, GstMeta *meta,
                                                            GstBuffer *inbuf) {
  if (meta->info->api == GST_CUDA_PREP_GEOMETRY_META_API_TYPE) return FALSE;
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
      ->transform_meta(trans, outbuf, meta, inbuf);
}

gboolean gst_cuda_prep_base_transform_input_is_nvcodec(GstCudaPrepBaseTransform *self) {
  return get_priv(self)->in_is_nvcodec;
}

// nvcodec's frames become cudaprep device frames over the same memory
// before GstBaseTransform sees them, so every plan and kernel reads them
// like any other device frame.
static GstFlowReturn gst_cuda_prep_base_transform_submit_input_buffer(GstBaseTransform *trans,
                                                                      gboolean is_discont,
                                                                      GstBuffer *input) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(GST_CUDA_PREP_BASE_TRANSFORM(trans));
  if (priv->in_is_nvcodec) {
    gchar *error = nullptr;
    GstBuffer *frame = gst_cuda_prep_core_make_current(priv->core)
                           ? gst_cuda_prep_nvcodec_wrap_buffer(
                                 input, gst_cuda_prep_core_get_device_id(priv->core), &error)
                           : nullptr;
    gst_buffer_unref(input);
    if (frame == nullptr) {
      if (error != nullptr)
        GST_ELEMENT_ERROR(trans, STREAM, FAILED,
                          ("Cannot read the decoder's CUDA frame: %s", error), (nullptr));
      g_free(error);
      return GST_FLOW_ERROR;
    }
    input = frame;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_base_transform_parent_class)
      ->submit_input_buffer(trans, is_discont, input);
}

static void gst_cuda_prep_base_transform_finalize(GObject *object) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(GST_CUDA_PREP_BASE_TRANSFORM(object));
  gst_cuda_prep_core_free(priv->core);
  delete priv->gpu_timer;
  G_OBJECT_CLASS(gst_cuda_prep_base_transform_parent_class)->finalize(object);
}

static void gst_cuda_prep_base_transform_class_init(GstCudaPrepBaseTransformClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_cuda_prep_base_transform_set_property;
  gobject_class->get_property = gst_cuda_prep_base_transform_get_property;
  gobject_class->finalize = gst_cuda_prep_base_transform_finalize;
  cudaprep::name_elements_after_factory(gobject_class);
  gst_cuda_prep_core_install_properties(gobject_class, PROP_FIRST_CORE);

  element_class->set_context = gst_cuda_prep_base_transform_set_context;
  element_class->change_state = gst_cuda_prep_base_transform_change_state;

  trans_class->start = gst_cuda_prep_base_transform_start;
  trans_class->stop = gst_cuda_prep_base_transform_stop;
  trans_class->query = gst_cuda_prep_base_transform_query;
  trans_class->sink_event = gst_cuda_prep_base_transform_sink_event;
  trans_class->set_caps = gst_cuda_prep_base_transform_set_caps;
  trans_class->propose_allocation = gst_cuda_prep_base_transform_propose_allocation;
  trans_class->decide_allocation = gst_cuda_prep_base_transform_decide_allocation;
  trans_class->prepare_output_buffer = gst_cuda_prep_base_transform_prepare_output_buffer;
  trans_class->transform = gst_cuda_prep_base_transform_transform;
  trans_class->transform_meta = gst_cuda_prep_base_transform_transform_meta;
  trans_class->submit_input_buffer = gst_cuda_prep_base_transform_submit_input_buffer;
  // Passthrough hands the buffer on untouched; transform_ip is never set.
  trans_class->transform_ip_on_passthrough = FALSE;

  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_base_transform_debug, "cudaprepbasetransform", 0,
                          "cudaprep CUDA element base class");
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_BASE_TRANSFORM, static_cast<GstPluginAPIFlags>(0));
}

static void gst_cuda_prep_base_transform_init(GstCudaPrepBaseTransform *self) {
  GstCudaPrepBaseTransformPrivate *priv = get_priv(self);
  priv->core = gst_cuda_prep_core_new(GST_ELEMENT(self), PROP_FIRST_CORE);
  priv->gpu_timer = new GstCudaPrepGpuTimer();
  gst_video_info_init(&priv->in_info);
  gst_video_info_init(&priv->out_info);
}
