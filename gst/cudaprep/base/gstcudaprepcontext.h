// Agreeing on one CUDA device across a pipeline through a GstContext, as
// other GPU plugins do: an element asks its peers and the application
// (need-context), and the first one to choose announces it (have-context).
#pragma once

#include <gst/gst.h>

#define GST_CUDA_PREP_CONTEXT_TYPE "cudaprep.device"

GstContext *gst_cuda_prep_context_new(gint device_id);
// The device a cudaprep.device context names; FALSE for other contexts.
gboolean gst_cuda_prep_context_get_device(GstContext *context, gint *device_id);

// The device `element` should run on when its device-id property is unset:
// the one in `*known_device_id` if a context already reached the element,
// else one answered by a peer or the application, else device 0, which is
// then announced to the pipeline. `known_device_id` is updated by the
// element's set_context while the need-context message is handled.
gint gst_cuda_prep_context_find_device(GstElement *element, gint *known_device_id);

// Answers a context query with `device_id`; FALSE if not ours to answer.
gboolean gst_cuda_prep_context_answer_query(GstQuery *query, gint device_id);
