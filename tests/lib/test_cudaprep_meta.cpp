// The geometry and tensor metas, without a GPU: adding, reading, copying with
// buffers, and mapping points between tensor and source frame.
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>

#include <gst/cudaprep/gstcudaprepmeta-private.h>

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

}  // namespace
