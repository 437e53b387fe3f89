// `rea mcp` (mcp-server.h): the protocol gets private copies of stdin and stdout, and fds 0 and
// 1 become /dev/null and stderr, so nothing a child might inherit or print can reach the
// protocol stream; SIGINT, SIGTERM and SIGHUP are blocked in every thread and read through a
// signalfd, so they end the server only after a running capture's cleanup.
#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdio>

#include "supervisor/cli/commands.h"
#include "supervisor/mcp/mcp-server.h"

namespace rea::supervisor {
namespace {

void ignoreBrokenPipe(int) {}

}  // namespace

int runMcpCommand(const std::vector<std::string>& args) {
  if (!args.empty()) return usageError("rea mcp takes no arguments", "mcp");

  sigset_t termination;
  sigemptyset(&termination);
  sigaddset(&termination, SIGINT);
  sigaddset(&termination, SIGTERM);
  sigaddset(&termination, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &termination, nullptr);  // before any thread exists
  int signalFd = signalfd(-1, &termination, SFD_CLOEXEC);
  // A client that went away makes writes fail with EPIPE instead of killing rea mid-capture.
  // A handler, not SIG_IGN: handlers are reset by exec, so the target still gets SIGPIPE.
  struct sigaction pipe = {};
  pipe.sa_handler = ignoreBrokenPipe;
  sigaction(SIGPIPE, &pipe, nullptr);

  int input = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  int output = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  int devNull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (input < 0 || output < 0 || devNull < 0 || dup2(devNull, STDIN_FILENO) < 0 ||
      dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::fprintf(stderr, "rea: mcp: cannot set up stdin and stdout\n");
    return 1;
  }
  close(devNull);
  int code = serveMcp(input, output, signalFd);
  close(input);
  close(output);
  if (signalFd >= 0) close(signalFd);
  return code;
}

}  // namespace rea::supervisor
