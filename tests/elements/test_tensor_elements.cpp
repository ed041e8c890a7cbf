// cudanormalize, cudatensorize, cudatensorsink: properties, caps and
// settings errors without a GPU; on a GPU, tensors equal to the CPU
// reference (normalize_ref) for every dtype and layout, batching with a
// partial batch at EOS, the uint8 path, the DLPack export's lifetime and
// the .npy files.
#include <glib/gstdio.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmeta-private.h>
#include <gst/cudaprep/gstcudatensorsink.h>
#include "cudaprep/npy.h"
#include "common/cuda_test.h"
#include "common/gst_frames.h"
#include "reference/normalize_ref.h"

namespace {

using cudaprep::test::caps_downstream_of;
using cudaprep::test::caps_string;
using cudaprep::test::pipeline_error;
using cudaprep::test::plane_bytes;
using cudaprep::test::random_frame;
using cudaprep::test::video_info;

const char *const kElements[] = {"cudanormalize", "cudatensorize", "cudatensorsink"};

TEST(TensorElements, PropertiesHaveBlurbsAndDefaults) {
  const std::vector<std::vector<const char *>> properties = {
      {"mean", "std", "scale", "channel-order", "dtype", "device-id", "cuda-stream"},
      {"layout", "batch-size", "dtype", "device-id", "cuda-stream", "clip-length",
       "clip-frame-stride", "clip-stride"},
      {"emit-signals", "max-buffers", "drop", "location"}};
  for (size_t i = 0; i < std::size(kElements); ++i) {
    GstElement *element = gst_element_factory_make(kElements[i], nullptr);
    ASSERT_NE(element, nullptr) << kElements[i] << " is not registered";
    for (const char *property : properties[i]) {
      GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), property);
      ASSERT_NE(pspec, nullptr) << kElements[i] << " lacks " << property;
      EXPECT_GT(strlen(g_param_spec_get_blurb(pspec)), 20u) << kElements[i] << ":" << property;
    }
    gst_object_unref(element);
  }

  GstElement *normalize = gst_element_factory_make("cudanormalize", nullptr);
  gdouble scale = 0;
  gchar *channel_order = nullptr, *dtype = nullptr;
  GValue mean = G_VALUE_INIT;
  g_object_get_property(G_OBJECT(normalize), "mean", &mean);
  EXPECT_EQ(gst_value_array_get_size(&mean), 0u);  // empty: mean 0 for every channel
  g_value_unset(&mean);
  g_object_get(normalize, "scale", &scale, nullptr);
  EXPECT_DOUBLE_EQ(scale, 1.0 / 255.0);
  GParamSpec *order_spec =
      g_object_class_find_property(G_OBJECT_GET_CLASS(normalize), "channel-order");
  GParamSpec *dtype_spec = g_object_class_find_property(G_OBJECT_GET_CLASS(normalize), "dtype");
  channel_order = g_strdup(g_enum_get_value(G_PARAM_SPEC_ENUM(order_spec)->enum_class,
                                            G_PARAM_SPEC_ENUM(order_spec)->default_value)
                               ->value_nick);
  dtype = g_strdup(g_enum_get_value(G_PARAM_SPEC_ENUM(dtype_spec)->enum_class,
                                    G_PARAM_SPEC_ENUM(dtype_spec)->default_value)
                       ->value_nick);
  EXPECT_STREQ(channel_order, "rgb");
  EXPECT_STREQ(dtype, "float32");
  EXPECT_EQ(g_enum_get_value_by_nick(G_PARAM_SPEC_ENUM(dtype_spec)->enum_class, "uint8"), nullptr)
      << "cudanormalize outputs floats only";
  g_free(channel_order);
  g_free(dtype);
  gst_object_unref(normalize);

  GstElement *tensorize = gst_element_factory_make("cudatensorize", nullptr);
  GParamSpec *batch = g_object_class_find_property(G_OBJECT_GET_CLASS(tensorize), "batch-size");
  // The range lets every value through to the element's own check, which
  // names it (test_bad_input: BatchSize).
  EXPECT_EQ(G_PARAM_SPEC_UINT(batch)->default_value, 1u);
  GParamSpec *layout = g_object_class_find_property(G_OBJECT_GET_CLASS(tensorize), "layout");
  EXPECT_STREQ(g_enum_get_value(G_PARAM_SPEC_ENUM(layout)->enum_class,
                                G_PARAM_SPEC_ENUM(layout)->default_value)
                   ->value_nick,
               "nchw");
  GParamSpec *tensor_dtype = g_object_class_find_property(G_OBJECT_GET_CLASS(tensorize), "dtype");
  EXPECT_NE(g_enum_get_value_by_nick(G_PARAM_SPEC_ENUM(tensor_dtype)->enum_class, "uint8"),
            nullptr);
  EXPECT_STREQ(g_enum_get_value(G_PARAM_SPEC_ENUM(tensor_dtype)->enum_class,
                                G_PARAM_SPEC_ENUM(tensor_dtype)->default_value)
                   ->value_nick,
               "auto");
  gst_object_unref(tensorize);

  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  gboolean emit_signals = TRUE, drop = TRUE;
  guint max_buffers = 0;
  // Points at a local until g_object_get writes the property's copy.
  gchar not_written[] = "not written";
  gchar *location = not_written;
  g_object_get(sink, "emit-signals", &emit_signals, "drop", &drop, "max-buffers", &max_buffers,
               "location", &location, nullptr);
  EXPECT_FALSE(emit_signals);
  EXPECT_FALSE(drop);
  EXPECT_EQ(max_buffers, 1u);
  EXPECT_EQ(location, nullptr);
  if (location != not_written) g_free(location);
  EXPECT_NE(g_signal_lookup("new-tensor", G_OBJECT_TYPE(sink)), 0u);
  EXPECT_NE(g_signal_lookup("pull-tensor", G_OBJECT_TYPE(sink)), 0u);
  EXPECT_NE(g_signal_lookup("try-pull-tensor", G_OBJECT_TYPE(sink)), 0u);
  gst_object_unref(sink);
}

// The planar caps cudanormalize offers for RGBA input, and the tensor caps
// cudatensorize makes of them (dtype=auto: the normalised frames' float16),
// accepted by cudatensorsink: the pipeline negotiates with no capsfilter.
TEST(TensorElements, CapsChainNormalizeTensorizeSink) {
  GstElement *normalize = gst_element_factory_make("cudanormalize", nullptr);
  g_object_set(normalize, "dtype", 1 /* float16 */, nullptr);
  GstCaps *planar = caps_downstream_of(normalize, caps_string("RGBA", 63, 31, true).c_str());
  GstCaps *expected_planar = gst_caps_from_string(
      "application/x-cudaprep-planar(memory:CUDAPitched), dtype=float16, channels=3, "
      "channel-order=RGB, width=63, height=31, framerate=30/1");
  EXPECT_TRUE(gst_caps_is_equal(planar, expected_planar)) << gst_caps_to_string(planar);

  GstElement *tensorize = gst_element_factory_make("cudatensorize", nullptr);
  gst_util_set_object_arg(G_OBJECT(tensorize), "layout", "nhwc");
  g_object_set(tensorize, "batch-size", 4u, nullptr);
  gchar *planar_string = gst_caps_to_string(planar);
  GstCaps *tensor = caps_downstream_of(tensorize, planar_string);
  g_free(planar_string);
  GstCaps *expected_tensor = gst_caps_from_string(
      "other/x-cudaprep-tensor(memory:CUDAPitched), dtype=float16, layout=NHWC, batch=4, "
      "channels=3, channel-order=RGB, width=63, height=31");
  EXPECT_TRUE(gst_caps_is_equal(tensor, expected_tensor)) << gst_caps_to_string(tensor);

  GstElement *sink = gst_element_factory_make("cudatensorsink", nullptr);
  GstPad *sink_pad = gst_element_get_static_pad(sink, "sink");
  EXPECT_TRUE(gst_pad_query_accept_caps(sink_pad, tensor));
  gst_object_unref(sink_pad);

  // Upstream of the three linked: what cudanormalize's sink pad accepts.
  GstElement *bin = gst_bin_new(nullptr);
  gst_bin_add_many(GST_BIN(bin), normalize, tensorize, sink, nullptr);
  ASSERT_TRUE(gst_element_link_many(normalize, tensorize, sink, nullptr));
  GstPad *normalize_sink = gst_element_get_static_pad(normalize, "sink");
  GstCaps *accepted = gst_pad_query_caps(normalize_sink, nullptr);
  for (const char *format : {"RGBA", "BGRx", "RGB", "GRAY8"}) {
    GstCaps *input = gst_caps_from_string(caps_string(format, 63, 31, true).c_str());
    EXPECT_TRUE(gst_caps_can_intersect(input, accepted))
        << format << " not accepted: " << gst_caps_to_string(accepted);
    gst_caps_unref(input);
  }
  GstCaps *system_memory = gst_caps_from_string(caps_string("RGBA", 63, 31).c_str());
  EXPECT_FALSE(gst_caps_can_intersect(system_memory, accepted));
  gst_caps_unref(system_memory);
  gst_caps_unref(accepted);

  // channel-order=gray: only GRAY8 can give it.
  gst_util_set_object_arg(G_OBJECT(normalize), "channel-order", "gray");
  accepted = gst_pad_query_caps(normalize_sink, nullptr);
  GstCaps *gray = gst_caps_from_string(caps_string("GRAY8", 63, 31, true).c_str());
  GstCaps *rgba = gst_caps_from_string(caps_string("RGBA", 63, 31, true).c_str());
  EXPECT_TRUE(gst_caps_can_intersect(gray, accepted)) << gst_caps_to_string(accepted);
  EXPECT_FALSE(gst_caps_can_intersect(rgba, accepted)) << gst_caps_to_string(accepted);
  gst_caps_unref(gray);
  gst_caps_unref(rgba);
  gst_caps_unref(accepted);
  gst_object_unref(normalize_sink);

  gst_object_unref(bin);
  gst_caps_unref(expected_tensor);
  gst_caps_unref(tensor);
  gst_caps_unref(expected_planar);
  gst_caps_unref(planar);
}

TEST(TensorElements, VideoIntoTensorizeGivesUint8Channels) {
  GstElement *tensorize = gst_element_factory_make("cudatensorize", nullptr);
  gst_util_set_object_arg(G_OBJECT(tensorize), "dtype", "uint8");
  GstCaps *tensor = caps_downstream_of(tensorize, caps_string("BGRx", 20, 10, true).c_str());
  GstCaps *expected = gst_caps_from_string(
      "other/x-cudaprep-tensor(memory:CUDAPitched), dtype=uint8, layout=NCHW, batch=1, "
      "channels=3, channel-order=BGR, width=20, height=10");
  EXPECT_TRUE(gst_caps_is_equal(tensor, expected)) << gst_caps_to_string(tensor);
  gst_caps_unref(expected);
  gst_caps_unref(tensor);
  gst_object_unref(tensorize);
}

// Sets `element` to READY on its own bus and returns the error posted.
std::string ready_error(GstElement *element) {
  GstStateChangeReturn ret = GST_STATE_CHANGE_SUCCESS;
  const std::string text = cudaprep::test::posted_error(
      element, [&]() { ret = gst_element_set_state(element, GST_STATE_READY); });
  EXPECT_EQ(ret == GST_STATE_CHANGE_FAILURE, !text.empty()) << text;
  gst_element_set_state(element, GST_STATE_NULL);
  return text;
}

// scale outside a float's range is named too (NaN never reaches the element:
// GLib refuses it with a warning, as for every double property).
TEST(TensorElements, ANonFiniteScaleIsAnErrorAtStateChange) {
  for (const char *scale : {"inf", "1e39"}) {
    GstElement *normalize = gst_element_factory_make("cudanormalize", nullptr);
    gst_util_set_object_arg(G_OBJECT(normalize), "scale", scale);
    const std::string error = ready_error(normalize);
    EXPECT_NE(error.find(std::string("scale=") + (scale[0] == 'i' ? "inf" : "1e+39") +
                         " is not a finite 32-bit float"),
              std::string::npos)
        << error;
    gst_object_unref(normalize);
  }
}

TEST(TensorElements, WrongNormalizeSettingsAreErrorsAtStateChange) {
  struct Case {
    const char *channel_order, *mean, *std, *expected;
  } const cases[] = {
      {"rgb", "<0.5,0.5>", "<>", "mean has 2 values but channel-order=RGB gives 3 channel(s)"},
      {"rgb", "<>", "<0.2,0.2,0.2,0.2>", "std has 4 values but channel-order=RGB gives 3"},
      {"gray", "<0.5,0.5,0.5>", "<>", "mean has 3 values but channel-order=GRAY gives 1"},
      {"bgr", "<0.1,0.2,0.3>", "<0.2,0,0.2>", "std[1]=0 is 0 or too close to 0"},
      {"rgb", "<>", "<1e-50,1,1>", "std[0]=1e-50 is 0 or too close to 0"},
      {"rgb", "<inf,0,0>", "<>", "mean[0]=inf is not a finite 32-bit float"},
      {"rgb", "<1e39,0,0>", "<>", "mean[0]=1e+39 is not a finite 32-bit float"},
      {"rgb", "<0.1,0.2,0.3>", "<0.2,0.2,0.2>", ""},
      {"gray", "<0.5>", "<2>", ""},
  };
  for (const Case &c : cases) {
    GstElement *normalize = gst_element_factory_make("cudanormalize", nullptr);
    gst_util_set_object_arg(G_OBJECT(normalize), "channel-order", c.channel_order);
    gst_util_set_object_arg(G_OBJECT(normalize), "mean", c.mean);
    gst_util_set_object_arg(G_OBJECT(normalize), "std", c.std);
    const std::string error = ready_error(normalize);
    if (c.expected[0] == '\0')
      EXPECT_EQ(error, "") << c.mean << " " << c.std;
    else
      EXPECT_NE(error.find(c.expected), std::string::npos)
          << "got \"" << error << "\", expected \"" << c.expected << "\"";
    gst_object_unref(normalize);
  }
}

TEST(TensorElements, MeanAndStdRoundTripThroughTheProperty) {
  GstElement *normalize = gst_element_factory_make("cudanormalize", nullptr);
  gst_util_set_object_arg(G_OBJECT(normalize), "mean", "<0.485,0.456,0.406>");
  GValue mean = G_VALUE_INIT;
  g_object_get_property(G_OBJECT(normalize), "mean", &mean);
  ASSERT_EQ(gst_value_array_get_size(&mean), 3u);
  EXPECT_DOUBLE_EQ(g_value_get_double(gst_value_array_get_value(&mean, 2)), 0.406);
  g_value_unset(&mean);
  gst_object_unref(normalize);
}

// --- GPU ---------------------------------------------------------------------

struct TensorCase {
  const char *dtype;   // of both cudanormalize and cudatensorize here
  const char *layout;  // nchw / nhwc
  const char *channel_order;
  const char *format;  // input video format
};

const float kMean[3] = {0.485f, 0.456f, 0.406f};
const float kStd[3] = {0.229f, 0.224f, 0.225f};

cudaprep::DataType dtype_of(const char *name) {
  if (strcmp(name, "float16") == 0) return cudaprep::DataType::kFloat16;
  if (strcmp(name, "uint8") == 0) return cudaprep::DataType::kUInt8;
  return cudaprep::DataType::kFloat32;
}

cudaprep::ChannelOrder order_of(const char *name) {
  if (strcmp(name, "bgr") == 0) return cudaprep::ChannelOrder::kBGR;
  if (strcmp(name, "gray") == 0) return cudaprep::ChannelOrder::kGray;
  return cudaprep::ChannelOrder::kRGB;
}

cudaprep::reference::HostImage host_image(GstBuffer *frame, const GstVideoInfo &info) {
  cudaprep::reference::HostImage image;
  gst_cuda_prep_pixel_format(GST_VIDEO_INFO_FORMAT(&info), &image.format);
  image.width = GST_VIDEO_INFO_WIDTH(&info);
  image.height = GST_VIDEO_INFO_HEIGHT(&info);
  image.pitch_bytes =
      static_cast<size_t>(image.width) * cudaprep::reference::bytes_per_pixel(image.format);
  image.bytes = plane_bytes(frame, info, 0);
  return image;
}

// A running appsrc ! ... ! cudatensorsink pipeline.
struct TensorPipeline {
  GstElement *pipeline = nullptr;
  GstElement *appsrc = nullptr;
  GstElement *sink = nullptr;

  explicit TensorPipeline(const std::string &middle, const std::string &input_caps,
                          const std::string &sink_properties = "") {
    const std::string description = "appsrc name=src format=time caps=\"" + input_caps +
                                    "\" ! cudaframeupload ! " + middle +
                                    " ! cudatensorsink name=sink max-buffers=0 " + sink_properties;
    GError *error = nullptr;
    pipeline = gst_parse_launch(description.c_str(), &error);
    EXPECT_NE(pipeline, nullptr) << description << ": " << (error ? error->message : "");
    if (pipeline == nullptr) return;
    appsrc = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  }
  ~TensorPipeline() {
    if (pipeline == nullptr) return;
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(appsrc);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
  }
  GstFlowReturn push(GstBuffer *frame, int index) {
    GST_BUFFER_PTS(frame) = index * 33 * GST_MSECOND;
    GST_BUFFER_DURATION(frame) = 33 * GST_MSECOND;
    GstFlowReturn ret = GST_FLOW_ERROR;
    g_signal_emit_by_name(appsrc, "push-buffer", frame, &ret);  // takes its own reference
    gst_buffer_unref(frame);
    return ret;
  }
  void end() {
    GstFlowReturn ret = GST_FLOW_ERROR;
    g_signal_emit_by_name(appsrc, "end-of-stream", &ret);
  }
  GstSample *pull() {
    return gst_cuda_prep_tensor_sink_try_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink),
                                                     10 * GST_SECOND);
  }
  // The first error on the bus, empty if none.
  std::string error() {
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    gst_object_unref(bus);
    if (message == nullptr) return {};
    GError *err = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(message, &err, &debug);
    std::string text = std::string(err->message) + " (" + (debug ? debug : "") + ")";
    g_error_free(err);
    g_free(debug);
    gst_message_unref(message);
    return text;
  }
};

// The whole tensor's bytes, read after its ready event on our own stream.
std::vector<uint8_t> tensor_bytes(GstSample *sample) {
  const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
  cudaprep::TensorDesc desc;
  EXPECT_TRUE(gst_cuda_prep_tensor_to_desc(tensor, &desc));
  std::vector<uint8_t> bytes(cudaprep::tensor_span_bytes(desc));
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  EXPECT_EQ(gst_cuda_prep_tensor_sink_sample_begin_read(sample, stream), cudaSuccess);
  EXPECT_EQ(
      cudaMemcpyAsync(bytes.data(), tensor->data, bytes.size(), cudaMemcpyDeviceToHost, stream),
      cudaSuccess);
  EXPECT_EQ(gst_cuda_prep_tensor_sink_sample_end_read(sample, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  return bytes;
}

class TensorOutput : public ::testing::TestWithParam<TensorCase> {};

// 7 frames in batches of 3: tensors of 3, 3 and 1 frames (padded with
// zeros), each byte equal to the CPU reference, PTS per item.
TEST_P(TensorOutput, EqualsTheCpuReferenceInBatchesOfThree) {
  CUDAPREP_REQUIRE_GPU();
  const TensorCase param = GetParam();
  const int width = 37, height = 23, batch = 3, frames = 7;
  const std::string caps = caps_string(param.format, width, height);
  const bool uint8_path = strcmp(param.dtype, "uint8") == 0;
  // One mean/std per output channel: gray takes the first of kMean/kStd.
  const bool gray = strcmp(param.channel_order, "gray") == 0;
  const std::string mean = gray ? "<0.485>" : "<0.485,0.456,0.406>";
  const std::string std_dev = gray ? "<0.229>" : "<0.229,0.224,0.225>";
  const std::string normalize =
      uint8_path ? std::string()
                 : "cudanormalize mean=\"" + mean + "\" std=\"" + std_dev +
                       "\" channel-order=" + param.channel_order + " dtype=" + param.dtype + " ! ";
  TensorPipeline run(
      // NHWC cases also run cudanormalize's own kernel (fuse=false); the
      // NCHW ones let cudatensorize run it fused.
      normalize + "cudatensorize batch-size=3 layout=" + param.layout + " dtype=" + param.dtype +
          (strcmp(param.layout, "nhwc") == 0 ? " fuse=false" : ""),
      caps);
  ASSERT_NE(run.pipeline, nullptr);

  const GstVideoInfo info = video_info(caps);
  const cudaprep::ChannelOrder order = order_of(param.channel_order);
  const int channels = cudaprep::channel_count(order);
  cudaprep::NormalizeParams params;
  params.scale = static_cast<float>(1.0 / 255.0);  // what the property's default gives
  params.channel_order = order;
  for (int c = 0; c < 3; ++c) params.mean[c] = kMean[c], params.std[c] = kStd[c];
  const cudaprep::TensorDesc desc = cudaprep::make_contiguous_tensor_desc(
      strcmp(param.layout, "nhwc") == 0 ? cudaprep::TensorLayout::kNHWC
                                        : cudaprep::TensorLayout::kNCHW,
      batch, channels, height, width, dtype_of(param.dtype));

  std::mt19937 rng(width * 7 + height);
  std::vector<std::vector<uint8_t>> expected_tensors;
  for (int frame = 0; frame < frames; ++frame) {
    if (frame % batch == 0)
      expected_tensors.emplace_back(cudaprep::tensor_span_bytes(desc), 0);  // padding is zero
    GstBuffer *input = random_frame(info, rng);
    const cudaprep::reference::HostImage image = host_image(input, info);
    std::vector<float> chw;
    if (uint8_path) {
      const std::vector<uint8_t> bytes = cudaprep::reference::extract_channels(image, order);
      chw.assign(bytes.begin(), bytes.end());
    } else {
      chw = cudaprep::reference::normalize(image, params);
    }
    cudaprep::reference::tensorize(chw, channels, height, width, desc, frame % batch,
                                   &expected_tensors.back());
    ASSERT_EQ(run.push(input, frame), GST_FLOW_OK) << run.error();
  }
  run.end();

  for (size_t t = 0; t < expected_tensors.size(); ++t) {
    GstSample *sample = run.pull();
    ASSERT_NE(sample, nullptr) << "tensor " << t << " missing; " << run.error();
    const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
    ASSERT_NE(tensor, nullptr);
    const gsize filled = std::min<gsize>(batch, frames - t * batch);
    EXPECT_EQ(tensor->batch_size, static_cast<gsize>(batch));
    EXPECT_EQ(tensor->batch_filled, filled) << "tensor " << t;
    EXPECT_NE(tensor->ready_event, nullptr);
    for (int axis = 0; axis < 4; ++axis) {
      EXPECT_EQ(tensor->dims[axis], static_cast<gsize>(desc.dims[axis])) << axis;
      EXPECT_EQ(tensor->strides[axis], static_cast<gsize>(desc.strides_bytes[axis])) << axis;
    }
    for (gsize item = 0; item < filled; ++item) {
      EXPECT_EQ(tensor->items[item].pts, (t * batch + item) * 33 * GST_MSECOND)
          << "tensor " << t << " item " << item;
      EXPECT_DOUBLE_EQ(tensor->items[item].geometry.scale_x, 1.0);
      EXPECT_DOUBLE_EQ(tensor->items[item].geometry.crop_x, 0.0);
    }
    EXPECT_EQ(GST_BUFFER_PTS(gst_sample_get_buffer(sample)), t * batch * 33 * GST_MSECOND);
    const std::vector<uint8_t> actual = tensor_bytes(sample);
    ASSERT_EQ(actual.size(), expected_tensors[t].size());
    size_t first_mismatch = actual.size();
    for (size_t i = 0; i < actual.size() && first_mismatch == actual.size(); ++i)
      if (actual[i] != expected_tensors[t][i]) first_mismatch = i;
    EXPECT_EQ(first_mismatch, actual.size())
        << "tensor " << t << " differs from the reference first at byte " << first_mismatch
        << " (element " << first_mismatch / cudaprep::data_type_size(desc.dtype) << ")";
    gst_sample_unref(sample);
  }
  EXPECT_EQ(run.pull(), nullptr) << "more tensors than frames / 3";
  EXPECT_TRUE(gst_cuda_prep_tensor_sink_is_eos(GST_CUDA_PREP_TENSOR_SINK(run.sink)));
  EXPECT_EQ(run.error(), "");
}

INSTANTIATE_TEST_SUITE_P(DTypesAndLayouts, TensorOutput,
                         ::testing::Values(TensorCase{"float32", "nchw", "rgb", "RGBA"},
                                           TensorCase{"float32", "nhwc", "bgr", "RGB"},
                                           TensorCase{"float16", "nchw", "bgr", "BGRx"},
                                           TensorCase{"float16", "nhwc", "rgb", "RGBA"},
                                           TensorCase{"float32", "nchw", "gray", "GRAY8"},
                                           TensorCase{"uint8", "nhwc", "bgr", "BGRA"},
                                           TensorCase{"uint8", "nchw", "rgb", "RGB"}),
                         [](const ::testing::TestParamInfo<TensorCase> &info) {
                           return std::string(info.param.dtype) + "_" + info.param.layout + "_" +
                                  info.param.channel_order + "_" + info.param.format;
                         });

// Caps equal to those in force (funnel, concat, input-selector re-send
// them) change nothing: the batch begun goes on, no partial batch leaves.
TEST(TensorElementsGpu, EqualCapsMidBatchLeaveTheBatchWhole) {
  CUDAPREP_REQUIRE_GPU();
  GstHarness *harness = gst_harness_new_parse("cudaframeupload ! cudatensorize batch-size=4");
  const std::string caps = caps_string("RGBA", 32, 16);
  gst_harness_set_src_caps_str(harness, caps.c_str());
  std::mt19937 rng(4);
  const GstVideoInfo info = video_info(caps);
  for (int frame = 0; frame < 4; ++frame) {
    if (frame == 2) {
      GstCaps *same = gst_caps_from_string(caps.c_str());
      EXPECT_TRUE(gst_harness_push_event(harness, gst_event_new_caps(same)));
      gst_caps_unref(same);
    }
    ASSERT_EQ(gst_harness_push(harness, random_frame(info, rng)), GST_FLOW_OK);
  }
  GstBuffer *batch = gst_harness_pull(harness);
  ASSERT_NE(batch, nullptr);
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(batch);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->tensors[0]->batch_filled, 4u) << "the equal caps split the batch";
  EXPECT_EQ(gst_harness_buffers_in_queue(harness), 0u);
  gst_buffer_unref(batch);
  gst_harness_teardown(harness);
}

TEST(TensorElementsGpu, FloatTensorFromVideoNamesTheFix) {
  CUDAPREP_REQUIRE_GPU();
  const std::string error = pipeline_error(
      "videotestsrc num-buffers=2 ! cudaframeupload ! cudatensorize dtype=float32 ! "
      "cudatensorsink drop=true");
  EXPECT_NE(error.find("put cudanormalize before cudatensorize"), std::string::npos) << error;
}

// The DLPack tensor holds the buffer: after the sample is gone the buffer
// is still referenced (so its pool cannot reuse the memory) and its bytes
// are intact, until the deleter runs. The tensors after it are made only
// once the sample is gone, so the pool could hand its memory out again if
// the export did not hold it: then a later tensor would have its data
// pointer and overwrite its bytes, and the checks below would fail.
TEST(TensorElementsGpu, DLPackKeepsTheBufferUntilTheDeleter) {
  CUDAPREP_REQUIRE_GPU();
  const std::string caps = caps_string("RGBA", 16, 8);
  TensorPipeline run("cudanormalize ! cudatensorize batch-size=2", caps);
  ASSERT_NE(run.pipeline, nullptr);
  const GstVideoInfo info = video_info(caps);
  std::mt19937 rng(1);
  int frame = 0;
  for (; frame < 2; ++frame) ASSERT_EQ(run.push(random_frame(info, rng), frame), GST_FLOW_OK);

  GstSample *sample = run.pull();
  ASSERT_NE(sample, nullptr) << run.error();
  const std::vector<uint8_t> pulled = tensor_bytes(sample);
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  const gint refs_before = GST_MINI_OBJECT_REFCOUNT_VALUE(buffer);
  DLManagedTensor *managed = gst_cuda_prep_tensor_sink_sample_to_dlpack(sample, nullptr);
  ASSERT_NE(managed, nullptr);
  EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(buffer), refs_before + 1);
  gst_sample_unref(sample);
  EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(buffer), refs_before)
      << "the DLPack tensor must hold it";

  const DLTensor &dl = managed->dl_tensor;
  EXPECT_EQ(dl.device.device_type, kDLCUDA);
  ASSERT_EQ(dl.ndim, 4);
  EXPECT_EQ(dl.shape[0], 2);  // NCHW, full batch
  EXPECT_EQ(dl.shape[1], 3);
  EXPECT_EQ(dl.shape[2], 8);
  EXPECT_EQ(dl.shape[3], 16);
  EXPECT_EQ(dl.dtype.code, kDLFloat);
  EXPECT_EQ(dl.dtype.bits, 32);

  // Only now more tensors, each pulled and dropped at once: more batches
  // than a pool keeps buffers, so every free buffer comes round again. The
  // pool may hand out other buffers, never this one.
  constexpr int kLaterBatches = 8;
  for (int batch = 0; batch < kLaterBatches; ++batch) {
    for (int item = 0; item < 2; ++item, ++frame)
      ASSERT_EQ(run.push(random_frame(info, rng), frame), GST_FLOW_OK);
    GstSample *later = run.pull();
    ASSERT_NE(later, nullptr) << "batch " << batch << ": " << run.error();
    DLManagedTensor *later_dl = gst_cuda_prep_tensor_sink_sample_to_dlpack(later, nullptr);
    ASSERT_NE(later_dl, nullptr);
    EXPECT_NE(later_dl->dl_tensor.data, dl.data) << "batch " << batch << " reused the memory";
    later_dl->deleter(later_dl);
    gst_sample_unref(later);
  }
  // The rest of the stream: one frame, a partial batch.
  ASSERT_EQ(run.push(random_frame(info, rng), frame), GST_FLOW_OK);
  run.end();
  GstSample *partial = run.pull();
  ASSERT_NE(partial, nullptr);
  DLManagedTensor *partial_dl = gst_cuda_prep_tensor_sink_sample_to_dlpack(partial, nullptr);
  ASSERT_NE(partial_dl, nullptr);
  EXPECT_EQ(partial_dl->dl_tensor.shape[0], 1) << "a partial batch exports its frames only";
  EXPECT_NE(partial_dl->dl_tensor.data, dl.data);
  partial_dl->deleter(partial_dl);
  gst_sample_unref(partial);

  // Every later tensor was written from other random frames: had one of them
  // been written into this memory, these bytes would differ (the device is
  // synchronised first, so such a write on an element's stream has landed).
  CUDA_ASSERT_OK(cudaDeviceSynchronize());
  std::vector<uint8_t> via_dlpack(pulled.size());
  CUDA_ASSERT_OK(cudaMemcpy(via_dlpack.data(), static_cast<uint8_t *>(dl.data) + dl.byte_offset,
                            via_dlpack.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(via_dlpack, pulled);
  managed->deleter(managed);
}

std::vector<uint8_t> file_bytes(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

// Each tensor's .npy file: the header numpy expects, then the pulled bytes
// (a partial batch: its frames only).
TEST(TensorElementsGpu, NpyFilesEqualThePulledTensors) {
  CUDAPREP_REQUIRE_GPU();
  gchar *dir = g_dir_make_tmp("cudatensorsink-XXXXXX", nullptr);
  ASSERT_NE(dir, nullptr);
  const std::string pattern = std::string(dir) + "/tensor-%05d.npy";
  const std::string caps = caps_string("BGRA", 19, 7);
  TensorPipeline run(
      "cudanormalize dtype=float16 ! cudatensorize batch-size=2 layout=nhwc dtype=float16", caps,
      "location=\"" + pattern + "\"");
  ASSERT_NE(run.pipeline, nullptr);
  const GstVideoInfo info = video_info(caps);
  std::mt19937 rng(2);
  for (int frame = 0; frame < 3; ++frame)
    ASSERT_EQ(run.push(random_frame(info, rng), frame), GST_FLOW_OK);
  run.end();
  std::vector<GstSample *> samples;
  for (int t = 0; t < 2; ++t) {
    samples.push_back(run.pull());
    ASSERT_NE(samples.back(), nullptr) << run.error();
  }
  // A tensor is handed to the application before its file is written; at
  // EOS every file is.
  EXPECT_EQ(run.pull(), nullptr) << "more tensors than batches";
  for (int t = 0; t < 2; ++t) {
    GstSample *sample = samples[t];
    const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
    const std::string header = cudaprep::npy_header(
        cudaprep::DataType::kFloat16, {static_cast<int64_t>(tensor->batch_filled), 7, 19, 3});
    std::vector<uint8_t> expected(header.begin(), header.end());
    const std::vector<uint8_t> bytes = tensor_bytes(sample);
    expected.insert(expected.end(), bytes.begin(),
                    bytes.begin() + tensor->batch_filled * tensor->strides[0]);
    gchar *path = g_strdup_printf(pattern.c_str(), t);
    EXPECT_EQ(file_bytes(path), expected) << path;
    remove(path);
    g_free(path);
    gst_sample_unref(sample);
  }
  g_rmdir(dir);
  g_free(dir);
}

}  // namespace
