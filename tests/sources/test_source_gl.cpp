// cudaprepsrc's answer to an element of its decoder's part that asks for a
// GL display. GStreamer 1.22's nvcodec decoders ask whenever they open;
// with no window system GStreamer would make an EGL display, whose NVIDIA
// driver thread can crash the process at exit (docs/faults.md). Without a
// GPU: a source of this suite (URI scheme cudapreptestgl://, so that
// cudaprepsrc's uridecodebin builds it) asks as nvh264dec does
// (gst_gl_ensure_element_data() when it opens) and must get the display of
// no window system, with no request leaving the bin, and its frames must
// still go through; a display the pipeline holds is the one it gets
// instead; an element of the user's chain that asks is not answered (it
// may draw with GL).
#include <gst/base/gstbasetransform.h>
#include <gst/base/gstpushsrc.h>
#include <gst/gl/gl.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

namespace {

// The display an asking element held once it had asked (both test
// elements record it here, since cudaprepsrc may have freed them since).
struct Asked {
  std::mutex lock;
  GstGLDisplay *display = nullptr;
  int times = 0;
} asked;

void record_asked(GstGLDisplay *display) {
  std::lock_guard<std::mutex> guard(asked.lock);
  gst_clear_object(&asked.display);
  if (display != nullptr) asked.display = GST_GL_DISPLAY(gst_object_ref(display));
  ++asked.times;
}

void forget_asked() {
  std::lock_guard<std::mutex> guard(asked.lock);
  gst_clear_object(&asked.display);
  asked.times = 0;
}

// What both test elements hold and do when they open, as nvdec does.
struct GlData {
  GstGLDisplay *display;
  GstGLContext *other_context;
};

void ask_for_gl_display(GstElement *element, GlData *data) {
  gst_gl_ensure_element_data(element, &data->display, &data->other_context);
  record_asked(data->display);
}

void take_gl_context(GstElement *element, GstContext *context, GlData *data) {
  gst_gl_handle_set_context(element, context, &data->display, &data->other_context);
}

void clear_gl_data(GlData *data) {
  gst_clear_object(&data->display);
  gst_clear_object(&data->other_context);
}

// A source of ten 64x48 GRAY8 frames at cudapreptestgl:// that asks for a
// GL display when it opens: an element of the decoder's part.
struct AskingSrc {
  GstPushSrc parent;
  GlData gl;
  int frames;
};
struct AskingSrcClass {
  GstPushSrcClass parent_class;
};
void asking_src_uri_init(gpointer iface, gpointer data);
GType asking_src_get_type();
G_DEFINE_TYPE_WITH_CODE(AskingSrc, asking_src, GST_TYPE_PUSH_SRC,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_URI_HANDLER, asking_src_uri_init))

constexpr int kWidth = 64, kHeight = 48, kFrames = 10;
GstStaticPadTemplate gray_src = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1"));

GstFlowReturn asking_src_create(GstPushSrc *src, GstBuffer **buffer) {
  auto *self = reinterpret_cast<AskingSrc *>(src);
  if (self->frames == kFrames) return GST_FLOW_EOS;
  *buffer = gst_buffer_new_allocate(nullptr, kWidth * kHeight, nullptr);
  gst_buffer_memset(*buffer, 0, static_cast<guint8>(16 * self->frames), kWidth * kHeight);
  GST_BUFFER_PTS(*buffer) = gst_util_uint64_scale(self->frames, GST_SECOND, 30);
  GST_BUFFER_DURATION(*buffer) = GST_SECOND / 30;
  ++self->frames;
  return GST_FLOW_OK;
}

gboolean asking_src_start(GstBaseSrc *src) {
  reinterpret_cast<AskingSrc *>(src)->frames = 0;
  return TRUE;
}

GstStateChangeReturn asking_src_change_state(GstElement *element, GstStateChange transition) {
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    ask_for_gl_display(element, &reinterpret_cast<AskingSrc *>(element)->gl);
  return GST_ELEMENT_CLASS(asking_src_parent_class)->change_state(element, transition);
}

void asking_src_set_context(GstElement *element, GstContext *context) {
  take_gl_context(element, context, &reinterpret_cast<AskingSrc *>(element)->gl);
  GST_ELEMENT_CLASS(asking_src_parent_class)->set_context(element, context);
}

void asking_src_finalize(GObject *object) {
  clear_gl_data(&reinterpret_cast<AskingSrc *>(object)->gl);
  G_OBJECT_CLASS(asking_src_parent_class)->finalize(object);
}

void asking_src_class_init(AskingSrcClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  G_OBJECT_CLASS(klass)->finalize = asking_src_finalize;
  element_class->change_state = asking_src_change_state;
  element_class->set_context = asking_src_set_context;
  GST_BASE_SRC_CLASS(klass)->start = asking_src_start;
  GST_PUSH_SRC_CLASS(klass)->create = asking_src_create;
  gst_element_class_add_static_pad_template(element_class, &gray_src);
  gst_element_class_set_static_metadata(element_class, "GL asking source", "Source/Video",
                                        "Asks for a GL display when it opens", "cudaprep");
}

void asking_src_init(AskingSrc *self) {
  gst_base_src_set_format(GST_BASE_SRC(self), GST_FORMAT_TIME);
}

GstURIType asking_src_uri_type(GType) {
  return GST_URI_SRC;
}
const gchar *const *asking_src_protocols(GType) {
  static const gchar *protocols[] = {"cudapreptestgl", nullptr};
  return protocols;
}
gchar *asking_src_get_uri(GstURIHandler *) {
  return g_strdup("cudapreptestgl://frames");
}
gboolean asking_src_set_uri(GstURIHandler *, const gchar *, GError **) {
  return TRUE;
}

void asking_src_uri_init(gpointer iface, gpointer) {
  auto *handler = static_cast<GstURIHandlerInterface *>(iface);
  handler->get_type = asking_src_uri_type;
  handler->get_protocols = asking_src_protocols;
  handler->get_uri = asking_src_get_uri;
  handler->set_uri = asking_src_set_uri;
}

// A passthrough element that asks for a GL display when it opens: one of
// the user's chain.
struct AskingFilter {
  GstBaseTransform parent;
  GlData gl;
};
struct AskingFilterClass {
  GstBaseTransformClass parent_class;
};
GType asking_filter_get_type();
G_DEFINE_TYPE(AskingFilter, asking_filter, GST_TYPE_BASE_TRANSFORM)

GstStaticPadTemplate any_sink =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
GstStaticPadTemplate any_src =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

GstStateChangeReturn asking_filter_change_state(GstElement *element, GstStateChange transition) {
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    ask_for_gl_display(element, &reinterpret_cast<AskingFilter *>(element)->gl);
  return GST_ELEMENT_CLASS(asking_filter_parent_class)->change_state(element, transition);
}

void asking_filter_set_context(GstElement *element, GstContext *context) {
  take_gl_context(element, context, &reinterpret_cast<AskingFilter *>(element)->gl);
  GST_ELEMENT_CLASS(asking_filter_parent_class)->set_context(element, context);
}

void asking_filter_finalize(GObject *object) {
  clear_gl_data(&reinterpret_cast<AskingFilter *>(object)->gl);
  G_OBJECT_CLASS(asking_filter_parent_class)->finalize(object);
}

void asking_filter_class_init(AskingFilterClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  G_OBJECT_CLASS(klass)->finalize = asking_filter_finalize;
  element_class->change_state = asking_filter_change_state;
  element_class->set_context = asking_filter_set_context;
  gst_element_class_add_static_pad_template(element_class, &any_sink);
  gst_element_class_add_static_pad_template(element_class, &any_src);
  gst_element_class_set_static_metadata(element_class, "GL asking filter", "Filter",
                                        "Asks for a GL display when it opens", "cudaprep");
}

void asking_filter_init(AskingFilter *self) {
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
}

// The context types of every NEED_CONTEXT and HAVE_CONTEXT that reaches the
// pipeline's bus.
class ContextRequests {
 public:
  explicit ContextRequests(GstElement *pipeline) : bus_(gst_element_get_bus(pipeline)) {
    gst_bus_set_sync_handler(bus_, on_message, this, nullptr);
  }
  ~ContextRequests() {
    gst_bus_set_sync_handler(bus_, nullptr, nullptr, nullptr);
    gst_object_unref(bus_);
  }
  // Those naming the GL display.
  std::vector<std::string> gl_display() {
    std::lock_guard<std::mutex> guard(lock_);
    std::vector<std::string> named;
    for (const std::string &type : types_)
      if (type.find(GST_GL_DISPLAY_CONTEXT_TYPE) != std::string::npos) named.push_back(type);
    return named;
  }

 private:
  static GstBusSyncReply on_message(GstBus *, GstMessage *message, gpointer data) {
    auto *self = static_cast<ContextRequests *>(data);
    const gchar *type = nullptr;
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_NEED_CONTEXT &&
        gst_message_parse_context_type(message, &type)) {
      std::lock_guard<std::mutex> guard(self->lock_);
      self->types_.push_back(std::string("need ") + type);
    } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_HAVE_CONTEXT) {
      GstContext *context = nullptr;
      gst_message_parse_have_context(message, &context);
      std::lock_guard<std::mutex> guard(self->lock_);
      self->types_.push_back(std::string("have ") + gst_context_get_context_type(context));
      gst_context_unref(context);
    }
    return GST_BUS_PASS;
  }
  GstBus *bus_;
  std::mutex lock_;
  std::vector<std::string> types_;
};

class SourceGl : public ::testing::Test {
 protected:
  void SetUp() override {
    forget_asked();
    ASSERT_TRUE(gst_element_register(nullptr, "cudapreptestglsrc", GST_RANK_PRIMARY + 100,
                                     asking_src_get_type()));
    ASSERT_TRUE(gst_element_register(nullptr, "cudapreptestglfilter", GST_RANK_NONE,
                                     asking_filter_get_type()));
  }
  void TearDown() override { forget_asked(); }

  // Plays `description` to EOS (frames counted at the sink "sink").
  void play_to_eos(GstElement *pipeline, int *frames) {
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    ASSERT_NE(sink, nullptr);
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    *frames = 0;
    const gulong probe = gst_pad_add_probe(
        pad, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad *, GstPadProbeInfo *, gpointer count) {
          ++*static_cast<int *>(count);
          return GST_PAD_PROBE_OK;
        },
        frames, nullptr);
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *end = gst_bus_timed_pop_filtered(
        bus, 10 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_pad_remove_probe(pad, probe);
    gst_object_unref(pad);
    gst_object_unref(sink);
    ASSERT_NE(end, nullptr) << "no EOS within 10 s";
    EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
    gst_message_unref(end);
  }
};

GstElement *launch(const std::string &description) {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_NE(pipeline, nullptr) << description << ": " << (error ? error->message : "");
  g_clear_error(&error);
  return pipeline;
}

const char kAskingSource[] =
    "cudaprepsrc uri=cudapreptestgl://frames ! fakesink name=sink sync=false";

TEST_F(SourceGl, TheDecodersPartGetsADisplayOfNoWindowSystem) {
  GstElement *pipeline = launch(kAskingSource);
  ASSERT_NE(pipeline, nullptr);
  int frames = 0;
  {
    ContextRequests requests(pipeline);
    play_to_eos(pipeline, &frames);
    // Answered inside the bin: the pipeline never saw the request, and no
    // display was made and announced.
    EXPECT_EQ(requests.gl_display(), std::vector<std::string>{});
  }
  gst_object_unref(pipeline);
  EXPECT_EQ(frames, kFrames);
  std::lock_guard<std::mutex> guard(asked.lock);
  EXPECT_EQ(asked.times, 1);
  ASSERT_NE(asked.display, nullptr);
  // The base class is the display of no window system: not the EGL, X11,
  // Wayland or GBM display GStreamer would make.
  EXPECT_EQ(G_OBJECT_TYPE(asked.display), GST_TYPE_GL_DISPLAY)
      << g_type_name(G_OBJECT_TYPE(asked.display));
}

TEST_F(SourceGl, AGlDisplayThePipelineHoldsIsTheOneTheDecodersPartGets) {
  GstElement *pipeline = launch(kAskingSource);
  ASSERT_NE(pipeline, nullptr);
  auto *display = GST_GL_DISPLAY(g_object_new(GST_TYPE_GL_DISPLAY, nullptr));
  gst_object_ref_sink(display);
  GstContext *context = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
  gst_context_set_gl_display(context, display);
  gst_element_set_context(pipeline, context);
  gst_context_unref(context);
  int frames = 0;
  play_to_eos(pipeline, &frames);
  gst_object_unref(pipeline);
  EXPECT_EQ(frames, kFrames);
  {
    std::lock_guard<std::mutex> guard(asked.lock);
    EXPECT_EQ(asked.display, display);
  }
  gst_object_unref(display);
}

TEST_F(SourceGl, AnElementOfTheChainThatAsksIsLeftToThePipeline) {
  GstElement *pipeline = launch(
      "cudaprepsrc uri=cudapreptestgl://frames "
      "chain=\"cudapreptestglfilter\" ! fakesink name=sink sync=false");
  ASSERT_NE(pipeline, nullptr);
  int frames = 0;
  {
    ContextRequests requests(pipeline);
    play_to_eos(pipeline, &frames);
    // The source's request answered inside, the filter's not.
    EXPECT_EQ(requests.gl_display().size(), 2u) << "a need and a have for the filter";
  }
  gst_object_unref(pipeline);
  EXPECT_EQ(frames, kFrames);
  std::lock_guard<std::mutex> guard(asked.lock);
  EXPECT_EQ(asked.times, 2);
}

}  // namespace
