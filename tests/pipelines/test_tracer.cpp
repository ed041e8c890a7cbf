// The cudaprep tracer (tracers/gstcudapreptracer.h): host time per element
// and frame. An identity that sleeps sleep-time us per buffer must be
// reported at no less than that and, downstream of it, a fakesink at far
// less (its own time only, not identity's); an element upstream is charged
// its own time, not its downstream's. No GPU.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tracers/gstcudapreptracer.h"

namespace {

// The tracer's records, from the GST_TRACER category at TRACE.
class TracerLog {
 public:
  TracerLog() {
    gst_debug_set_threshold_for_name("GST_TRACER", GST_LEVEL_TRACE);
    gst_debug_add_log_function(&TracerLog::on_log, this, nullptr);
  }
  ~TracerLog() {
    gst_debug_remove_log_function(&TracerLog::on_log);
    gst_debug_unset_threshold_for_name("GST_TRACER");
  }
  // element -> every record's (frames, host-ns-per-frame, host-ns-max)
  std::map<std::string, std::vector<std::array<guint64, 3>>> records() {
    std::lock_guard<std::mutex> guard(lock_);
    return records_;
  }

 private:
  static void on_log(GstDebugCategory *category, GstDebugLevel, const gchar *, const gchar *, gint,
                     GObject *, GstDebugMessage *message, gpointer data) {
    if (g_strcmp0(gst_debug_category_get_name(category), "GST_TRACER") != 0) return;
    const gchar *text = gst_debug_message_get(message);
    if (!text || !g_str_has_prefix(text, "cudaprep-host-time,")) return;
    GstStructure *record = gst_structure_from_string(text, nullptr);
    if (!record) return;
    auto *self = static_cast<TracerLog *>(data);
    std::array<guint64, 3> values{};
    const gchar *element = gst_structure_get_string(record, "element");
    if (element && gst_structure_get_uint64(record, "frames", &values[0]) &&
        gst_structure_get_uint64(record, "host-ns-per-frame", &values[1]) &&
        gst_structure_get_uint64(record, "host-ns-max", &values[2])) {
      std::lock_guard<std::mutex> guard(self->lock_);
      self->records_[element].push_back(values);
    }
    gst_structure_free(record);
  }
  std::mutex lock_;
  std::map<std::string, std::vector<std::array<guint64, 3>>> records_;
};

// `gst-inspect-1.0 cudaprep` shows the feature of that name if there is
// one, else the plugin and its elements: no feature may take the plugin's
// name (the tracer did, and hid the elements).
TEST(Tracer, IsRegisteredUnderANameOfItsOwn) {
  GstPluginFeature *tracer = gst_registry_lookup_feature(gst_registry_get(), "cudapreptime");
  ASSERT_NE(tracer, nullptr);
  EXPECT_TRUE(GST_IS_TRACER_FACTORY(tracer));
  gst_object_unref(tracer);
  GstPluginFeature *named_like_the_plugin =
      gst_registry_lookup_feature(gst_registry_get(), "cudaprep");
  EXPECT_EQ(named_like_the_plugin, nullptr);
  if (named_like_the_plugin != nullptr) gst_object_unref(named_like_the_plugin);
}

void run(const char *description) {
  GstElement *pipeline = gst_parse_launch(description, nullptr);
  ASSERT_TRUE(pipeline);
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  ASSERT_TRUE(message);
  EXPECT_EQ(GST_MESSAGE_TYPE(message), GST_MESSAGE_EOS);
  gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

TEST(Tracer, HostTimePerFrameIsEachElementsOwn) {
  TracerLog log;
  GstTracer *tracer =
      GST_TRACER(g_object_new(GST_TYPE_CUDA_PREP_TRACER, "params", "every=20", nullptr));
  run("videotestsrc num-buffers=60 ! capsfilter name=caps caps=video/x-raw,width=64,height=48 ! "
      "identity name=slow sleep-time=2000 ! identity name=fast ! fakesink name=sink sync=false");
  const auto records = log.records();
  gst_object_unref(tracer);
  ASSERT_EQ(records.count("slow"), 1u);
  ASSERT_EQ(records.count("fast"), 1u);
  ASSERT_EQ(records.count("sink"), 1u);
  ASSERT_EQ(records.count("caps"), 1u);
  // every=20 over 60 frames: 3 records each, frames 20, 40, 60.
  for (const char *name : {"caps", "slow", "fast", "sink"}) {
    const auto &element = records.at(name);
    ASSERT_EQ(element.size(), 3u) << name;
    for (size_t i = 0; i < element.size(); ++i) EXPECT_EQ(element[i][0], 20 * (i + 1)) << name;
  }
  for (const auto &record : records.at("slow")) {
    EXPECT_GE(record[1], 2000000u) << "identity sleeps 2 ms per frame";
    EXPECT_GE(record[2], record[1]);
  }
  // The slow element's sleep is charged to it alone, not to what follows
  // nor (through the nesting) to anything upstream.
  for (const char *name : {"caps", "fast", "sink"})
    for (const auto &record : records.at(name))
      EXPECT_LT(record[1], 1000000u) << name << " was charged another element's time";
}

// (Tracers stay hooked for the life of the process: this one runs no
// pipeline, so that the other test sees one tracer's records only.)
TEST(Tracer, ABadEveryIsNamedAndTheDefaultKept) {
  struct Warnings {
    std::mutex lock;
    std::vector<std::string> lines;
  } warnings;
  GstLogFunction on_log = [](GstDebugCategory *category, GstDebugLevel level, const gchar *,
                             const gchar *, gint, GObject *, GstDebugMessage *message,
                             gpointer data) {
    if (level != GST_LEVEL_WARNING ||
        g_strcmp0(gst_debug_category_get_name(category), "cudapreptracer") != 0)
      return;
    auto *seen = static_cast<Warnings *>(data);
    std::lock_guard<std::mutex> guard(seen->lock);
    seen->lines.push_back(gst_debug_message_get(message));
  };
  gst_debug_add_log_function(on_log, &warnings, nullptr);
  gst_debug_set_threshold_for_name("cudapreptracer", GST_LEVEL_WARNING);
  GstTracer *tracer =
      GST_TRACER(g_object_new(GST_TYPE_CUDA_PREP_TRACER, "params", "every=0", nullptr));
  gst_debug_remove_log_function(on_log);
  gst_object_unref(tracer);
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("every must be a positive integer: every=0; using 100"),
            std::string::npos)
      << warnings.lines[0];
}

}  // namespace
