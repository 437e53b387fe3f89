#include "supervisor/run/run-token.h"

#include <sys/random.h>

#include <cstdint>

#include <kj/debug.h>

namespace rea::supervisor {

std::string newRunToken() {
  uint8_t bytes[16];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n;
    KJ_SYSCALL(n = getrandom(bytes + got, sizeof(bytes) - got, 0));
    got += static_cast<size_t>(n);
  }
  bytes[6] = (bytes[6] & 0x0F) | 0x40;  // version 4
  bytes[8] = (bytes[8] & 0x3F) | 0x80;  // RFC 4122 variant
  static const char HEX[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < sizeof(bytes); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(HEX[bytes[i] >> 4]);
    out.push_back(HEX[bytes[i] & 0xF]);
  }
  return out;
}

}  // namespace rea::supervisor
