#include "helpers/shim/seccomp-policy.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace rea::helper {

SeccompPolicy shimSeccompPolicy() {
  SeccompPolicy policy("shim");
  // The event loop, RPC on fd 3, malloc, clocks, mutexes; read/write/shutdown/close also serve
  // the ledger's accepted connections (kj's AsyncStreamFd).
  policy.baseline();
  // ShimLedgerServer: kj's FdConnectionReceiver accepts each shim client's connection with
  // accept4(SOCK_NONBLOCK | SOCK_CLOEXEC) on the listening socket bound before the filter.
  policy.allow("shim-ledger", "accept4");
  // kj turns Nagle off on every accepted TCP connection (a shim answer is one small write).
  policy.allowIf("shim-ledger", "setsockopt", argEquals(2, TCP_NODELAY, "TCP_NODELAY"));
  return policy;
}

}  // namespace rea::helper
