// The README's first command ends here: it runs the quick-start pipeline
// (1080p NV12 frames to a YOLO-style 640x640 float32 NCHW tensor) as fast
// as the GPU takes it and says what it made:
//
//   videotestsrc ! NV12 1920x1080 ! cudaframeupload
//     ! cudaresize add-borders=true pad-value=<114,114,114> ! RGB 640x640
//     ! cudanormalize ! cudatensorize ! cudatensorsink
//
//   build-dir/examples/quickstart [frames]
#include <gst/gst.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <gst/cudaprep/gstcudatensorsink.h>

namespace {

// The pipeline's error message, or empty.
std::string pipeline_error(GstElement *pipeline) {
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

std::string shape_of(const GstCudaPrepTensor *tensor) {
  std::string shape;
  for (gsize i = 0; i < tensor->num_dims; ++i)
    shape += (i > 0 ? "x" : "") + std::to_string(tensor->dims[i]);
  return shape;
}

const char *dtype_name(GstCudaPrepTensorDataType dtype) {
  switch (dtype) {
    case GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT32:
      return "float32";
    case GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16:
      return "float16";
    case GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT8:
      return "uint8";
    default:
      return "other";
  }
}

int run(int frames) {
  const std::string description =
      "videotestsrc num-buffers=" + std::to_string(frames) +
      " ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaframeupload"
      " ! cudaresize add-borders=true pad-value=<114,114,114>"
      " ! video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB"
      " ! cudanormalize ! cudatensorize ! cudatensorsink name=sink consumer=application sync=false";
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &parse_error);
  if (pipeline == nullptr) {
    fprintf(stderr, "could not build the pipeline: %s\n", parse_error->message);
    g_error_free(parse_error);
    return 1;
  }
  printf("gst-launch-1.0 %s\n", description.c_str());
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  int tensors = 0;
  std::string shape, dtype;
  gint device_id = -1;
  gint64 start = 0;
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE) {
    GstSample *sample;
    while ((sample = gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink))) !=
           nullptr) {
      const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
      // Timed from the first tensor: start-up (CUDA context, pools) is not throughput.
      if (tensors++ == 0) {
        start = g_get_monotonic_time();
        shape = shape_of(tensor);
        dtype = dtype_name(tensor->data_type);
        device_id = tensor->device_id;
      }
      gst_sample_unref(sample);
    }
  }
  const double seconds = (g_get_monotonic_time() - start) / 1e6;
  const std::string error = pipeline_error(pipeline);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  if (!error.empty() || tensors == 0) {
    fprintf(stderr, "the pipeline failed: %s\n",
            error.empty() ? "no tensor came out" : error.c_str());
    return 1;
  }
  printf("made %d tensors of %s %s (NCHW) on CUDA device %d", tensors, shape.c_str(), dtype.c_str(),
         device_id);
  if (tensors > 1 && seconds > 0)
    printf(", %.0f frames/s after the first (videotestsrc draws every frame on the CPU)",
           (tensors - 1) / seconds);
  printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
#ifdef CUDAPREP_PLUGIN_DIR
  // Run from the build tree without installing: find the plugin there.
  gst_registry_scan_path(gst_registry_get(), CUDAPREP_PLUGIN_DIR);
#endif
  const int frames = argc > 1 ? atoi(argv[1]) : 300;
  return run(frames > 0 ? frames : 300);
}
