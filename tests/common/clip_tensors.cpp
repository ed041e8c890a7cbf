#include "common/clip_tensors.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <gst/cudaprep/gstcudaprepmeta.h>
#include "common/gst_frames.h"

namespace cudaprep::test {

std::string ClipSettings::properties() const {
  return "clip-length=" + std::to_string(length) +
         " clip-frame-stride=" + std::to_string(frame_stride) +
         " clip-stride=" + std::to_string(clip_stride) +
         " batch-size=" + std::to_string(clips_per_tensor) + " layout=" + layout;
}

std::vector<std::vector<int>> clips_by_rule(const ClipSettings &settings, int first, int count) {
  std::vector<std::vector<int>> clips;
  for (int start = 0; start < count; start += settings.stride()) {
    std::vector<int> frames;
    for (int t = 0; t < settings.length && start + t * settings.frame_stride < count; ++t)
      frames.push_back(first + start + t * settings.frame_stride);
    clips.push_back(frames);
  }
  return clips;
}

namespace {

void expect_clip_caps(GstCaps *caps, const ClipSettings &settings) {
  ASSERT_NE(caps, nullptr);
  const GstStructure *tensor = gst_caps_get_structure(caps, 0);
  gint frames = 0, batch = 0;
  gchar *text = gst_caps_to_string(caps);
  EXPECT_STREQ(gst_structure_get_string(tensor, "layout"),
               settings.channels_first() ? "NCTHW" : "NTCHW")
      << text;
  EXPECT_TRUE(gst_structure_get_int(tensor, "frames", &frames) && frames == settings.length)
      << text;
  EXPECT_TRUE(gst_structure_get_int(tensor, "batch", &batch) && batch == settings.clips_per_tensor)
      << text;
  g_free(text);
}

// Whether `tensor` is a clip tensor of `settings` (test failures saying
// where not).
bool expect_clip_tensor(const GstCudaPrepTensor *tensor, const ClipSettings &settings) {
  const gsize n = settings.clips_per_tensor, t = settings.length;
  const std::vector<gsize> leading =
      settings.channels_first() ? std::vector<gsize>{n, 3, t} : std::vector<gsize>{n, t, 3};
  EXPECT_STREQ(g_quark_to_string(tensor->id), "clip");
  EXPECT_EQ(tensor->num_dims, 5u);
  EXPECT_EQ(std::vector<gsize>(tensor->dims, tensor->dims + 3), leading) << "the dims N, C, T";
  EXPECT_EQ(tensor->image_layout, settings.channels_first()
                                      ? GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NCTHW
                                      : GST_CUDA_PREP_TENSOR_IMAGE_LAYOUT_NTCHW);
  EXPECT_EQ(tensor->clip_length, t);
  EXPECT_EQ(tensor->batch_size, n);
  EXPECT_GT(tensor->batch_filled, 0u) << "a tensor leaves with a clip at least";
  EXPECT_LE(tensor->batch_filled, n);
  return tensor->num_dims == 5 && tensor->clip_length == t && tensor->batch_size == n &&
         tensor->batch_filled <= n && tensor->clip_filled != nullptr &&
         tensor->frame_pts != nullptr;
}

}  // namespace

bool read_clip_tensor(GstSample *sample, const ClipSettings &settings, ClipTensor *out) {
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  *out = ClipTensor{GST_BUFFER_PTS(buffer), {}, g_get_monotonic_time()};
  expect_clip_caps(gst_sample_get_caps(sample), settings);
  GstCudaPrepTensorMeta *meta = gst_buffer_get_cuda_prep_tensor_meta(buffer);
  const GstCudaPrepTensor *tensor =
      meta != nullptr && meta->num_tensors > 0 ? meta->tensors[0] : nullptr;
  if (tensor == nullptr || !expect_clip_tensor(tensor, settings)) {
    ADD_FAILURE() << "not a clip tensor of " << settings.properties();
    return false;
  }
  const std::vector<guint8> bytes = tensor_bytes(buffer);
  const size_t clip_bytes = bytes.size() / tensor->batch_size;
  const gsize t_count = tensor->clip_length;
  for (gsize item = 0; item < tensor->batch_filled; ++item) {
    gsize count = 0;
    const GstClockTime *pts = gst_cuda_prep_tensor_get_clip_frame_pts(tensor, item, &count);
    EXPECT_EQ(count, tensor->clip_filled[item]) << "item " << item;
    EXPECT_LE(count, t_count) << "item " << item;
    EXPECT_TRUE(count == 0 || pts != nullptr) << "item " << item;
    count = pts != nullptr ? std::min(count, t_count) : 0;
    for (gsize t = 0; t < t_count; ++t)
      EXPECT_EQ(tensor->frame_pts[item * t_count + t], t < count ? pts[t] : GST_CLOCK_TIME_NONE)
          << "item " << item << " frame " << t;
    const auto begin = bytes.begin() + item * clip_bytes;
    out->clips.push_back(Clip{tensor->items[item].source_index, tensor->items[item].pts,
                              std::vector<GstClockTime>(pts, pts + count),
                              std::vector<guint8>(begin, begin + clip_bytes)});
  }
  const auto unfilled = std::find_if(bytes.begin() + tensor->batch_filled * clip_bytes, bytes.end(),
                                     [](guint8 byte) { return byte != 0; });
  EXPECT_EQ(unfilled, bytes.end())
      << "byte " << unfilled - bytes.begin() << " of a slot no clip took is not 0";
  return true;
}

void expect_clip_bytes(const Clip &actual, const std::vector<std::vector<guint8>> &singles,
                       const std::vector<int> &frames, const ClipSettings &settings,
                       const std::string &what) {
  const size_t planes = 3 * static_cast<size_t>(settings.length);
  const size_t plane_bytes = actual.bytes.size() / planes;
  ASSERT_EQ(actual.bytes.size(), plane_bytes * planes) << what << ": not " << planes << " planes";
  std::vector<guint8> expected(actual.bytes.size(), 0);
  for (size_t t = 0; t < frames.size(); ++t) {
    const std::vector<guint8> &single = singles.at(frames[t]);
    ASSERT_EQ(single.size(), 3 * plane_bytes)
        << what << ": its frames are not of the single-frame tensors' size";
    for (size_t channel = 0; channel < 3; ++channel) {
      const size_t plane =
          settings.channels_first() ? channel * settings.length + t : t * 3 + channel;
      std::copy_n(single.begin() + channel * plane_bytes, plane_bytes,
                  expected.begin() + plane * plane_bytes);
    }
  }
  const size_t at = first_difference(actual.bytes, expected);
  if (at == SIZE_MAX) return;
  const size_t plane = at / plane_bytes;
  const size_t t = settings.channels_first() ? plane % settings.length : plane / 3;
  const size_t channel = settings.channels_first() ? plane / settings.length : plane % 3;
  ADD_FAILURE() << what << " differs from the clip assembled from its frames' single-frame "
                << "tensors at byte " << at << " (frame " << t << " of " << frames.size()
                << " written, channel " << channel << ")";
}

}  // namespace cudaprep::test
