// The pending meta of fusion: the plugin's own meta, never seen by
// applications, holding the kernel parameters an element left for a later
// one (see docs/architecture.md, "Pending work").
#pragma once

#include <gst/cudaprep/gstcudaprepmeta.h>
#include <gst/gst.h>

#include "cudaprep/normalize.h"
#include "cudaprep/resize.h"
#include "cudaprep/resize_geometry.h"

// Operations an element left for a later one to run in a single kernel
// (docs/design.md "Later"): the buffer's memory and GstVideoMeta still hold the
// source frame, the caps describe the result. cudaresize and cudanormalize
// leave their work here when downstream announces the meta's API in the
// allocation query; cudatensorize runs it with cudaprep::preprocess().
typedef struct {
  GstMeta meta;
  gboolean has_resize;
  cudaprep::ResizeParams resize;  // into the caps' size; identity when !has_resize
  gboolean has_normalize;
  cudaprep::NormalizeParams normalize;
  // How the resize fits a picture into the caps' size (letterbox with these
  // options, or stretched), so that a reader resizing parts of the source
  // (cudabatch's regions) fits each part as cudaresize fits the frame.
  gboolean letterbox;
  cudaprep::LetterboxOptions letterbox_options;
  // The held source frame's mapping from the original frame: its geometry
  // before the pending resize was composed onto the buffer's geometry meta.
  cudaprep::FrameGeometry source_geometry;
  // A cudacrop after the resize moved resize.dst_rect by minus its corner
  // (resize.h: only the part inside the caps' size is written): the result
  // is part of the resized frame, which a reader resizing parts of the
  // source (cudabatch's regions) cannot reproduce.
  gboolean cropped;
} GstCudaPrepPendingMeta;

#define GST_CUDA_PREP_PENDING_META_API_TYPE (gst_cuda_prep_pending_meta_api_get_type())
GType gst_cuda_prep_pending_meta_api_get_type(void);
const GstMetaInfo *gst_cuda_prep_pending_meta_get_info(void);
// The buffer's pending meta, added (nothing pending) if it has none.
GstCudaPrepPendingMeta *gst_buffer_ensure_cuda_prep_pending_meta(GstBuffer *buffer);
GstCudaPrepPendingMeta *gst_buffer_get_cuda_prep_pending_meta(GstBuffer *buffer);

// What the element that runs pending work launches with it, announced as
// the pending meta's parameters in the allocation query (and passed on by
// the elements between, which take pending work to hand it on): the
// element that leaves the work compiles that kernel when it negotiates
// (cudaprep/kernel_runtime.h), so that no frame waits for the compile.
typedef struct {
  cudaprep::DataType dtype;  // the tensor's
  gboolean batched;          // preprocess_batch() (cudabatch), else preprocess()
  gint max_items;            // items one batch may hold
} GstCudaPrepPendingReader;

// Announces in the allocation `query` that this element runs pending work,
// launched as `reader` says (NULL: not said, nothing is compiled ahead).
void gst_cuda_prep_query_add_pending_meta(GstQuery *query, const GstCudaPrepPendingReader *reader);
// Whether `query` holds a pending meta with a reader; fills `reader`.
gboolean gst_cuda_prep_query_find_pending_reader(GstQuery *query, GstCudaPrepPendingReader *reader);
