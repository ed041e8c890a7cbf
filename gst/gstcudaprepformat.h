// GStreamer <-> kernel-library vocabulary: formats, image views of buffers,
// CUDA error reporting.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "cudaprep/image.h"

G_BEGIN_DECLS

// The caps feature of pitched device frames. Deliberately not
// memory:CUDAMemory, which belongs to nvcodec's elements.
#define GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED "memory:CUDAPitched"

// Every 8-bit format the upload and download elements move.
#define GST_CUDA_PREP_FRAME_FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8, NV12, I420, YUY2 }"

#define GST_CUDA_PREP_VIDEO_CAPS(formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED, formats)

G_END_DECLS

// Maps a GStreamer video format to the kernels' format; false if unsupported.
gboolean gst_cuda_prep_pixel_format(GstVideoFormat video_format, cudaprep::PixelFormat *format);

// Fills `info` from fixed video caps of frames cudaprep can hold: a format of
// GST_CUDA_PREP_FRAME_FORMATS, at least 1x1, whose pitched device layout fits
// (gst_cuda_prep_device_video_info). Otherwise posts a GST_ELEMENT_ERROR
// naming the format and size and what is wrong with them, and returns FALSE.
gboolean gst_cuda_prep_frame_info_from_caps(GstElement *element, const GstCaps *caps,
                                            GstVideoInfo *info);

// Whether caps carry the memory:CUDAPitched feature.
gboolean gst_cuda_prep_caps_are_device(const GstCaps *caps);

// A copy of `caps` whose every structure has `feature` as its only caps
// feature, or system memory when `feature` is NULL.
GstCaps *gst_cuda_prep_caps_with_feature(const GstCaps *caps, const gchar *feature);

// A view of a device frame: the buffer's single CUDAPitched memory with its
// GstVideoMeta offsets and strides (a crop is a view with other offsets).
// False, with `error` set to a reason, when the buffer is not such a frame.
gboolean gst_cuda_prep_buffer_device_image(GstBuffer *buffer, const GstVideoInfo *info,
                                           cudaprep::Image *image, const gchar **error);

// The device frame a buffer's own GstVideoMeta describes (format and size
// from the meta, not from caps): a frame carrying pending operations.
gboolean gst_cuda_prep_buffer_source_image(GstBuffer *buffer, cudaprep::Image *image,
                                           const gchar **error);

// Posts a GST_ELEMENT_ERROR naming the failed CUDA call (out of memory gets
// its own message) and returns FALSE; returns TRUE on cudaSuccess.
gboolean gst_cuda_prep_check(GstElement *element, cudaError_t result, const gchar *call,
                             const gchar *file, const gchar *function, gint line);

#define CUDAPREP_CHECK(element, call) \
  gst_cuda_prep_check(GST_ELEMENT(element), (call), #call, __FILE__, GST_FUNCTION, __LINE__)
