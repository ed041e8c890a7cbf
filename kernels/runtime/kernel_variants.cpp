#include "kernel_variants.h"

#include <set>
#include <string>

namespace cudaprep::runtime {

std::vector<KernelRequest> all_kernel_variants() {
  std::vector<KernelRequest> every;
  append_resize_variants(&every);
  append_preprocess_variants(&every);
  append_preprocess_batch_variants(&every);
  append_normalize_variants(&every);
  append_tensorize_variants(&every);
  std::set<std::string> seen;
  std::vector<KernelRequest> unique;
  for (const KernelRequest &request : every) {
    if (seen.insert(request.name_expression).second) unique.push_back(request);
  }
  return unique;
}

}  // namespace cudaprep::runtime
