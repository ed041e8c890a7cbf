/* A C application of the installed API: runs a cudaprep pipeline, pulls
 * each tensor and prints its shape, its first item's geometry and the mean
 * of its values (downloaded to the host; an inference app would instead
 * make its stream wait with gst_cuda_prep_tensor_sink_sample_begin_read()).
 *   gcc -std=c11 pull_tensors.c $(pkg-config --cflags --libs cudaprep-1.0)
 *   ./a.out [frames] */
#include <gst/cudaprep/cudaprep.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  int frames = argc > 1 ? atoi(argv[1]) : 8;
  gchar *description = g_strdup_printf(
      "videotestsrc num-buffers=%d ! video/x-raw,format=RGB,width=320,height=240 "
      "! cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),width=160,height=160 "
      "! cudanormalize ! cudatensorize batch-size=2 dtype=float32 "
      "! cudatensorsink name=sink consumer=application",
      frames);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch(description, &error);
  g_free(description);
  if (pipeline == NULL) {
    fprintf(stderr, "pipeline: %s\n", error->message);
    return 1;
  }
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  int count = 0;
  GstSample *sample;
  while ((sample = gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink))) !=
         NULL) {
    const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
    gsize size = gst_cuda_prep_tensor_sink_sample_get_size(sample);
    float *host = g_malloc(size);
    if (tensor == NULL || tensor->data_type != GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT32 ||
        gst_cuda_prep_tensor_sink_sample_download(sample, host, size) != cudaSuccess) {
      fprintf(stderr, "tensor %d: not a float32 tensor or download failed\n", count);
      return 1;
    }
    double sum = 0;
    for (gsize i = 0; i < size / sizeof(float); ++i) sum += host[i];
    GstClockTime pts;
    GstCudaPrepGeometry geometry;
    gst_cuda_prep_tensor_get_item(tensor, 0, &pts, &geometry);
    printf("tensor %d: %zu x %zu x %zu x %zu, item 0 pts %" GST_TIME_FORMAT
           " scale %.3f x %.3f, mean %.4f\n",
           count, tensor->batch_filled, tensor->dims[1], tensor->dims[2], tensor->dims[3],
           GST_TIME_ARGS(pts), geometry.scale_x, geometry.scale_y, sum / (size / sizeof(float)));
    g_free(host);
    gst_sample_unref(sample);
    ++count;
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  printf("%d tensors\n", count);
  return count > 0 ? 0 : 1;
}
