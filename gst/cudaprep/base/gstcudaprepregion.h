// The region protocol: a reader tells the upload what it reads, and only
// that crosses PCIe.
//
// A reader (cudacrop, cudaresize) announces in its allocation answer the
// rectangle of each frame it reads and, within it, optionally only the rows
// of a repeating pattern (a downscale never reads rows of weight zero).
// cudaframeupload then copies only those pixels, leaves the rest of the
// frame as it was and marks each such frame with a GstCudaPrepRegionMeta,
// so that a reader whose settings moved since (a live property change) can
// tell the frame does not hold its pixels and drop it.
#pragma once

#include <gst/gst.h>

#include "cudaprep/copy.h"
#include "cudaprep/resize.h"

G_BEGIN_DECLS

// What a reader reads of each frame: the rectangle, and of its rows only
// those of `rows` (rows.period 0: every row of the rectangle).
//
// A reader that also takes pending work reads the frame a buffer's memory
// holds (cudabatch's regions: parts of the source, each resized as the
// pending resize would). `of_result` marks instead a rectangle of the frame
// the caps describe, the pending work's result (cudacrop, which composes its
// crop into a pending resize): an element whose pending work moves pixels
// (cudaresize) cannot forward it as a rectangle of its own input.
typedef struct {
  cudaprep::PixelRect rect;
  cudaprep::RowPattern rows;
  gboolean of_result = FALSE;
} GstCudaPrepRegion;

#define GST_CUDA_PREP_REGION_META_API_TYPE (gst_cuda_prep_region_meta_api_get_type())
GType gst_cuda_prep_region_meta_api_get_type(void);

// On a frame written only in part: the pixels that were written.
typedef struct {
  GstMeta meta;
  GstCudaPrepRegion region;
} GstCudaPrepRegionMeta;

const GstMetaInfo *gst_cuda_prep_region_meta_get_info(void);
GstCudaPrepRegionMeta *gst_buffer_add_cuda_prep_region_meta(GstBuffer *buffer,
                                                            const GstCudaPrepRegion *region);
GstCudaPrepRegionMeta *gst_buffer_get_cuda_prep_region_meta(GstBuffer *buffer);

// The announcement, in an allocation answer. A row pattern's rows must lie
// in the rectangle (rows.first == rect.y, rows.last == rect.y + height - 1).
void gst_cuda_prep_query_add_region(GstQuery *query, const GstCudaPrepRegion *region);

// The region announced in an allocation query, checked to lie within a
// `width` x `height` frame: FALSE when there is none or it is malformed.
gboolean gst_cuda_prep_query_find_region(GstQuery *query, gint width, gint height,
                                         GstCudaPrepRegion *region);

// TRUE when `rect`'s pixels were written: the buffer has no region meta (a
// whole frame), or its region, all of whose rows were written, contains
// `rect`.
gboolean gst_cuda_prep_buffer_holds_rect(GstBuffer *buffer, const cudaprep::PixelRect &rect);

// FALSE when the buffer was uploaded row by row for rows other than `rows`
// (a reader whose settings changed while it was on its way).
gboolean gst_cuda_prep_buffer_holds_rows(GstBuffer *buffer, const cudaprep::RowPattern &rows);

G_END_DECLS
