// The mapping between a source frame and an element's output: every crop,
// scale and letterbox pad composes into  out = (src - crop) * scale + pad,
// in continuous pixel coordinates (pixel i covers [i, i+1)). A detector's
// box in tensor pixels maps back to the source frame with to_source().
#pragma once

namespace cudaprep {

struct FrameGeometry {
  double crop_x = 0.0, crop_y = 0.0;    // source pixels removed on the left / top
  double scale_x = 1.0, scale_y = 1.0;  // output pixels per source pixel
  double pad_x = 0.0, pad_y = 0.0;      // output pixels added on the left / top

  void to_output(double src_x, double src_y, double *out_x, double *out_y) const {
    *out_x = (src_x - crop_x) * scale_x + pad_x;
    *out_y = (src_y - crop_y) * scale_y + pad_y;
  }
  void to_source(double out_x, double out_y, double *src_x, double *src_y) const {
    *src_x = (out_x - pad_x) / scale_x + crop_x;
    *src_y = (out_y - pad_y) / scale_y + crop_y;
  }
  // This mapping followed by `next` (applied to this one's output).
  FrameGeometry then(const FrameGeometry &next) const {
    FrameGeometry composed;
    composed.crop_x = crop_x + next.crop_x / scale_x;
    composed.crop_y = crop_y + next.crop_y / scale_y;
    composed.scale_x = scale_x * next.scale_x;
    composed.scale_y = scale_y * next.scale_y;
    composed.pad_x = pad_x * next.scale_x + next.pad_x;
    composed.pad_y = pad_y * next.scale_y + next.pad_y;
    return composed;
  }
};

}  // namespace cudaprep
