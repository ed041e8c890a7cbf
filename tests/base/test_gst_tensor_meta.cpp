// GStreamer's own GstTensorMeta (>= 1.26) on cudaprep's tensors, read the
// way a consumer that knows only GStreamer reads it: gst_buffer_get_tensor_meta()
// and the GstTensor's data buffer, mapped with GST_MAP_CUDA (the device
// pointer) and without (a host copy). Built only against GStreamer >= 1.26.
#include <cuda_runtime_api.h>
#include <gst/analytics/analytics.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include "base/gstcudaprepgsttensor.h"
#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "reference/normalize_ref.h"

namespace {

using cudaprep::test::caps_string;
using cudaprep::test::plane_bytes;
using cudaprep::test::random_frame;
using cudaprep::test::video_info;

TEST(GstTensorMeta, IsBuiltAgainstAGStreamerThatHasIt) {
  EXPECT_TRUE(gst_cuda_prep_has_gst_tensor_meta());
  EXPECT_TRUE(GST_CHECK_VERSION(1, 26, 0));
}

// The dims of a GstTensor (1.28 made them GstTensorDim).
std::vector<gsize> dims_of(const GstTensor *tensor) {
  std::vector<gsize> dims;
  for (gsize axis = 0; axis < tensor->num_dims; ++axis) {
#if GST_CHECK_VERSION(1, 27, 0)
    dims.push_back(tensor->dims[axis].size);
#else
    dims.push_back(tensor->dims[axis]);
#endif
  }
  return dims;
}

// The one GstTensor of `buffer`'s GstTensorMeta, checked for what any
// tensor of ours must be; NULL (and a failure) otherwise.
const GstTensor *only_gst_tensor(GstBuffer *buffer) {
  GstTensorMeta *meta = gst_buffer_get_tensor_meta(buffer);
  EXPECT_NE(meta, nullptr) << "no GstTensorMeta on the tensor buffer";
  if (meta == nullptr) return nullptr;
  EXPECT_EQ(meta->num_tensors, 1u);
  if (meta->num_tensors != 1) return nullptr;
  const GstTensor *tensor = gst_tensor_meta_get(meta, 0);
  EXPECT_EQ(tensor->id, g_quark_from_static_string("image"));
  EXPECT_EQ(tensor->layout, GST_TENSOR_LAYOUT_CONTIGUOUS);
  EXPECT_EQ(tensor->dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  EXPECT_NE(tensor->data, nullptr);
  return tensor;
}

// The GstTensor's bytes both ways a consumer reads them: through the
// device pointer GST_MAP_CUDA gives (which must be device memory) and
// through a host map. Both maps wait for the tensor's write themselves.
struct ReadBack {
  std::vector<guint8> via_device, via_host;
  const void *device_pointer = nullptr;
};

ReadBack read_back(const GstTensor *tensor) {
  ReadBack result;
  GstMapInfo map;
  if (!gst_buffer_map(tensor->data, &map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
    ADD_FAILURE() << "GST_MAP_CUDA map of the GstTensor's data failed";
    return result;
  }
  result.device_pointer = map.data;
  cudaPointerAttributes attributes{};
  EXPECT_EQ(cudaPointerGetAttributes(&attributes, map.data), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice) << "GST_MAP_CUDA gave no device pointer";
  result.via_device.resize(map.size);
  EXPECT_EQ(cudaMemcpy(result.via_device.data(), map.data, map.size, cudaMemcpyDeviceToHost),
            cudaSuccess);
  gst_buffer_unmap(tensor->data, &map);
  if (!gst_buffer_map(tensor->data, &map, GST_MAP_READ)) {
    ADD_FAILURE() << "host map of the GstTensor's data failed";
    return result;
  }
  result.via_host.assign(map.data, map.data + map.size);
  gst_buffer_unmap(tensor->data, &map);
  return result;
}

cudaprep::reference::HostImage host_image(GstBuffer *frame, const GstVideoInfo &info) {
  cudaprep::reference::HostImage image;
  image.format = cudaprep::PixelFormat::kRGBA;
  image.width = GST_VIDEO_INFO_WIDTH(&info);
  image.height = GST_VIDEO_INFO_HEIGHT(&info);
  image.pitch_bytes = static_cast<size_t>(image.width) * 4;
  image.bytes = plane_bytes(frame, info, 0);
  return image;
}

struct Case {
  const char *dtype, *layout;
  GstTensorDataType gst_type;
};

class GstTensorOfTensorize : public ::testing::TestWithParam<Case> {};

// 3 RGBA frames through cudanormalize ! cudatensorize batch-size=2 into a
// plain appsink: 2 tensors, each with a GstTensorMeta whose dims, type and
// bytes (zero padding included) equal the CPU reference's, and whose device
// pointer is our own meta's.
TEST_P(GstTensorOfTensorize, DescribesTheTensorAndSharesItsMemory) {
  CUDAPREP_REQUIRE_GPU();
  const Case param = GetParam();
  const bool nhwc = strcmp(param.layout, "nhwc") == 0;
  const int width = 29, height = 17, batch = 2, frames = 3;
  const std::string caps = caps_string("RGBA", width, height);
  const std::string description =
      "appsrc name=src format=time caps=\"" + caps +
      "\" ! cudaframeupload ! cudanormalize mean=\"<0.485,0.456,0.406>\" "
      "std=\"<0.229,0.224,0.225>\" dtype=" +
      param.dtype + " ! cudatensorize batch-size=2 layout=" + param.layout +
      " dtype=" + param.dtype + (nhwc ? " fuse=false" : "") + " ! appsink name=out sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *out = gst_bin_get_by_name(GST_BIN(pipeline), "out");
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);

  cudaprep::NormalizeParams params;
  params.scale = static_cast<float>(1.0 / 255.0);
  params.channel_order = cudaprep::ChannelOrder::kRGB;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std_dev[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) params.mean[c] = mean[c], params.std[c] = std_dev[c];
  const cudaprep::DataType dtype = strcmp(param.dtype, "float16") == 0
                                       ? cudaprep::DataType::kFloat16
                                       : cudaprep::DataType::kFloat32;
  const cudaprep::TensorDesc desc = cudaprep::make_contiguous_tensor_desc(
      nhwc ? cudaprep::TensorLayout::kNHWC : cudaprep::TensorLayout::kNCHW, batch, 3, height, width,
      dtype);
  const GstVideoInfo info = video_info(caps);
  std::mt19937 rng(11);
  std::vector<std::vector<guint8>> expected;
  for (int frame = 0; frame < frames; ++frame) {
    if (frame % batch == 0) expected.emplace_back(cudaprep::tensor_span_bytes(desc), 0);
    GstBuffer *input = random_frame(info, rng);
    GST_BUFFER_PTS(input) = frame * 33 * GST_MSECOND;
    cudaprep::reference::tensorize(cudaprep::reference::normalize(host_image(input, info), params),
                                   3, height, width, desc, frame % batch, &expected.back());
    ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), input), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));

  const std::vector<gsize> expected_dims =
      nhwc ? std::vector<gsize>{2, static_cast<gsize>(height), static_cast<gsize>(width), 3}
           : std::vector<gsize>{2, 3, static_cast<gsize>(height), static_cast<gsize>(width)};
  for (size_t t = 0; t < expected.size(); ++t) {
    GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 10 * GST_SECOND);
    ASSERT_NE(sample, nullptr) << "tensor " << t << " missing";
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    const GstTensor *tensor = only_gst_tensor(buffer);
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(tensor->data_type, param.gst_type);
    EXPECT_EQ(dims_of(tensor), expected_dims);
    const ReadBack bytes = read_back(tensor);
    EXPECT_EQ(bytes.via_device, expected[t]) << "tensor " << t << " through GST_MAP_CUDA";
    EXPECT_EQ(bytes.via_host, expected[t]) << "tensor " << t << " through a host map";
    GstCudaPrepTensorMeta *ours = gst_buffer_get_cuda_prep_tensor_meta(buffer);
    ASSERT_NE(ours, nullptr);
    EXPECT_EQ(bytes.device_pointer, ours->tensors[0]->data) << "not the same device memory";
    gst_sample_unref(sample);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(out);
  gst_object_unref(pipeline);
}

INSTANTIATE_TEST_SUITE_P(DTypesAndLayouts, GstTensorOfTensorize,
                         ::testing::Values(Case{"float32", "nchw", GST_TENSOR_DATA_TYPE_FLOAT32},
                                           Case{"float16", "nhwc", GST_TENSOR_DATA_TYPE_FLOAT16}),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(info.param.dtype) + "_" + info.param.layout;
                         });

// cudabatch's tensors carry one too: two sources behind cudanormalize,
// batch 2: dims N,C,H,W of float32, the device pointer and the bytes those
// of our own meta's tensor (cudabatch's items are checked against the CPU
// reference in the batch suite).
TEST(GstTensorOfBatch, DescribesTheBatchTensor) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 24, 16);
  std::string description = "cudabatch name=b batch-size=2 ! appsink name=out sync=false";
  for (int i = 0; i < 2; ++i)
    description += " appsrc name=src" + std::to_string(i) + " format=time caps=\"" + caps +
                   "\" ! cudaframeupload ! cudanormalize ! b.sink_" + std::to_string(i);
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  std::mt19937 rng(5);
  for (int i = 0; i < 2; ++i) {
    GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), ("src" + std::to_string(i)).c_str());
    GstBuffer *frame = random_frame(video_info(caps), rng);
    GST_BUFFER_PTS(frame) = 0;
    ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), frame), GST_FLOW_OK);
    gst_app_src_end_of_stream(GST_APP_SRC(src));
    gst_object_unref(src);
  }
  GstElement *out = gst_bin_get_by_name(GST_BIN(pipeline), "out");
  GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 10 * GST_SECOND);
  ASSERT_NE(sample, nullptr) << "no batch";
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  const GstTensor *tensor = only_gst_tensor(buffer);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->data_type, GST_TENSOR_DATA_TYPE_FLOAT32);
  EXPECT_EQ(dims_of(tensor), (std::vector<gsize>{2, 3, 16, 24}));
  const GstCudaPrepTensorMeta *ours = gst_buffer_get_cuda_prep_tensor_meta(buffer);
  ASSERT_NE(ours, nullptr);
  const ReadBack bytes = read_back(tensor);
  EXPECT_EQ(bytes.device_pointer, ours->tensors[0]->data);
  std::vector<guint8> our_bytes(bytes.via_device.size());
  ASSERT_EQ(cudaMemcpy(our_bytes.data(), ours->tensors[0]->data, our_bytes.size(),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(bytes.via_device, our_bytes);
  EXPECT_EQ(bytes.via_host, our_bytes);
  gst_sample_unref(sample);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(out);
  gst_object_unref(pipeline);
}

}  // namespace
