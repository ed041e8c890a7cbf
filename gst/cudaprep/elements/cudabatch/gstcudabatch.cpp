/**
 * SECTION:element-cudabatch
 *
 * N sources into one batch tensor, one kernel launch per batch: the open,
 * plain-GStreamer counterpart of nvstreammux + nvinfer's batching. Each
 * request sink pad (sink_0, sink_1, ...) takes one camera or stream behind
 * its own cudaframeupload ! cudaresize ! cudanormalize chain; sources may
 * differ in resolution and pixel format, their chains must agree on the
 * planar frame they make (size, channel order, dtype). cudabatch announces
 * GstCudaPrepPendingMeta in its allocation answer, so those chains leave
 * their resize and normalisation pending and every frame of a batch is
 * written by ONE cudaprep::preprocess_batch() launch. Frames that arrive
 * already normalised are copied in by one tensorize launch each.
 *
 * A batch leaves as one tensor buffer (the caps and meta of cudatensorize:
 * per item the source frame's PTS, its geometry, its source index N of
 * sink_N, and region_id -1). Built on GstAggregator. Live sources: frames
 * join the batch earliest first across whichever sources have them, no
 * source waits for the others; a full batch leaves at once, one that is
 * not full when its oldest frame has waited latency-budget (the LATENCY
 * answer includes it); max-source-frames caps one source's frames per
 * batch. Other sources: the batch takes their frames in turn (sink_0,
 * sink_1, ...) until batch-size items are filled. A source at EOS
 * stops counting while the others go on; when every source is at EOS the
 * partial batch leaves and EOS follows. A flush of every source (a seek)
 * drops the partial batch; a flush on one pad drops that source's items
 * only. New caps on a pad first push the batch begun under the old ones.
 * source-policy says what a faster source does: wait (every frame, in turn;
 * its queue fills and holds it back) or latest (only its newest frame per
 * turn, older ones dropped).
 *
 * Per source, `stats` (and an element message every stats-interval ms)
 * counts frames in, items batched and frames dropped (by source-policy=latest,
 * by a flush), and gives the latency from a frame's arrival at its pad to
 * its batch leaving (host time), p50 and p99 over the source's last
 * latency-window items.
 *
 * Regions as items (nvdspreprocess' ROIs, the secondary-classifier pattern):
 * a pad's `region-source` makes each region of a frame one item instead of
 * the whole frame, cropped from the source frame and resized, letterboxed
 * and normalised exactly as the pad's cudaresize ! cudanormalize would do it
 * behind a cudacrop of that region. `region-source=regions` takes the pad's
 * static `regions` (ids 0, 1, ...); `region-source=roi-meta` takes the
 * frame's GstVideoRegionOfInterestMeta (an upstream detector's, or the
 * application's; optionally only those of `roi-type`; id: the meta's id),
 * clipped to the frame; `region-source=detections` (GStreamer >= 1.24)
 * takes the frame's object detections, GstAnalyticsODMtd in its
 * GstAnalyticsRelationMeta (optionally only of object type `roi-type` and
 * location confidence >= `min-confidence`; id: the result's id), clipped
 * likewise; `region-source=tiles` cuts every frame into overlapping tiles
 * for small objects (SAHI's slicing: `tile-width` x `tile-height`,
 * `tile-overlap` of a tile shared by neighbours, or `tile-overlap-pixels`
 * pixels of it, the last tile of a row or column moved back to the frame's
 * edge, computed again for each frame size; ids 0, 1, ... row by row, then
 * the whole frame with `tile-whole-frame`). The sources do not combine: a
 * pad takes one. A frame with no region gives no item; a frame with more
 * regions than the batch has room for spills into the next batches. Each
 * region item's geometry maps its tensor pixels back to the source frame,
 * and region_id names it. With static regions the upload copies only their
 * bounding box.
 *
 * The single-stream temporal batch stays cudatensorize batch-size=N.
 *
 * Clips for video models (clip-length=T, layout=ncthw or ntchw): each item
 * is a clip of T frames of one source, batch-size clips of any sources per
 * tensor in the order they began (id "clip", caps frames=T). A source's
 * frames go into its clips by cudatensorize's rule (clip-frame-stride,
 * clip-stride), each written once, by one kernel, into every clip that
 * holds it. A clip ends at its T-th frame, at its source's EOS or new caps
 * (as it is), at its source's flush (emptied), or, live, when its latency
 * budget passes: its first frame's arrival plus (T - 1) x clip-frame-stride
 * frame durations (the pad's frame rate; without one, from its last frame)
 * plus latency-budget. Tensors leave in order, when their clips ended; one
 * not full when every source is at EOS or, live, when its first clip is
 * due. The meta gives per clip its source, fill count and frame PTS.
 * source-policy=latest, max-source-frames and region sources do not
 * combine with clips (an error at READY).
 *
 *   gst-launch-1.0 cudabatch name=b batch-size=8 ! cudatensorsink drop=true \
 *     uridecodebin uri=... ! cudaframeupload ! cudaresize add-borders=true ! \
 *       "video/x-raw(memory:CUDAPitched),width=640,height=640" ! cudanormalize ! b.sink_0 \
 *     uridecodebin uri=... ! cudaframeupload ! cudaresize add-borders=true ! \
 *       "video/x-raw(memory:CUDAPitched),width=640,height=640" ! cudanormalize ! b.sink_1
 *
 *   gst-launch-1.0 cudabatch name=b batch-size=4 sink_0::region-source=regions \
 *       sink_0::regions="<<0,0,960,540>,<960,0,960,540>,<0,540,960,540>,<960,540,960,540>>" ! \
 *       cudatensorsink drop=true \
 *     videotestsrc ! video/x-raw,width=1920,height=1080 ! cudaframeupload ! \
 *       cudaresize ! "video/x-raw(memory:CUDAPitched),width=224,height=224,format=RGB" ! \
 *       cudanormalize ! b.sink_0
 *
 *   gst-launch-1.0 cudabatch name=b batch-size=32 sink_0::region-source=tiles \
 *       sink_0::tile-width=640 sink_0::tile-height=640 sink_0::tile-overlap=0.2 ! \
 *       cudatensorsink drop=true \
 *     videotestsrc ! video/x-raw,width=3840,height=2160 ! cudaframeupload ! \
 *       cudaresize add-borders=true ! \
 *       "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB" ! \
 *       cudanormalize ! b.sink_0
 *
 *   gst-launch-1.0 -e cudabatch name=b batch-size=4 clip-length=16 layout=ncthw ! \
 *       cudatensorsink drop=true \
 *     videotestsrc is-live=true ! video/x-raw,framerate=30/1 ! cudaframeupload ! cudaresize ! \
 *       "video/x-raw(memory:CUDAPitched),width=224,height=224" ! cudanormalize ! b.sink_0 \
 *     videotestsrc is-live=true ! video/x-raw,framerate=15/1 ! cudaframeupload ! cudaresize ! \
 *       "video/x-raw(memory:CUDAPitched),width=224,height=224" ! cudanormalize ! b.sink_1
 */
#include "elements/cudabatch/gstcudabatch-private.h"

#include <gst/video/video.h>

#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepelementname-private.h>
#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "cudaprep/kernel_runtime.h"
#include "cudaprep/tensorize.h"
#include "base/gstcudaprepcore.h"
#include "base/gstcudapreppendingmeta.h"
#include "base/gstcudaprepregion.h"
#include "base/gstcudapreptensorformat.h"

GST_DEBUG_CATEGORY(gst_cuda_prep_batch_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_batch_debug

using namespace cudaprep::batch;

// Posts the element error for a pad whose region settings cannot work, or
// whose settings the element's clip settings rule out (`pad` NULL: the
// element's own clip settings).
static gboolean check_pad_settings(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad) {
  std::string reason = pad != nullptr ? gst_cuda_prep_batch_pad_settings_error(
                                            pad, gst_cuda_prep_batch_pad_get_settings(pad))
                                      : std::string();
  if (reason.empty())
    reason = clip_settings_error(get_settings(self), pad != nullptr
                                                         ? std::vector<GstCudaPrepBatchPad *>{pad}
                                                         : std::vector<GstCudaPrepBatchPad *>{});
  if (reason.empty()) return TRUE;
  GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", reason.c_str()), (nullptr));
  return FALSE;
}

// --- Element ----------------------------------------------------------------

static void gst_cuda_prep_batch_child_proxy_init(gpointer g_iface, gpointer iface_data);

G_DEFINE_TYPE_WITH_CODE(GstCudaPrepBatch, gst_cuda_prep_batch, GST_TYPE_AGGREGATOR,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_CHILD_PROXY,
                                              gst_cuda_prep_batch_child_proxy_init))
GST_ELEMENT_REGISTER_DEFINE(cudabatch, "cudabatch", GST_RANK_NONE, GST_TYPE_CUDA_PREP_BATCH)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink_%u", GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS(GST_CUDA_PREP_PLANAR_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_CUDA_PREP_TENSOR_CAPS));

namespace cudaprep::batch {

BatchSettings get_settings(GstCudaPrepBatch *self) {
  GST_OBJECT_LOCK(self);
  const BatchSettings settings = self->priv->settings;
  GST_OBJECT_UNLOCK(self);
  return settings;
}

// The sink pads, each with a reference, in pad order.
std::vector<GstCudaPrepBatchPad *> sink_pads(GstCudaPrepBatch *self) {
  std::vector<GstCudaPrepBatchPad *> pads;
  GST_OBJECT_LOCK(self);
  for (GList *l = GST_ELEMENT(self)->sinkpads; l != nullptr; l = l->next)
    pads.push_back(GST_CUDA_PREP_BATCH_PAD(gst_object_ref(l->data)));
  GST_OBJECT_UNLOCK(self);
  return pads;
}

void unref_pads(std::vector<GstCudaPrepBatchPad *> *pads) {
  for (GstCudaPrepBatchPad *pad : *pads) gst_object_unref(pad);
  pads->clear();
}

const std::vector<GstCudaPrepBatchPad *> &streaming_sink_pads(GstCudaPrepBatch *self) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  GST_OBJECT_LOCK(self);
  const guint32 cookie = GST_ELEMENT(self)->pads_cookie;
  GST_OBJECT_UNLOCK(self);
  if (!priv->has_streaming_pads || cookie != priv->streaming_pads_cookie) {
    clear_streaming_sink_pads(self);
    GST_OBJECT_LOCK(self);
    for (GList *l = GST_ELEMENT(self)->sinkpads; l != nullptr; l = l->next)
      priv->streaming_pads.push_back(GST_CUDA_PREP_BATCH_PAD(gst_object_ref(l->data)));
    priv->streaming_pads_cookie = GST_ELEMENT(self)->pads_cookie;
    GST_OBJECT_UNLOCK(self);
    priv->has_streaming_pads = TRUE;
  }
  return priv->streaming_pads;
}

void clear_streaming_sink_pads(GstCudaPrepBatch *self) {
  unref_pads(&self->priv->streaming_pads);
  self->priv->has_streaming_pads = FALSE;
}

}  // namespace cudaprep::batch

static GstPad *gst_cuda_prep_batch_request_new_pad(GstElement *element, GstPadTemplate *templ,
                                                   const gchar *name, const GstCaps *caps) {
  GstPad *pad = GST_ELEMENT_CLASS(gst_cuda_prep_batch_parent_class)
                    ->request_new_pad(element, templ, name, caps);
  if (pad == nullptr) return nullptr;
  // GstAggregator names request pads sink_N; N is the item's source index.
  const gchar *pad_name = GST_PAD_NAME(pad);
  GST_CUDA_PREP_BATCH_PAD(pad)->source_index =
      static_cast<gint>(g_ascii_strtoll(pad_name + strlen("sink_"), nullptr, 10));
  gst_child_proxy_child_added(GST_CHILD_PROXY(element), G_OBJECT(pad), GST_OBJECT_NAME(pad));
  return pad;
}

static void gst_cuda_prep_batch_release_pad(GstElement *element, GstPad *pad) {
  gst_child_proxy_child_removed(GST_CHILD_PROXY(element), G_OBJECT(pad), GST_OBJECT_NAME(pad));
  GST_ELEMENT_CLASS(gst_cuda_prep_batch_parent_class)->release_pad(element, pad);
}

// Pads as children, so that gst-launch sets pad properties
// (cudabatch sink_0::regions=...).
static GObject *gst_cuda_prep_batch_child_proxy_get_child_by_index(GstChildProxy *proxy,
                                                                   guint index) {
  GObject *child = nullptr;
  GST_OBJECT_LOCK(proxy);
  child = static_cast<GObject *>(g_list_nth_data(GST_ELEMENT(proxy)->sinkpads, index));
  if (child != nullptr) gst_object_ref(child);
  GST_OBJECT_UNLOCK(proxy);
  return child;
}

static guint gst_cuda_prep_batch_child_proxy_get_children_count(GstChildProxy *proxy) {
  GST_OBJECT_LOCK(proxy);
  const guint count = GST_ELEMENT(proxy)->numsinkpads;
  GST_OBJECT_UNLOCK(proxy);
  return count;
}

static void gst_cuda_prep_batch_child_proxy_init(gpointer g_iface, gpointer) {
  auto *iface = static_cast<GstChildProxyInterface *>(g_iface);
  iface->get_child_by_index = gst_cuda_prep_batch_child_proxy_get_child_by_index;
  iface->get_children_count = gst_cuda_prep_batch_child_proxy_get_children_count;
}

// --- Caps and negotiation -----------------------------------------------------

// `batch`: items (frames, regions or clips) per tensor.
static GstCaps *tensor_caps(const GstCudaPrepPlanarInfo &info, gint batch,
                            const BatchSettings &settings) {
  GstStructure *tensor = gst_structure_new(
      GST_CUDA_PREP_TENSOR_MEDIA_TYPE, "dtype", G_TYPE_STRING, cudaprep::data_type_name(info.dtype),
      "layout", G_TYPE_STRING, settings.layout_name(), "batch", G_TYPE_INT, batch, "channels",
      G_TYPE_INT, info.channels, "channel-order", G_TYPE_STRING,
      cudaprep::channel_order_name(info.channel_order), "width", G_TYPE_INT, info.width, "height",
      G_TYPE_INT, info.height, nullptr);
  if (settings.clips())
    gst_structure_set(tensor, "frames", G_TYPE_INT, static_cast<gint>(settings.clip_length),
                      nullptr);
  GstCaps *caps = gst_caps_new_empty();
  gst_cuda_prep_caps_append_device(caps, tensor);
  return caps;
}

// New caps on a pad: the first pad's set the tensor; every other pad must
// make the same frame. A change pushes the batch begun under the old caps.
// The kernel that writes frames without pending work into the tensor,
// compiled now rather than on the first batch (a chain's fused kernel is
// its cudaresize's to compile: the pending reader of the allocation query).
static void prepare_tensorize(GstCudaPrepBatch *self, const GstCudaPrepPlanarInfo &info) {
  GstCudaPrepScopedDevice device(gst_cuda_prep_core_get_device_id(self->priv->core));
  const cudaError_t prepared = device.result() == cudaSuccess
                                   ? cudaprep::prepare_tensorize_planar(info.dtype, info.dtype)
                                   : device.result();
  if (prepared != cudaSuccess)
    GST_WARNING_OBJECT(self, "kernels not prepared (the first batch tries again): %s %s",
                       cudaGetErrorName(prepared), cudaprep::kernel_runtime_error().c_str());
}

static gboolean set_pad_caps(GstCudaPrepBatch *self, GstCudaPrepBatchPad *pad, GstCaps *caps) {
  GstCudaPrepBatchPrivate *priv = self->priv;
  GstCudaPrepPlanarInfo info;
  if (!gst_cuda_prep_planar_info_from_caps(&info, caps)) {
    GST_ELEMENT_ERROR(
        self, CORE, NEGOTIATION,
        ("Invalid planar caps on %s: %s", GST_PAD_NAME(pad), GST_CUDA_PREP_PLANAR_CAPS_RULES),
        ("%" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  // A clip never mixes two caps: the pad's clips end as they are.
  if (pad->has_info && priv->writes_clips) end_source_clips(self, pad);
  pad->info = info;
  pad->has_info = TRUE;
  if (get_settings(self).clips()) report_clip_latency(self);
  // Another pad already set the frame: this one must match it, unless it is
  // the only pad with caps (then it may change the tensor).
  std::vector<GstCudaPrepBatchPad *> pads = sink_pads(self);
  gboolean others = FALSE;
  for (GstCudaPrepBatchPad *other : pads) others = others || (other != pad && other->has_info);
  unref_pads(&pads);
  const auto same_frame = [](const GstCudaPrepPlanarInfo &a, const GstCudaPrepPlanarInfo &b) {
    return a.width == b.width && a.height == b.height && a.channel_order == b.channel_order &&
           a.dtype == b.dtype;
  };
  if (priv->has_info && same_frame(priv->info, info)) return TRUE;
  if (priv->has_info && others) {
    GST_ELEMENT_ERROR(
        self, CORE, NEGOTIATION,
        ("%s makes %dx%d %s %s frames, but the batch holds %dx%d %s %s: every source's chain "
         "must resize and normalise to the same frame",
         GST_PAD_NAME(pad), info.width, info.height,
         cudaprep::channel_order_name(info.channel_order), cudaprep::data_type_name(info.dtype),
         priv->info.width, priv->info.height,
         cudaprep::channel_order_name(priv->info.channel_order),
         cudaprep::data_type_name(priv->info.dtype)),
        (nullptr));
    return FALSE;
  }
  // A renegotiation: the frames already taken belong to the old tensor.
  const GstFlowReturn pushed = priv->writes_clips ? push_all_clips(self) : push_batch(self);
  if (pushed != GST_FLOW_OK)
    GST_DEBUG_OBJECT(self, "pushing the partial batch gave %s", gst_flow_get_name(pushed));
  const BatchSettings settings = get_settings(self);
  priv->info = info;
  priv->writes_clips = settings.clips();
  if (priv->writes_clips) {
    priv->clip_desc = cudaprep::make_contiguous_clip_desc(
        settings.clip_layout(), static_cast<int>(settings.batch_size),
        static_cast<int>(settings.clip_length), info.channels, info.height, info.width, info.dtype);
    size_t offset_bytes = 0;
    priv->desc = cudaprep::clip_frame_desc(priv->clip_desc, 0, 0, &offset_bytes);
    priv->clips.reset(settings.clip_rule(), priv->clip_desc);
  } else {
    priv->desc = cudaprep::make_contiguous_tensor_desc(
        static_cast<cudaprep::TensorLayout>(settings.layout), static_cast<int>(settings.batch_size),
        info.channels, info.height, info.width, info.dtype);
  }
  priv->has_info = TRUE;
  prepare_tensorize(self, info);
  // The aggregate thread renegotiates (update_src_caps, then the allocation
  // query) before it takes the next frame.
  gst_pad_mark_reconfigure(GST_AGGREGATOR_SRC_PAD(self));
  return TRUE;
}

// The tensor of the negotiated frame; nothing until a pad has caps.
static GstFlowReturn gst_cuda_prep_batch_update_src_caps(GstAggregator *agg, GstCaps *downstream,
                                                         GstCaps **ret) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  GstCudaPrepBatchPrivate *priv = self->priv;
  if (!priv->has_info) return GST_AGGREGATOR_FLOW_NEED_DATA;
  const gint batch = static_cast<gint>(
      priv->writes_clips ? cudaprep::clip_shape(priv->clip_desc).clips : priv->desc.dims[0]);
  GstCaps *caps = tensor_caps(priv->info, batch, get_settings(self));
  if (downstream != nullptr && !gst_caps_can_intersect(caps, downstream)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Downstream does not take the batch tensor"),
                      ("ours %" GST_PTR_FORMAT ", downstream %" GST_PTR_FORMAT, caps, downstream));
    gst_caps_unref(caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GST_INFO_OBJECT(self, "tensor caps %" GST_PTR_FORMAT, caps);
  *ret = caps;
  return GST_FLOW_OK;
}

static gboolean gst_cuda_prep_batch_sink_event(GstAggregator *agg, GstAggregatorPad *pad,
                                               GstEvent *event) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_START) {
    // The aggregator empties the pad's queue; the items its frames already
    // became leave the batch before it is next filled or pushed (the
    // streaming thread owns the batch). A flush of every pad (a seek) also
    // drops the whole batch in flush().
    const gboolean handled =
        GST_AGGREGATOR_CLASS(gst_cuda_prep_batch_parent_class)->sink_event(agg, pad, event);
    g_atomic_int_inc(&GST_CUDA_PREP_BATCH_PAD(pad)->flush_epoch);
    return handled;
  }
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    GstCaps *caps = nullptr;
    gst_event_parse_caps(event, &caps);
    if (!check_pad_settings(self, GST_CUDA_PREP_BATCH_PAD(pad)) ||
        !set_pad_caps(self, GST_CUDA_PREP_BATCH_PAD(pad), caps)) {
      gst_event_unref(event);
      return FALSE;
    }
  }
  return GST_AGGREGATOR_CLASS(gst_cuda_prep_batch_parent_class)->sink_event(agg, pad, event);
}

// Device frames from each chain; announcing the pending meta lets
// cudaresize and cudanormalize leave their work to the batch's one launch.
static gboolean gst_cuda_prep_batch_sink_query(GstAggregator *agg, GstAggregatorPad *pad,
                                               GstQuery *query) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_ALLOCATION: {
      if (!gst_cuda_prep_core_propose_pool(self->priv->core, query)) return FALSE;
      // One preprocess_batch() per batch, compiled by the chain's cudaresize
      // (or cudanormalize) when it negotiates.
      GstCudaPrepBatchPad *batch_pad = GST_CUDA_PREP_BATCH_PAD(pad);
      GstCudaPrepPendingReader reader;
      reader.dtype = batch_pad->has_info ? batch_pad->info.dtype : cudaprep::DataType::kFloat32;
      // Clips: each frame is written by a launch of its own, into its clips.
      const BatchSettings settings = get_settings(self);
      reader.batched = !settings.clips();
      reader.max_items = settings.clips() ? 1 : static_cast<gint>(MAX(settings.batch_size, 1u));
      gst_cuda_prep_query_add_pending_meta(query, &reader);
      GstCudaPrepRegion region;
      if (gst_cuda_prep_batch_pad_regions_read(GST_CUDA_PREP_BATCH_PAD(pad), &region)) {
        GST_INFO_OBJECT(pad, "the regions read the %dx%d rectangle at (%d,%d)", region.rect.width,
                        region.rect.height, region.rect.x, region.rect.y);
        gst_cuda_prep_query_add_region(query, &region);
      }
      return TRUE;
    }
    case GST_QUERY_CONTEXT:
      if (gst_cuda_prep_core_answer_query(self->priv->core, query)) return TRUE;
      break;
    default:
      break;
  }
  return GST_AGGREGATOR_CLASS(gst_cuda_prep_batch_parent_class)->sink_query(agg, pad, query);
}

static gboolean gst_cuda_prep_batch_src_query(GstAggregator *agg, GstQuery *query) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      gst_cuda_prep_core_answer_query(self->priv->core, query))
    return TRUE;
  return GST_AGGREGATOR_CLASS(gst_cuda_prep_batch_parent_class)->src_query(agg, query);
}

static gboolean gst_cuda_prep_batch_decide_allocation(GstAggregator *agg, GstQuery *query) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  GstCudaPrepBatchPrivate *priv = self->priv;
  return gst_cuda_prep_core_decide_block_pool(priv->core, query,
                                              priv->writes_clips
                                                  ? cudaprep::clip_span_bytes(priv->clip_desc)
                                                  : cudaprep::tensor_span_bytes(priv->desc));
}

// GstAggregator has no flush of its own to chain up to (its vfunc is NULL).
static GstFlowReturn gst_cuda_prep_batch_flush(GstAggregator *agg) {
  for (const GstCudaPrepBatchPrivate::Origin &origin : GST_CUDA_PREP_BATCH(agg)->priv->origins)
    if (GST_CLOCK_TIME_IS_VALID(origin.arrival)) origin.pad->stats->dropped_flush(1);
  drop_items(GST_CUDA_PREP_BATCH(agg));
  GST_CUDA_PREP_BATCH(agg)->priv->clips.drop_all();
  return GST_FLOW_OK;
}

static gboolean gst_cuda_prep_batch_start(GstAggregator *agg) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  self->priv->has_info = FALSE;
  self->priv->next_pad = 0;
  self->priv->writes_clips = FALSE;
  std::vector<GstCudaPrepBatchPad *> pads = sink_pads(self);
  gboolean valid = check_pad_settings(self, nullptr);
  for (GstCudaPrepBatchPad *pad : pads) valid = valid && check_pad_settings(self, pad);
  unref_pads(&pads);
  return valid && gst_cuda_prep_core_start(self->priv->core);
}

static gboolean gst_cuda_prep_batch_stop(GstAggregator *agg) {
  auto *self = GST_CUDA_PREP_BATCH(agg);
  drop_items(self);
  self->priv->clips.drop_all();
  self->priv->next_stats = GST_CLOCK_TIME_NONE;
  // The aggregator discards what the pads still hold.
  std::vector<GstCudaPrepBatchPad *> pads = sink_pads(self);
  for (GstCudaPrepBatchPad *pad : pads) pad->stats->clear_queue(FALSE);
  unref_pads(&pads);
  clear_streaming_sink_pads(self);
  const gint device_id = gst_cuda_prep_core_get_device_id(self->priv->core);
  const gboolean stopped = gst_cuda_prep_core_stop(self->priv->core);  // (synchronises the stream)
  self->priv->writer.finish_gpu_time(device_id);
  self->priv->clips.finish_gpu_time(device_id);
  return stopped;
}

static void gst_cuda_prep_batch_set_context(GstElement *element, GstContext *context) {
  gst_cuda_prep_core_set_context(GST_CUDA_PREP_BATCH(element)->priv->core, context);
  GST_ELEMENT_CLASS(gst_cuda_prep_batch_parent_class)->set_context(element, context);
}

static void gst_cuda_prep_batch_finalize(GObject *object) {
  auto *self = GST_CUDA_PREP_BATCH(object);
  drop_items(self);
  clear_streaming_sink_pads(self);
  delete self->priv;
  G_OBJECT_CLASS(gst_cuda_prep_batch_parent_class)->finalize(object);
}

static void gst_cuda_prep_batch_class_init(GstCudaPrepBatchClass *klass) {
  auto *gobject_class = G_OBJECT_CLASS(klass);
  auto *element_class = GST_ELEMENT_CLASS(klass);
  auto *agg_class = GST_AGGREGATOR_CLASS(klass);
  gobject_class->set_property = set_property;
  gobject_class->get_property = get_property;
  gobject_class->finalize = gst_cuda_prep_batch_finalize;
  cudaprep::name_elements_after_factory(gobject_class);

  install_properties(gobject_class);

  gst_element_class_add_static_pad_template_with_gtype(element_class, &sink_template,
                                                       GST_TYPE_CUDA_PREP_BATCH_PAD);
  gst_element_class_add_static_pad_template_with_gtype(element_class, &src_template,
                                                       GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata(
      element_class, "CUDA batch", "Filter/Converter/Video/Tensor",
      "Frames of many sources into one batch tensor, one kernel launch per batch",
      "cudaprep developers");
  element_class->request_new_pad = gst_cuda_prep_batch_request_new_pad;
  element_class->release_pad = gst_cuda_prep_batch_release_pad;
  element_class->set_context = gst_cuda_prep_batch_set_context;

  agg_class->aggregate = gst_cuda_prep_batch_aggregate;
  agg_class->get_next_time = gst_cuda_prep_batch_get_next_time;
  agg_class->sink_event = gst_cuda_prep_batch_sink_event;
  agg_class->sink_query = gst_cuda_prep_batch_sink_query;
  agg_class->src_query = gst_cuda_prep_batch_src_query;
  agg_class->update_src_caps = gst_cuda_prep_batch_update_src_caps;
  agg_class->decide_allocation = gst_cuda_prep_batch_decide_allocation;
  agg_class->flush = gst_cuda_prep_batch_flush;
  agg_class->start = gst_cuda_prep_batch_start;
  agg_class->stop = gst_cuda_prep_batch_stop;

  gst_type_mark_as_plugin_api(source_policy_get_type(), static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(gst_cuda_prep_batch_region_source_get_type(),
                              static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_BATCH_PAD, static_cast<GstPluginAPIFlags>(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_batch_debug, "cudabatch", 0, "cudaprep batching element");
}

static void gst_cuda_prep_batch_init(GstCudaPrepBatch *self) {
  self->priv = new GstCudaPrepBatchPrivate(GST_ELEMENT(self), kFirstCoreProperty);
  g_object_set(self, "latency", static_cast<guint64>(DEFAULT_LATENCY_BUDGET), nullptr);
}
