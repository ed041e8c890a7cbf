// The pitched device memory, its pool and the cross-stream protocol.
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include <gst/cudaprep/gstcudapreppool.h>
#include "common/cuda_test.h"
#include "common/gpu_helpers.h"

namespace {

GstVideoInfo video_info(GstVideoFormat format, int width, int height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  return info;
}

TEST(DeviceLayout, PitchIsAlignedAndPlanesFollowEachOther) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 1921, 1081);
  GstVideoInfo device_info;
  ASSERT_TRUE(gst_cuda_prep_device_video_info(&info, &device_info));
  EXPECT_EQ(GST_VIDEO_INFO_PLANE_STRIDE(&device_info, 0), 2048);  // 1921 rounded up to 256
  EXPECT_EQ(GST_VIDEO_INFO_PLANE_STRIDE(&device_info, 1), 2048);  // 961 UV pairs = 1922 bytes
  EXPECT_EQ(GST_VIDEO_INFO_PLANE_OFFSET(&device_info, 0), 0u);
  EXPECT_EQ(GST_VIDEO_INFO_PLANE_OFFSET(&device_info, 1), 2048u * 1081);
  EXPECT_EQ(GST_VIDEO_INFO_SIZE(&device_info), 2048u * 1081 + 2048u * 541);
}

TEST(DeviceLayout, EveryFormatHasRowsOfAtLeastTheVisibleBytes) {
  const GstVideoFormat formats[] = {
      GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,  GST_VIDEO_FORMAT_BGRx,
      GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
      GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2};
  for (GstVideoFormat format : formats) {
    for (int width : {1, 3, 255, 257, 640}) {
      const GstVideoInfo info = video_info(format, width, 5);
      GstVideoInfo device_info;
      ASSERT_TRUE(gst_cuda_prep_device_video_info(&info, &device_info))
          << gst_video_format_to_string(format);
      for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane) {
        const gint stride = GST_VIDEO_INFO_PLANE_STRIDE(&device_info, plane);
        EXPECT_EQ(stride % GST_CUDA_PREP_PITCH_ALIGNMENT, 0);
        // GStreamer's own packed stride is at least the visible row.
        EXPECT_GE(stride, GST_VIDEO_INFO_COMP_WIDTH(&info, plane) *
                              GST_VIDEO_INFO_COMP_PSTRIDE(&info, plane))
            << gst_video_format_to_string(format) << " width " << width << " plane " << plane;
        EXPECT_EQ(GST_VIDEO_INFO_PLANE_OFFSET(&device_info, plane) % GST_CUDA_PREP_PITCH_ALIGNMENT,
                  0u);
      }
    }
  }
}

TEST(DeviceLayout, OverflowingSizesAreRefused) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 16, 16);
  GST_VIDEO_INFO_WIDTH(&info) = G_MAXINT / 2;
  GST_VIDEO_INFO_HEIGHT(&info) = G_MAXINT / 2;
  GstVideoInfo device_info;
  EXPECT_FALSE(gst_cuda_prep_device_video_info(&info, &device_info));
}

TEST(DeviceLayout, UnsupportedFormatIsRefused) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_v210, 64, 4);
  GstVideoInfo device_info;
  EXPECT_FALSE(gst_cuda_prep_device_video_info(&info, &device_info));
}

TEST(Caps, FeatureIsSwappedOnEveryStructure) {
  GstCaps *caps = gst_caps_from_string("video/x-raw,format=NV12; video/x-raw,format=RGBA");
  GstCaps *device = gst_cuda_prep_caps_with_feature(caps, GST_CAPS_FEATURE_MEMORY_CUDA_PITCHED);
  EXPECT_TRUE(gst_cuda_prep_caps_are_device(device));
  EXPECT_FALSE(gst_cuda_prep_caps_are_device(caps));
  gchar *text = gst_caps_to_string(device);
  EXPECT_STREQ(text,
               "video/x-raw(memory:CUDAPitched), format=(string)NV12; "
               "video/x-raw(memory:CUDAPitched), format=(string)RGBA");
  g_free(text);
  GstCaps *system = gst_cuda_prep_caps_with_feature(device, nullptr);
  EXPECT_TRUE(gst_caps_is_equal(system, caps));
  gst_caps_unref(system);
  gst_caps_unref(device);
  gst_caps_unref(caps);
}

class DevicePool : public ::testing::Test {
 protected:
  void SetUp() override {
    CUDAPREP_REQUIRE_GPU();
    CUDA_ASSERT_OK(cudaSetDevice(0));
  }

  // A started pool of at most `max_buffers` GRAY8 frames.
  GstBufferPool *make_pool(int width, int height, guint max_buffers) {
    GstBufferPool *pool = gst_cuda_prep_buffer_pool_new(0);
    GstCaps *caps = gst_caps_from_string("video/x-raw(memory:CUDAPitched),format=GRAY8");
    gst_caps_set_simple(caps, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, "framerate",
                        GST_TYPE_FRACTION, 30, 1, nullptr);
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, width * height, 1, max_buffers);
    gst_caps_unref(caps);
    EXPECT_TRUE(gst_buffer_pool_set_config(pool, config));
    EXPECT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
    return pool;
  }
};

TEST_F(DevicePool, BuffersCarryPitchedVideoMetaAndAreReused) {
  GstBufferPool *pool = make_pool(100, 7, 2);
  const guint64 allocations_before = gst_cuda_prep_memory_get_allocation_count();
  std::vector<guint8 *> pointers;
  for (int i = 0; i < 50; ++i) {
    GstBuffer *buffer = nullptr;
    ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr), GST_FLOW_OK);
    GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->stride[0], 256);  // not 100: the pitch differs from width * bpp
    GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
    ASSERT_TRUE(gst_is_cuda_prep_memory(memory));
    pointers.push_back(gst_cuda_prep_memory_get_device_pointer(memory));
    cudaPointerAttributes attributes;
    CUDA_ASSERT_OK(cudaPointerGetAttributes(&attributes, pointers.back()));
    EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
    gst_buffer_unref(buffer);
  }
  // The pool allocated its one preallocated buffer at activation; the loop none.
  EXPECT_EQ(gst_cuda_prep_memory_get_allocation_count(), allocations_before);
  EXPECT_EQ(pointers.front(), pointers.back());
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
}

// The owner's release of borrowed memory (nvcodec unmaps its frame there;
// without one the memory would be taken for cudaMalloc'd and freed): the
// memory stays the test's to free.
void release_nothing(gpointer) {}

// Memory borrowed from another owner (nvcodec's decoder frames) holds the
// allocator only while it lives: N borrows leave its reference count as it
// was (each used to leak one).
TEST_F(DevicePool, BorrowedMemoryHoldsNoAllocatorReferenceAfterItIsFreed) {
  void *device = nullptr;
  CUDA_ASSERT_OK(cudaMalloc(&device, 4096));
  GstAllocator *allocator = gst_cuda_prep_allocator_get(0);
  const guint refs_before = GST_OBJECT_REFCOUNT_VALUE(allocator);
  for (int i = 0; i < 90; ++i) {
    GstMemory *memory = gst_cuda_prep_memory_new_borrowed(0, static_cast<guint8 *>(device), 4096,
                                                          release_nothing, nullptr);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(allocator), refs_before + 1);
    gst_memory_unref(memory);
  }
  gst_cuda_prep_memory_release_borrowed();
  EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(allocator), refs_before);
  gst_object_unref(allocator);
  CUDA_ASSERT_OK(cudaFree(device));
}

// A frame read over and over without being written again (an application
// pushing the same device frame, a still image) keeps one read event per
// reader stream: nothing grows with the number of reads.
TEST_F(DevicePool, RepeatedReadsKeepOneEventPerStream) {
  GstBufferPool *pool = make_pool(64, 8, 1);
  GstBuffer *buffer = nullptr;
  ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr), GST_FLOW_OK);
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  cudaStream_t writer, readers[2];
  CUDA_ASSERT_OK(cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking));
  for (cudaStream_t &reader : readers)
    CUDA_ASSERT_OK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  CUDA_ASSERT_OK(gst_cuda_prep_memory_begin_write(memory, writer));
  CUDA_ASSERT_OK(gst_cuda_prep_memory_end_write(memory, writer));
  for (int i = 0; i < 1000; ++i)
    for (cudaStream_t reader : readers) {
      CUDA_ASSERT_OK(gst_cuda_prep_memory_begin_read(memory, reader));
      CUDA_ASSERT_OK(gst_cuda_prep_memory_end_read(memory, reader));
    }
  EXPECT_EQ(gst_cuda_prep_memory_get_pending_reads(memory), 2u);
  // The writer still waits for the last read of each stream.
  CUDA_ASSERT_OK(
      cudaprep::test::spin(100000000, readers[1]));  // 100 ms of reading on the second stream
  CUDA_ASSERT_OK(gst_cuda_prep_memory_end_read(memory, readers[1]));
  CUDA_ASSERT_OK(gst_cuda_prep_memory_begin_write(memory, writer));
  cudaEvent_t written;
  CUDA_ASSERT_OK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
  CUDA_ASSERT_OK(cudaEventRecord(written, writer));
  EXPECT_EQ(cudaEventQuery(written), cudaErrorNotReady) << "the writer did not wait for the read";
  CUDA_ASSERT_OK(cudaEventSynchronize(written));
  EXPECT_EQ(gst_cuda_prep_memory_get_pending_reads(memory), 0u);
  CUDA_ASSERT_OK(gst_cuda_prep_memory_end_write(memory, writer));
  CUDA_ASSERT_OK(cudaStreamSynchronize(writer));
  CUDA_ASSERT_OK(cudaEventDestroy(written));
  for (cudaStream_t stream : {writer, readers[0], readers[1]})
    CUDA_ASSERT_OK(cudaStreamDestroy(stream));
  gst_buffer_unref(buffer);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
}

// A map waits for the last write (100 ms of spinning before a memset on the
// writer's stream): with the CUDA flag it gives the device pointer, without
// it the bytes on the host, for a memory and a shared part of it alike; a
// host map for writing is refused.
TEST_F(DevicePool, MapWaitsForTheWriteAndGivesTheDevicePointerOrTheBytes) {
  constexpr gsize kBytes = 64 * 4;
  GstBufferPool *pool = make_pool(64, 4, 1);
  GstBuffer *buffer = nullptr;
  ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr), GST_FLOW_OK);
  GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
  ASSERT_GE(gst_memory_get_sizes(memory, nullptr, nullptr), kBytes);
  uint8_t *device = gst_cuda_prep_memory_get_device_pointer(memory);
  cudaStream_t writer;
  CUDA_ASSERT_OK(cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking));
  std::vector<uint8_t> expected(kBytes);
  for (gsize i = 0; i < kBytes; ++i) expected[i] = static_cast<uint8_t>(i * 7 + 3);
  uint8_t *pinned = nullptr;
  CUDA_ASSERT_OK(cudaMallocHost(reinterpret_cast<void **>(&pinned), kBytes));
  std::copy(expected.begin(), expected.end(), pinned);

  CUDA_ASSERT_OK(gst_cuda_prep_memory_begin_write(memory, writer));
  CUDA_ASSERT_OK(cudaprep::test::spin(100000000, writer));
  CUDA_ASSERT_OK(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, writer));
  CUDA_ASSERT_OK(gst_cuda_prep_memory_end_write(memory, writer));

  GstMapInfo map;
  ASSERT_TRUE(gst_memory_map(memory, &map, GST_MAP_READ));
  ASSERT_GE(map.size, kBytes);
  EXPECT_EQ(std::vector<uint8_t>(map.data, map.data + kBytes), expected)
      << "the host map did not wait for the write, or copied the wrong bytes";
  gst_memory_unmap(memory, &map);

  GstMemory *part = gst_memory_share(memory, 16, 32);
  ASSERT_TRUE(gst_memory_map(part, &map, GST_MAP_READ));
  ASSERT_EQ(map.size, 32u);
  EXPECT_EQ(std::vector<uint8_t>(map.data, map.data + 32),
            std::vector<uint8_t>(expected.begin() + 16, expected.begin() + 48));
  gst_memory_unmap(part, &map);
  ASSERT_TRUE(
      gst_memory_map(part, &map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA_PREP)));
  EXPECT_EQ(map.data, device + 16);
  gst_memory_unmap(part, &map);
  gst_memory_unref(part);

  EXPECT_FALSE(gst_memory_map(memory, &map, GST_MAP_WRITE));
  ASSERT_TRUE(gst_memory_map(memory, &map,
                             static_cast<GstMapFlags>(GST_MAP_READWRITE | GST_MAP_CUDA_PREP)));
  EXPECT_EQ(map.data, device);
  gst_memory_unmap(memory, &map);

  CUDA_ASSERT_OK(cudaStreamDestroy(writer));
  CUDA_ASSERT_OK(cudaFreeHost(pinned));
  gst_buffer_unref(buffer);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
}

// The reuse hazard of docs/design.md: a reader on another stream is still reading
// a pooled frame when the pool hands the same memory to a writer. `protect`
// runs the protocol (reader records end_read, writer's begin_write waits);
// without it the writer overwrites the frame under the reader.
std::vector<uint8_t> run_slow_reader_fast_writer(GstBufferPool *pool, bool protect) {
  constexpr size_t kBytes = 256 * 64;
  cudaStream_t writer = nullptr, reader = nullptr;
  uint8_t *reader_copy = nullptr;
  std::vector<uint8_t> host(kBytes, 0);
  if (cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking) != cudaSuccess ||
      cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void **>(&reader_copy), kBytes) != cudaSuccess) {
    ADD_FAILURE() << "stream or buffer creation failed";
    return host;
  }
  GstBuffer *first = nullptr;
  EXPECT_EQ(gst_buffer_pool_acquire_buffer(pool, &first, nullptr), GST_FLOW_OK);
  GstMemory *memory = gst_buffer_peek_memory(first, 0);
  uint8_t *frame = gst_cuda_prep_memory_get_device_pointer(memory);

  EXPECT_EQ(gst_cuda_prep_memory_begin_write(memory, writer), cudaSuccess);
  EXPECT_EQ(cudaMemsetAsync(frame, 1, kBytes, writer), cudaSuccess);
  EXPECT_EQ(gst_cuda_prep_memory_end_write(memory, writer), cudaSuccess);

  EXPECT_EQ(gst_cuda_prep_memory_begin_read(memory, reader), cudaSuccess);
  EXPECT_EQ(cudaprep::test::slow_copy(frame, reader_copy, kBytes, 200'000'000, reader),
            cudaSuccess);
  if (protect) {
    EXPECT_EQ(gst_cuda_prep_memory_end_read(memory, reader), cudaSuccess);
  }
  gst_buffer_unref(first);  // back to the pool while the reader still spins

  GstBuffer *second = nullptr;
  EXPECT_EQ(gst_buffer_pool_acquire_buffer(pool, &second, nullptr), GST_FLOW_OK);
  GstMemory *reused = gst_buffer_peek_memory(second, 0);
  EXPECT_EQ(gst_cuda_prep_memory_get_device_pointer(reused), frame) << "pool did not reuse";
  EXPECT_EQ(gst_cuda_prep_memory_begin_write(reused, writer), cudaSuccess);
  EXPECT_EQ(cudaMemsetAsync(frame, 2, kBytes, writer), cudaSuccess);
  EXPECT_EQ(gst_cuda_prep_memory_end_write(reused, writer), cudaSuccess);

  EXPECT_EQ(cudaStreamSynchronize(writer), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(reader), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(host.data(), reader_copy, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  gst_buffer_unref(second);
  cudaFree(reader_copy);
  cudaStreamDestroy(writer);
  cudaStreamDestroy(reader);
  return host;
}

TEST_F(DevicePool, SlowReaderIsNotOverwrittenByFastWriter) {
  GstBufferPool *pool = make_pool(256, 64, 1);
  const std::vector<uint8_t> seen = run_slow_reader_fast_writer(pool, true);
  size_t overwritten = 0;
  for (uint8_t value : seen) overwritten += value != 1;
  EXPECT_EQ(overwritten, 0u) << "the reader saw the next frame's bytes";
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
}

// Control: proves the test above can fail, i.e. the hazard is real and the
// protocol is what prevents it.
TEST_F(DevicePool, WithoutReaderEventsTheHazardCorruptsTheFrame) {
  GstBufferPool *pool = make_pool(256, 64, 1);
  const std::vector<uint8_t> seen = run_slow_reader_fast_writer(pool, false);
  size_t overwritten = 0;
  for (uint8_t value : seen) overwritten += value == 2;
  EXPECT_EQ(overwritten, seen.size()) << "the unprotected writer did not race the reader";
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
}

}  // namespace
