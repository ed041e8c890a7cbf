// Every kernel the launchers may request, as name expressions: what the
// tests compile for each architecture without a GPU and what a packager's
// precompile puts in a cache ahead of time. Sources: every reader of every
// format, straight and turned; every sampler; both float dtypes; for the
// batch, each format's readers alone (a batch mixing formats compiles its
// own kernel when it first runs) at every item-list capacity.
#pragma once

#include <vector>

#include "runtime_kernels.h"

namespace cudaprep::runtime {

void append_resize_variants(std::vector<KernelRequest> *requests);
void append_preprocess_variants(std::vector<KernelRequest> *requests);
void append_preprocess_batch_variants(std::vector<KernelRequest> *requests);
void append_normalize_variants(std::vector<KernelRequest> *requests);
void append_tensorize_variants(std::vector<KernelRequest> *requests);

// All of the above, each name once.
std::vector<KernelRequest> all_kernel_variants();

}  // namespace cudaprep::runtime
