#include "cudaprep/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "cudaprep/array.h"

namespace cudaprep {
namespace {

constexpr size_t kNpyPreambleBytes = 10;  // magic (6), version (2), header length (2)
constexpr size_t kNpyAlignment = 64;

bool host_is_little_endian() {
  const uint16_t probe = 1;
  uint8_t first_byte = 0;
  std::memcpy(&first_byte, &probe, 1);
  return first_byte == 1;
}

std::string shape_tuple(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";  // Python's one-element tuple
  return text + ")";
}

void set_error(std::string *error, const std::string &message) {
  if (error != nullptr) *error = message;
}

}  // namespace

const char *npy_descr(DataType dtype) {
  switch (dtype) {
    case DataType::kUInt8:
      return "|u1";
    case DataType::kFloat16:
      return "<f2";
    case DataType::kFloat32:
      return "<f4";
  }
  return "";
}

std::string npy_header(DataType dtype, const std::vector<int64_t> &shape) {
  std::string dict = std::string("{'descr': '") + npy_descr(dtype) +
                     "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  // Pad with spaces so that preamble + dict + '\n' is a multiple of 64.
  const size_t unpadded = kNpyPreambleBytes + dict.size() + 1;
  dict.append((kNpyAlignment - unpadded % kNpyAlignment) % kNpyAlignment, ' ');
  dict += '\n';
  if (dict.size() > std::numeric_limits<uint16_t>::max()) return {};
  std::string header("\x93NUMPY\x01\x00", 8);
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>(dict.size() >> 8);
  return header + dict;
}

bool write_npy(const std::string &path, const void *data, DataType dtype,
               const std::vector<int64_t> &shape, std::string *error) {
  // '<' in the descr promises little-endian data; we write host bytes as is.
  if (!host_is_little_endian()) {
    set_error(error, "writing .npy needs a little-endian host");
    return false;
  }
  size_t element_count = 1;
  for (const int64_t dim : shape) {
    if (dim < 0) {
      set_error(error, "a .npy dimension is negative");
      return false;
    }
    element_count *= static_cast<size_t>(dim);
  }
  if (data == nullptr && element_count > 0) {
    set_error(error, "no data to write");
    return false;
  }
  const std::string header = npy_header(dtype, shape);
  if (header.empty()) {
    set_error(error, "the shape is too long for a .npy v1.0 header");
    return false;
  }
  FILE *file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    set_error(error, "cannot open " + path + ": " + std::strerror(errno));
    return false;
  }
  const size_t data_bytes = element_count * data_type_size(dtype);
  bool written = std::fwrite(header.data(), 1, header.size(), file) == header.size() &&
                 std::fwrite(data, 1, data_bytes, file) == data_bytes;
  std::string reason = written ? "" : std::strerror(errno);
  // fclose flushes: a full disk may only show here.
  if (std::fclose(file) != 0 && written) {
    written = false;
    reason = std::strerror(errno);
  }
  if (!written) set_error(error, "cannot write " + path + ": " + reason);
  return written;
}

bool write_npy(const std::string &path, const void *host_data, const ArrayDesc &array,
               std::string *error) {
  if (array.rank < 0 || array.rank > kMaxArrayRank) {
    set_error(error, "the array's rank is not 0 to " + std::to_string(kMaxArrayRank));
    return false;
  }
  if (!array_is_contiguous(array)) {
    set_error(error, "the tensor is not contiguous; copy it into a dense array first");
    return false;
  }
  return write_npy(path, host_data, array.dtype,
                   std::vector<int64_t>(array.dims, array.dims + array.rank), error);
}

}  // namespace cudaprep
