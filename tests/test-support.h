#pragma once
// Small helpers that unit tests of every area use. Each area's tests are compiled together (unity
// batches, tests/CMakeLists.txt), so a helper two test files need lives here, once, instead of in
// each file's anonymous namespace.

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// REA_TEST_ASAN: defined when this program is built with AddressSanitizer (g++ or clang).
#if defined(__SANITIZE_ADDRESS__)
#define REA_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REA_TEST_ASAN 1
#endif
#endif

namespace rea::test {

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
// The whole file as bytes; empty when it cannot be read.

template <typename JsonObject>
std::vector<std::string> keysOf(const JsonObject& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items())
    keys.push_back(item.key());
  return keys;
}
// The member names of a JSON object, in its order.

class TempTree {
  // A fresh directory under /tmp (mode 0755), removed with everything in it on destruction.
 public:
  explicit TempTree(const std::string& prefix) {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
    root = pattern;
    chmod(root.c_str(), 0755);
  }
  ~TempTree() {
    nftw(
        root.c_str(),
        [](const char* path, const struct stat*, int, struct FTW*) {
          return ::remove(path) == 0 ? 0 : 0;  // best effort: a test's leftovers must not fail it
        },
        64, FTW_DEPTH | FTW_PHYS);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  std::string at(const std::string& rel) const { return root + "/" + rel; }
  void file(const std::string& rel, const std::string& content, mode_t mode = 0644) const {
    std::ofstream(at(rel), std::ios::binary) << content;
    chmod(at(rel).c_str(), mode);
  }
  void dir(const std::string& rel) const { mkdir(at(rel).c_str(), 0755); }
  void symlink(const std::string& target, const std::string& rel) const {
    if (::symlink(target.c_str(), at(rel).c_str()) != 0) throw std::runtime_error("symlink " + rel);
  }
  std::string read(const std::string& rel) const { return readFile(at(rel)); }
  bool exists(const std::string& rel) const {
    struct stat info;
    return lstat(at(rel).c_str(), &info) == 0;
  }

  std::string root;
};

#ifdef REA_BINARY_DIR
constexpr const char* HELPER_DIR = REA_BINARY_DIR "/bin";
// Where the helper binaries of this build are (rea finds them beside itself).
#endif

}  // namespace rea::test
