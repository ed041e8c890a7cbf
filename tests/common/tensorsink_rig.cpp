#include "common/tensorsink_rig.h"

#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>

namespace cudaprep::test::tensorsink_rig {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Pipeline::Pipeline(const std::string &description) {
  GError *error = nullptr;
  pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_NE(pipeline, nullptr) << description << ": " << (error ? error->message : "");
  if (error != nullptr) g_error_free(error);
  if (pipeline == nullptr) return;
  src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  bus = gst_element_get_bus(pipeline);
}

Pipeline::~Pipeline() {
  if (pipeline == nullptr) return;
  stop();
  if (src != nullptr) gst_object_unref(src);
  if (sink != nullptr) gst_object_unref(sink);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
}

void Pipeline::stop() {
  gst_element_set_state(pipeline, GST_STATE_NULL);
}

GstCudaPrepTensorSink *Pipeline::tensor_sink() const {
  return GST_CUDA_PREP_TENSOR_SINK(sink);
}

bool Pipeline::set_state(GstState state) {
  return gst_element_set_state(pipeline, state) != GST_STATE_CHANGE_FAILURE;
}

std::string Pipeline::wait_end(GstClockTime timeout) {
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, timeout, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (message == nullptr) return "";
  std::string text = "eos";
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(message, &error, &debug);
    text = std::string("error: ") + error->message + " (" + (debug ? debug : "") + ")";
    g_error_free(error);
    g_free(debug);
  }
  gst_message_unref(message);
  return text;
}

void Pipeline::push(GstBuffer *buffer, int index) {
  GST_BUFFER_PTS(buffer) = index * 10 * GST_MSECOND;
  GST_BUFFER_DURATION(buffer) = 10 * GST_MSECOND;
  EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), buffer), GST_FLOW_OK);
}

void Pipeline::end() {
  EXPECT_EQ(gst_app_src_end_of_stream(GST_APP_SRC(src)), GST_FLOW_OK);
}

void Pipeline::send_flush() {
  GstPad *pad = gst_element_get_static_pad(sink, "sink");
  EXPECT_TRUE(gst_pad_send_event(pad, gst_event_new_flush_start()));
  EXPECT_TRUE(gst_pad_send_event(pad, gst_event_new_flush_stop(TRUE)));
  gst_object_unref(pad);
}

void count_eos_signal(GstCudaPrepTensorSink *, gpointer data) {
  static_cast<EosCounts *>(data)->signal++;
}

}  // namespace cudaprep::test::tensorsink_rig
