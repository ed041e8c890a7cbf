// The geometry and tensor metas, without a GPU: adding, reading, copying with
// buffers, and mapping points between tensor and source frame; clip tensors'
// fields, descriptions and frame PTS.
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>

#include <gst/cudaprep/gstcudaprepmeta-private.h>
#include <gst/cudaprep/gstcudatensorsample.h>

namespace {

// A 1920x1080 frame, cropped by 100 px left and 60 px top to 1600x960, then
// scaled to fit 640x640 keeping aspect (0.4 both ways) and letterboxed to
// the centre: 640x384 content, 128 rows of padding above.
GstCudaPrepGeometry letterbox_geometry() {
  GstCudaPrepGeometry geometry;
  gst_cuda_prep_geometry_init_identity(&geometry);  // every field, orientation too
  geometry.crop_x = 100.0;
  geometry.crop_y = 60.0;
  geometry.scale_x = 640.0 / 1600.0;
  geometry.scale_y = 640.0 / 1600.0;
  geometry.pad_x = 0.0;
  geometry.pad_y = (640.0 - 960.0 * 0.4) / 2.0;
  return geometry;
}

GstCudaPrepGeometry identity_geometry() {
  GstCudaPrepGeometry identity;
  gst_cuda_prep_geometry_init_identity(&identity);
  return identity;
}

void expect_same_geometry(const GstCudaPrepGeometry &expected, const GstCudaPrepGeometry &actual) {
  EXPECT_EQ(expected.crop_x, actual.crop_x);
  EXPECT_EQ(expected.crop_y, actual.crop_y);
  EXPECT_EQ(expected.scale_x, actual.scale_x);
  EXPECT_EQ(expected.scale_y, actual.scale_y);
  EXPECT_EQ(expected.pad_x, actual.pad_x);
  EXPECT_EQ(expected.pad_y, actual.pad_y);
}

TEST(GeometryMeta, AddGetAndDefaultIsIdentity) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, 64, nullptr);
  EXPECT_EQ(nullptr, gst_buffer_get_cuda_prep_geometry_meta(buffer));
  GstCudaPrepGeometryMeta *identity = gst_buffer_add_cuda_prep_geometry_meta(buffer, nullptr);
  ASSERT_NE(nullptr, identity);
  expect_same_geometry(identity_geometry(), identity->geometry);
  gst_buffer_unref(buffer);

  buffer = gst_buffer_new_allocate(nullptr, 64, nullptr);
  const GstCudaPrepGeometry geometry = letterbox_geometry();
  gst_buffer_add_cuda_prep_geometry_meta(buffer, &geometry);
  GstCudaPrepGeometryMeta *meta = gst_buffer_get_cuda_prep_geometry_meta(buffer);
  ASSERT_NE(nullptr, meta);
  expect_same_geometry(geometry, meta->geometry);
  EXPECT_EQ(GST_CUDA_PREP_GEOMETRY_META_API_TYPE, meta->meta.info->api);
  gst_buffer_unref(buffer);
}

TEST(GeometryMeta, TagsSayItDependsOnVideoSizeAndOrientation) {
  const GType api = GST_CUDA_PREP_GEOMETRY_META_API_TYPE;
  EXPECT_TRUE(gst_meta_api_type_has_tag(api, g_quark_from_string(GST_META_TAG_VIDEO_STR)));
  EXPECT_TRUE(gst_meta_api_type_has_tag(api, g_quark_from_string(GST_META_TAG_VIDEO_SIZE_STR)));
  EXPECT_TRUE(
      gst_meta_api_type_has_tag(api, g_quark_from_string(GST_META_TAG_VIDEO_ORIENTATION_STR)));
  EXPECT_FALSE(gst_meta_api_type_has_tag(api, g_quark_from_string(GST_META_TAG_MEMORY_STR)));
}

TEST(GeometryMeta, CopiesWithBufferCopyButNotWithPartialCopy) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, 64, nullptr);
  const GstCudaPrepGeometry geometry = letterbox_geometry();
  GstCudaPrepGeometryMeta *original = gst_buffer_add_cuda_prep_geometry_meta(buffer, &geometry);

  for (GstBuffer *copy : {gst_buffer_copy(buffer), gst_buffer_copy_deep(buffer)}) {
    GstCudaPrepGeometryMeta *copied = gst_buffer_get_cuda_prep_geometry_meta(copy);
    ASSERT_NE(nullptr, copied);
    EXPECT_NE(original, copied);
    expect_same_geometry(geometry, copied->geometry);
    gst_buffer_unref(copy);
  }

  GstBuffer *part = gst_buffer_copy_region(buffer, GST_BUFFER_COPY_ALL, 0, 32);
  EXPECT_EQ(nullptr, gst_buffer_get_cuda_prep_geometry_meta(part))
      << "half of the bytes no longer hold the same pixels";
  gst_buffer_unref(part);
  gst_buffer_unref(buffer);
}

TEST(GeometryMeta, VideoScaleTransformComposesTheScale) {
  GstBuffer *source = gst_buffer_new_allocate(nullptr, 64, nullptr);
  const GstCudaPrepGeometry geometry = letterbox_geometry();
  GstCudaPrepGeometryMeta *meta = gst_buffer_add_cuda_prep_geometry_meta(source, &geometry);

  GstVideoInfo in_info, out_info;
  gst_video_info_set_format(&in_info, GST_VIDEO_FORMAT_RGBA, 640, 640);
  gst_video_info_set_format(&out_info, GST_VIDEO_FORMAT_RGBA, 320, 160);
  GstVideoMetaTransform scale = {&in_info, &out_info};
  GstBuffer *dest = gst_buffer_new_allocate(nullptr, 64, nullptr);
  ASSERT_TRUE(meta->meta.info->transform_func(dest, &meta->meta, source,
                                              gst_video_meta_transform_scale_get_quark(), &scale));
  GstCudaPrepGeometryMeta *scaled = gst_buffer_get_cuda_prep_geometry_meta(dest);
  ASSERT_NE(nullptr, scaled);
  // A source point lands where the old mapping put it, times the scale.
  const double src_x = 777.25, src_y = 333.5;
  double before_x, before_y, after_x, after_y;
  gst_cuda_prep_geometry_to_output(&geometry, src_x, src_y, &before_x, &before_y);
  gst_cuda_prep_geometry_to_output(&scaled->geometry, src_x, src_y, &after_x, &after_y);
  EXPECT_NEAR(before_x * 0.5, after_x, 1e-9);
  EXPECT_NEAR(before_y * 0.25, after_y, 1e-9);
  gst_buffer_unref(dest);
  gst_buffer_unref(source);
}

// A detector's box corner in tensor pixels maps back to the source frame:
// through the meta (after a buffer copy), source -> tensor -> source is the
// identity, and the centre of the tensor pixel a source point falls in maps
// back to within half a tensor pixel of it.
TEST(GeometryMeta, PointRoundTripThroughTensorWithinHalfAPixel) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, 64, nullptr);
  const GstCudaPrepGeometry letterbox = letterbox_geometry();
  gst_buffer_add_cuda_prep_geometry_meta(buffer, &letterbox);
  GstBuffer *copy = gst_buffer_copy(buffer);
  const GstCudaPrepGeometry &geometry = gst_buffer_get_cuda_prep_geometry_meta(copy)->geometry;

  for (double src_y = 60.0; src_y < 1020.0; src_y += 37.3) {
    for (double src_x = 100.0; src_x < 1700.0; src_x += 41.7) {
      double out_x, out_y, back_x, back_y;
      gst_cuda_prep_geometry_to_output(&geometry, src_x, src_y, &out_x, &out_y);
      ASSERT_GE(out_x, 0.0);
      ASSERT_LT(out_x, 640.0);
      ASSERT_GE(out_y, 128.0) << "inside the content, below the top padding";
      ASSERT_LT(out_y, 512.0) << "inside the content, above the bottom padding";
      gst_cuda_prep_geometry_to_source(&geometry, out_x, out_y, &back_x, &back_y);
      EXPECT_NEAR(src_x, back_x, 1e-9);
      EXPECT_NEAR(src_y, back_y, 1e-9);

      const double centre_x = std::floor(out_x) + 0.5, centre_y = std::floor(out_y) + 0.5;
      gst_cuda_prep_geometry_to_source(&geometry, centre_x, centre_y, &back_x, &back_y);
      EXPECT_LE(std::fabs(back_x - src_x), 0.5 / geometry.scale_x);
      EXPECT_LE(std::fabs(back_y - src_y), 0.5 / geometry.scale_y);
    }
  }
  // The top-left of the content is the crop origin.
  double corner_x, corner_y;
  gst_cuda_prep_geometry_to_source(&geometry, 0.0, 128.0, &corner_x, &corner_y);
  EXPECT_NEAR(100.0, corner_x, 1e-9);
  EXPECT_NEAR(60.0, corner_y, 1e-9);
  gst_buffer_unref(copy);
  gst_buffer_unref(buffer);
}

// --- Tensor meta -----------------------------------------------------------

// A fake device pointer and event: the meta stores them and never touches them.
gpointer fake_device_pointer(GstBuffer *buffer) {
  return static_cast<gpointer>(buffer);
}
cudaEvent_t fake_event() {
  return reinterpret_cast<cudaEvent_t>(0x1234);
}

GstBuffer *buffer_with_tensor(const cudaprep::TensorDesc &desc) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, 256, nullptr);
  GstCudaPrepTensorMeta *meta = gst_buffer_add_cuda_prep_tensor_meta(buffer, 2);
  EXPECT_TRUE(gst_cuda_prep_tensor_set_from_desc(meta->tensors[0], g_quark_from_string("input"),
                                                 desc, fake_device_pointer(buffer), 1,
                                                 fake_event()));
  const cudaprep::TensorDesc second = cudaprep::make_contiguous_tensor_desc(
      cudaprep::TensorLayout::kNCHW, 1, 1, 2, 2, cudaprep::DataType::kUInt8);
  EXPECT_TRUE(gst_cuda_prep_tensor_set_from_desc(meta->tensors[1], g_quark_from_string("mask"),
                                                 second, nullptr, 1, nullptr));
  return buffer;
}

TEST(TensorMeta, FieldsFromDesc) {
  const cudaprep::TensorDesc desc = cudaprep::make_contiguous_tensor_desc(
      cudaprep::TensorLayout::kNHWC, 4, 3, 224, 320, cudaprep::DataType::kFloat16);
  GstBuffer *buffer = buffer_with_tensor(desc);
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
  ASSERT_NE(nullptr, meta);
  ASSERT_EQ(2u, meta->num_tensors);
  const GstCudaPrepTensor *tensor = meta->tensors[0];
  EXPECT_EQ(g_quark_from_string("input"), tensor->id);
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_LAYOUT_CONTIGUOUS, tensor->layout);
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16, tensor->data_type);
  EXPECT_EQ(fake_device_pointer(buffer), tensor->data);
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR, tensor->dims_order);
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NHWC, tensor->image_layout);
  ASSERT_EQ(4u, tensor->num_dims);
  const gsize dims[4] = {4, 224, 320, 3};
  const gsize strides[4] = {224 * 320 * 3 * 2, 320 * 3 * 2, 3 * 2, 2};
  for (int axis = 0; axis < 4; ++axis) {
    EXPECT_EQ(dims[axis], tensor->dims[axis]) << "axis " << axis;
    EXPECT_EQ(strides[axis], tensor->strides[axis]) << "axis " << axis;
  }
  EXPECT_EQ(1, tensor->device_id);
  EXPECT_EQ(fake_event(), tensor->ready_event);
  EXPECT_EQ(4u, tensor->batch_size);
  EXPECT_EQ(0u, tensor->batch_filled);
  for (gsize i = 0; i < tensor->batch_size; ++i) {
    EXPECT_EQ(GST_CLOCK_TIME_NONE, tensor->items[i].pts);
    expect_same_geometry(identity_geometry(), tensor->items[i].geometry);
  }
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_DATA_TYPE_UINT8, meta->tensors[1]->data_type);
  EXPECT_EQ(meta->tensors[1],
            gst_cuda_prep_tensor_meta_get_by_id(meta, g_quark_from_string("mask")));
  EXPECT_EQ(nullptr, gst_cuda_prep_tensor_meta_get_by_id(meta, g_quark_from_string("absent")));

  cudaprep::TensorDesc back;
  ASSERT_TRUE(gst_cuda_prep_tensor_to_desc(tensor, &back));
  EXPECT_EQ(desc.dtype, back.dtype);
  EXPECT_EQ(desc.layout, back.layout);
  for (int axis = 0; axis < 4; ++axis) {
    EXPECT_EQ(desc.dims[axis], back.dims[axis]);
    EXPECT_EQ(desc.strides_bytes[axis], back.strides_bytes[axis]);
  }
  EXPECT_TRUE(gst_meta_api_type_has_tag(GST_CUDA_PREP_TENSOR_META_API_TYPE,
                                        g_quark_from_string(GST_META_TAG_MEMORY_STR)));
  gst_buffer_unref(buffer);
}

TEST(TensorMeta, StridedDescAndRefusals) {
  cudaprep::TensorDesc padded = cudaprep::make_contiguous_tensor_desc(
      cudaprep::TensorLayout::kNCHW, 1, 3, 4, 5, cudaprep::DataType::kFloat32);
  padded.strides_bytes[2] = 32;
  padded.strides_bytes[1] = 128;
  padded.strides_bytes[0] = 384;
  GstCudaPrepTensor tensor = {};
  ASSERT_TRUE(gst_cuda_prep_tensor_set_from_desc(&tensor, 0, padded, nullptr, 0, nullptr));
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_LAYOUT_STRIDED, tensor.layout);
  EXPECT_EQ(32u, tensor.strides[2]);
  g_free(tensor.items);

  cudaprep::TensorDesc empty = padded;
  empty.dims[0] = 0;
  GstCudaPrepTensor refused = {};
  EXPECT_FALSE(gst_cuda_prep_tensor_set_from_desc(&refused, 0, empty, nullptr, 0, nullptr));

  GstCudaPrepTensor foreign = {};
  foreign.num_dims = 4;
  foreign.data_type = GST_CUDA_PREP_TENSOR_DATA_TYPE_INT32;
  cudaprep::TensorDesc unused;
  EXPECT_FALSE(gst_cuda_prep_tensor_to_desc(&foreign, &unused)) << "int32 is not a kernel dtype";
}

TEST(TensorMeta, ShallowCopyCopiesTensorsAndItemsDeepCopyDropsThem) {
  const cudaprep::TensorDesc desc = cudaprep::make_contiguous_tensor_desc(
      cudaprep::TensorLayout::kNCHW, 3, 3, 8, 8, cudaprep::DataType::kFloat32);
  GstBuffer *buffer = buffer_with_tensor(desc);
  GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
  tensor->batch_filled = 2;
  tensor->items[0].pts = 1000;
  tensor->items[1].pts = 2000;
  tensor->items[1].geometry = letterbox_geometry();
  const GstCudaPrepGeometry frame_geometry = letterbox_geometry();
  gst_buffer_add_cuda_prep_geometry_meta(buffer, &frame_geometry);

  GstBuffer *copy = gst_buffer_copy(buffer);
  GstCudaPrepTensorMeta *copied_meta = gst_buffer_get_cuda_prep_tensor_meta(copy);
  ASSERT_NE(nullptr, copied_meta) << "a shallow copy shares the memory, so the tensor stays valid";
  ASSERT_EQ(2u, copied_meta->num_tensors);
  const GstCudaPrepTensor *copied = copied_meta->tensors[0];
  EXPECT_NE(tensor, copied);
  EXPECT_NE(tensor->items, copied->items) << "items are the copy's own";
  EXPECT_EQ(tensor->data, copied->data);
  EXPECT_EQ(2u, copied->batch_filled);
  EXPECT_EQ(3u, copied->batch_size);
  EXPECT_EQ(1000u, copied->items[0].pts);
  EXPECT_EQ(2000u, copied->items[1].pts);
  EXPECT_EQ(GST_CLOCK_TIME_NONE, copied->items[2].pts);
  expect_same_geometry(letterbox_geometry(), copied->items[1].geometry);
  EXPECT_EQ(g_quark_from_string("mask"), copied_meta->tensors[1]->id);
  gst_buffer_unref(buffer);  // the copy's meta must not depend on the original's
  EXPECT_EQ(2000u, copied->items[1].pts);

  GstBuffer *deep = gst_buffer_copy_deep(copy);
  EXPECT_EQ(nullptr, gst_buffer_get_cuda_prep_tensor_meta(deep))
      << "a deep copy has other memory: the device pointer would dangle";
  EXPECT_NE(nullptr, gst_buffer_get_cuda_prep_geometry_meta(deep));
  gst_buffer_unref(deep);
  gst_buffer_unref(copy);
}

// --- Clip tensors ------------------------------------------------------------

// N = 3 clips of T = 4 frames of 3 x 8 x 10 float16, NTCHW, dense.
cudaprep::ClipDesc ntchw_clip() {
  return cudaprep::make_contiguous_clip_desc(cudaprep::ClipLayout::kNTCHW, 3, 4, 3, 8, 10,
                                             cudaprep::DataType::kFloat16);
}

GstBuffer *buffer_with_clip(const cudaprep::ClipDesc &desc) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, 256, nullptr);
  GstCudaPrepTensorMeta *meta = gst_buffer_add_cuda_prep_tensor_meta(buffer, 1);
  EXPECT_TRUE(
      gst_cuda_prep_tensor_set_from_clip_desc(meta->tensors[0], g_quark_from_string("clips"), desc,
                                              fake_device_pointer(buffer), 0, fake_event()));
  return buffer;
}

TEST(ClipTensorMeta, FieldsFromClipDesc) {
  GstBuffer *buffer = buffer_with_clip(ntchw_clip());
  const GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NTCHW, tensor->image_layout);
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_LAYOUT_CONTIGUOUS, tensor->layout);
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_DATA_TYPE_FLOAT16, tensor->data_type);
  EXPECT_EQ(fake_device_pointer(buffer), tensor->data);
  ASSERT_EQ(5u, tensor->num_dims);
  const gsize dims[5] = {3, 4, 3, 8, 10};
  const gsize strides[5] = {4 * 3 * 8 * 10 * 2, 3 * 8 * 10 * 2, 8 * 10 * 2, 10 * 2, 2};
  for (int axis = 0; axis < 5; ++axis) {
    EXPECT_EQ(dims[axis], tensor->dims[axis]) << "axis " << axis;
    EXPECT_EQ(strides[axis], tensor->strides[axis]) << "axis " << axis;
  }
  EXPECT_EQ(3u, tensor->batch_size);
  EXPECT_EQ(0u, tensor->batch_filled);
  EXPECT_EQ(4u, tensor->clip_length);
  ASSERT_NE(nullptr, tensor->clip_filled);
  ASSERT_NE(nullptr, tensor->frame_pts);
  for (gsize i = 0; i < 3; ++i) {
    EXPECT_EQ(0u, tensor->clip_filled[i]) << "clip " << i;
    EXPECT_EQ(GST_CLOCK_TIME_NONE, tensor->items[i].pts);
    EXPECT_EQ(GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME, tensor->items[i].region_id);
  }
  for (gsize i = 0; i < 3 * 4; ++i) EXPECT_EQ(GST_CLOCK_TIME_NONE, tensor->frame_pts[i]);
  gst_buffer_unref(buffer);

  cudaprep::ClipDesc padded = cudaprep::make_contiguous_clip_desc(
      cudaprep::ClipLayout::kNCTHW, 1, 2, 3, 4, 5, cudaprep::DataType::kFloat32);
  padded.strides_bytes[3] = 32;
  GstCudaPrepTensor strided = {};
  ASSERT_TRUE(gst_cuda_prep_tensor_set_from_clip_desc(&strided, 0, padded, nullptr, 0, nullptr));
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_LAYOUT_STRIDED, strided.layout);
  EXPECT_EQ(GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCTHW, strided.image_layout);
  // Set again as an image tensor: no clip fields left behind (valgrind
  // holds the freed arrays).
  ASSERT_TRUE(gst_cuda_prep_tensor_set_from_desc(
      &strided, 0,
      cudaprep::make_contiguous_tensor_desc(cudaprep::TensorLayout::kNCHW, 2, 3, 4, 5,
                                            cudaprep::DataType::kFloat32),
      nullptr, 0, nullptr));
  EXPECT_EQ(0u, strided.clip_length);
  EXPECT_EQ(nullptr, strided.clip_filled);
  EXPECT_EQ(nullptr, strided.frame_pts);
  EXPECT_EQ(4u, strided.num_dims);
  g_free(strided.items);

  cudaprep::ClipDesc empty = ntchw_clip();
  empty.dims[1] = 0;
  GstCudaPrepTensor refused = {};
  EXPECT_FALSE(gst_cuda_prep_tensor_set_from_clip_desc(&refused, 0, empty, nullptr, 0, nullptr));
  EXPECT_EQ(nullptr, refused.clip_filled);
}

TEST(ClipTensorMeta, SetAgainReallocatesTheClipArrays) {
  GstBuffer *buffer = buffer_with_clip(ntchw_clip());
  GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
  tensor->clip_filled[2] = 4;
  const cudaprep::ClipDesc longer = cudaprep::make_contiguous_clip_desc(
      cudaprep::ClipLayout::kNCTHW, 5, 16, 3, 2, 2, cudaprep::DataType::kUInt8);
  ASSERT_TRUE(gst_cuda_prep_tensor_set_from_clip_desc(tensor, 0, longer, nullptr, 0, nullptr));
  EXPECT_EQ(5u, tensor->batch_size);
  EXPECT_EQ(16u, tensor->clip_length);
  for (gsize i = 0; i < 5; ++i) EXPECT_EQ(0u, tensor->clip_filled[i]) << "clip " << i;
  for (gsize i = 0; i < 5 * 16; ++i) EXPECT_EQ(GST_CLOCK_TIME_NONE, tensor->frame_pts[i]);
  gst_buffer_unref(buffer);
}

// A clip's first frames as the box helper sees them: {N, C, H, W} NCHW with
// the clip stride, the channel stride of the layout, the row and column
// strides; the whole array as it is.
TEST(ClipTensorMeta, DescribedAsFirstFramesAndAsAnArray) {
  for (const cudaprep::ClipLayout layout :
       {cudaprep::ClipLayout::kNCTHW, cudaprep::ClipLayout::kNTCHW}) {
    SCOPED_TRACE(cudaprep::clip_layout_name(layout));
    // N = 2, T = 5, C = 3, H = 4, W = 6, float32.
    const cudaprep::ClipDesc clip =
        cudaprep::make_contiguous_clip_desc(layout, 2, 5, 3, 4, 6, cudaprep::DataType::kFloat32);
    GstCudaPrepTensor tensor = {};
    ASSERT_TRUE(gst_cuda_prep_tensor_set_from_clip_desc(&tensor, 0, clip, nullptr, 0, nullptr));
    cudaprep::TensorDesc desc;
    ASSERT_TRUE(gst_cuda_prep_tensor_to_desc(&tensor, &desc));
    EXPECT_EQ(cudaprep::TensorLayout::kNCHW, desc.layout);
    EXPECT_EQ(cudaprep::DataType::kFloat32, desc.dtype);
    const bool channels_first = layout == cudaprep::ClipLayout::kNCTHW;
    const int64_t channel_stride = channels_first ? 5 * 4 * 6 * 4 : 4 * 6 * 4;
    const int64_t dims[4] = {2, 3, 4, 6};
    const int64_t strides[4] = {3 * 5 * 4 * 6 * 4, channel_stride, 6 * 4, 4};
    for (int axis = 0; axis < 4; ++axis) {
      EXPECT_EQ(dims[axis], desc.dims[axis]) << "axis " << axis;
      EXPECT_EQ(strides[axis], desc.strides_bytes[axis]) << "axis " << axis;
    }
    cudaprep::ArrayDesc array;
    ASSERT_TRUE(gst_cuda_prep_tensor_to_array(&tensor, &array));
    ASSERT_EQ(5, array.rank);
    EXPECT_EQ(cudaprep::DataType::kFloat32, array.dtype);
    for (int axis = 0; axis < 5; ++axis) {
      EXPECT_EQ(clip.dims[axis], array.dims[axis]) << "axis " << axis;
      EXPECT_EQ(clip.strides_bytes[axis], array.strides_bytes[axis]) << "axis " << axis;
    }

    // A rank that does not go with the image layout is no image or clip.
    GstCudaPrepTensor mismatched = tensor;
    mismatched.image_layout = GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCHW;
    EXPECT_FALSE(gst_cuda_prep_tensor_to_desc(&mismatched, &desc));
    EXPECT_TRUE(gst_cuda_prep_tensor_to_array(&mismatched, &array)) << "an array all the same";
    mismatched = tensor;
    mismatched.num_dims = 4;
    EXPECT_FALSE(gst_cuda_prep_tensor_to_desc(&mismatched, &desc));
    mismatched.num_dims = GST_CUDA_PREP_TENSOR_MAX_DIMS + 1;
    EXPECT_FALSE(gst_cuda_prep_tensor_to_array(&mismatched, &array));
    mismatched = tensor;
    mismatched.dims_order = GST_CUDA_PREP_TENSOR_DIM_ORDER_COL_MAJOR;
    EXPECT_FALSE(gst_cuda_prep_tensor_to_array(&mismatched, &array));
    g_free(tensor.items);
    g_free(tensor.clip_filled);
    g_free(tensor.frame_pts);
  }
}

TEST(ClipTensorMeta, FramePtsOfEachClipAsWritten) {
  GstBuffer *buffer = buffer_with_clip(ntchw_clip());
  GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
  tensor->batch_filled = 2;
  tensor->clip_filled[0] = 4;
  tensor->clip_filled[1] = 2;  // cut short
  for (gsize frame = 0; frame < 4; ++frame) tensor->frame_pts[frame] = 100 + frame;
  tensor->frame_pts[4 + 0] = 500;
  tensor->frame_pts[4 + 1] = 600;
  gsize num_frames = 99;
  const GstClockTime *pts = gst_cuda_prep_tensor_get_clip_frame_pts(tensor, 0, &num_frames);
  ASSERT_EQ(4u, num_frames);
  for (gsize frame = 0; frame < 4; ++frame) EXPECT_EQ(100 + frame, pts[frame]);
  pts = gst_cuda_prep_tensor_get_clip_frame_pts(tensor, 1, &num_frames);
  ASSERT_EQ(2u, num_frames);
  EXPECT_EQ(500u, pts[0]);
  EXPECT_EQ(600u, pts[1]);
  pts = gst_cuda_prep_tensor_get_clip_frame_pts(tensor, 2, &num_frames);
  EXPECT_EQ(0u, num_frames) << "padding: nothing written";
  EXPECT_EQ(nullptr, gst_cuda_prep_tensor_get_clip_frame_pts(tensor, 3, &num_frames));
  EXPECT_EQ(0u, num_frames);

  GstBuffer *image = buffer_with_tensor(cudaprep::make_contiguous_tensor_desc(
      cudaprep::TensorLayout::kNCHW, 2, 3, 4, 4, cudaprep::DataType::kFloat32));
  num_frames = 99;
  EXPECT_EQ(nullptr, gst_cuda_prep_tensor_get_clip_frame_pts(
                         gst_buffer_get_cuda_prep_tensor_meta(image)->tensors[0], 0, &num_frames));
  EXPECT_EQ(0u, num_frames);
  gst_buffer_unref(image);
  gst_buffer_unref(buffer);
}

TEST(ClipTensorMeta, ShallowCopyCopiesTheClipArrays) {
  GstBuffer *buffer = buffer_with_clip(ntchw_clip());
  GstCudaPrepTensor *tensor = gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0];
  tensor->batch_filled = 1;
  tensor->clip_filled[0] = 3;
  tensor->frame_pts[2] = 777;
  GstBuffer *copy = gst_buffer_copy(buffer);
  const GstCudaPrepTensor *copied = gst_buffer_get_cuda_prep_tensor_meta(copy)->tensors[0];
  EXPECT_NE(tensor->clip_filled, copied->clip_filled) << "the copy's own";
  EXPECT_NE(tensor->frame_pts, copied->frame_pts) << "the copy's own";
  gst_buffer_unref(buffer);  // the copy's arrays must outlive the original's
  EXPECT_EQ(4u, copied->clip_length);
  EXPECT_EQ(3u, copied->clip_filled[0]);
  EXPECT_EQ(0u, copied->clip_filled[2]);
  EXPECT_EQ(777u, copied->frame_pts[2]);
  EXPECT_EQ(GST_CLOCK_TIME_NONE, copied->frame_pts[3 * 4 - 1]);
  gst_buffer_unref(copy);
}

// What the sample API counts of a clip tensor: the filled clips, all frames.
TEST(ClipTensorMeta, SampleSizeCountsFilledClipsAtRankFive) {
  GstBuffer *buffer = buffer_with_clip(ntchw_clip());
  gst_buffer_get_cuda_prep_tensor_meta(buffer)->tensors[0]->batch_filled = 2;
  GstSample *sample = gst_sample_new(buffer, nullptr, nullptr, nullptr);
  EXPECT_EQ(2u * 4 * 3 * 8 * 10 * 2, gst_cuda_prep_tensor_sink_sample_get_size(sample));
  gst_sample_unref(sample);
  gst_buffer_unref(buffer);
}

}  // namespace
