/* The C consumer of bench/python_handoff.py's W3 comparison, using only the
 * public C API: runs a pipeline description ending in `cudatensorsink name=sink
 * consumer=application`, and for every tensor does what the Python loop
 * does through PyTorch: makes its own stream wait on the tensor, reads the
 * whole tensor on that stream (a device-to-device copy into a scratch
 * buffer), records the read and drops the sample. Prints tensors/s after
 * `warmup` tensors, timed on the host clock between two stream syncs.
 *   tensor_loop "<pipeline description>" [warmup] */
#include <cuda_runtime_api.h>
#include <gst/cudaprep/cudaprep.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, cudaError_t status) {
  fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
  return 1;
}

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  if (argc < 2) {
    fprintf(stderr, "usage: %s \"<pipeline ending in cudatensorsink name=sink>\" [warmup]\n",
            argv[0]);
    return 2;
  }
  const int warmup = argc > 2 ? atoi(argv[2]) : 50;
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch(argv[1], &error);
  if (pipeline == NULL || error != NULL) {  // a missing element still gives a pipeline
    fprintf(stderr, "pipeline: %s\n", error->message);
    return 1;
  }
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  if (sink == NULL || !GST_IS_CUDA_PREP_TENSOR_SINK(sink)) {
    fprintf(stderr, "the pipeline has no cudatensorsink named sink\n");
    return 1;
  }
  cudaStream_t stream;
  cudaError_t status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (status != cudaSuccess) return fail("cudaStreamCreate", status);
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fprintf(stderr, "the pipeline did not start\n");
    return 1;
  }
  void *scratch = nullptr;
  size_t scratch_bytes = 0;
  gint64 start = 0;
  int count = 0;
  GstSample *sample;
  while ((sample = gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink))) !=
         NULL) {
    const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
    const gsize bytes = gst_cuda_prep_tensor_sink_sample_get_size(sample);
    if (tensor == NULL) {
      fprintf(stderr, "tensor %d: the sample holds no tensor\n", count);
      return 1;
    }
    if (bytes > scratch_bytes) {
      cudaFree(scratch);
      status = cudaMalloc(&scratch, bytes);
      if (status != cudaSuccess) return fail("cudaMalloc", status);
      scratch_bytes = bytes;
    }
    if ((status = gst_cuda_prep_tensor_sink_sample_begin_read(sample, stream)) != cudaSuccess ||
        (status = cudaMemcpyAsync(scratch, tensor->data, bytes, cudaMemcpyDeviceToDevice,
                                  stream)) != cudaSuccess ||
        (status = gst_cuda_prep_tensor_sink_sample_end_read(sample, stream)) != cudaSuccess)
      return fail("reading the tensor", status);
    gst_sample_unref(sample);
    if (++count == warmup) {
      if ((status = cudaStreamSynchronize(stream)) != cudaSuccess)
        return fail("cudaStreamSynchronize", status);
      start = g_get_monotonic_time();
    }
  }
  if ((status = cudaStreamSynchronize(stream)) != cudaSuccess)
    return fail("cudaStreamSynchronize", status);
  const gint64 end = g_get_monotonic_time();
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  cudaFree(scratch);
  cudaStreamDestroy(stream);
  if (count <= warmup) {
    fprintf(stderr, "only %d tensors, not more than the %d of warm-up\n", count, warmup);
    return 1;
  }
  printf("C consumer: %.0f tensors/s (%d tensors after %d warm-up)\n",
         (count - warmup) * 1e6 / static_cast<double>(end - start), count - warmup, warmup);
  return 0;
}
