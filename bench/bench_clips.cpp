// Benchmark of issue 36's clips: GPU time per clip of T frames (default
// 16) of 1920x1080 NV12 into 224x224 float32 (bilinear, ImageNet mean/std),
// in the same run:
//  - written in place: one preprocess() per frame straight into its slot
//    of the clip tensor (what cudatensorize clip-length=T does);
//  - assembled: one preprocess() per frame into a single-frame tensor (what
//    cudatensorize does without clips), then the frame copied into the clip
//    (cudaMemcpy2DAsync: C planes, T planes apart for NCTHW, together for
//    NTCHW), as an application stacking single-frame tensors does;
//  - half-overlapping clips, each frame in two: one kernel storing it into
//    both (preprocess_into_each(), what cudatensorize does) against one
//    kernel per clip.
// CUDA events around each clip, the median of the rounds; T distinct
// device frames, so the source is not all in L2.
//   bench_clips [T] [rounds]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check_cuda.h"
#include "cudaprep/preprocess.h"

namespace {

constexpr int kWidth = 1920, kHeight = 1080, kSide = 224;
const float kMean[3] = {0.485f, 0.456f, 0.406f}, kStd[3] = {0.229f, 0.224f, 0.225f};

cudaprep::Image nv12_frame(int index) {
  cudaprep::Image frame;
  frame.format = cudaprep::PixelFormat::kNV12;
  frame.width = kWidth;
  frame.height = kHeight;
  unsigned char *device = nullptr;
  size_t pitch = 0;
  CHECK_CUDA(cudaMallocPitch(reinterpret_cast<void **>(&device), &pitch, kWidth, kHeight * 3 / 2));
  CHECK_CUDA(cudaMemset2D(device, pitch, 0x30 + index, kWidth, kHeight * 3 / 2));
  frame.planes[0].data = device;
  frame.planes[0].pitch_bytes = pitch;
  frame.planes[1].data = device + pitch * kHeight;
  frame.planes[1].pitch_bytes = pitch;
  return frame;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  const int frames = argc > 1 ? std::atoi(argv[1]) : 16;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
  std::vector<cudaprep::Image> sources;
  for (int t = 0; t < frames; ++t) sources.push_back(nv12_frame(t));
  cudaprep::ResizeParams resize;
  resize.source_colorimetry.matrix = cudaprep::ColorMatrix::kBT709;
  cudaprep::NormalizeParams normalize;
  std::copy(kMean, kMean + 3, normalize.mean);
  std::copy(kStd, kStd + 3, normalize.std);
  const cudaprep::TensorDesc single = cudaprep::make_contiguous_tensor_desc(
      cudaprep::TensorLayout::kNCHW, 1, 3, kSide, kSide, cudaprep::DataType::kFloat32);
  std::vector<void *> singles(frames);
  for (void *&tensor : singles)
    CHECK_CUDA(cudaMalloc(&tensor, cudaprep::tensor_span_bytes(single)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const size_t plane_bytes = sizeof(float) * kSide * kSide;
  std::printf(
      "clip of %d frames, 1920x1080 NV12 -> 3x224x224 float32, GPU us per clip (median "
      "of %d)\n",
      frames, rounds);
  for (const cudaprep::ClipLayout layout :
       {cudaprep::ClipLayout::kNCTHW, cudaprep::ClipLayout::kNTCHW}) {
    const cudaprep::ClipDesc clip = cudaprep::make_contiguous_clip_desc(
        layout, 1, frames, 3, kSide, kSide, cudaprep::DataType::kFloat32);
    unsigned char *clip_data = nullptr;
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&clip_data), cudaprep::clip_span_bytes(clip)));
    const auto in_place = [&] {
      for (int t = 0; t < frames; ++t) {
        size_t offset = 0;
        const cudaprep::TensorDesc frame = cudaprep::clip_frame_desc(clip, 0, t, &offset);
        CHECK_CUDA(cudaprep::preprocess(sources[t], resize, normalize, clip_data + offset, frame, 0,
                                        stream));
      }
    };
    const auto assembled = [&] {
      for (int t = 0; t < frames; ++t) {
        CHECK_CUDA(
            cudaprep::preprocess(sources[t], resize, normalize, singles[t], single, 0, stream));
        size_t offset = 0;
        const cudaprep::TensorDesc frame = cudaprep::clip_frame_desc(clip, 0, t, &offset);
        CHECK_CUDA(cudaMemcpy2DAsync(clip_data + offset, frame.strides_bytes[1], singles[t],
                                     plane_bytes, plane_bytes, 3, cudaMemcpyDeviceToDevice,
                                     stream));
      }
    };
    const auto time = [&](const auto &work) {
      for (int i = 0; i < 10; ++i) work();
      std::vector<double> us;
      for (int round = 0; round < rounds; ++round) {
        CHECK_CUDA(cudaEventRecord(start, stream));
        work();
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        us.push_back(1000.0 * ms);
      }
      return median(us);
    };
    const double direct = time(in_place);
    const double copied = time(assembled);
    std::printf(
        "%s: written in place %8.1f us, assembled from single-frame tensors %8.1f us "
        "(%.2fx)\n",
        cudaprep::clip_layout_name(layout), direct, copied, copied / direct);
    // Half-overlapping clips: each frame belongs to two; here it goes to
    // two frame slots of this clip (t and t + T/2), as to two clips.
    const auto overlapping = [&](bool once) {
      for (int t = 0; t < frames / 2; ++t) {
        size_t first = 0, second = 0;
        const cudaprep::TensorDesc frame = cudaprep::clip_frame_desc(clip, 0, t, &first);
        cudaprep::clip_frame_desc(clip, 0, t + frames / 2, &second);
        void *targets[2] = {clip_data + first, clip_data + second};
        if (once) {
          CHECK_CUDA(cudaprep::preprocess_into_each(sources[t], resize, normalize, targets, 2,
                                                    frame, 0, stream));
        } else {
          for (void *target : targets)
            CHECK_CUDA(
                cudaprep::preprocess(sources[t], resize, normalize, target, frame, 0, stream));
        }
      }
    };
    const double once = time([&] { overlapping(true); });
    const double twice = time([&] { overlapping(false); });
    std::printf(
        "%s, %d frames each into 2 clips: one kernel storing into both %8.1f us, one "
        "kernel per clip %8.1f us (%.2fx)\n",
        cudaprep::clip_layout_name(layout), frames / 2, once, twice, twice / once);
    CHECK_CUDA(cudaFree(clip_data));
  }
  for (void *tensor : singles) CHECK_CUDA(cudaFree(tensor));
  for (cudaprep::Image &source : sources) CHECK_CUDA(cudaFree(source.planes[0].data));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}
