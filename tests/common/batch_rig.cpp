#include "common/batch_rig.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>

#include "common/gst_frames.h"

namespace cudaprep::test {

namespace {

constexpr int kOutWidth = 96, kOutHeight = 64;

}  // namespace

std::string chain(const std::string &appsrc_name, const std::string &caps, const std::string &crop,
                  const std::string &direction) {
  return "appsrc name=" + appsrc_name + " format=time caps=\"" + caps +
         "\" ! cudaframeupload name=" + appsrc_name + "_up ! " +
         (crop.empty() ? "" : "cudacrop " + crop + " ! ") +
         "cudaresize method=bilinear add-borders=true " +
         (direction.empty() ? "" : "video-direction=" + direction + " ") +
         "! "
         "video/x-raw(memory:CUDAPitched),width=" +
         std::to_string(kOutWidth) + ",height=" + std::to_string(kOutHeight) +
         ",format=RGB ! cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\"";
}

GstBuffer *frame_at(const std::string &caps, std::mt19937 &rng, GstClockTime pts) {
  GstBuffer *buffer = random_frame(video_info(caps), rng);
  GST_BUFFER_PTS(buffer) = pts;
  GST_BUFFER_DURATION(buffer) = 33 * GST_MSECOND;
  return buffer;
}

std::vector<Batch> pull_batches(GstElement *sink,
                                const std::function<void(const GstCudaPrepTensor *)> &inspect) {
  std::vector<Batch> batches;
  while (GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND)) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
    EXPECT_NE(meta, nullptr);
    if (meta == nullptr) {
      gst_sample_unref(sample);
      break;
    }
    const GstCudaPrepTensor *tensor = meta->tensors[0];
    if (inspect) inspect(tensor);
    const std::vector<guint8> bytes = tensor_bytes(buffer);
    const size_t item_bytes = bytes.size() / tensor->batch_size;
    Batch batch{GST_BUFFER_PTS(buffer), tensor->batch_size, tensor->batch_filled, {}};
    for (size_t i = 0; i < tensor->batch_filled; ++i) {
      const GstCudaPrepTensorItem &item = tensor->items[i];
      batch.items.push_back(Item{
          item.source_index, item.pts,
          std::vector<guint8>(bytes.begin() + i * item_bytes, bytes.begin() + (i + 1) * item_bytes),
          item.region_id, item.geometry});
    }
    // Slots no frame fills are zeros.
    for (size_t i = tensor->batch_filled * item_bytes; i < bytes.size(); ++i) {
      if (bytes[i] != 0) {
        ADD_FAILURE() << "byte " << i << " of an unfilled slot is " << int(bytes[i]);
        break;
      }
    }
    batches.push_back(std::move(batch));
    gst_sample_unref(sample);
  }
  return batches;
}

GstElement *by_name(GstElement *pipeline, const std::string &name) {
  GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline), name.c_str());
  gst_object_unref(element);  // the pipeline keeps it
  return element;
}

std::vector<Item> single_stream_items(const std::string &caps,
                                      const std::vector<GstBuffer *> &frames,
                                      const std::string &crop, const std::string &direction) {
  const std::string description = chain("src", caps, crop, direction) +
                                  " ! cudatensorize batch-size=1 ! appsink name=out sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error ? error->message : "");
  std::vector<Item> items;
  if (pipeline == nullptr) return items;
  EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (GstBuffer *frame : frames)
    EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, "src")), gst_buffer_ref(frame)),
              GST_FLOW_OK);
  gst_app_src_end_of_stream(GST_APP_SRC(by_name(pipeline, "src")));
  for (const Batch &batch : pull_batches(by_name(pipeline, "out")))
    for (const Item &item : batch.items) items.push_back(item);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return items;
}

}  // namespace cudaprep::test
