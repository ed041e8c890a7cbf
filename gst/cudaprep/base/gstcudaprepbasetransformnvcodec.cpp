// The caps side of reading nvcodec's frames in GstCudaPrepBaseTransform
// (gst_cuda_prep_base_transform_class_read_nvcodec_frames()): input in
// memory:CUDAMemory negotiated as the same caps in memory:CUDAPitched. The
// buffers themselves are wrapped as device frames by the base class
// (submit_input_buffer, gstcudaprepbasetransform.cpp).
#include "gstcudaprepbasetransform.h"

#include <gst/cudaprep/gstcudaprepformat-private.h>

#include "gstcudaprepnvcodec.h"

// `caps` with each memory:CUDAMemory structure also as memory:CUDAPitched
// (nvcodec's frames read as ours), or with each memory:CUDAPitched one also
// as memory:CUDAMemory (`to_nvcodec`), each alias right after its original:
// the order is the preference (exact sizes before any size) and is kept.
static GstCaps *with_memory_alias(GstCaps *caps, gboolean to_nvcodec) {
  const gchar *from =
      to_nvcodec ? GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED : GST_CAPS_FEATURE_MEMORY_CUDA_NVCODEC;
  const gchar *to =
      to_nvcodec ? GST_CAPS_FEATURE_MEMORY_CUDA_NVCODEC : GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED;
  GstCaps *result = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures *features = gst_caps_get_features(caps, i);
    const GstStructure *structure = gst_caps_get_structure(caps, i);
    result = gst_caps_merge_structure_full(
        result, gst_structure_copy(structure),
        features != nullptr ? gst_caps_features_copy(features) : nullptr);
    if (features != nullptr && gst_caps_features_contains(features, from))
      result = gst_caps_merge_structure_full(result, gst_structure_copy(structure),
                                             gst_caps_features_new(to, nullptr));
  }
  return result;
}

static GstCaps *nvcodec_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                       GstCaps *caps, GstCaps *filter) {
  auto *klass = GST_CUDA_PREP_BASE_TRANSFORM_GET_CLASS(trans);
  GstCaps *result = nullptr;
  if (direction == GST_PAD_SINK) {
    GstCaps *as_pitched = with_memory_alias(caps, FALSE);
    result = klass->device_transform_caps(trans, direction, as_pitched, nullptr);
    gst_caps_unref(as_pitched);
  } else {
    GstCaps *sink_caps = klass->device_transform_caps(trans, direction, caps, nullptr);
    result = with_memory_alias(sink_caps, TRUE);
    gst_caps_unref(sink_caps);
  }
  return gst_cuda_prep_caps_filter_result(GST_ELEMENT(trans), direction, caps, result, filter);
}

void gst_cuda_prep_base_transform_class_read_nvcodec_frames(GstCudaPrepBaseTransformClass *klass) {
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  klass->device_transform_caps = trans_class->transform_caps;
  trans_class->transform_caps = nvcodec_transform_caps;
}
