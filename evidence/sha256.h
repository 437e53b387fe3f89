#pragma once
// SHA-256 through OpenSSL (SHA-NI makes it ~1.8 GB/s here): file hashes, the executable
// hash, commitments and Evidence ids all use it.
//
// Errors: throws std::runtime_error if OpenSSL cannot provide SHA-256 (a broken install).

#include <memory>
#include <string>
#include <string_view>

namespace rea::evidence {

class Sha256 {
 public:
  Sha256();
  ~Sha256() noexcept(false);
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  void update(const void* data, size_t size);
  std::string finishHex();
  // 64 lowercase hex digits. The object cannot be updated afterwards.

 private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

std::string sha256Hex(std::string_view bytes);
// One-shot SHA-256 as 64 lowercase hex digits.

}  // namespace rea::evidence
