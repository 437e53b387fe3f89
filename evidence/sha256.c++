#include "evidence/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace rea::evidence {
namespace {

// Fetched once: EVP_MD_fetch is a provider lookup, too slow to repeat per hash.
const EVP_MD* sha256Md() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (md == nullptr) throw std::runtime_error("OpenSSL provides no SHA-256");
  return md;
}

}  // namespace

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : impl(std::make_unique<Impl>()) {
  impl->ctx = EVP_MD_CTX_new();
  if (impl->ctx == nullptr || EVP_DigestInit_ex(impl->ctx, sha256Md(), nullptr) != 1) {
    EVP_MD_CTX_free(impl->ctx);
    throw std::runtime_error("SHA-256 initialisation failed");
  }
}

Sha256::~Sha256() noexcept(false) {
  EVP_MD_CTX_free(impl->ctx);
}

void Sha256::update(std::string_view bytes) {
  update(bytes.data(), bytes.size());
}

void Sha256::update(const void* data, size_t size) {
  if (EVP_DigestUpdate(impl->ctx, data, size) != 1) throw std::runtime_error("SHA-256 failed");
}

std::string Sha256::finishHex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(impl->ctx, digest, &length) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  static const char HEX[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(HEX[digest[i] >> 4]);
    out.push_back(HEX[digest[i] & 0xF]);
  }
  return out;
}

std::string sha256Hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.finishHex();
}

}  // namespace rea::evidence
