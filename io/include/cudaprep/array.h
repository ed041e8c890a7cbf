// Arrays of any rank (ArrayDesc of cudaprep/tensor.h: an image or clip
// tensor as it leaves the device) measured as the host copy, the .npy
// writer and DLPack need: elements, bytes spanned, density.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudaprep/tensor.h"

namespace cudaprep {

inline int64_t array_element_count(const ArrayDesc &array) {
  int64_t count = 1;
  for (int axis = 0; axis < array.rank; ++axis) count *= array.dims[axis];
  return count;
}

// Bytes from the first element to one past the last (non-negative
// strides); 0 for an array without elements.
inline size_t array_span_bytes(const ArrayDesc &array) {
  if (array_element_count(array) <= 0) return 0;
  int64_t last = 0;
  for (int axis = 0; axis < array.rank; ++axis)
    last += (array.dims[axis] - 1) * array.strides_bytes[axis];
  return static_cast<size_t>(last) + data_type_size(array.dtype);
}

// Whether the elements lie dense in row-major order (the last dim
// fastest); a dim of size 1 may have any stride. For a TensorDesc's or
// ClipDesc's array this is tensor_is_contiguous(): their dims are in
// memory order.
inline bool array_is_contiguous(const ArrayDesc &array) {
  int64_t dense = static_cast<int64_t>(data_type_size(array.dtype));
  for (int axis = array.rank - 1; axis >= 0; --axis) {
    if (array.dims[axis] > 1 && array.strides_bytes[axis] != dense) return false;
    dense *= array.dims[axis];
  }
  return true;
}

}  // namespace cudaprep
