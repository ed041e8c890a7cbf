// GStreamer <-> kernel-library vocabulary: pixel formats, the caps of
// device frames, and the pitched layout a device frame of given caps has.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <initializer_list>

#include "cudaprep/image.h"

G_BEGIN_DECLS

// The caps feature of pitched device frames. Deliberately not
// memory:CUDAMemory, which belongs to nvcodec's elements.
#define GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED "memory:CUDAPitched"

// Every format the upload and download elements move: 8-bit ones, and the
// 10/12/16-bit 4:2:0 formats NVDEC writes.
#define GST_CUDA_PREP_FRAME_FORMATS \
  "{ RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8, NV12, I420, YUY2, P010_10LE, P012_LE, P016_LE }"

// The 8-bit interleaved formats (one plane of whole pixels) that
// cudanormalize and cudatensorize read.
#define GST_CUDA_PREP_INTERLEAVED_FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8 }"

#define GST_CUDA_PREP_VIDEO_CAPS(formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED, formats)

// Rows and planes start on this many bytes: every row then starts on a full
// memory transaction and satisfies the texture pitch alignment of every GPU.
#define GST_CUDA_PREP_PITCH_ALIGNMENT 256

// The tensor cudatensorize and cudabatch emit and cudatensorsink takes:
//   other/x-cudaprep-tensor(memory:CUDAPitched),
//     dtype=(string){float32,float16,uint8},
//     layout=(string){NCHW,NHWC,NCTHW,NTCHW},
//     batch=(int)[1,1024], channels=(int)[1,3],
//     channel-order=(string){RGB,BGR,GRAY}, width, height
// one tensor per buffer, described by its GstCudaPrepTensorMeta. A clip
// tensor's fixed caps (NCTHW, NTCHW) also carry frames=(int)T, which the
// template, naming no such field, accepts.
#define GST_CUDA_PREP_TENSOR_MEDIA_TYPE "other/x-cudaprep-tensor"

#define GST_CUDA_PREP_TENSOR_MAX_BATCH 1024

#define GST_CUDA_PREP_TENSOR_CAPS_WITH_LAYOUTS(layouts)                                        \
  GST_CUDA_PREP_TENSOR_MEDIA_TYPE                                                              \
  "(memory:CUDAPitched), dtype=(string){ float32, float16, uint8 }, layout=(string){ " layouts \
  " }, batch=(int)[ 1, 1024 ], channels=(int)[ 1, 3 ], channel-order=(string){ RGB, BGR, "     \
  "GRAY }, width=(int)[ 1, max ], height=(int)[ 1, max ]"
#define GST_CUDA_PREP_TENSOR_CAPS GST_CUDA_PREP_TENSOR_CAPS_WITH_LAYOUTS("NCHW, NHWC, NCTHW, NTCHW")
// What cudabatch makes: image tensors only (no clips yet).
#define GST_CUDA_PREP_IMAGE_TENSOR_CAPS GST_CUDA_PREP_TENSOR_CAPS_WITH_LAYOUTS("NCHW, NHWC")

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

// Copies those of `fields` that `from` has into `to`.
void gst_cuda_prep_structure_copy_fields(GstStructure *to, const GstStructure *from,
                                         std::initializer_list<const char *> fields);

// Appends `structure` (taken) to `caps` with the memory:CUDAPitched feature.
void gst_cuda_prep_caps_append_device(GstCaps *caps, GstStructure *structure);

// The end of every element's transform_caps: `result` (the caps the other
// side may have, taken) intersected with `filter`, logged for `element`.
GstCaps *gst_cuda_prep_caps_filter_result(GstElement *element, GstPadDirection direction,
                                          GstCaps *caps, GstCaps *result, GstCaps *filter);

// Fills `device_info` with the pitched device layout of `info`'s frames:
// each plane's stride rounded up to GST_CUDA_PREP_PITCH_ALIGNMENT, planes
// one after another, size the total. False if the sizes overflow.
gboolean gst_cuda_prep_device_video_info(const GstVideoInfo *info, GstVideoInfo *device_info);
