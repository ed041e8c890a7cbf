#include "kernel_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cudaprep::runtime {
namespace {

// Entry layout (little-endian, as written by this machine's ABI):
//   magic[16] | uint32 format | uint32 reserved | uint64 key bytes |
//   uint64 payload bytes | uint64 payload FNV-1a | key | payload
constexpr char kMagic[16] = {'c', 'u', 'd', 'a', 'p', 'r', 'e', 'p',
                             '-', 'k', 'e', 'r', 'n', 'e', 'l', '\n'};
constexpr uint32_t kFormat = 1;

struct EntryHeader {
  char magic[16];
  uint32_t format;
  uint32_t reserved;
  uint64_t key_bytes;
  uint64_t payload_bytes;
  uint64_t payload_hash;
};

bool read_all(int fd, void *buffer, size_t size) {
  char *at = static_cast<char *>(buffer);
  while (size > 0) {
    const ssize_t got = ::read(fd, at, size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    at += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

bool write_all(int fd, const void *buffer, size_t size) {
  const char *at = static_cast<const char *>(buffer);
  while (size > 0) {
    const ssize_t put = ::write(fd, at, size);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    at += put;
    size -= static_cast<size_t>(put);
  }
  return true;
}

// mkdir -p, each level 0700 (compiled code is the user's own).
bool make_directories(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string part = path.substr(0, slash);
    if (!part.empty() && ::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) return true;
  }
}

std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

uint64_t fnv1a64(const void *bytes, size_t size, uint64_t hash) {
  const unsigned char *at = static_cast<const unsigned char *>(bytes);
  for (size_t i = 0; i < size; ++i) {
    hash ^= at[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string default_kernel_cache_directory() {
  if (std::getenv("CUDAPREP_KERNEL_CACHE_DIR") != nullptr) return env("CUDAPREP_KERNEL_CACHE_DIR");
  if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/cudaprep/kernels";
  if (!env("HOME").empty()) return env("HOME") + "/.cache/cudaprep/kernels";
  return {};
}

std::string KernelCache::entry_path(const std::string &key) const {
  if (directory_.empty()) return {};
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.module",
                static_cast<unsigned long long>(fnv1a64(key.data(), key.size())));
  return directory_ + "/" + name;
}

std::optional<std::vector<char>> KernelCache::load(const std::string &key) const {
  if (directory_.empty()) return std::nullopt;
  // O_NONBLOCK: something other than a file there (a FIFO) is a miss, not a hang.
  const int fd = ::open(entry_path(key).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  std::optional<std::vector<char>> result;
  EntryHeader header;
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && read_all(fd, &header, sizeof(header)) &&
      std::memcmp(header.magic, kMagic, sizeof(kMagic)) == 0 && header.format == kFormat &&
      header.key_bytes == key.size() &&
      static_cast<uint64_t>(info.st_size) ==
          sizeof(header) + header.key_bytes + header.payload_bytes) {
    std::string stored_key(key.size(), '\0');
    std::vector<char> payload(header.payload_bytes);
    if (read_all(fd, stored_key.data(), stored_key.size()) && stored_key == key &&
        read_all(fd, payload.data(), payload.size()) &&
        fnv1a64(payload.data(), payload.size()) == header.payload_hash) {
      result = std::move(payload);
    }
  }
  ::close(fd);
  return result;
}

std::string KernelCache::store(const std::string &key, const std::vector<char> &bytes) const {
  if (directory_.empty()) return {};
  if (!make_directories(directory_)) {
    return "cannot create the kernel cache directory " + directory_ + ": " + std::strerror(errno);
  }
  const std::string path = entry_path(key);
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) return "cannot write in the kernel cache " + directory_ + ": " + std::strerror(errno);
  EntryHeader header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.format = kFormat;
  header.key_bytes = key.size();
  header.payload_bytes = bytes.size();
  header.payload_hash = fnv1a64(bytes.data(), bytes.size());
  errno = 0;
  bool written = write_all(fd, &header, sizeof(header)) && write_all(fd, key.data(), key.size()) &&
                 write_all(fd, bytes.data(), bytes.size());
  int failure = written ? 0 : errno;
  if (::close(fd) != 0 && written) {
    written = false;
    failure = errno;
  }
  if (!written) {
    ::unlink(temporary.c_str());
    return "cannot write the kernel cache entry " + path + ": " +
           (failure != 0 ? std::strerror(failure) : "short write");
  }
  // Readers see the old entry or the new one, never a partial file.
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    return "cannot publish the kernel cache entry " + path + ": " + reason;
  }
  return {};
}

}  // namespace cudaprep::runtime
