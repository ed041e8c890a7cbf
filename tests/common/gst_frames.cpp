#include "common/gst_frames.h"

#include <gst/base/gstbasetransform.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmeta.h>
#include "common/launch_line.h"

namespace cudaprep::test {

std::string caps_string(const char *format, int width, int height, bool device) {
  return std::string("video/x-raw") + (device ? "(memory:CUDAPitched)" : "") + ",format=" + format +
         ",width=" + std::to_string(width) + ",height=" + std::to_string(height) +
         ",framerate=30/1";
}

GstVideoInfo video_info(const std::string &caps) {
  GstVideoInfo info;
  gst_video_info_init(&info);
  GstCaps *parsed = gst_caps_from_string(caps.c_str());
  EXPECT_TRUE(parsed != nullptr && gst_video_info_from_caps(&info, parsed)) << caps;
  if (parsed != nullptr) gst_caps_unref(parsed);
  return info;
}

// A system-memory frame of random bytes in GStreamer's default layout.
GstBuffer *random_frame(const GstVideoInfo &info, std::mt19937 &rng) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstMapInfo map;
  gst_buffer_map(buffer, &map, GST_MAP_WRITE);
  std::uniform_int_distribution<int> byte(0, 255);
  for (gsize i = 0; i < map.size; ++i) map.data[i] = static_cast<guint8>(byte(rng));
  // P010/P012 words hold their samples in the high bits, the rest zero.
  const int bits = GST_VIDEO_FORMAT_INFO_DEPTH(info.finfo, 0);
  if (bits > 8 && bits < 16 && (GST_VIDEO_INFO_SIZE(&info) % 2) == 0) {
    const guint8 low_mask = static_cast<guint8>(0xff << (16 - bits));
    for (gsize i = 0; i < map.size; i += 2) map.data[i] &= low_mask;
  }
  gst_buffer_unmap(buffer, &map);
  return buffer;
}

size_t first_difference(const std::vector<guint8> &actual, const std::vector<guint8> &expected) {
  const size_t common = std::min(actual.size(), expected.size());
  for (size_t i = 0; i < common; ++i)
    if (actual[i] != expected[i]) return i;
  return actual.size() == expected.size() ? SIZE_MAX : common;
}

// Visible bytes of plane `plane`, row after row (no stride padding).
std::vector<guint8> plane_bytes(GstBuffer *buffer, const GstVideoInfo &info, guint plane) {
  GstVideoFrame frame;
  std::vector<guint8> bytes;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) {
    ADD_FAILURE() << "could not map frame";
    return bytes;
  }
  cudaprep::PixelFormat format;
  gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&info), &format);
  const size_t row_bytes = cudaprep::plane_row_bytes(format, plane, GST_VIDEO_INFO_WIDTH(&info));
  const int rows = cudaprep::plane_height(format, plane, GST_VIDEO_INFO_HEIGHT(&info));
  const auto *data = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane));
  for (int row = 0; row < rows; ++row) {
    const guint8 *line = data + row * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane);
    bytes.insert(bytes.end(), line, line + row_bytes);
  }
  gst_video_frame_unmap(&frame);
  return bytes;
}

// What `element_name` offers on its src pad when upstream offers `upstream`
// (the element is never started: this needs no GPU).
GstCaps *caps_downstream_of(GstElement *element, const char *upstream) {
  GstCaps *upstream_caps = gst_caps_from_string(upstream);
  GstPadTemplate *templ = gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, upstream_caps);
  GstPad *peer = gst_pad_new_from_template(templ, "peer");
  GstPad *sink = gst_element_get_static_pad(element, "sink");
  GstPad *src = gst_element_get_static_pad(element, "src");
  // A link is refused when the element cannot take `upstream` at all.
  GstCaps *result = gst_caps_new_empty();
  if (gst_pad_link(peer, sink) == GST_PAD_LINK_OK) {
    gst_caps_unref(result);
    result = gst_pad_query_caps(src, nullptr);
    gst_pad_unlink(peer, sink);
  }
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(peer);
  gst_object_unref(templ);
  gst_caps_unref(upstream_caps);
  return result;
}

GstCaps *caps_downstream_of(const char *factory, const char *upstream) {
  GstElement *element = gst_element_factory_make(factory, nullptr);
  GstCaps *result = caps_downstream_of(element, upstream);
  gst_object_unref(element);
  return result;
}

std::string negotiated_with_peer(GstElement *element, const std::string &input) {
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS(element);
  GstCaps *in_caps = gst_caps_from_string(input.c_str());
  GstCaps *transformed =
      klass->transform_caps(GST_BASE_TRANSFORM(element), GST_PAD_SINK, in_caps, nullptr);
  GstPad *src = gst_element_get_static_pad(element, "src");
  GstCaps *templ = gst_pad_get_pad_template_caps(src);
  GstCaps *offered = gst_caps_intersect_full(transformed, templ, GST_CAPS_INTERSECT_FIRST);
  GstCaps *answer = gst_pad_peer_query_caps(src, offered);
  GstCaps *agreed = gst_caps_intersect_full(answer, offered, GST_CAPS_INTERSECT_FIRST);
  std::string result = "EMPTY";
  if (!gst_caps_is_empty(agreed)) {
    GstCaps *fixed = klass->fixate_caps(GST_BASE_TRANSFORM(element), GST_PAD_SINK, in_caps,
                                        gst_caps_ref(agreed));
    gchar *text = gst_caps_to_string(fixed);
    result = text;
    g_free(text);
    gst_caps_unref(fixed);
  }
  gst_caps_unref(agreed);
  gst_caps_unref(answer);
  gst_caps_unref(offered);
  gst_caps_unref(templ);
  gst_caps_unref(transformed);
  gst_object_unref(src);
  gst_caps_unref(in_caps);
  return result;
}

bool offers_input_or_any_size(GstCaps *caps, const std::string &input) {
  GstCaps *expected = gst_caps_from_string(input.c_str());
  GstCaps *any_size = gst_caps_copy(expected);
  gst_caps_set_simple(any_size, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height",
                      GST_TYPE_INT_RANGE, 1, G_MAXINT, nullptr);
  expected = gst_caps_merge(expected, any_size);
  const bool equal = gst_caps_is_equal(caps, expected);
  gst_caps_unref(expected);
  return equal;
}

// first_error() of `description`, as the header says.
std::string pipeline_error(const char *description) {
  const FirstError first = first_error(description);
  return first.source == "gst_parse_launch" ? "parse: " + first.message : first.message;
}

std::string posted_error(GstElement *element, const std::function<void()> &step) {
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(element, bus);
  step();
  std::string text;
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  if (message != nullptr) {
    GError *error = nullptr;
    gst_message_parse_error(message, &error, nullptr);
    text = error->message;
    g_error_free(error);
    gst_message_unref(message);
  }
  gst_element_set_bus(element, nullptr);
  gst_object_unref(bus);
  return text;
}

std::string bus_error(GstElement *pipeline) {
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  gst_object_unref(bus);
  if (message == nullptr) return {};
  GError *error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  const std::string text = error->message;
  g_error_free(error);
  gst_message_unref(message);
  return text;
}

std::vector<guint8> tensor_bytes(GstBuffer *buffer) {
  std::vector<guint8> bytes;
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
  if (meta == nullptr || meta->num_tensors == 0) {
    ADD_FAILURE() << "no tensor meta";
    return bytes;
  }
  const GstCudaPrepTensor *tensor = meta->tensors[0];
  bytes.resize(tensor->dims[0] * tensor->strides[0]);
  EXPECT_EQ(cudaEventSynchronize(tensor->ready_event), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(bytes.data(), tensor->data, bytes.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return bytes;
}

LogCounter::LogCounter() {
  const auto levels = static_cast<GLogLevelFlags>(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  for (const char *domain : {"GStreamer", "GLib-GObject", "GLib"})
    handlers_.emplace_back(domain, g_log_set_handler(domain, levels, count, this));
}

LogCounter::~LogCounter() {
  for (const auto &[domain, id] : handlers_) g_log_remove_handler(domain.c_str(), id);
}

void LogCounter::count(const gchar *domain, GLogLevelFlags level, const gchar *message,
                       gpointer self) {
  auto *counter = static_cast<LogCounter *>(self);
  (level & G_LOG_LEVEL_CRITICAL ? counter->criticals_ : counter->warnings_)++;
  g_printerr("%s %s: %s\n", domain, level & G_LOG_LEVEL_CRITICAL ? "CRITICAL" : "WARNING", message);
}

}  // namespace cudaprep::test
