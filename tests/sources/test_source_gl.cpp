// cudaprepsrc's answer to an element inside it that asks for a GL display.
// GStreamer 1.22's nvcodec decoders ask whenever they open; with no window
// system GStreamer would make an EGL display, whose NVIDIA driver thread
// can crash the process at exit (docs/faults.md). Without a GPU: an element
// of this suite in cudaprepsrc's chain asks as nvh264dec does
// (gst_gl_ensure_element_data() when it opens) and must get the display of
// no window system, with no request leaving the bin; a display the
// pipeline holds is the one it gets instead.
#include <gst/base/gstbasetransform.h>
#include <gst/gl/gl.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "common/test_data.h"

namespace {

// A passthrough element that asks for a GL display when it opens.
struct GlAsker {
  GstBaseTransform parent;
  GstGLDisplay *display;
  GstGLContext *other_context;
};

struct GlAskerClass {
  GstBaseTransformClass parent_class;
};

GType gl_asker_get_type();
G_DEFINE_TYPE(GlAsker, gl_asker, GST_TYPE_BASE_TRANSFORM)

GstStaticPadTemplate any_sink =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
GstStaticPadTemplate any_src =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

GstStateChangeReturn gl_asker_change_state(GstElement *element, GstStateChange transition) {
  auto *self = reinterpret_cast<GlAsker *>(element);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    gst_gl_ensure_element_data(element, &self->display, &self->other_context);
  return GST_ELEMENT_CLASS(gl_asker_parent_class)->change_state(element, transition);
}

void gl_asker_set_context(GstElement *element, GstContext *context) {
  auto *self = reinterpret_cast<GlAsker *>(element);
  gst_gl_handle_set_context(element, context, &self->display, &self->other_context);
  GST_ELEMENT_CLASS(gl_asker_parent_class)->set_context(element, context);
}

void gl_asker_finalize(GObject *object) {
  auto *self = reinterpret_cast<GlAsker *>(object);
  gst_clear_object(&self->display);
  gst_clear_object(&self->other_context);
  G_OBJECT_CLASS(gl_asker_parent_class)->finalize(object);
}

void gl_asker_class_init(GlAskerClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  G_OBJECT_CLASS(klass)->finalize = gl_asker_finalize;
  element_class->change_state = gl_asker_change_state;
  element_class->set_context = gl_asker_set_context;
  gst_element_class_add_static_pad_template(element_class, &any_sink);
  gst_element_class_add_static_pad_template(element_class, &any_src);
  gst_element_class_set_static_metadata(element_class, "GL asker", "Filter",
                                        "Asks for a GL display when it opens", "cudaprep");
}

void gl_asker_init(GlAsker *self) {
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
}

void register_gl_asker() {
  ASSERT_TRUE(
      gst_element_register(nullptr, "cudapreptestglasker", GST_RANK_NONE, gl_asker_get_type()));
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
  std::vector<std::string> types() {
    std::lock_guard<std::mutex> guard(lock_);
    return types_;
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

GstElement *launch(const std::string &description) {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_NE(pipeline, nullptr) << description << ": " << (error ? error->message : "");
  g_clear_error(&error);
  return pipeline;
}

const std::string kLaunch =
    "cudaprepsrc name=src uri=" + cudaprep::test::test_data_uri("smpte-640x360.h264") +
    " chain=\"cudapreptestglasker name=asker\" ! fakesink sync=false";

// The asker of `pipeline`, which holds it.
GlAsker *asker_of(GstElement *pipeline) {
  GstElement *asker = gst_bin_get_by_name(GST_BIN(pipeline), "asker");
  if (asker != nullptr) gst_object_unref(asker);
  return reinterpret_cast<GlAsker *>(asker);
}

TEST(SourceGl, AnElementAskingForAGlDisplayGetsOneOfNoWindowSystem) {
  register_gl_asker();
  GstElement *pipeline = launch(kLaunch);
  ASSERT_NE(pipeline, nullptr);
  {
    ContextRequests requests(pipeline);
    ASSERT_EQ(gst_element_set_state(pipeline, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
    GlAsker *asker = asker_of(pipeline);
    ASSERT_NE(asker, nullptr);
    ASSERT_NE(asker->display, nullptr);
    // The base class is the display of no window system: not the EGL, X11,
    // Wayland or GBM display GStreamer would make.
    EXPECT_EQ(G_OBJECT_TYPE(asker->display), GST_TYPE_GL_DISPLAY)
        << g_type_name(G_OBJECT_TYPE(asker->display));
    // Answered inside the bin: the pipeline never saw the request, and no
    // display was made and announced.
    for (const std::string &type : requests.types())
      EXPECT_EQ(type.find(GST_GL_DISPLAY_CONTEXT_TYPE), std::string::npos) << type;
    // The frames still go through.
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *end = gst_bus_timed_pop_filtered(
        bus, 10 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(end, nullptr) << "no EOS within 10 s";
    EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
    gst_message_unref(end);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
  }
  gst_object_unref(pipeline);
}

TEST(SourceGl, AGlDisplayThePipelineHoldsIsTheOneItGets) {
  register_gl_asker();
  GstElement *pipeline = launch(kLaunch);
  ASSERT_NE(pipeline, nullptr);
  auto *display = GST_GL_DISPLAY(g_object_new(GST_TYPE_GL_DISPLAY, nullptr));
  gst_object_ref_sink(display);
  GstContext *context = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
  gst_context_set_gl_display(context, display);
  gst_element_set_context(pipeline, context);
  gst_context_unref(context);
  ASSERT_EQ(gst_element_set_state(pipeline, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  GlAsker *asker = asker_of(pipeline);
  ASSERT_NE(asker, nullptr);
  EXPECT_EQ(asker->display, display);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  gst_object_unref(display);
}

}  // namespace
