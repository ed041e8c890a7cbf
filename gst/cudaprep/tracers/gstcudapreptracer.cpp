#include "gstcudapreptracer.h"

#include "base/gstcudapreptrace.h"

#include <map>
#include <mutex>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_prep_tracer_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_tracer_debug

namespace {

constexpr guint64 kDefaultEvery = 100;

// A push in progress on this thread: the element whose chain it entered
// (NULL for a proxy pad or a bin: their time is their children's), when,
// and how long the pushes it made itself took.
struct Call {
  GstElement *element;
  guint64 start;
  guint n_buffers;  // 1, or a buffer list's length
  guint64 nested = 0;
};

// Per thread, and per tracer (two tracers see the same pushes).
thread_local std::map<const void *, std::vector<Call>> calls_of;

struct ElementTimes {
  guint64 frames = 0;  // since the last report
  guint64 total_ns = 0;
  guint64 max_ns = 0;
  guint64 reported = 0;  // frames reported so far
  // GPU time of the element's kernels (cudaprep's elements), as their work
  // completed since the last report.
  guint64 gpu_frames = 0;
  guint64 gpu_total_ns = 0;
  guint64 gpu_max_ns = 0;  // per frame
  guint64 gpu_reported = 0;
};

GstTracerRecord *host_time_record = nullptr;
GstTracerRecord *gpu_time_record = nullptr;

}  // namespace

struct _GstCudaPrepTracer {
  GstTracer parent;
  guint64 every;
  std::mutex *lock;
  std::map<GstElement *, ElementTimes> *times;  // keys are never dereferenced
};

G_DEFINE_TYPE(GstCudaPrepTracer, gst_cuda_prep_tracer, GST_TYPE_TRACER)

// The element whose chain function a push on `pad` enters.
static GstElement *receiving_element(GstPad *pad) {
  GstPad *peer = GST_PAD_PEER(pad);  // (the pusher holds the link while it pushes)
  if (!peer) return nullptr;
  GstObject *parent = GST_OBJECT_PARENT(peer);
  if (!parent || !GST_IS_ELEMENT(parent) || GST_IS_BIN(parent)) return nullptr;
  return GST_ELEMENT(parent);
}

static void push_pre(GstCudaPrepTracer *self, guint64 ts, GstPad *pad, guint n_buffers) {
  calls_of[self].push_back(Call{receiving_element(pad), ts, n_buffers});
}

static void push_post(GstCudaPrepTracer *self, guint64 ts) {
  std::vector<Call> &calls = calls_of[self];
  if (calls.empty()) return;  // (the tracer was made while a push was under way)
  const Call call = calls.back();
  const guint n_buffers = call.n_buffers;
  calls.pop_back();
  const guint64 total = ts > call.start ? ts - call.start : 0;
  if (!calls.empty()) calls.back().nested += total;
  if (!call.element || n_buffers == 0) return;
  const guint64 own = total > call.nested ? total - call.nested : 0;
  guint64 frames = 0, mean = 0, max = 0;
  guint64 gpu_frames = 0, gpu_mean = 0, gpu_max = 0;
  {
    std::lock_guard<std::mutex> guard(*self->lock);
    ElementTimes &times = (*self->times)[call.element];
    times.frames += n_buffers;
    times.total_ns += own;
    times.max_ns = MAX(times.max_ns, own / n_buffers);
    if (times.frames < self->every) return;
    times.reported += times.frames;
    frames = times.reported;
    mean = times.total_ns / times.frames;
    max = times.max_ns;
    times.frames = times.total_ns = times.max_ns = 0;
    if (times.gpu_frames > 0) {
      times.gpu_reported += times.gpu_frames;
      gpu_frames = times.gpu_reported;
      gpu_mean = times.gpu_total_ns / times.gpu_frames;
      gpu_max = times.gpu_max_ns;
      times.gpu_frames = times.gpu_total_ns = times.gpu_max_ns = 0;
    }
  }
  gst_tracer_record_log(host_time_record, GST_OBJECT_NAME(call.element), frames, mean, max);
  if (gpu_frames > 0)
    gst_tracer_record_log(gpu_time_record, GST_OBJECT_NAME(call.element), gpu_frames, gpu_mean,
                          gpu_max);
}

// A cudaprep element's kernels for `frames` frames completed in `gpu_ns`.
static void on_gpu_time(gpointer tracer, GstElement *element, guint64 gpu_ns, guint frames) {
  auto *self = static_cast<GstCudaPrepTracer *>(tracer);
  if (frames == 0) return;
  std::lock_guard<std::mutex> guard(*self->lock);
  ElementTimes &times = (*self->times)[element];
  times.gpu_frames += frames;
  times.gpu_total_ns += gpu_ns;
  times.gpu_max_ns = MAX(times.gpu_max_ns, gpu_ns / frames);
}

static void on_push_pre(GstCudaPrepTracer *self, guint64 ts, GstPad *pad, GstBuffer *) {
  push_pre(self, ts, pad, 1);
}
static void on_push_list_pre(GstCudaPrepTracer *self, guint64 ts, GstPad *pad,
                             GstBufferList *list) {
  push_pre(self, ts, pad, gst_buffer_list_length(list));
}
static void on_push_post(GstCudaPrepTracer *self, guint64 ts, GstPad *, GstFlowReturn) {
  push_post(self, ts);
}

// An element that goes away: its times go with it (its address may be reused).
static void on_element_removed(GstCudaPrepTracer *self, guint64, GstBin *, GstElement *element) {
  std::lock_guard<std::mutex> guard(*self->lock);
  self->times->erase(element);
}

static void gst_cuda_prep_tracer_constructed(GObject *object) {
  GstCudaPrepTracer *self = GST_CUDA_PREP_TRACER(object);
  G_OBJECT_CLASS(gst_cuda_prep_tracer_parent_class)->constructed(object);
  gchar *params = nullptr;
  g_object_get(object, "params", &params, nullptr);
  if (params) {
    gchar *text = g_strdup_printf("cudaprep,%s", params);
    GstStructure *structure = gst_structure_from_string(text, nullptr);
    gint every = 0;
    if (structure && gst_structure_get_int(structure, "every", &every) && every > 0)
      self->every = static_cast<guint64>(every);
    else if (structure && gst_structure_has_field(structure, "every"))
      GST_WARNING_OBJECT(self, "every must be a positive integer: %s; using %" G_GUINT64_FORMAT,
                         params, self->every);
    if (structure) gst_structure_free(structure);
    g_free(text);
    g_free(params);
  }
  GstTracer *tracer = GST_TRACER(self);
  gst_tracing_register_hook(tracer, "pad-push-pre", G_CALLBACK(on_push_pre));
  gst_tracing_register_hook(tracer, "pad-push-post", G_CALLBACK(on_push_post));
  gst_tracing_register_hook(tracer, "pad-push-list-pre", G_CALLBACK(on_push_list_pre));
  gst_tracing_register_hook(tracer, "pad-push-list-post", G_CALLBACK(on_push_post));
  gst_tracing_register_hook(tracer, "bin-remove-post", G_CALLBACK(on_element_removed));
  gst_cuda_prep_trace_add_tracer(self, on_gpu_time);
}

static void gst_cuda_prep_tracer_finalize(GObject *object) {
  GstCudaPrepTracer *self = GST_CUDA_PREP_TRACER(object);
  gst_cuda_prep_trace_remove_tracer(self);
  delete self->times;
  delete self->lock;
  G_OBJECT_CLASS(gst_cuda_prep_tracer_parent_class)->finalize(object);
}

// A tracer record's field: its type and what it means.
static GstStructure *record_field(GType type, const gchar *description) {
  return gst_structure_new("value", "type", G_TYPE_GTYPE, type, "description", G_TYPE_STRING,
                           description, nullptr);
}

static void gst_cuda_prep_tracer_class_init(GstCudaPrepTracerClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  gobject_class->constructed = gst_cuda_prep_tracer_constructed;
  gobject_class->finalize = gst_cuda_prep_tracer_finalize;
  GST_DEBUG_CATEGORY_INIT(gst_cuda_prep_tracer_debug, "cudapreptracer", 0,
                          "cudaprep tracer: host and GPU time per element and frame");
  host_time_record = gst_tracer_record_new(
      "cudaprep-host-time.class", "element", GST_TYPE_STRUCTURE,
      record_field(G_TYPE_STRING, "the element's name"), "frames", GST_TYPE_STRUCTURE,
      record_field(G_TYPE_UINT64, "frames so far"), "host-ns-per-frame", GST_TYPE_STRUCTURE,
      record_field(G_TYPE_UINT64, "mean host time in the element since the last report"),
      "host-ns-max", GST_TYPE_STRUCTURE,
      record_field(G_TYPE_UINT64, "the longest frame since the last report"), nullptr);
  GST_OBJECT_FLAG_SET(host_time_record, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  gpu_time_record = gst_tracer_record_new(
      "cudaprep-gpu-time.class", "element", GST_TYPE_STRUCTURE,
      record_field(G_TYPE_STRING, "the element's name"), "frames", GST_TYPE_STRUCTURE,
      record_field(G_TYPE_UINT64, "frames whose GPU work completed so far"), "gpu-ns-per-frame",
      GST_TYPE_STRUCTURE,
      record_field(G_TYPE_UINT64,
                   "mean GPU time of the element's kernels per frame, over the frames whose "
                   "work completed since the last report"),
      "gpu-ns-max", GST_TYPE_STRUCTURE,
      record_field(G_TYPE_UINT64, "the longest GPU time per frame since the last report"), nullptr);
  GST_OBJECT_FLAG_SET(gpu_time_record, GST_OBJECT_FLAG_MAY_BE_LEAKED);
}

static void gst_cuda_prep_tracer_init(GstCudaPrepTracer *self) {
  self->every = kDefaultEvery;
  self->lock = new std::mutex();
  self->times = new std::map<GstElement *, ElementTimes>();
}
