#include "evidence/sha256.h"

// The one-call SHA-256 functions, not EVP: EVP's first use initialises OpenSSL's library
// context (reads openssl.cnf, loads the default provider), which costs a short-lived process
// such as a `/bin/true` capture about as much as all of its hashing (bench/README.md,
// capture-bench). These functions are the same assembly (SHA-NI where the CPU has it) with no
// global state; OpenSSL 3 marks them deprecated in favour of EVP but keeps them.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <stdexcept>

namespace rea::evidence {

struct Sha256::Impl {
  SHA256_CTX ctx;
};

Sha256::Sha256() : impl(std::make_unique<Impl>()) {
  if (SHA256_Init(&impl->ctx) != 1) throw std::runtime_error("SHA-256 initialisation failed");
}

Sha256::~Sha256() noexcept(false) {}

void Sha256::update(std::string_view bytes) {
  update(bytes.data(), bytes.size());
}

void Sha256::update(const void* data, size_t size) {
  if (SHA256_Update(&impl->ctx, data, size) != 1) throw std::runtime_error("SHA-256 failed");
}

std::string Sha256::finishHex() {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  if (SHA256_Final(digest, &impl->ctx) != 1) throw std::runtime_error("SHA-256 failed");
  static const char HEX[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * SHA256_DIGEST_LENGTH);
  for (unsigned char byte : digest) {
    out.push_back(HEX[byte >> 4]);
    out.push_back(HEX[byte & 0xF]);
  }
  return out;
}

std::string sha256Hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.finishHex();
}

}  // namespace rea::evidence
