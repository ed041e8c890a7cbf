/**
 * SECTION:element-cudatensorize
 *
 * Packs frames into the network's input tensor: a batch of batch-size frames
 * in NCHW or NHWC layout, contiguous, float32, float16 or uint8, in one pass
 * over memory per frame. Input is either the planar float frame of
 * cudanormalize (float32/float16 tensors) or 8-bit device video (uint8
 * tensors, the pixels unchanged, alpha dropped, channels in the source's
 * order). dtype=auto (default) keeps the input's element type; an explicit
 * float dtype converts cudanormalize's frames (rounded to nearest even).
 *
 * Output caps:
 *
 *   other/x-cudaprep-tensor(memory:CUDAPitched), dtype=(string){float32,float16,uint8},
 *     layout=(string){NCHW,NHWC,NCTHW,NTCHW}, batch=(int)N, channels=(int)C,
 *     channel-order=(string){RGB,BGR,GRAY}, width=(int)W, height=(int)H
 *     (clips also frames=(int)T)
 *
 * Every output buffer carries a GstCudaPrepTensorMeta with one tensor (id
 * "image"): shape and byte strides in layout order, dtype, device id, device
 * pointer, the ready event to wait on (recorded after the last frame of the
 * batch was written), and per batch item the source frame's PTS and the
 * geometry mapping tensor pixels back to it. The buffer's PTS is the first
 * item's.
 *
 * A tensor leaves every batch-size frames. At EOS and before any
 * renegotiation (new input caps, or a new batch-size, layout or dtype) a
 * partial batch leaves with batch_filled < batch_size in its meta (its shape
 * keeps the batch it was started with; the missing items are zeros); a flush
 * drops a partial batch.
 *
 * Clips (video models): with clip-length=T and layout=ncthw or ntchw each
 * item is a clip of T frames and the tensor is 5-D, NCTHW {N, C, T, H, W}
 * or NTCHW {N, T, C, H, W}, with batch-size clips (id "clip"; the caps say
 * frames=T). A clip takes every clip-frame-stride-th frame; a clip begins
 * every clip-stride frames (0: when the last one ended; less than
 * clip-length x clip-frame-stride overlaps them). Each frame is written by
 * one kernel straight into its place in every clip that holds it (the
 * fused kernel resamples it once for all); no frame is held or copied. A tensor leaves when its
 * last clip has its T frames; at EOS and before a renegotiation the open tensors leave as they are
 * (the meta's clip_filled and frame_pts say which frames each clip holds, the rest are zeros), so a
 * clip never mixes two caps; a flush drops them and counts frames from 0 again. A GAP adds no
 * frame: a clip holds the frames that came, and its frame_pts show the hole.
 *
 *   gst-launch-1.0 videotestsrc num-buffers=64 ! cudaframeupload ! cudaresize !
 * video/x-raw(memory:CUDAPitched),width=224,height=224 ! cudanormalize ! cudatensorize
 * clip-length=16 clip-stride=8 layout=ncthw ! cudatensorsink location=clip-%05d.npy
 *
 *   gst-launch-1.0 videotestsrc ! cudaframeupload ! cudanormalize ! cudatensorize batch-size=4
 * layout=nhwc dtype=float16 ! cudatensorsink drop=true
 */
#include "gstcudatensorize-private.h"

#include <gst/video/video.h>

#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "base/gstcudaprepbatchwriter.h"
#include "base/gstcudapreppixelmetas.h"
#include "base/gstcudapreptensorformat.h"
#include "cudaprep/tensorize.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_tensorize_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_tensorize_debug

G_DEFINE_TYPE(GstCudaPrepTensorize, gst_cuda_prep_tensorize, GST_TYPE_CUDA_PREP_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(cudatensorize, "cudatensorize", GST_RANK_NONE,
                            GST_TYPE_CUDA_PREP_TENSORIZE)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_CUDA_PREP_PLANAR_CAPS
                    ";" GST_CUDA_PREP_VIDEO_CAPS(GST_CUDA_PREP_INTERLEAVED_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_CUDA_PREP_TENSOR_CAPS));

// The element type of tensors of this input: the dtype property, or with
// dtype=auto the input's (planar frames: theirs; video: uint8).
static gboolean resolve_dtype(gint dtype_setting, const GstStructure *input,
                              cudaprep::DataType *dtype) {
  if (dtype_setting != GST_CUDA_PREP_TENSOR_DTYPE_AUTO) {
    *dtype = static_cast<cudaprep::DataType>(dtype_setting);
    return TRUE;
  }
  if (!gst_structure_has_name(input, GST_CUDA_PREP_PLANAR_MEDIA_TYPE)) {
    *dtype = cudaprep::DataType::kUInt8;
    return TRUE;
  }
  return gst_cuda_prep_data_type_from_string(gst_structure_get_string(input, "dtype"), dtype);
}

static gchar *gst_cuda_prep_tensorize_settings_error(GstCudaPrepBaseTransform *base) {
  return gst_cuda_prep_tensorize_settings_problem(
      gst_cuda_prep_tensorize_get_settings(GST_CUDA_PREP_TENSORIZE(base)));
}

// Input -> tensor with the properties' layout, batch and dtype (whether the
// dtype suits the input is checked in set_info, with a message); tensor ->
// planar frames or 8-bit video of the same size and channels.
static GstCaps *gst_cuda_prep_tensorize_transform_caps(GstBaseTransform *trans,
                                                       GstPadDirection direction, GstCaps *caps,
                                                       GstCaps *filter) {
  auto *self = GST_CUDA_PREP_TENSORIZE(trans);
  const TensorizeSettings settings = gst_cuda_prep_tensorize_get_settings(self);
  GstCaps *result = gst_caps_new_empty();
  const guint size = gst_caps_get_size(caps);
  for (guint i = 0; i < size; ++i) {
    const GstStructure *structure = gst_caps_get_structure(caps, i);
    if (direction == GST_PAD_SINK) {
      GstStructure *tensor = gst_structure_new(GST_CUDA_PREP_TENSOR_MEDIA_TYPE, "layout",
                                               G_TYPE_STRING, settings.layout_name(), nullptr);
      if (settings.clips() && settings.clip_length <= GST_CUDA_PREP_MAX_CLIP_LENGTH)
        gst_structure_set(tensor, "frames", G_TYPE_INT, static_cast<gint>(settings.clip_length),
                          nullptr);
      // A batch-size out of range leaves the batch open: the line still
      // links, and the element names the value at READY (settings_error)
      // rather than gst_parse_launch's "could not link".
      if (gst_cuda_prep_tensorize_batch_size_in_range(settings))
        gst_structure_set(tensor, "batch", G_TYPE_INT, static_cast<gint>(settings.batch_size),
                          nullptr);
      cudaprep::DataType dtype;
      if (resolve_dtype(settings.dtype, structure, &dtype))
        gst_structure_set(tensor, "dtype", G_TYPE_STRING, cudaprep::data_type_name(dtype), nullptr);
      gst_cuda_prep_structure_copy_fields(tensor, structure, {"width", "height"});
      if (gst_structure_has_name(structure, GST_CUDA_PREP_PLANAR_MEDIA_TYPE)) {
        gst_cuda_prep_structure_copy_fields(tensor, structure, {"channels", "channel-order"});
      } else {
        cudaprep::ChannelOrder order;
        const gchar *format = gst_structure_get_string(structure, "format");
        if (format != nullptr &&
            gst_cuda_prep_video_channel_order(gst_video_format_from_string(format), &order)) {
          gst_structure_set(tensor, "channels", G_TYPE_INT, cudaprep::channel_count(order),
                            "channel-order", G_TYPE_STRING, cudaprep::channel_order_name(order),
                            nullptr);
        }
      }
      gst_cuda_prep_caps_append_device(result, tensor);
    } else {
      GstStructure *planar = gst_structure_new_empty(GST_CUDA_PREP_PLANAR_MEDIA_TYPE);
      gst_cuda_prep_structure_copy_fields(planar, structure,
                                          {"width", "height", "channels", "channel-order"});
      gst_cuda_prep_caps_append_device(result, planar);

      cudaprep::ChannelOrder order;
      const gchar *order_name = gst_structure_get_string(structure, "channel-order");
      const std::string video_caps =
          std::string("video/x-raw, format=(string)") +
          (order_name != nullptr && gst_cuda_prep_channel_order_from_string(order_name, &order)
               ? gst_cuda_prep_video_formats_of(order)
               : GST_CUDA_PREP_INTERLEAVED_FORMATS);
      GstCaps *video = gst_caps_from_string(video_caps.c_str());
      GstStructure *frame = gst_structure_copy(gst_caps_get_structure(video, 0));
      gst_caps_unref(video);
      gst_cuda_prep_structure_copy_fields(frame, structure, {"width", "height"});
      gst_cuda_prep_caps_append_device(result, frame);
    }
  }
  return gst_cuda_prep_caps_filter_result(GST_ELEMENT(trans), direction, caps, result, filter);
}

static GstFlowReturn push_partial_batch(GstCudaPrepTensorize *self);

// The tensor's channels, size and dtype from the input caps; posts an error
// naming what does not fit.
static gboolean input_shape(GstCudaPrepTensorize *self, GstCaps *incaps,
                            const GstVideoInfo *video_info, gint dtype_setting, gint *channels,
                            gint *height, gint *width, cudaprep::DataType *dtype) {
  GstCudaPrepTensorizePrivate *priv = self->priv;
  const GstStructure *in = gst_caps_get_structure(incaps, 0);
  priv->planar_input = video_info == nullptr;
  if (!resolve_dtype(dtype_setting, in, dtype)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Input caps give no element type"),
                      ("%" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  if (priv->planar_input) {
    if (!gst_cuda_prep_planar_info_from_caps(&priv->planar_info, incaps)) {
      GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                        ("Invalid planar input caps: %s", GST_CUDA_PREP_PLANAR_CAPS_RULES),
                        ("%" GST_PTR_FORMAT, incaps));
      return FALSE;
    }
    if (*dtype == cudaprep::DataType::kUInt8) {
      GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                        ("cudatensorize dtype=uint8 needs 8-bit video input, but it receives "
                         "normalised float frames: set dtype=auto, float32 or float16, or "
                         "remove cudanormalize"),
                        (nullptr));
      return FALSE;
    }
    *width = priv->planar_info.width;
    *height = priv->planar_info.height;
    *channels = priv->planar_info.channels;
    return TRUE;
  }
  if (!gst_cuda_prep_video_channel_order(GST_VIDEO_INFO_FORMAT(video_info),
                                         &priv->video_channel_order)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("cudatensorize reads " GST_CUDA_PREP_INTERLEAVED_FORMATS " video, not %s",
                       GST_VIDEO_INFO_NAME(video_info)),
                      ("%" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  if (*dtype != cudaprep::DataType::kUInt8) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("cudatensorize receives 8-bit video, which gives uint8 tensors only, "
                       "but dtype=%s: put cudanormalize before cudatensorize for float "
                       "tensors, or set dtype=auto or uint8",
                       cudaprep::data_type_name(*dtype)),
                      (nullptr));
    return FALSE;
  }
  *width = GST_VIDEO_INFO_WIDTH(video_info);
  *height = GST_VIDEO_INFO_HEIGHT(video_info);
  *channels = cudaprep::channel_count(priv->video_channel_order);
  return TRUE;
}

// A renegotiation (new caps, or a new batch-size, layout or dtype) first
// sends the batch begun under the old one on its way, whole as it was.
static gboolean gst_cuda_prep_tensorize_set_info(GstCudaPrepBaseTransform *base, GstCaps *incaps,
                                                 const GstVideoInfo *in_info, GstCaps *outcaps,
                                                 const GstVideoInfo *) {
  auto *self = GST_CUDA_PREP_TENSORIZE(base);
  GstCudaPrepTensorizePrivate *priv = self->priv;
  const GstFlowReturn pushed = push_partial_batch(self);
  if (pushed != GST_FLOW_OK)
    GST_DEBUG_OBJECT(self, "pushing the partial batch gave %s", gst_flow_get_name(pushed));
  const TensorizeSettings settings = gst_cuda_prep_tensorize_get_settings(self);
  const gint batch_size = static_cast<gint>(settings.batch_size);
  const gint clip_length = settings.clips() ? static_cast<gint>(settings.clip_length) : 1;
  gint width = 0, height = 0, channels = 0;
  cudaprep::DataType dtype;
  if (!input_shape(self, incaps, in_info, settings.dtype, &channels, &height, &width, &dtype))
    return FALSE;
  // A buffer pool's buffers hold at most G_MAXUINT bytes.
  guint64 tensor_bytes = cudaprep::data_type_size(dtype);
  if (!g_uint64_checked_mul(&tensor_bytes, tensor_bytes, batch_size) ||
      !g_uint64_checked_mul(&tensor_bytes, tensor_bytes, clip_length) ||
      !g_uint64_checked_mul(&tensor_bytes, tensor_bytes, channels) ||
      !g_uint64_checked_mul(&tensor_bytes, tensor_bytes, height) ||
      !g_uint64_checked_mul(&tensor_bytes, tensor_bytes, width) || tensor_bytes > G_MAXUINT) {
    const std::string frames =
        settings.clips() ? " x " + std::to_string(clip_length) + " frame(s)" : std::string();
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("A %s tensor of batch-size=%d%s x %d channel(s) x %dx%d is too large: a "
                       "tensor buffer holds at most 4 GiB; lower batch-size%s or the frame size",
                       cudaprep::data_type_name(dtype), batch_size, frames.c_str(), channels, width,
                       height, settings.clips() ? ", clip-length" : ""),
                      (nullptr));
    return FALSE;
  }
  priv->writes_clips = settings.clips();
  if (priv->writes_clips) {
    priv->clip_desc = cudaprep::make_contiguous_clip_desc(
        settings.clip_layout(), batch_size, clip_length, channels, height, width, dtype);
    size_t offset_bytes = 0;
    priv->desc = cudaprep::clip_frame_desc(priv->clip_desc, 0, 0, &offset_bytes);
    priv->clips.reset(settings.clip_rule(), priv->clip_desc);
  } else {
    priv->desc =
        cudaprep::make_contiguous_tensor_desc(static_cast<cudaprep::TensorLayout>(settings.layout),
                                              batch_size, channels, height, width, dtype);
  }
  const GstStructure *out = gst_caps_get_structure(outcaps, 0);
  gint out_batch = 0, out_channels = 0, out_width = 0, out_height = 0, out_frames = 1;
  if (!gst_structure_get_int(out, "batch", &out_batch) || out_batch != batch_size ||
      !gst_structure_get_int(out, "channels", &out_channels) || out_channels != channels ||
      !gst_structure_get_int(out, "width", &out_width) || out_width != width ||
      !gst_structure_get_int(out, "height", &out_height) || out_height != height ||
      (settings.clips() && !gst_structure_get_int(out, "frames", &out_frames)) ||
      out_frames != clip_length ||
      g_strcmp0(gst_structure_get_string(out, "dtype"), cudaprep::data_type_name(dtype)) != 0 ||
      g_strcmp0(gst_structure_get_string(out, "layout"), settings.layout_name()) != 0) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("Output caps do not describe the tensor cudatensorize makes"),
                      ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  GST_INFO_OBJECT(self,
                  "tensor %s %s batch %d, %d frame(s) of %d x %d x %d, %" G_GUINT64_FORMAT " bytes",
                  settings.layout_name(), cudaprep::data_type_name(dtype), batch_size, clip_length,
                  channels, height, width, tensor_bytes);
  return TRUE;
}

// Upstream may leave its resize and normalisation to this element (one
// kernel per frame) when the result is the same: normalised frames in the
// tensor's own dtype (a float16 frame into a float32 tensor is rounded twice
// by the separate kernels).
static gboolean gst_cuda_prep_tensorize_accepts_pending(GstCudaPrepBaseTransform *base) {
  GstCudaPrepTensorizePrivate *priv = GST_CUDA_PREP_TENSORIZE(base)->priv;
  return gst_cuda_prep_tensorize_get_settings(GST_CUDA_PREP_TENSORIZE(base)).fuse &&
         priv->planar_input && priv->planar_info.dtype == priv->desc.dtype;
}

// The fused kernel runs here, once per frame, in the tensor's dtype.
static gboolean gst_cuda_prep_tensorize_pending_reader(GstCudaPrepBaseTransform *base, GstCaps *,
                                                       GstCudaPrepPendingReader *reader) {
  reader->dtype = GST_CUDA_PREP_TENSORIZE(base)->priv->desc.dtype;
  reader->batched = FALSE;
  reader->max_items = 1;
  return TRUE;
}

// The kernel that packs frames without pending work.
static cudaError_t gst_cuda_prep_tensorize_prepare_kernels(GstCudaPrepBaseTransform *base,
                                                           const GstCudaPrepPendingReader *) {
  GstCudaPrepTensorizePrivate *priv = GST_CUDA_PREP_TENSORIZE(base)->priv;
  if (priv->planar_input)
    return cudaprep::prepare_tensorize_planar(priv->planar_info.dtype, priv->desc.dtype);
  return cudaprep::prepare_tensorize_interleaved();
}

static gsize gst_cuda_prep_tensorize_output_block_size(GstCudaPrepBaseTransform *base) {
  GstCudaPrepTensorizePrivate *priv = GST_CUDA_PREP_TENSORIZE(base)->priv;
  return priv->writes_clips ? cudaprep::clip_span_bytes(priv->clip_desc)
                            : cudaprep::tensor_span_bytes(priv->desc);
}

// Starts a batch: a tensor buffer from the pool, ordered after its earlier
// readers (an application may still read it on its own stream).
static GstFlowReturn start_batch(GstCudaPrepTensorize *self) {
  GstCudaPrepTensorizePrivate *priv = self->priv;
  // GstBaseTransform activates its pool only in prepare_output_buffer, which
  // batching bypasses.
  GstBufferPool *pool = gst_base_transform_get_buffer_pool(GST_BASE_TRANSFORM(self));
  const GstFlowReturn ret = priv->writer.begin(pool, priv->desc);
  if (pool != nullptr) gst_object_unref(pool);
  if (ret == GST_FLOW_OK) priv->end_time = GST_CLOCK_TIME_NONE;
  return ret;
}

// Closes the batch (missing items zeroed, the write recorded after the last
// kernel, the tensor described) and stamps it. Returns the buffer to push.
static GstBuffer *finish_batch(GstCudaPrepTensorize *self, GstFlowReturn *ret) {
  GstCudaPrepTensorizePrivate *priv = self->priv;
  const guint filled = priv->writer.filled();
  const gsize batch_size = priv->writer.batch_size();
  const GstClockTime first_pts = priv->writer.first_pts();
  GstBuffer *batch = priv->writer.finish();
  *ret = batch != nullptr ? GST_FLOW_OK : GST_FLOW_ERROR;
  if (batch == nullptr) return nullptr;
  GST_BUFFER_PTS(batch) = first_pts;
  GST_BUFFER_DTS(batch) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION(batch) = GST_CLOCK_TIME_IS_VALID(first_pts) &&
                                       GST_CLOCK_TIME_IS_VALID(priv->end_time) &&
                                       priv->end_time >= first_pts
                                   ? priv->end_time - first_pts
                                   : GST_CLOCK_TIME_NONE;
  GST_DEBUG_OBJECT(self, "tensor of %u/%" G_GSIZE_FORMAT " frames, pts %" GST_TIME_FORMAT, filled,
                   batch_size, GST_TIME_ARGS(first_pts));
  return batch;
}

// The frames this element reads, as the writer takes them.
static GstCudaPrepBatchFrames input_frames(GstCudaPrepTensorize *self) {
  GstCudaPrepTensorizePrivate *priv = self->priv;
  GstCudaPrepBatchFrames frames;
  frames.planar = priv->planar_input ? &priv->planar_info : nullptr;
  frames.video = gst_cuda_prep_base_transform_get_in_info(GST_CUDA_PREP_BASE_TRANSFORM(self));
  frames.channel_order = priv->video_channel_order;
  return frames;
}

static GstCudaPrepBatchItem frame_item(GstBuffer *frame) {
  GstCudaPrepBatchItem item;
  item.buffer = frame;
  item.pts = GST_BUFFER_PTS(frame);
  item.geometry = gst_cuda_prep_buffer_get_geometry(frame);
  return item;
}

static GstClockTime frame_end_time(GstBuffer *frame) {
  return GST_BUFFER_PTS_IS_VALID(frame) && GST_BUFFER_DURATION_IS_VALID(frame)
             ? GST_BUFFER_PTS(frame) + GST_BUFFER_DURATION(frame)
             : GST_BUFFER_PTS(frame);
}

// Writes `frame` into the next item of the batch: the fused kernel when
// upstream left its work in a pending meta, else tensorize of a planar or
// 8-bit frame (one kernel per frame).
static GstFlowReturn add_frame(GstCudaPrepTensorize *self, GstBuffer *frame) {
  GstCudaPrepTensorizePrivate *priv = self->priv;
  if (!priv->writer.is_open()) {
    const GstFlowReturn ret = start_batch(self);
    if (ret != GST_FLOW_OK) return ret;
  }
  if (!priv->writer.write_item(frame_item(frame), input_frames(self))) return GST_FLOW_ERROR;
  priv->end_time = frame_end_time(frame);
  return GST_FLOW_OK;
}

// Writes `frame` into each clip that takes it; `*outbuf`: the tensor it
// completed, or NULL.
static GstFlowReturn add_clip_frame(GstCudaPrepTensorize *self, GstBuffer *frame,
                                    GstBuffer **outbuf) {
  GstBufferPool *pool = gst_base_transform_get_buffer_pool(GST_BASE_TRANSFORM(self));
  const GstFlowReturn ret = self->priv->clips.add_frame(
      pool, frame_item(frame), frame_end_time(frame), input_frames(self), outbuf);
  if (pool != nullptr) gst_object_unref(pool);
  return ret;
}

// The default submit_input_buffer negotiates and queues the frame in
// queued_buf; here each frame goes into the batch, and a full batch leaves.
static GstFlowReturn gst_cuda_prep_tensorize_generate_output(GstBaseTransform *trans,
                                                             GstBuffer **outbuf) {
  auto *self = GST_CUDA_PREP_TENSORIZE(trans);
  *outbuf = nullptr;
  GstBuffer *frame = trans->queued_buf;
  trans->queued_buf = nullptr;
  if (frame == nullptr) return GST_FLOW_OK;
  GstFlowReturn ret = GST_FLOW_ERROR;
  if (gst_cuda_prep_core_make_current(
          gst_cuda_prep_base_transform_get_core(GST_CUDA_PREP_BASE_TRANSFORM(self)))) {
    ret = self->priv->writes_clips ? add_clip_frame(self, frame, outbuf) : add_frame(self, frame);
  }
  gst_buffer_unref(frame);
  if (ret == GST_FLOW_OK && !self->priv->writes_clips && self->priv->writer.complete())
    *outbuf = finish_batch(self, &ret);
  return ret;
}

// Pushes the partial batch (or the open clip tensors, in order)
// downstream: at EOS, and before a renegotiation (their frames belong to
// the old caps).
static GstFlowReturn push_partial_batch(GstCudaPrepTensorize *self) {
  GstCudaPrepTensorizePrivate *priv = self->priv;
  if (!priv->writer.is_open() && !priv->clips.has_open()) return GST_FLOW_OK;
  GstCudaPrepCore *core = gst_cuda_prep_base_transform_get_core(GST_CUDA_PREP_BASE_TRANSFORM(self));
  if (!gst_cuda_prep_core_make_current(core)) return GST_FLOW_ERROR;
  GstFlowReturn ret = GST_FLOW_OK;
  std::vector<GstBuffer *> tensors;
  if (priv->writer.is_open()) {
    GstBuffer *batch = finish_batch(self, &ret);
    if (batch != nullptr) tensors.push_back(batch);
  } else {
    ret = priv->clips.close_all(&tensors);
  }
  // After a failure the rest are released, not pushed.
  for (GstBuffer *tensor : tensors) {
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), tensor);
    else
      gst_buffer_unref(tensor);
  }
  return ret;
}

// Whether a caps event carries the caps already in force on the sink pad.
static gboolean caps_event_repeats_current(GstBaseTransform *trans, GstEvent *event) {
  GstCaps *caps = nullptr;
  gst_event_parse_caps(event, &caps);
  GstCaps *current = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SINK_PAD(trans));
  const gboolean repeats = current != nullptr && gst_caps_is_equal(current, caps);
  if (current != nullptr) gst_caps_unref(current);
  return repeats;
}

static gboolean gst_cuda_prep_tensorize_sink_event(GstBaseTransform *trans, GstEvent *event) {
  auto *self = GST_CUDA_PREP_TENSORIZE(trans);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_CAPS:
      // funnel, concat and input-selector re-send the caps in force: the
      // batch goes on.
      if (caps_event_repeats_current(trans, event)) break;
      [[fallthrough]];
    case GST_EVENT_EOS: {
      const GstFlowReturn ret = push_partial_batch(self);
      if (ret != GST_FLOW_OK)
        GST_DEBUG_OBJECT(self, "pushing the partial batch gave %s", gst_flow_get_name(ret));
      break;
    }
    case GST_EVENT_FLUSH_STOP:
      // Its write is still recorded, after the kernels already queued.
      self->priv->writer.drop();
      self->priv->clips.restart();
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_tensorize_parent_class)->sink_event(trans, event);
}

static gboolean gst_cuda_prep_tensorize_stop(GstBaseTransform *trans) {
  GstCudaPrepTensorizePrivate *priv = GST_CUDA_PREP_TENSORIZE(trans)->priv;
  priv->writer.drop();
  priv->clips.restart();
  const gint device_id = gst_cuda_prep_core_get_device_id(
      gst_cuda_prep_base_transform_get_core(GST_CUDA_PREP_BASE_TRANSFORM(trans)));
  // (The base class's stop synchronises the stream.)
  const gboolean stopped =
      GST_BASE_TRANSFORM_CLASS(gst_cuda_prep_tensorize_parent_class)->stop(trans);
  priv->writer.finish_gpu_time(device_id);
  priv->clips.finish_gpu_time(device_id);
  return stopped;
}

static void gst_cuda_prep_tensorize_finalize(GObject *object) {
  delete GST_CUDA_PREP_TENSORIZE(object)->priv;
  G_OBJECT_CLASS(gst_cuda_prep_tensorize_parent_class)->finalize(object);
}

static void gst_cuda_prep_tensorize_class_init(GstCudaPrepTensorizeClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstCudaPrepBaseTransformClass *base_class = GST_CUDA_PREP_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_cuda_prep_tensorize_set_property;
  gobject_class->get_property = gst_cuda_prep_tensorize_get_property;
  gobject_class->finalize = gst_cuda_prep_tensorize_finalize;

  gst_cuda_prep_tensorize_install_properties(gobject_class);

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "CUDA tensorize", "Filter/Converter/Video/Hardware",
      "Packs CUDA device frames into batched NCHW or NHWC float32, float16 or uint8 tensors, "
      "or into clips of T frames (NCTHW, NTCHW), carrying a GstCudaPrepTensorMeta (shape, "
      "strides, ready event, per-frame PTS and geometry)",
      "cudaprep developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cuda_prep_tensorize_transform_caps;
  trans_class->generate_output = gst_cuda_prep_tensorize_generate_output;
  trans_class->sink_event = gst_cuda_prep_tensorize_sink_event;
  trans_class->stop = gst_cuda_prep_tensorize_stop;
  base_class->settings_error = gst_cuda_prep_tensorize_settings_error;
  base_class->set_info = gst_cuda_prep_tensorize_set_info;
  base_class->accepts_pending = gst_cuda_prep_tensorize_accepts_pending;
  base_class->pending_reader = gst_cuda_prep_tensorize_pending_reader;
  base_class->prepare_kernels = gst_cuda_prep_tensorize_prepare_kernels;
  base_class->output_block_size = gst_cuda_prep_tensorize_output_block_size;

  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_TENSOR_LAYOUT, static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_CUDA_PREP_TENSOR_DTYPE, static_cast<GstPluginAPIFlags>(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_tensorize_debug, "cudatensorize", 0, "CUDA tensorize");
}

static void gst_cuda_prep_tensorize_init(GstCudaPrepTensorize *self) {
  self->priv = new GstCudaPrepTensorizePrivate(
      GST_ELEMENT(self), gst_cuda_prep_base_transform_get_core(GST_CUDA_PREP_BASE_TRANSFORM(self)));
}
