#include "helpers/replay/seccomp-policy.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace rea::helper {

SeccompPolicy replaySeccompPolicy() {
  SeccompPolicy policy("replay");
  // The event loop, RPC on fd 3, malloc, clocks, mutexes: every helper's baseline (it includes
  // read/write/sendmsg on any fd, which is what serving the accepted connections needs).
  policy.baseline();
  // ReplayServer::acceptLoop: kj's listener accepts with accept4(SOCK_NONBLOCK|SOCK_CLOEXEC) on
  // the socket bound before the filter; no new socket can be made (socket, connect are absent).
  policy.allow("replay-accept", "accept4");
  // kj sets TCP_NODELAY on every accepted TCP socket; no other socket option can be set.
  policy.allowIf("replay-accept", "setsockopt", argEquals(2, TCP_NODELAY, "TCP_NODELAY"));
  return policy;
}

}  // namespace rea::helper
