// Writing host arrays as NumPy .npy files (format version 1.0), for
// debugging tensors: numpy.load() reads them back with shape and dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudaprep/tensor.h"

namespace cudaprep {

// The .npy descr of `dtype`: "<f4", "<f2" or "|u1".
const char *npy_descr(DataType dtype);

// The complete v1.0 header: magic, version, header length, the dict
// {'descr': ..., 'fortran_order': False, 'shape': (...), } padded with
// spaces and ending in '\n' so that the data starts at a multiple of 64
// bytes. Empty if the dict does not fit a v1.0 header (65535 bytes).
std::string npy_header(DataType dtype, const std::vector<int64_t> &shape);

// Writes the C-order array of `shape` at `data` (host memory, product of
// shape elements) to `path`. On failure returns false and, if `error` is
// not null, says why.
bool write_npy(const std::string &path, const void *data, DataType dtype,
               const std::vector<int64_t> &shape, std::string *error);

// Writes a contiguous array (an image or clip tensor, array_desc()) whose
// bytes have been copied to host memory at `host_data`; the .npy shape is
// array.dims (memory order), rank as the array's. Refuses a non-contiguous
// array.
bool write_npy(const std::string &path, const void *host_data, const ArrayDesc &array,
               std::string *error);

}  // namespace cudaprep
