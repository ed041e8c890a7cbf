// cudatensorize's insides, shared by its files: the element
// (gstcudatensorize.cpp: negotiation, frames into tensors, events) and its
// properties (gstcudatensorizeproperties.cpp: specs, settings and their
// checks); clips in gstcudatensorizeclips.h. Not installed.
#pragma once

#include <gst/gst.h>

#include "base/gstcudaprepbatchwriter.h"
#include "base/gstcudapreptensorformat.h"
#include "cudaprep/tensor.h"
#include "elements/cudatensorize/gstcudatensorize.h"
#include "elements/cudatensorize/gstcudatensorizeclips.h"

enum {
  PROP_0,
  PROP_LAYOUT,
  PROP_BATCH_SIZE,
  PROP_DTYPE,
  PROP_FUSE,
  PROP_CLIP_LENGTH,
  PROP_CLIP_FRAME_STRIDE,
  PROP_CLIP_STRIDE
};

#define DEFAULT_LAYOUT static_cast<gint>(cudaprep::TensorLayout::kNCHW)
#define DEFAULT_BATCH_SIZE 1
#define DEFAULT_DTYPE GST_CUDA_PREP_TENSOR_DTYPE_AUTO

// The layout and clip properties are the shared clip settings'.
struct TensorizeSettings : GstCudaPrepClipSettings {
  guint batch_size = DEFAULT_BATCH_SIZE;
  gint dtype = DEFAULT_DTYPE;  // a cudaprep::DataType, or GST_CUDA_PREP_TENSOR_DTYPE_AUTO
  gboolean fuse = TRUE;

  GstCudaPrepClipRule clip_rule() const { return rule(batch_size); }
};

struct GstCudaPrepTensorizePrivate {
  GstCudaPrepTensorizePrivate(GstElement *element, GstCudaPrepCore *core)
      : writer(element, core, GST_CUDA_PREP_TENSORIZE_TENSOR_ID),
        clips(element, core, GST_CUDA_PREP_TENSORIZE_CLIP_TENSOR_ID) {}

  TensorizeSettings settings;  // object lock

  // Negotiated (streaming thread).
  gboolean planar_input = FALSE;
  GstCudaPrepPlanarInfo planar_info;
  cudaprep::ChannelOrder video_channel_order = cudaprep::ChannelOrder::kRGB;
  cudaprep::TensorDesc desc;      // images; for clips, one frame of a clip
  gboolean writes_clips = FALSE;  // clip_desc and `clips`, not `writer`
  cudaprep::ClipDesc clip_desc;

  // The batch being filled (streaming thread): a pooled tensor buffer
  // written frame by frame.
  GstCudaPrepBatchWriter writer;
  GstClockTime end_time = GST_CLOCK_TIME_NONE;  // of the last frame added, if known
  // Or the clip tensors open at once (streaming thread).
  GstCudaPrepClipTensors clips;
};

struct _GstCudaPrepTensorize {
  GstCudaPrepBaseTransform parent;
  GstCudaPrepTensorizePrivate *priv;
};

// A copy of the settings, taken under the object lock.
TensorizeSettings gst_cuda_prep_tensorize_get_settings(GstCudaPrepTensorize *self);
bool gst_cuda_prep_tensorize_batch_size_in_range(const TensorizeSettings &settings);
// What is wrong with `settings`, in words naming the property, or NULL.
gchar *gst_cuda_prep_tensorize_settings_problem(const TensorizeSettings &settings);
void gst_cuda_prep_tensorize_install_properties(GObjectClass *gobject_class);
void gst_cuda_prep_tensorize_set_property(GObject *object, guint prop_id, const GValue *value,
                                          GParamSpec *pspec);
void gst_cuda_prep_tensorize_get_property(GObject *object, guint prop_id, GValue *value,
                                          GParamSpec *pspec);
