#include "cudaprep/copy.h"

namespace cudaprep {

cudaError_t copy_image(const Image &src, const Image &dst, cudaStream_t stream) {
  if (src.format != dst.format || src.width != dst.width || src.height != dst.height) {
    return cudaErrorInvalidValue;
  }
  const int num_planes = format_info(src.format).num_planes;
  for (int plane = 0; plane < num_planes; ++plane) {
    const cudaError_t err = cudaMemcpy2DAsync(
        dst.planes[plane].data, dst.planes[plane].pitch_bytes, src.planes[plane].data,
        src.planes[plane].pitch_bytes, plane_row_bytes(src.format, plane, src.width),
        plane_height(src.format, plane, src.height), cudaMemcpyDefault, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace cudaprep
