#include "common/launch_line.h"

namespace cudaprep::test {

namespace {

// The factory of the element that posted `message` (its name for an object
// that is not an element).
std::string source_factory(GstMessage *message) {
  GstObject *source = GST_MESSAGE_SRC(message);
  if (source == nullptr) return "";
  if (GST_IS_ELEMENT(source)) {
    GstElementFactory *factory = gst_element_get_factory(GST_ELEMENT(source));
    if (factory != nullptr) return GST_OBJECT_NAME(factory);
  }
  return GST_OBJECT_NAME(source);
}

}  // namespace

FirstError play_until_first_error(GstElement *pipeline, int timeout_ms) {
  FirstError first;
  // (a state change that fails has posted its error already)
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message =
      gst_bus_timed_pop_filtered(bus, static_cast<GstClockTime>(timeout_ms) * GST_MSECOND,
                                 static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  first.timed_out = message == nullptr;
  if (message != nullptr && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(message, &error, &debug);
    first.message = error->message;
    first.source = source_factory(message);
    first.debug = debug != nullptr ? debug : "";
    g_error_free(error);
    g_free(debug);
  }
  if (message != nullptr) gst_message_unref(message);
  gst_object_unref(bus);
  return first;
}

FirstError first_error(const std::string &line, int timeout_ms) {
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(line.c_str(), &parse_error);
  if (parse_error != nullptr) {
    FirstError first;
    first.message = parse_error->message;
    first.source = "gst_parse_launch";
    g_error_free(parse_error);
    if (pipeline != nullptr) gst_object_unref(pipeline);
    return first;
  }
  const FirstError first = play_until_first_error(pipeline, timeout_ms);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return first;
}

}  // namespace cudaprep::test
