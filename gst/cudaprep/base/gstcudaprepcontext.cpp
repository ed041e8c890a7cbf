#include "gstcudaprepcontext.h"

GstContext *gst_cuda_prep_context_new(gint device_id) {
  GstContext *context = gst_context_new(GST_CUDA_PREP_CONTEXT_TYPE, TRUE);
  gst_structure_set(gst_context_writable_structure(context), "device-id", G_TYPE_INT, device_id,
                    nullptr);
  return context;
}

gboolean gst_cuda_prep_context_get_device(GstContext *context, gint *device_id) {
  if (g_strcmp0(gst_context_get_context_type(context), GST_CUDA_PREP_CONTEXT_TYPE) != 0)
    return FALSE;
  return gst_structure_get_int(gst_context_get_structure(context), "device-id", device_id);
}

struct PeerQuery {
  GstQuery *query;
  gint device_id;
  gboolean found;
};

static gboolean query_peer(GstElement *element, GstPad *pad, gpointer user_data) {
  (void)element;
  auto *peer_query = static_cast<PeerQuery *>(user_data);
  GstContext *context = nullptr;
  if (gst_pad_peer_query(pad, peer_query->query)) {
    gst_query_parse_context(peer_query->query, &context);
    peer_query->found =
        context != nullptr && gst_cuda_prep_context_get_device(context, &peer_query->device_id);
  }
  return !peer_query->found;  // stop at the first answer
}

static gboolean query_peers(GstElement *element, gint *device_id) {
  PeerQuery peer_query = {gst_query_new_context(GST_CUDA_PREP_CONTEXT_TYPE), -1, FALSE};
  gst_element_foreach_src_pad(element, query_peer, &peer_query);
  if (!peer_query.found) gst_element_foreach_sink_pad(element, query_peer, &peer_query);
  gst_query_unref(peer_query.query);
  *device_id = peer_query.device_id;
  return peer_query.found;
}

gint gst_cuda_prep_context_find_device(GstElement *element, gint *known_device_id) {
  gint device_id = g_atomic_int_get(known_device_id);
  if (device_id >= 0) return device_id;
  if (query_peers(element, &device_id)) {
    g_atomic_int_set(known_device_id, device_id);
    return device_id;
  }
  // The application (or a bin) may answer synchronously through set_context.
  gst_element_post_message(
      element, gst_message_new_need_context(GST_OBJECT(element), GST_CUDA_PREP_CONTEXT_TYPE));
  device_id = g_atomic_int_get(known_device_id);
  if (device_id >= 0) return device_id;

  device_id = 0;
  g_atomic_int_set(known_device_id, device_id);
  GstContext *context = gst_cuda_prep_context_new(device_id);
  gst_element_post_message(element, gst_message_new_have_context(GST_OBJECT(element), context));
  return device_id;
}

gboolean gst_cuda_prep_context_answer_query(GstQuery *query, gint device_id) {
  const gchar *context_type = nullptr;
  if (device_id < 0 || !gst_query_parse_context_type(query, &context_type) ||
      g_strcmp0(context_type, GST_CUDA_PREP_CONTEXT_TYPE) != 0)
    return FALSE;
  GstContext *context = gst_cuda_prep_context_new(device_id);
  gst_query_set_context(query, context);
  gst_context_unref(context);
  return TRUE;
}
