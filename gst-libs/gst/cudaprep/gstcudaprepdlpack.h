/**
 * SECTION:cudaprep-dlpack
 *
 * DLPack for applications: the flags of cudatensorsink's export and the
 * versioned managed tensor of DLPack 1.0. Debian's dlpack.h is 0.6, which
 * lacks DLManagedTensorVersioned, so the struct is declared here under our
 * own name with DLPack 1.0's layout (the DLTensor inside is the same in 0.6
 * and 1.0): a consumer built against dlpack.h 1.x may cast it.
 */
#pragma once

#include <dlpack/dlpack.h>
#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/**
 * GstCudaPrepDLPackFlags:
 * @GST_CUDA_PREP_DLPACK_FLAGS_NONE: a DLManagedTensor (DLPack 0.6); the
 *   consumer's stream waits for the tensor and its reads are recorded when
 *   the deleter runs
 * @GST_CUDA_PREP_DLPACK_VERSIONED: a #GstCudaPrepDLManagedTensorVersioned
 *   (DLPack 1.0) instead
 * @GST_CUDA_PREP_DLPACK_CONSUMER_SYNCS: no stream waits and no reads are
 *   recorded: the consumer synchronises itself (Python's stream=-1)
 */
typedef enum {
  GST_CUDA_PREP_DLPACK_FLAGS_NONE = 0,
  GST_CUDA_PREP_DLPACK_VERSIONED = 1 << 0,
  GST_CUDA_PREP_DLPACK_CONSUMER_SYNCS = 1 << 1,
} GstCudaPrepDLPackFlags;

/**
 * GST_CUDA_PREP_DLPACK_MAJOR_VERSION:
 *
 * The DLPack major version of #GstCudaPrepDLManagedTensorVersioned.
 */
#define GST_CUDA_PREP_DLPACK_MAJOR_VERSION 1
/**
 * GST_CUDA_PREP_DLPACK_MINOR_VERSION:
 *
 * The DLPack minor version of #GstCudaPrepDLManagedTensorVersioned.
 */
#define GST_CUDA_PREP_DLPACK_MINOR_VERSION 0

/**
 * GstCudaPrepDLPackVersion:
 * @major: the major version
 * @minor: the minor version
 *
 * DLPackVersion of DLPack 1.0.
 */
typedef struct {
  uint32_t major;
  uint32_t minor;
} GstCudaPrepDLPackVersion;

/**
 * GstCudaPrepDLManagedTensorVersioned:
 * @version: the DLPack version, 1.0
 * @manager_ctx: the producer's, for the deleter
 * @deleter: frees the tensor; the consumer calls deleter(self) exactly once
 * @flags: 0 (writable, not a copy)
 * @dl_tensor: the tensor
 *
 * DLManagedTensorVersioned of DLPack 1.0, field for field.
 */
typedef struct GstCudaPrepDLManagedTensorVersioned {
  GstCudaPrepDLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct GstCudaPrepDLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} GstCudaPrepDLManagedTensorVersioned;

G_END_DECLS
