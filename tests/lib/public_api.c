/* The installed public API from C (gcc -std=c11) and, included by
 * public_api_cpp.cpp, from C++: the metas, the geometry, the sink's pull,
 * sources, a pipeline's kernels warmed and the DLPack structs. Needs no
 * GPU. Exits non-zero naming what failed. */
#include <gst/cudaprep/cudaprep.h>
#include <math.h>
#include <string.h>
#include <stdio.h>

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                          \
    }                                                                    \
  } while (0)

int main(int argc, char **argv) {
  gst_init(&argc, &argv);

  /* Geometry: crop 100/60, scale 0.4, 128 rows of letterbox on top. */
  GstCudaPrepGeometry geometry;
  gst_cuda_prep_geometry_init_identity(&geometry);
  CHECK(geometry.scale_x == 1.0 && geometry.crop_x == 0.0 && geometry.pad_y == 0.0);
  geometry.crop_x = 100.0;
  geometry.crop_y = 60.0;
  geometry.scale_x = geometry.scale_y = 0.4;
  geometry.pad_y = 128.0;
  gdouble x = 0, y = 0;
  gst_cuda_prep_geometry_to_source(&geometry, 640.0, 512.0, &x, &y);
  CHECK(fabs(x - 1700.0) < 1e-9 && fabs(y - 1020.0) < 1e-9);
  /* Turned clockwise (GST_VIDEO_ORIENTATION_90R = 1) from a 1920x1080
   * frame: the frame's bottom-left corner is the output's origin. */
  GstCudaPrepGeometry turned;
  gst_cuda_prep_geometry_init_identity(&turned);
  CHECK(turned.orientation == 0);
  turned.crop_y = 1080.0;
  turned.orientation = 1;
  gst_cuda_prep_geometry_to_source(&turned, 1080.0, 0.0, &x, &y);
  CHECK(fabs(x) < 1e-9 && fabs(y) < 1e-9);

  /* Metas on a plain buffer. */
  GstBuffer *buffer = gst_buffer_new_allocate(NULL, 64, NULL);
  GstCudaPrepGeometryMeta *geometry_meta =
      gst_buffer_add_cuda_prep_geometry_meta(buffer, &geometry);
  CHECK(geometry_meta != NULL && geometry_meta->geometry.pad_y == 128.0);
  GstCudaPrepTensorMeta *meta = gst_buffer_add_cuda_prep_tensor_meta(buffer, 1);
  CHECK(meta != NULL && meta->num_tensors == 1 && meta->tensors[0]->num_dims == 0);
  CHECK(gst_buffer_get_cuda_prep_tensor_meta(buffer) == meta);
  GstClockTime pts = 0;
  CHECK(!gst_cuda_prep_tensor_get_item(meta->tensors[0], 0, &pts, NULL));
  gst_buffer_unref(buffer);

  /* The sink, as an application finds it. */
  GstElement *sink = gst_element_factory_make("cudatensorsink", "sink");
  CHECK(sink != NULL);
  CHECK(GST_IS_CUDA_PREP_TENSOR_SINK(sink));
  CHECK(gst_cuda_prep_tensor_sink_try_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink), 0) == NULL);
  gst_object_unref(sink);

  /* A source for a running batch (gstcudaprepsources.h); the plugin is
   * found on GST_PLUGIN_PATH. Its URI reads back masked. Adding it to an
   * element that is in no bin is refused with a message. */
  GError *error = NULL;
  GstElement *source = gst_cuda_prep_source_new("rtsp://op:Secret9@192.0.2.1/live", NULL, &error);
  CHECK(source != NULL && error == NULL);
  gchar *uri = NULL;
  g_object_get(source, "uri", &uri, NULL);
  CHECK(strcmp(uri, "rtsp://op:***@192.0.2.1/live") == 0);
  g_free(uri);
  GstElement *lonely = gst_element_factory_make("fakesink", NULL);
  CHECK(gst_cuda_prep_batch_add_source(lonely, source, &error) == NULL);
  CHECK(error != NULL && strstr(error->message, "is in no bin") != NULL);
  g_clear_error(&error);
  gst_object_unref(lonely);

  /* A pipeline brought up once for its kernels (gstcudaprepwarm.h): plain
   * elements come up and compile nothing; a line that does not parse says
   * why. */
  CHECK(gst_cuda_prep_warm_kernels("videotestsrc num-buffers=1 ! fakesink", 10, &error));
  CHECK(error == NULL);
  CHECK(!gst_cuda_prep_warm_kernels("videotestsrc ! nosuchelementwarm", 10, &error));
  CHECK(error != NULL && strstr(error->message, "nosuchelementwarm") != NULL);
  g_clear_error(&error);

  /* DLPack 1.0's layout: version first, the DLTensor last. */
  CHECK(offsetof(GstCudaPrepDLManagedTensorVersioned, version) == 0);
  CHECK(sizeof(GstCudaPrepDLPackVersion) == 8);
  CHECK(GST_CUDA_PREP_DLPACK_MAJOR_VERSION == 1);
  printf("public C API: ok\n");
  return 0;
}
