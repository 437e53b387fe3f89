// rea-shim-client: the program behind every `<temp root>/shims/<name>` (SPEC B §7.2). It asks
// the ledger what the call `<name> argv[1..]` in this directory should do, prints the route's
// outputs with their delays, then exits with the route's code or dies by its signal.
// Exit 127 without output when the ledger refuses the call (unmatched, exhausted); exit 127
// with one line on stderr when the ledger cannot be asked at all.

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "helpers/shim/client/ledger-request.h"
#include "helpers/shim/client/route-reply.h"

namespace rea::helper {
namespace {

constexpr int REFUSED = 127;

std::string baseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The shim's name is its file name. /proc/self/exe names the shim file even when the target
// ran it through a symlink or with a different argv[0] (REA bakes the name into its script).
std::string shimName(const char* argv0) {
  char buffer[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n > 0) return baseName(std::string(buffer, size_t(n)));
  return baseName(argv0 != nullptr ? argv0 : "");
}

[[noreturn]] void refuse(const std::string& name, const std::string& message) {
  std::string line = name + ": rea shim: " + message + "\n";
  ssize_t ignored = write(2, line.data(), line.size());
  (void)ignored;
  _exit(REFUSED);
}

void sleepMs(uint64_t ms) {
  struct timespec left = {time_t(ms / 1000), long(ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) < 0 && errno == EINTR) {
  }
}

void writeFully(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n >= 0) {
      done += size_t(n);
    } else if (errno == EAGAIN) {
      // An inherited non-blocking descriptor: wait until it takes more.
      struct pollfd p = {fd, POLLOUT, 0};
      poll(&p, 1, -1);
    } else if (errno != EINTR) {
      return;  // EPIPE with SIGPIPE ignored, EBADF, …: the reader is gone; carry on
    }
  }
}

[[noreturn]] void dieBy(int signal) {
  struct sigaction action = {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  kill(getpid(), signal);
  _exit(128 + signal);  // not reached: the default action of SIGINT/SIGTERM/SIGKILL terminates
}

int run(int argc, char** argv) {
  std::string name = shimName(argc > 0 ? argv[0] : nullptr);

  const char* url = getenv("REA_SHIM_LEDGER_URL");
  if (url == nullptr) refuse(name, "REA_SHIM_LEDGER_URL is not set, so the shim ledger is unknown");
  LedgerAddress address;
  std::string error;
  if (!parseLedgerUrl(url, address, error)) refuse(name, error);

  std::vector<std::string> arguments(argv + (argc > 0 ? 1 : 0), argv + argc);
  std::vector<char> cwd(PATH_MAX);
  while (getcwd(cwd.data(), cwd.size()) == nullptr) {
    if (errno != ERANGE)
      refuse(name, std::string("cannot read the working directory: ") + strerror(errno));
    cwd.resize(cwd.size() * 2);
  }

  HttpReply reply;
  if (!postInvocation(address, invocationJson(name, arguments, cwd.data()), reply, error)) {
    refuse(name, error);
  }
  if (reply.status < 200 || reply.status > 299) return REFUSED;  // unmatched or exhausted

  RouteReply route;
  if (!parseRouteReply(reply.body, route, error)) refuse(name, error);
  for (size_t k = 0; k < route.outputs.size(); ++k) {
    uint64_t wait = waitBeforeOutputMs(route.outputs, k);
    if (wait > 0) sleepMs(wait);
    writeFully(route.outputs[k].fd, route.outputs[k].data);
  }
  if (route.bySignal) dieBy(route.signal);
  return route.exitCode;
}

}  // namespace
}  // namespace rea::helper

int main(int argc, char** argv) {
  _exit(rea::helper::run(argc, argv));
}
