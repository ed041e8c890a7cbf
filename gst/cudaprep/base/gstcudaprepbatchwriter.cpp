#include "gstcudaprepbatchwriter.h"

#include <algorithm>
#include <string>

#include <gst/cudaprep/gstcudaprepcuda-private.h>
#include <gst/cudaprep/gstcudaprepgeometry-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudaprepmeta-private.h>
#include "cudaprep/preprocess.h"
#include "cudaprep/preprocess_batch.h"
#include "cudaprep/tensorize.h"
#include "gstcudaprepgsttensor.h"
#include "gstcudaprepkernelwatch.h"
#include "gstcudapreppendingmeta.h"
#include "gstcudaprepview.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_batch_writer_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_batch_writer_debug

namespace {

// The pending meta of a frame whose resize and normalisation wait for the
// fused kernel, or NULL (the frame holds its result: tensorize it).
const GstCudaPrepPendingMeta *fused_work(GstBuffer *buffer) {
  const GstCudaPrepPendingMeta *pending = gst_buffer_get_cuda_prep_pending_meta(buffer);
  return pending != nullptr && pending->has_normalize ? pending : nullptr;
}

// The fused preprocess of `item` into `slot`: the source frame its buffer
// holds (a region: that part of it, into its dst_rect) with `pending`'s
// parameters. Posts the error when the buffer holds no such frame.
gboolean preprocess_item(GstElement *element, const GstCudaPrepBatchItem &item,
                         const GstCudaPrepPendingMeta *pending, int slot,
                         cudaprep::PreprocessItem *out) {
  const gchar *error = nullptr;
  if (!gst_cuda_prep_buffer_source_image(item.buffer, &out->src, &error))
    return gst_cuda_prep_post_frame_error(element, "Pending", error);
  out->resize_params = pending->resize;
  if (item.is_region) {
    const cudaprep::PixelRect &rect = item.rect;
    out->src = cudaprep::sub_image(out->src, rect.x, rect.y, rect.width, rect.height);
    out->resize_params.dst_rect = item.dst_rect;
  }
  out->normalize_params = pending->normalize;
  out->batch_index = slot;
  return TRUE;
}

// Whether `item` lands on its destination pixel for pixel (no scale, no
// turn): its chain's cudaresize passed the frame through. Every method
// copies such a frame exactly (samples fall on pixel centres with weights
// 0 and 1), so it may take any.
bool copies_pixel_for_pixel(const cudaprep::PreprocessItem &item,
                            const cudaprep::TensorDesc &desc) {
  const cudaprep::TensorShape shape = cudaprep::tensor_shape(desc);
  const cudaprep::PixelRect &dst = item.resize_params.dst_rect;
  const int64_t dst_width = dst.width > 0 ? dst.width : shape.width;
  const int64_t dst_height = dst.height > 0 ? dst.height : shape.height;
  return item.resize_params.orientation == cudaprep::Orientation::kIdentity &&
         item.src.width == dst_width && item.src.height == dst_height;
}

// A frame without pending work, as the tensorize kernels read it.
struct FrameInput {
  const GstCudaPrepBatchFrames *frames = nullptr;
  cudaprep::PlanarImage planar;  // frames->planar
  cudaprep::Image video;         // otherwise

  // Why it cannot go into `slot` of the tensor, or empty.
  std::string error(const void *tensor, const cudaprep::TensorDesc &desc, int slot) const {
    return frames->planar != nullptr ? cudaprep::tensorize_planar_error(planar, tensor, desc, slot)
                                     : cudaprep::tensorize_interleaved_error(
                                           video, frames->channel_order, tensor, desc, slot);
  }
  cudaError_t launch(void *tensor, const cudaprep::TensorDesc &desc, int slot,
                     cudaStream_t stream) const {
    return frames->planar != nullptr
               ? cudaprep::tensorize_planar(planar, tensor, desc, slot, stream)
               : cudaprep::tensorize_interleaved(video, frames->channel_order, tensor, desc, slot,
                                                 stream);
  }
};

// `buffer` as `frames` says it holds a frame; posts the error when it does not.
gboolean frame_input(GstElement *element, GstBuffer *buffer, const GstCudaPrepBatchFrames &frames,
                     FrameInput *input) {
  input->frames = &frames;
  const gchar *error = nullptr;
  if (frames.planar != nullptr) {
    if (gst_cuda_prep_buffer_planar_image(buffer, frames.planar, &input->planar, &error))
      return TRUE;
  } else if (frames.video == nullptr) {
    error = "no negotiated video caps";
  } else if (gst_cuda_prep_buffer_device_image(buffer, frames.video, &input->video, &error)) {
    return TRUE;
  }
  return gst_cuda_prep_post_frame_error(element, "Input", error);
}

}  // namespace

GstCudaPrepBatchWriter::GstCudaPrepBatchWriter(GstElement *element, GstCudaPrepCore *core,
                                               const gchar *tensor_id)
    : element_(element), core_(core), tensor_id_(tensor_id) {
  static gsize debug_initialized = 0;
  if (g_once_init_enter(&debug_initialized)) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_batch_writer_debug, "cudaprepbatchwriter", 0,
                            "cudaprep batch tensors of cudatensorize and cudabatch");
    g_once_init_leave(&debug_initialized, 1);
  }
}

GstCudaPrepBatchWriter::~GstCudaPrepBatchWriter() {
  gst_clear_buffer(&buffer_);
}

// A tensor buffer from the pool: one device memory, else an error.
GstFlowReturn GstCudaPrepBatchWriter::acquire(GstBufferPool *pool,
                                              const cudaprep::TensorDesc &desc) {
  g_return_val_if_fail(buffer_ == nullptr, GST_FLOW_ERROR);
  GstBuffer *buffer = nullptr;
  const GstFlowReturn ret = gst_cuda_prep_core_acquire(core_, pool, &buffer);
  if (ret != GST_FLOW_OK) return ret;
  if (gst_buffer_n_memory(buffer) != 1 ||
      !gst_is_cuda_prep_memory(gst_buffer_peek_memory(buffer, 0))) {
    gst_cuda_prep_post_frame_error(element_, "Tensor", "not CUDA device memory");
    gst_buffer_unref(buffer);
    return GST_FLOW_ERROR;
  }
  buffer_ = buffer;
  data_ = gst_cuda_prep_memory_get_device_pointer(gst_buffer_peek_memory(buffer, 0));
  desc_ = desc;
  items_.clear();
  return GST_FLOW_OK;
}

// Closes the batch: its buffer if `keep`, else NULL (the buffer released).
GstBuffer *GstCudaPrepBatchWriter::close(gboolean keep) {
  GstBuffer *buffer = buffer_;
  buffer_ = nullptr;
  data_ = nullptr;
  items_.clear();
  clips_ = FALSE;
  clip_filled_.clear();
  frame_pts_.clear();
  if (!keep) gst_clear_buffer(&buffer);
  return buffer;
}

// Zeroes the slots from `filled` on.
gboolean GstCudaPrepBatchWriter::clear_unfilled(gsize filled) {
  const gsize item_bytes = static_cast<gsize>(desc_.strides_bytes[0]);
  const gsize batch_size = static_cast<gsize>(desc_.dims[0]);
  return filled >= batch_size ||
         CUDAPREP_CHECK(element_, cudaMemsetAsync(data_ + filled * item_bytes, 0,
                                                  (batch_size - filled) * item_bytes,
                                                  gst_cuda_prep_core_get_stream(core_)));
}

// The tensor meta of the batch in `buffer`, its items those of items_; the
// one conversion of their geometry to the public struct.
gboolean GstCudaPrepBatchWriter::attach_meta(GstBuffer *buffer) {
  GstCudaPrepTensorMeta *meta = gst_buffer_add_cuda_prep_tensor_meta(buffer, 1);
  const GQuark id = g_quark_from_static_string(tensor_id_);
  const gint device_id = gst_cuda_prep_core_get_device_id(core_);
  cudaEvent_t ready = gst_cuda_prep_memory_get_ready_event(gst_buffer_peek_memory(buffer, 0));
  if (meta == nullptr || !(clips_ ? gst_cuda_prep_tensor_set_from_clip_desc(
                                        meta->tensors[0], id, clip_desc_, data_, device_id, ready)
                                  : gst_cuda_prep_tensor_set_from_desc(meta->tensors[0], id, desc_,
                                                                       data_, device_id, ready))) {
    GST_ELEMENT_ERROR(element_, STREAM, FAILED, ("Could not attach the tensor meta"), (nullptr));
    return FALSE;
  }
  GstCudaPrepTensor *tensor = meta->tensors[0];
  for (gsize i = 0; i < items_.size(); ++i) {
    const GstCudaPrepBatchItem &item = items_[i];
    GstCudaPrepTensorItem &described = tensor->items[i];
    described.pts = item.pts;
    described.geometry = gst_cuda_prep_geometry_from_frame(item.geometry);
    described.source_index = item.source_index;
    described.region_id = item.region_id;
    if (item.is_region) {
      described.region_x = item.rect.x;
      described.region_y = item.rect.y;
      described.region_width = item.rect.width;
      described.region_height = item.rect.height;
    }
  }
  tensor->batch_filled = items_.size();
  if (clips_) {
    std::copy(clip_filled_.begin(), clip_filled_.end(), tensor->clip_filled);
    std::copy(frame_pts_.begin(), frame_pts_.end(), tensor->frame_pts);
  }
  if (!gst_cuda_prep_add_gst_tensor_meta(buffer, meta)) {
    GST_ELEMENT_ERROR(element_, STREAM, FAILED, ("Could not attach GStreamer's GstTensorMeta"),
                      ("see the cudaprepgsttensor debug category"));
    return FALSE;
  }
  return TRUE;
}

// --- Frame by frame -----------------------------------------------------------

GstFlowReturn GstCudaPrepBatchWriter::begin(GstBufferPool *pool, const cudaprep::TensorDesc &desc) {
  const GstFlowReturn ret = acquire(pool, desc);
  if (ret != GST_FLOW_OK) return ret;
  // Ordered after the buffer's earlier readers (an application may still
  // read it on its own stream).
  if (gst_cuda_prep_core_begin_write(core_, buffer_)) return GST_FLOW_OK;
  close(FALSE);
  return GST_FLOW_ERROR;
}

// `item`'s frame into `slot` of each of the `count` tensors `desc` describes
// at `data`, after the frame's writer and before its next one: the fused
// kernel once for all of them, or a tensorize launch for each.
gboolean GstCudaPrepBatchWriter::write_frame(const GstCudaPrepBatchItem &item,
                                             const GstCudaPrepBatchFrames &frames,
                                             void *const *data, int count,
                                             const cudaprep::TensorDesc &desc, int slot) {
  const cudaStream_t stream = gst_cuda_prep_core_get_stream(core_);
  if (!gst_cuda_prep_core_begin_read(core_, item.buffer)) return FALSE;
  const GstCudaPrepPendingMeta *pending = fused_work(item.buffer);
  std::string reason;
  cudaprep::PreprocessItem fused;
  FrameInput input;
  if (pending != nullptr) {
    if (!preprocess_item(element_, item, pending, slot, &fused)) return FALSE;
    for (int i = 0; i < count && reason.empty(); ++i)
      reason = cudaprep::preprocess_params_error(fused.src, fused.resize_params,
                                                 fused.normalize_params, data[i], desc, slot);
  } else {
    if (!frame_input(element_, item.buffer, frames, &input)) return FALSE;
    for (int i = 0; i < count && reason.empty(); ++i) reason = input.error(data[i], desc, slot);
  }
  if (!reason.empty()) {
    GST_ELEMENT_ERROR(element_, STREAM, FAILED,
                      ("Cannot write this frame into the tensor: %s", reason.c_str()), (nullptr));
    return FALSE;
  }
  gpu_timer_.begin(element_, stream);
  const GstCudaPrepKernelWatch watch(element_);
  cudaError_t launched = cudaSuccess;
  if (pending != nullptr) {
    launched = cudaprep::preprocess_into_each(
        fused.src, fused.resize_params, fused.normalize_params, data, count, desc, slot, stream);
  } else {
    for (int i = 0; i < count && launched == cudaSuccess; ++i)
      launched = input.launch(data[i], desc, slot, stream);
  }
  gpu_timer_.end(element_, stream, 1);
  return CUDAPREP_CHECK(element_, launched) && gst_cuda_prep_core_end_read(core_, item.buffer);
}

gboolean GstCudaPrepBatchWriter::write_item(const GstCudaPrepBatchItem &item,
                                            const GstCudaPrepBatchFrames &frames) {
  g_return_val_if_fail(buffer_ != nullptr && !clips_ && filled() < batch_size(), FALSE);
  void *data = data_;
  if (!write_frame(item, frames, &data, 1, desc_, static_cast<int>(items_.size()))) return FALSE;
  items_.push_back(item);
  items_.back().buffer = nullptr;  // not kept
  return TRUE;
}

gboolean GstCudaPrepBatchWriter::complete() const {
  if (buffer_ == nullptr) return FALSE;
  if (!clips_) return filled() == batch_size();
  const guint frames = static_cast<guint>(cudaprep::clip_shape(clip_desc_).frames);
  for (const guint written : clip_filled_) {
    if (written != frames) return FALSE;
  }
  return TRUE;
}

GstBuffer *GstCudaPrepBatchWriter::finish() {
  g_return_val_if_fail(buffer_ != nullptr, nullptr);
  return close((clips_ ? clear_unfilled_clips() : clear_unfilled(items_.size())) &&
               gst_cuda_prep_core_end_write(core_, buffer_) && attach_meta(buffer_));
}

void GstCudaPrepBatchWriter::drop() {
  if (buffer_ == nullptr) return;
  // Recorded so that the memory's next user orders after the kernels
  // already queued.
  if (gst_cuda_prep_core_make_current(core_)) gst_cuda_prep_core_end_write(core_, buffer_);
  close(FALSE);
}

// --- All at once --------------------------------------------------------------

// Orders the stream after each distinct frame's writer (begin: stopping at
// the first failure) or records its reads (end: every frame, also after a
// failure); the items of one frame are neighbours.
gboolean GstCudaPrepBatchWriter::reads(const GstCudaPrepBatchItem *items, gsize count,
                                       gboolean begin) {
  gboolean ok = TRUE;
  GstBuffer *previous = nullptr;
  for (gsize i = 0; i < count; ++i) {
    if (items[i].buffer == previous) continue;
    previous = items[i].buffer;
    ok = (begin ? ok && gst_cuda_prep_core_begin_read(core_, previous)
                : gst_cuda_prep_core_end_read(core_, previous)) &&
         ok;
  }
  return ok;
}

// The kernels of the whole batch: in item order one tensorize per frame
// without pending work, then one preprocess_batch() for the items with it;
// then the unfilled slots are zeroed.
// preprocess_batch() resamples a whole batch with one method. Items that
// copy pixel for pixel take the method of those that resize; two that
// resize differently are an error naming both sources.
gboolean GstCudaPrepBatchWriter::one_resize_method(const GstCudaPrepBatchItem *items,
                                                   std::vector<cudaprep::PreprocessItem> *fused) {
  const cudaprep::PreprocessItem *resizing = nullptr;
  for (const cudaprep::PreprocessItem &item : *fused) {
    if (copies_pixel_for_pixel(item, desc_)) continue;
    if (resizing == nullptr) {
      resizing = &item;
    } else if (item.resize_params.interpolation != resizing->resize_params.interpolation) {
      GST_ELEMENT_ERROR(
          element_, STREAM, FAILED,
          ("Source %d resizes with method %s but source %d with %s: one batch resamples with one "
           "method, so every source's cudaresize must use the same",
           items[resizing->batch_index].source_index,
           cudaprep::interpolation_name(resizing->resize_params.interpolation),
           items[item.batch_index].source_index,
           cudaprep::interpolation_name(item.resize_params.interpolation)),
          (nullptr));
      return FALSE;
    }
  }
  if (resizing == nullptr) return TRUE;
  for (cudaprep::PreprocessItem &item : *fused) {
    if (!copies_pixel_for_pixel(item, desc_)) continue;
    // Antialiasing a copy changes nothing either (weights 0 and 1 again),
    // and a method that takes none may come.
    item.resize_params.interpolation = resizing->resize_params.interpolation;
    item.resize_params.antialias = false;
    item.resize_params.antialias_intermediate = cudaprep::AntialiasIntermediate::kFloat;
  }
  return TRUE;
}

gboolean GstCudaPrepBatchWriter::fill_batch(const GstCudaPrepBatchItem *items, gsize count,
                                            const GstCudaPrepBatchFrames &frames) {
  const cudaStream_t stream = gst_cuda_prep_core_get_stream(core_);
  std::vector<cudaprep::PreprocessItem> fused;
  for (gsize i = 0; i < count; ++i) {
    const int slot = static_cast<int>(i);
    const GstCudaPrepPendingMeta *pending = fused_work(items[i].buffer);
    if (pending != nullptr) {
      cudaprep::PreprocessItem item;
      if (!preprocess_item(element_, items[i], pending, slot, &item)) return FALSE;
      fused.push_back(item);
      continue;
    }
    FrameInput input;
    if (!frame_input(element_, items[i].buffer, frames, &input)) return FALSE;
    const std::string reason = input.error(data_, desc_, slot);
    if (!reason.empty()) {
      GST_ELEMENT_ERROR(element_, STREAM, FAILED,
                        ("Cannot write a frame of source %d into the tensor: %s",
                         items[i].source_index, reason.c_str()),
                        (nullptr));
      return FALSE;
    }
    if (!CUDAPREP_CHECK(element_, input.launch(data_, desc_, slot, stream))) return FALSE;
  }
  if (!one_resize_method(items, &fused)) return FALSE;
  const int fused_count = static_cast<int>(fused.size());
  const std::string reason =
      cudaprep::preprocess_batch_error(fused.data(), fused_count, data_, desc_);
  if (!reason.empty()) {
    GST_ELEMENT_ERROR(element_, STREAM, FAILED,
                      ("Cannot write the batch's items into the tensor: %s", reason.c_str()),
                      (nullptr));
    return FALSE;
  }
  const GstCudaPrepKernelWatch watch(element_);
  return CUDAPREP_CHECK(element_, cudaprep::preprocess_batch(fused.data(), fused_count, data_,
                                                             desc_, stream)) &&
         clear_unfilled(count);
}

GstBuffer *GstCudaPrepBatchWriter::write_batch(GstBufferPool *pool,
                                               const cudaprep::TensorDesc &desc,
                                               const GstCudaPrepBatchItem *items, gsize count,
                                               const GstCudaPrepBatchFrames &frames,
                                               GstFlowReturn *ret) {
  *ret = acquire(pool, desc);
  if (*ret != GST_FLOW_OK) return nullptr;
  gboolean ok = gst_cuda_prep_core_begin_write(core_, buffer_);
  ok = ok && reads(items, count, TRUE);
  if (ok) {
    // After the waits for the frames' writers: the batch's own kernels.
    const cudaStream_t stream = gst_cuda_prep_core_get_stream(core_);
    gpu_timer_.begin(element_, stream);
    ok = fill_batch(items, count, frames);
    gpu_timer_.end(element_, stream, static_cast<guint>(count));
  }
  ok = reads(items, count, FALSE) && ok;
  ok = gst_cuda_prep_core_end_write(core_, buffer_) && ok;
  items_.assign(items, items + count);
  GstBuffer *buffer = close(ok && attach_meta(buffer_));
  *ret = buffer != nullptr ? GST_FLOW_OK : GST_FLOW_ERROR;
  return buffer;
}
