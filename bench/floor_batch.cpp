// floorbatch (floor_batch.h).
#include "floor_batch.h"

#include <gst/base/gstaggregator.h>

namespace {

struct FloorBatch {
  GstAggregator parent;
  guint batch_size;
  guint filled;  // frames in the waiting batch
  GstClockTime first_pts;
};

struct FloorBatchClass {
  GstAggregatorClass parent_class;
};

enum { PROP_0, PROP_BATCH_SIZE };

GType floor_batch_get_type();
#define FLOOR_BATCH(obj) (reinterpret_cast<FloorBatch *>(obj))

G_DEFINE_TYPE(FloorBatch, floor_batch, GST_TYPE_AGGREGATOR)

GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS_ANY);
GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

GstClockTime head_running_time(GstAggregatorPad *pad) {
  GstBuffer *head = gst_aggregator_pad_peek_buffer(pad);
  if (head == nullptr) return GST_CLOCK_TIME_NONE;
  const GstClockTime running =
      gst_segment_to_running_time(&pad->segment, GST_FORMAT_TIME, GST_BUFFER_PTS(head));
  gst_buffer_unref(head);
  return running;
}

// The pad whose queued frame is earliest (a new reference), NULL if none
// holds one: the same scan as cudabatch's earliest_pad().
GstAggregatorPad *earliest_pad(GstElement *element) {
  GstAggregatorPad *earliest = nullptr;
  GstClockTime earliest_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK(element);
  for (GList *node = element->sinkpads; node != nullptr; node = node->next) {
    auto *pad = GST_AGGREGATOR_PAD(node->data);
    if (!gst_aggregator_pad_has_buffer(pad)) continue;
    const GstClockTime running = head_running_time(pad);
    if (earliest == nullptr ||
        (GST_CLOCK_TIME_IS_VALID(running) &&
         (!GST_CLOCK_TIME_IS_VALID(earliest_time) || running < earliest_time))) {
      earliest = pad;
      earliest_time = running;
    }
  }
  if (earliest != nullptr) gst_object_ref(earliest);
  GST_OBJECT_UNLOCK(element);
  return earliest;
}

GstFlowReturn floor_batch_aggregate(GstAggregator *aggregator, gboolean timeout) {
  (void)timeout;
  FloorBatch *self = FLOOR_BATCH(aggregator);
  gboolean all_eos = TRUE;
  GstFlowReturn ret = GST_FLOW_OK;
  while (GstAggregatorPad *pad = earliest_pad(GST_ELEMENT(aggregator))) {
    GstBuffer *frame = gst_aggregator_pad_pop_buffer(pad);
    gst_object_unref(pad);
    if (frame == nullptr) continue;
    if (self->filled == 0) self->first_pts = GST_BUFFER_PTS(frame);
    gst_buffer_unref(frame);
    if (++self->filled < self->batch_size) continue;
    GstBuffer *batch = gst_buffer_new();
    GST_BUFFER_PTS(batch) = self->first_pts;
    GST_BUFFER_OFFSET(batch) = self->filled;
    self->filled = 0;
    ret = gst_aggregator_finish_buffer(aggregator, batch);
    if (ret != GST_FLOW_OK) return ret;
  }
  GST_OBJECT_LOCK(aggregator);
  for (GList *node = GST_ELEMENT(aggregator)->sinkpads; node != nullptr; node = node->next)
    all_eos = all_eos && gst_aggregator_pad_is_eos(GST_AGGREGATOR_PAD(node->data));
  GST_OBJECT_UNLOCK(aggregator);
  return all_eos ? GST_FLOW_EOS : ret;
}

// At once while a frame waits on a pad, as cudabatch's get_next_time().
GstClockTime floor_batch_get_next_time(GstAggregator *aggregator) {
  GstAggregatorPad *pad = earliest_pad(GST_ELEMENT(aggregator));
  if (pad == nullptr) return GST_CLOCK_TIME_NONE;
  gst_object_unref(pad);
  return 0;
}

gboolean floor_batch_negotiate(GstAggregator *aggregator) {
  GstCaps *caps = gst_caps_new_empty_simple("application/x-floor-batch");
  gst_aggregator_set_src_caps(aggregator, caps);
  gst_caps_unref(caps);
  return TRUE;
}

void floor_batch_set_property(GObject *object, guint id, const GValue *value, GParamSpec *spec) {
  if (id == PROP_BATCH_SIZE)
    FLOOR_BATCH(object)->batch_size = g_value_get_uint(value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

void floor_batch_get_property(GObject *object, guint id, GValue *value, GParamSpec *spec) {
  if (id == PROP_BATCH_SIZE)
    g_value_set_uint(value, FLOOR_BATCH(object)->batch_size);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

void floor_batch_class_init(FloorBatchClass *klass) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstAggregatorClass *aggregator_class = GST_AGGREGATOR_CLASS(klass);
  object_class->set_property = floor_batch_set_property;
  object_class->get_property = floor_batch_get_property;
  g_object_class_install_property(
      object_class, PROP_BATCH_SIZE,
      g_param_spec_uint("batch-size", "Batch size", "Frames a batch holds", 1, 1024, 8,
                        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
  gst_element_class_add_static_pad_template_with_gtype(element_class, &sink_template,
                                                       GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype(element_class, &src_template,
                                                       GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata(
      element_class, "Floor batch", "Generic",
      "Batches live frames with nothing else (bench_batch --floor)", "cudaprep");
  aggregator_class->aggregate = floor_batch_aggregate;
  aggregator_class->get_next_time = floor_batch_get_next_time;
  aggregator_class->negotiate = floor_batch_negotiate;
}

void floor_batch_init(FloorBatch *self) {
  self->batch_size = 8;
  self->filled = 0;
  self->first_pts = GST_CLOCK_TIME_NONE;
}

}  // namespace

gboolean floor_batch_register(void) {
  return gst_element_register(nullptr, "floorbatch", GST_RANK_NONE, floor_batch_get_type());
}
