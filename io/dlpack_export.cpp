#include "cudaprep/dlpack_export.h"

#include <new>

namespace cudaprep {
namespace {

// One allocation holds the managed tensor, the arrays it points to and the
// release callback; manager_ctx points back at it.
struct ExportedTensor {
  DLManagedTensor managed;
  int64_t shape[kMaxArrayRank];
  int64_t strides[kMaxArrayRank];
  DLPackReleaseCallback release;
  void *user_data;
};

void delete_exported_tensor(DLManagedTensor *managed) {
  auto *exported = static_cast<ExportedTensor *>(managed->manager_ctx);
  if (exported->release != nullptr) exported->release(exported->user_data);
  delete exported;
}

}  // namespace

DLDataType dlpack_data_type(DataType dtype) {
  DLDataType type;
  type.lanes = 1;
  type.bits = static_cast<uint8_t>(data_type_size(dtype) * 8);
  type.code = dtype == DataType::kUInt8 ? kDLUInt : kDLFloat;
  return type;
}

DLManagedTensor *export_dlpack(const ArrayDesc &array, void *device_data, int device_id,
                               DLPackReleaseCallback release, void *user_data) {
  const int64_t element_bytes = static_cast<int64_t>(data_type_size(array.dtype));
  if (element_bytes == 0 || array.rank < 1 || array.rank > kMaxArrayRank) return nullptr;
  for (int axis = 0; axis < array.rank; ++axis) {
    if (array.dims[axis] <= 0 || array.strides_bytes[axis] % element_bytes != 0) return nullptr;
  }
  auto *exported = new (std::nothrow) ExportedTensor();
  if (exported == nullptr) return nullptr;
  for (int axis = 0; axis < array.rank; ++axis) {
    exported->shape[axis] = array.dims[axis];
    exported->strides[axis] = array.strides_bytes[axis] / element_bytes;
  }
  exported->release = release;
  exported->user_data = user_data;

  DLTensor &tensor = exported->managed.dl_tensor;
  tensor.data = device_data;
  tensor.device = {kDLCUDA, device_id};
  tensor.ndim = array.rank;
  tensor.dtype = dlpack_data_type(array.dtype);
  tensor.shape = exported->shape;
  tensor.strides = exported->strides;
  tensor.byte_offset = 0;
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = delete_exported_tensor;
  return &exported->managed;
}

}  // namespace cudaprep
