// The on-disk cache of kernels compiled at run time: one file per module,
// named by a hash of its key and holding the whole key, so that a module
// is only ever read back for exactly what compiled it (sources, NVRTC
// version, architecture, options, name expression). An entry that is
// truncated, corrupt, of another format or of another key is a miss and
// is compiled again, never trusted. Writers publish with an atomic rename,
// so processes sharing the directory see whole entries or none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudaprep::runtime {

class KernelCache {
 public:
  // `directory` empty: no disk cache (every load misses, stores do nothing).
  explicit KernelCache(std::string directory) : directory_(std::move(directory)) {}

  const std::string &directory() const { return directory_; }

  // The bytes stored under `key`, or nothing when no intact entry of this
  // key exists.
  std::optional<std::vector<char>> load(const std::string &key) const;

  // Stores `bytes` under `key`, creating the directory as needed. Returns
  // why it could not (the cache is an optimisation: callers log and go on),
  // or an empty string.
  std::string store(const std::string &key, const std::vector<char> &bytes) const;

  // The entry's file for `key` (for tests and diagnostics); "" without a
  // directory.
  std::string entry_path(const std::string &key) const;

 private:
  std::string directory_;
};

// The default directory: $CUDAPREP_KERNEL_CACHE_DIR if set (empty: no disk
// cache), else $XDG_CACHE_HOME/cudaprep/kernels, else
// $HOME/.cache/cudaprep/kernels; empty when none of them is set.
std::string default_kernel_cache_directory();

// 64-bit FNV-1a of `bytes`, continuing from `hash`.
uint64_t fnv1a64(const void *bytes, size_t size, uint64_t hash = 0xcbf29ce484222325ull);

}  // namespace cudaprep::runtime
