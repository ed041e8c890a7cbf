// An application that embeds a cudaprep pipeline and consumes its tensors
// on its own CUDA stream, the way an inference app would:
//
//   videotestsrc ! cudaframeupload ! cudanormalize ! cudatensorize ! cudatensorsink
//
// For each tensor it makes its stream wait on the tensor's ready event (on
// the GPU, no host wait), runs its own kernel on the tensor (per-channel
// means, a stand-in for TensorRT's enqueueV3), records its reads so the
// pipeline does not rewrite the memory too early, and prints the result.
//
//   build-dir/examples/tensor_app [frames]
#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <gst/cudaprep/gstcudatensorsink.h>
#include "channel_mean.h"

namespace {

constexpr int kBatch = 2;

bool cuda_ok(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return true;
  fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
  return false;
}

// Prints the pipeline's error, if any; true if there was one.
bool report_error(GstElement *pipeline) {
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  gst_object_unref(bus);
  if (message == nullptr) return false;
  GError *error = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error(message, &error, &debug);
  fprintf(stderr, "pipeline error: %s\n%s\n", error->message, debug != nullptr ? debug : "");
  g_error_free(error);
  g_free(debug);
  gst_message_unref(message);
  return true;
}

int run(int frames) {
  const std::string description =
      "videotestsrc num-buffers=" + std::to_string(frames) +
      " ! video/x-raw,format=RGBA,width=320,height=240 ! cudaframeupload"
      " ! cudanormalize mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\""
      " ! cudatensorize batch-size=" +
      std::to_string(kBatch) + " layout=nchw dtype=float32 ! cudatensorsink name=sink";
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &parse_error);
  if (pipeline == nullptr) {
    fprintf(stderr, "could not build the pipeline: %s\n", parse_error->message);
    g_error_free(parse_error);
    return 1;
  }
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");

  // The application's own stream and result buffers, made once.
  cudaStream_t stream = nullptr;
  float *device_means = nullptr, *host_means = nullptr;
  const size_t means_bytes = sizeof(float) * kBatch * 3;
  int status = 1;
  if (cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate") &&
      cuda_ok(cudaMalloc(reinterpret_cast<void **>(&device_means), means_bytes), "cudaMalloc") &&
      cuda_ok(cudaMallocHost(reinterpret_cast<void **>(&host_means), means_bytes),
              "cudaMallocHost") &&
      gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE) {
    status = 0;
    GstSample *sample;
    while (status == 0 && (sample = gst_cuda_prep_tensor_sink_pull_tensor(
                               GST_CUDA_PREP_TENSOR_SINK(sink))) != nullptr) {
      const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
      // NCHW float32: dims are {N, C, H, W}.
      const int filled = static_cast<int>(tensor->batch_filled);
      const int channels = static_cast<int>(tensor->dims[1]);
      const int plane_size = static_cast<int>(tensor->dims[2] * tensor->dims[3]);
      // Wait for the tensor on our stream, read it, say we read it: no host sync.
      if (!cuda_ok(gst_cuda_prep_tensor_sink_sample_begin_read(sample, stream), "begin_read") ||
          !cuda_ok(channel_means(static_cast<const float *>(tensor->data), filled, channels,
                                 plane_size, device_means, stream),
                   "channel_means") ||
          !cuda_ok(gst_cuda_prep_tensor_sink_sample_end_read(sample, stream), "end_read")) {
        status = 1;
      }
      const GstClockTime first_pts = tensor->items[0].pts;
      gst_sample_unref(sample);  // the pool waits for our kernel before reusing the memory
      if (status != 0) break;
      // Only to print: the host waits for our own result.
      if (!cuda_ok(cudaMemcpyAsync(host_means, device_means, means_bytes, cudaMemcpyDeviceToHost,
                                   stream),
                   "cudaMemcpyAsync") ||
          !cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) {
        status = 1;
        break;
      }
      printf("tensor at %" GST_TIME_FORMAT ", %d frame(s):", GST_TIME_ARGS(first_pts), filled);
      for (int n = 0; n < filled; ++n) {
        printf(" [");
        for (int c = 0; c < channels; ++c)
          printf("%s%.4f", c > 0 ? " " : "", host_means[n * channels + c]);
        printf("]");
      }
      printf("\n");
    }
  }
  if (report_error(pipeline)) status = 1;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  if (host_means != nullptr) cudaFreeHost(host_means);
  if (device_means != nullptr) cudaFree(device_means);
  if (stream != nullptr) cudaStreamDestroy(stream);
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
#ifdef CUDAPREP_PLUGIN_DIR
  // Run from the build tree without installing: find the plugin there.
  gst_registry_scan_path(gst_registry_get(), CUDAPREP_PLUGIN_DIR);
#endif
  const int frames = argc > 1 ? atoi(argv[1]) : 10;
  return run(frames > 0 ? frames : 10);
}
