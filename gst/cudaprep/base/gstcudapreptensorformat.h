// Caps, device layouts and property enums of the non-video payloads:
//
//  - the planar float frame between cudanormalize and cudatensorize:
//      application/x-cudaprep-planar(memory:CUDAPitched),
//        dtype=(string){float32,float16}, channels=(int)[1,3],
//        channel-order=(string){RGB,BGR,GRAY}, width, height, framerate
//    one memory per frame, channel c's plane at c * plane_bytes, every plane
//    `pitch_bytes` per row (the row rounded up to GST_CUDA_PREP_PITCH_ALIGNMENT).
//    The layout is a function of the caps, so both ends compute it alike.
//
//  - the tensor cudatensorize and cudabatch emit: its caps are the library's
//    (gstcudaprepformat-private.h), since cudatensorsink takes them.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <gst/cudaprep/gstcudaprepformat-private.h>

#include "cudaprep/tensor.h"

G_BEGIN_DECLS

#define GST_CUDA_PREP_PLANAR_MEDIA_TYPE "application/x-cudaprep-planar"

#define GST_CUDA_PREP_PLANAR_CAPS                              \
  GST_CUDA_PREP_PLANAR_MEDIA_TYPE                              \
  "(memory:CUDAPitched), dtype=(string){ float32, float16 }, " \
  "channels=(int)[ 1, 3 ], channel-order=(string){ RGB, BGR, " \
  "GRAY }, width=(int)[ 1, max ], height=(int)[ 1, max ], "    \
  "framerate=(fraction)[ 0/1, max ]"

// Property enums. Their values are the kernels' enum values.
#define GST_TYPE_CUDA_PREP_FLOAT_DTYPE (gst_cuda_prep_float_dtype_get_type())
GType gst_cuda_prep_float_dtype_get_type(void);  // float32, float16
#define GST_TYPE_CUDA_PREP_TENSOR_DTYPE (gst_cuda_prep_tensor_dtype_get_type())
GType gst_cuda_prep_tensor_dtype_get_type(void);  // auto, float32, float16, uint8
// The tensor dtype value "auto": the input's element type.
#define GST_CUDA_PREP_TENSOR_DTYPE_AUTO (-1)
#define GST_TYPE_CUDA_PREP_CHANNEL_ORDER (gst_cuda_prep_channel_order_get_type())
GType gst_cuda_prep_channel_order_get_type(void);  // rgb, bgr, gray
#define GST_TYPE_CUDA_PREP_TENSOR_LAYOUT (gst_cuda_prep_tensor_layout_get_type())
GType gst_cuda_prep_tensor_layout_get_type(void);  // nchw, nhwc
// cudatensorize's: nchw, nhwc (the cudaprep::TensorLayout values), and for
// clips ncthw, ntchw (GST_CUDA_PREP_LAYOUT_CLIPS + the cudaprep::ClipLayout
// value).
#define GST_TYPE_CUDA_PREP_CLIP_OR_TENSOR_LAYOUT (gst_cuda_prep_clip_or_tensor_layout_get_type())
GType gst_cuda_prep_clip_or_tensor_layout_get_type(void);
#define GST_CUDA_PREP_LAYOUT_CLIPS 2
#define GST_CUDA_PREP_LAYOUT_NCTHW (GST_CUDA_PREP_LAYOUT_CLIPS + 0)
#define GST_CUDA_PREP_LAYOUT_NTCHW (GST_CUDA_PREP_LAYOUT_CLIPS + 1)

G_END_DECLS

// A planar frame's format and its device layout.
struct GstCudaPrepPlanarInfo {
  gint width = 0;
  gint height = 0;
  cudaprep::ChannelOrder channel_order = cudaprep::ChannelOrder::kRGB;
  gint channels = 0;  // channel_count(channel_order)
  cudaprep::DataType dtype = cudaprep::DataType::kFloat32;
  gint fps_n = 0, fps_d = 1;
  gsize pitch_bytes = 0;  // per row, aligned
  gsize plane_bytes = 0;  // pitch_bytes * height
  gsize size = 0;         // plane_bytes * channels
};

// What gst_cuda_prep_planar_info_from_caps() requires, for error messages.
#define GST_CUDA_PREP_PLANAR_CAPS_RULES                                                  \
  "fixed width, height, channel-order, channels matching it, dtype float32 or float16, " \
  "and frames of at most 4 GiB"

// Fills the layout of a frame of this size, order and type. False if the
// frame is larger than a pool's buffers can be (G_MAXUINT bytes) or dtype is
// not a float type.
gboolean gst_cuda_prep_planar_info_set(GstCudaPrepPlanarInfo *info, gint width, gint height,
                                       cudaprep::ChannelOrder channel_order,
                                       cudaprep::DataType dtype);
// From fixed planar caps; false if they are not (or are inconsistent:
// channels must match channel-order).
gboolean gst_cuda_prep_planar_info_from_caps(GstCudaPrepPlanarInfo *info, const GstCaps *caps);

// The kernels' view of a planar buffer: its single CUDAPitched memory laid out
// as `info` says. False, with `error` set, when the buffer does not hold one.
gboolean gst_cuda_prep_buffer_planar_image(GstBuffer *buffer, const GstCudaPrepPlanarInfo *info,
                                           cudaprep::PlanarImage *image, const gchar **error);

// The channels of an 8-bit interleaved format in its own order (alpha and
// padding dropped); FALSE for other formats.
gboolean gst_cuda_prep_video_channel_order(GstVideoFormat format, cudaprep::ChannelOrder *order);
// The interleaved formats whose channels come in `order`, as a caps value.
const char *gst_cuda_prep_video_formats_of(cudaprep::ChannelOrder order);

// Caps spellings of the kernels' enums; false for an unknown spelling.
gboolean gst_cuda_prep_data_type_from_string(const gchar *name, cudaprep::DataType *dtype);
gboolean gst_cuda_prep_channel_order_from_string(const gchar *name,
                                                 cudaprep::ChannelOrder *channel_order);
gboolean gst_cuda_prep_tensor_layout_from_string(const gchar *name, cudaprep::TensorLayout *layout);
