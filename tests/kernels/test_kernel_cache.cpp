// The on-disk cache of kernels compiled at run time (kernels/runtime/kernel_cache.h), without a
// GPU: entries load back byte for byte in the documented layout, every kind of bad entry is a
// miss that the next store replaces, writers racing in threads and in processes never let a
// reader see a partial or mixed entry nor leave temporary files, store() reports what it could
// not write, and the default directory and the FNV-1a hash follow their definitions.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/kernel_cache.h"

namespace cudaprep::runtime {
namespace {

namespace fs = std::filesystem;

// The entry layout of kernel_cache.cpp: magic[16] | uint32 format | uint32 reserved |
// uint64 key bytes | uint64 payload bytes | uint64 payload FNV-1a | key | payload.
constexpr char kMagic[] = "cudaprep-kernel\n";
constexpr size_t kMagicBytes = sizeof(kMagic) - 1;
constexpr size_t kFormatOffset = kMagicBytes;
constexpr size_t kHeaderBytes = kMagicBytes + 4 + 4 + 8 + 8 + 8;

void append_little_endian(std::string &bytes, uint64_t value, size_t size) {
  for (size_t i = 0; i < size; ++i) bytes.push_back(static_cast<char>(value >> (8 * i)));
}

// (Built as a string: gcc 14 takes a vector grown by push_back and then
// insert for an overflow, -Wstringop-overflow.)
std::vector<char> expected_entry(const std::string &key, const std::vector<char> &payload) {
  std::string entry(kMagic, kMagicBytes);
  append_little_endian(entry, 1, 4);  // format
  append_little_endian(entry, 0, 4);  // reserved
  append_little_endian(entry, key.size(), 8);
  append_little_endian(entry, payload.size(), 8);
  append_little_endian(entry, fnv1a64(payload.data(), payload.size()), 8);
  entry += key;
  entry.append(payload.data(), payload.size());
  return std::vector<char>(entry.begin(), entry.end());
}

std::vector<char> random_bytes(uint32_t seed, size_t size) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<char> bytes(size);
  for (char &b : bytes) b = static_cast<char>(byte(generator));
  return bytes;
}

std::vector<char> read_file(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

void write_file(const std::string &path, const std::vector<char> &bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> file_names_in(const std::string &directory) {
  std::vector<std::string> names;
  for (const fs::directory_entry &entry : fs::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string file_name_of(const std::string &path) {
  return fs::path(path).filename().string();
}

// Each test gets a fresh directory of its own under /tmp, removed afterwards.
bool is_one_of(const std::vector<char> &loaded, const std::vector<std::vector<char>> &payloads) {
  return std::find(payloads.begin(), payloads.end(), loaded) != payloads.end();
}

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cudaprep-kernel-cache-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    directory_ = pattern;
  }
  void TearDown() override {
    if (directory_.empty()) return;
    ::chmod(directory_.c_str(), 0700);  // writable again after the unwritable-directory test
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }

  // After a race of writers: no load missed or read a mix, the entry is
  // one writer's payload, and no temporary file is left.
  void expect_whole_entries_only(const KernelCache &cache, const std::string &key,
                                 const std::vector<std::vector<char>> &payloads, int loads,
                                 int misses, int foreign_loads) {
    EXPECT_EQ(misses, 0) << "of " << loads << " loads";
    EXPECT_EQ(foreign_loads, 0) << "of " << loads << " loads";
    const std::optional<std::vector<char>> last = cache.load(key);
    ASSERT_TRUE(last.has_value());
    EXPECT_TRUE(is_one_of(*last, payloads));
    EXPECT_EQ(file_names_in(directory_),
              std::vector<std::string>{file_name_of(cache.entry_path(key))});
  }

  std::string directory_;
};

TEST_F(KernelCacheTest, StoredEntriesLoadBackByteForByte) {
  const KernelCache cache(directory_);
  const std::string nul_key = "nvrtc 12.4 sm_89 resize<uchar3,bilinear>";
  const std::string large_key = "nvrtc 12.4 sm_89 normalize<float,nchw>";
  const std::string empty_key = "nvrtc 12.4 sm_89 empty";
  const std::vector<char> nul_payload = {'\0', 'c', 'u', '\0', '\0', 'b', 'i', 'n', '\0'};
  const std::vector<char> large_payload = random_bytes(1, 1 << 20);
  const std::vector<char> empty_payload;

  EXPECT_EQ(cache.store(nul_key, nul_payload), "");
  EXPECT_EQ(cache.store(large_key, large_payload), "");
  EXPECT_EQ(cache.store(empty_key, empty_payload), "");

  EXPECT_EQ(read_file(cache.entry_path(nul_key)), expected_entry(nul_key, nul_payload));
  EXPECT_EQ(read_file(cache.entry_path(large_key)), expected_entry(large_key, large_payload));
  EXPECT_EQ(read_file(cache.entry_path(empty_key)), expected_entry(empty_key, empty_payload));
  EXPECT_EQ(cache.load(nul_key), nul_payload);
  EXPECT_EQ(cache.load(large_key), large_payload);
  EXPECT_EQ(cache.load(empty_key), empty_payload);
  EXPECT_EQ(file_names_in(directory_).size(), 3u);
}

TEST_F(KernelCacheTest, KeyNeverStoredMisses) {
  const KernelCache cache(directory_);
  ASSERT_EQ(cache.store("stored key", {'x'}), "");
  EXPECT_EQ(cache.load("never stored key"), std::nullopt);
}

TEST_F(KernelCacheTest, EmptyDirectoryDisablesTheCache) {
  const KernelCache cache("");
  const std::string key = "disabled cache key 0b6f1c";
  // A disabled cache must write neither relative to the working directory nor at its entry path.
  const fs::path working_directory = fs::current_path();
  fs::current_path(directory_);
  EXPECT_EQ(cache.store(key, {'p', 'a', 'y'}), "");
  EXPECT_EQ(cache.load(key), std::nullopt);
  fs::current_path(working_directory);

  EXPECT_TRUE(file_names_in(directory_).empty());
  EXPECT_EQ(cache.entry_path(key), "");
}

TEST_F(KernelCacheTest, StoreCreatesMissingDirectoriesWithMode0700) {
  const std::string nested = directory_ + "/a/b/c";
  const KernelCache cache(nested);
  const std::vector<char> payload = random_bytes(2, 100);
  ASSERT_EQ(cache.store("key", payload), "");

  for (const std::string &created : {directory_ + "/a", directory_ + "/a/b", nested}) {
    struct stat info;
    ASSERT_EQ(::stat(created.c_str(), &info), 0) << created;
    EXPECT_TRUE(S_ISDIR(info.st_mode)) << created;
    EXPECT_EQ(info.st_mode & 07777, 0700u) << created;
  }
  EXPECT_EQ(cache.load("key"), payload);
}

TEST_F(KernelCacheTest, BadEntriesMissAndTheNextStoreReplacesThem) {
  const KernelCache cache(directory_);
  const std::string key = "nvrtc 12.4 sm_89 tensorize<half,nchw>";
  // Same length as `key`, so only comparing the stored key tells them apart.
  const std::string other_key = "nvrtc 12.4 sm_86 tensorize<half,nchw>";
  const std::vector<char> payload = random_bytes(3, 1000);
  const std::vector<char> intact = expected_entry(key, payload);
  const std::string path = cache.entry_path(key);

  // A hand-written intact entry loads, so each miss below is down to its one defect.
  write_file(path, intact);
  ASSERT_EQ(cache.load(key), payload);

  struct BadEntry {
    std::string what;
    std::vector<char> bytes;
  };
  std::vector<BadEntry> bad_entries;
  const auto truncated = [&](size_t size) {
    return std::vector<char>(intact.begin(), intact.begin() + size);
  };
  const auto flipped = [&](size_t offset) {
    std::vector<char> bytes = intact;
    bytes[offset] = static_cast<char>(~bytes[offset]);
    return bytes;
  };
  bad_entries.push_back({"empty file", {}});
  bad_entries.push_back({"truncated inside the header", truncated(kHeaderBytes / 2)});
  bad_entries.push_back({"truncated after the header", truncated(kHeaderBytes)});
  bad_entries.push_back({"truncated inside the key", truncated(kHeaderBytes + key.size() / 2)});
  bad_entries.push_back(
      {"truncated inside the payload", truncated(kHeaderBytes + key.size() + payload.size() / 2)});
  bad_entries.push_back({"one byte short", truncated(intact.size() - 1)});
  bad_entries.push_back({"flipped payload byte", flipped(kHeaderBytes + key.size() + 500)});
  bad_entries.push_back({"flipped last payload byte", flipped(intact.size() - 1)});
  bad_entries.push_back({"flipped key byte", flipped(kHeaderBytes + 3)});
  bad_entries.push_back({"wrong magic", flipped(0)});
  std::vector<char> other_format = intact;
  other_format[kFormatOffset] = 2;
  bad_entries.push_back({"format 2", other_format});
  std::vector<char> trailing_bytes = intact;
  trailing_bytes.insert(trailing_bytes.end(), {'\0', 'x'});
  bad_entries.push_back({"extra trailing bytes", trailing_bytes});
  ASSERT_EQ(cache.store(other_key, payload), "");
  bad_entries.push_back({"entry of another key", read_file(cache.entry_path(other_key))});

  for (const BadEntry &bad : bad_entries) {
    SCOPED_TRACE(bad.what);
    write_file(path, bad.bytes);
    ASSERT_EQ(read_file(path), bad.bytes);
    EXPECT_EQ(cache.load(key), std::nullopt);
    EXPECT_EQ(cache.store(key, payload), "");
    EXPECT_EQ(read_file(path), intact);
    EXPECT_EQ(cache.load(key), payload);
  }
}

TEST_F(KernelCacheTest, EntryPathsDifferPerKeyAndLieInTheDirectory) {
  const KernelCache cache(directory_);
  const std::vector<std::string> keys = {"sm_89 resize", "sm_88 resize", "sm_89 resizf",
                                         "tm_89 resize", "sm_89 resize "};
  std::vector<std::string> paths;
  for (const std::string &key : keys) {
    const std::string path = cache.entry_path(key);
    EXPECT_EQ(fs::path(path).parent_path().string(), directory_) << path;
    EXPECT_FALSE(file_name_of(path).empty()) << path;
    paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(std::adjacent_find(paths.begin(), paths.end()), paths.end());

  ASSERT_EQ(cache.store(keys[0], {'m'}), "");
  EXPECT_EQ(file_names_in(directory_),
            std::vector<std::string>{file_name_of(cache.entry_path(keys[0]))});
}

// Payloads of different sizes and contents, so that a partial or mixed entry matches none.
std::vector<std::vector<char>> distinct_payloads(size_t count) {
  std::vector<std::vector<char>> payloads;
  for (size_t i = 0; i < count; ++i)
    payloads.push_back(random_bytes(100 + static_cast<uint32_t>(i), 32 * 1024 + i * 4099));
  return payloads;
}

TEST_F(KernelCacheTest, ThreadsStoringAndLoadingOneKeySeeWholeEntriesOnly) {
  constexpr size_t kWriters = 8;
  constexpr size_t kReaders = 4;
  constexpr int kStoresPerWriter = 50;
  const KernelCache cache(directory_);
  const std::string key = "contended key";
  const std::vector<std::vector<char>> payloads = distinct_payloads(kWriters);
  // The entry exists before the race, so every load from then on must hit.
  ASSERT_EQ(cache.store(key, payloads[0]), "");

  std::atomic<bool> writing{true};
  std::atomic<int> loads{0}, misses{0}, foreign_loads{0};
  std::vector<std::string> first_store_errors(kWriters);
  std::vector<std::thread> readers;
  for (size_t r = 0; r < kReaders; ++r) {
    readers.emplace_back([&] {
      do {
        const std::optional<std::vector<char>> loaded = cache.load(key);
        ++loads;
        if (!loaded)
          ++misses;
        else if (!is_one_of(*loaded, payloads))
          ++foreign_loads;
      } while (writing);
    });
  }
  std::vector<std::thread> writers;
  for (size_t w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kStoresPerWriter; ++i) {
        const std::string error = cache.store(key, payloads[w]);
        if (!error.empty() && first_store_errors[w].empty()) first_store_errors[w] = error;
      }
    });
  }
  for (std::thread &writer : writers) writer.join();
  writing = false;
  for (std::thread &reader : readers) reader.join();

  for (const std::string &error : first_store_errors) EXPECT_EQ(error, "");
  EXPECT_GT(loads, 0);
  expect_whole_entries_only(cache, key, payloads, loads, misses, foreign_loads);
}

TEST_F(KernelCacheTest, ProcessesStoringAndLoadingOneKeySeeWholeEntriesOnly) {
  constexpr size_t kChildren = 4;
  constexpr int kStoresPerChild = 100;
  const KernelCache cache(directory_);
  const std::string key = "key shared between processes";
  const std::vector<std::vector<char>> payloads = distinct_payloads(kChildren);
  ASSERT_EQ(cache.store(key, payloads[0]), "");

  std::vector<pid_t> children;
  for (size_t c = 0; c < kChildren; ++c) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int i = 0; i < kStoresPerChild; ++i)
        if (!cache.store(key, payloads[c]).empty()) ::_exit(1);
      ::_exit(0);
    }
    children.push_back(child);
  }

  int loads = 0, misses = 0, foreign_loads = 0;
  std::vector<int> exit_statuses;
  while (exit_statuses.size() < kChildren) {
    const std::optional<std::vector<char>> loaded = cache.load(key);
    ++loads;
    if (!loaded)
      ++misses;
    else if (!is_one_of(*loaded, payloads))
      ++foreign_loads;
    for (pid_t &child : children) {
      int status;
      if (child > 0 && ::waitpid(child, &status, WNOHANG) == child) {
        exit_statuses.push_back(status);
        child = 0;
      }
    }
  }

  for (int status : exit_statuses) {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  expect_whole_entries_only(cache, key, payloads, loads, misses, foreign_loads);
}

TEST_F(KernelCacheTest, UnwritableDirectoryMakesStoreFailNamingIt) {
  ASSERT_EQ(::chmod(directory_.c_str(), 0500), 0);
  if (::access(directory_.c_str(), W_OK) == 0) {
    GTEST_SKIP() << "chmod 0500 leaves " << directory_
                 << " writable for this user (root): nothing to refuse the store";
  }
  const std::string missing_subdirectory = directory_ + "/kernels";
  for (const std::string &unwritable : {directory_, missing_subdirectory}) {
    const std::string error = KernelCache(unwritable).store("key", {'p'});
    EXPECT_FALSE(error.empty()) << unwritable;
    EXPECT_NE(error.find(unwritable), std::string::npos) << error;
  }
  EXPECT_TRUE(file_names_in(directory_).empty());
}

TEST_F(KernelCacheTest, DirectoryUnderAFileMakesStoreFailNamingIt) {
  const std::string file = directory_ + "/file";
  write_file(file, {'f'});
  const std::string under_file = file + "/kernels";
  const std::string error = KernelCache(under_file).store("key", {'p'});
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find(under_file), std::string::npos) << error;
  EXPECT_EQ(read_file(file), std::vector<char>{'f'});
}

// Saves the variables default_kernel_cache_directory() reads, unsets them for the test and
// restores them afterwards.
class DefaultKernelCacheDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char *name : kVariables) {
      const char *value = std::getenv(name);
      saved_.push_back(value != nullptr ? std::optional<std::string>(value) : std::nullopt);
      ::unsetenv(name);
    }
  }
  void TearDown() override {
    for (size_t i = 0; i < saved_.size(); ++i) {
      if (saved_[i])
        ::setenv(kVariables[i], saved_[i]->c_str(), 1);
      else
        ::unsetenv(kVariables[i]);
    }
  }

  static constexpr const char *kVariables[] = {"CUDAPREP_KERNEL_CACHE_DIR", "XDG_CACHE_HOME",
                                               "HOME"};
  std::vector<std::optional<std::string>> saved_;
};

TEST_F(DefaultKernelCacheDirectoryTest, OverrideWinsOverXdgAndHome) {
  ::setenv("CUDAPREP_KERNEL_CACHE_DIR", "/srv/kernels", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  ::setenv("HOME", "/home/user", 1);
  EXPECT_EQ(default_kernel_cache_directory(), "/srv/kernels");
}

TEST_F(DefaultKernelCacheDirectoryTest, EmptyOverrideDisablesTheCache) {
  ::setenv("CUDAPREP_KERNEL_CACHE_DIR", "", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  ::setenv("HOME", "/home/user", 1);
  EXPECT_EQ(default_kernel_cache_directory(), "");
}

TEST_F(DefaultKernelCacheDirectoryTest, XdgCacheHomeWinsOverHome) {
  ::setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  ::setenv("HOME", "/home/user", 1);
  EXPECT_EQ(default_kernel_cache_directory(), "/xdg/cache/cudaprep/kernels");
}

TEST_F(DefaultKernelCacheDirectoryTest, HomeWithoutXdgCacheHome) {
  ::setenv("HOME", "/home/user", 1);
  EXPECT_EQ(default_kernel_cache_directory(), "/home/user/.cache/cudaprep/kernels");
  // The XDG base directory specification treats an empty XDG_CACHE_HOME as unset.
  ::setenv("XDG_CACHE_HOME", "", 1);
  EXPECT_EQ(default_kernel_cache_directory(), "/home/user/.cache/cudaprep/kernels");
}

TEST_F(DefaultKernelCacheDirectoryTest, NothingSetMeansNoCache) {
  EXPECT_EQ(default_kernel_cache_directory(), "");
}

TEST(Fnv1a64, PublishedTestVectors) {
  EXPECT_EQ(fnv1a64("", 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar", 6), 0x85944171f73967e8ull);
}

TEST(Fnv1a64, ContinuingOverTwoPartsEqualsHashingTheWhole) {
  const std::vector<char> whole = random_bytes(4, 1000);
  const uint64_t first_part = fnv1a64(whole.data(), 389);
  EXPECT_EQ(fnv1a64(whole.data() + 389, whole.size() - 389, first_part),
            fnv1a64(whole.data(), whole.size()));
  EXPECT_EQ(fnv1a64("bar", 3, fnv1a64("foo", 3)), fnv1a64("foobar", 6));
}

}  // namespace
}  // namespace cudaprep::runtime
