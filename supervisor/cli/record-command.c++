// `rea record-scenario OUT.json -- COMMAND [ARGS...]` (issue 19): runs the command in a new PTY
// attached to the user's terminal, like `script` or `asciinema rec`, and writes a scenario that
// replays what was typed, each input waiting for the text the target printed just before it
// (scenario-recording.h). The recording runs the command directly, outside any capture: it is
// the user's own interactive session, so no operator policy applies; the scenario it writes is
// approved for capture like any other only under that policy.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "evidence/error.h"
#include "evidence/scenario.h"
#include "helpers/common/clock.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/output.h"
#include "supervisor/cli/scenario-recording.h"

namespace rea::supervisor {
namespace {

int winchPipe[2] = {-1, -1};

void onWinch(int) {
  int saved = errno;
  char c = 'w';
  (void)!write(winchPipe[1], &c, 1);
  errno = saved;
}

int64_t nowMs() {
  return static_cast<int64_t>(helper::monotonicNowNs() / 1000000);
}

std::string resolveExecutable(const std::string& name) {
  if (!name.empty() && name[0] == '/') return name;  // as typed: a symlink stays a symlink
  if (name.find('/') != std::string::npos) {
    char cwd[PATH_MAX];
    return getcwd(cwd, sizeof(cwd)) != nullptr ? std::string(cwd) + "/" + name : name;
  }
  const char* path = getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;
}

bool writeAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

// The session: a PTY whose slave is the command's terminal, the user's terminal in raw mode
// while it runs (restored on every path out).
class Session {
 public:
  ~Session() {
    if (rawSet) tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    if (master >= 0) close(master);
    signal(SIGWINCH, SIG_DFL);
    for (int& fd : winchPipe) {
      if (fd >= 0) close(fd);
      fd = -1;
    }
  }

  // Starts the command in a new PTY; why not when it cannot (nullopt once it runs).
  std::optional<std::string> start(const std::vector<std::string>& command,
                                   RecordedTarget& target) {
    struct winsize size {};
    size.ws_col = 80;
    size.ws_row = 24;
    if (isatty(STDIN_FILENO)) {
      struct winsize user {};
      if (ioctl(STDIN_FILENO, TIOCGWINSZ, &user) == 0 && user.ws_col > 0 && user.ws_row > 0) {
        size = user;
      }
    }
    target.columns = size.ws_col;
    target.rows = size.ws_row;
    master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return "no PTY";
    const char* slaveName = ptsname(master);
    if (slaveName == nullptr) return "no PTY";
    ioctl(master, TIOCSWINSZ, &size);
    if (pipe2(winchPipe, O_CLOEXEC | O_NONBLOCK) != 0) return "no pipe";
    signal(SIGWINCH, onWinch);
    std::vector<char*> argv;
    std::vector<std::string> copy = command;
    copy[0] = target.executable;
    for (auto& arg : copy)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::string slavePath = slaveName;
    child = fork();
    if (child < 0) return "fork failed";
    if (child == 0) {
      setsid();
      int slave = open(slavePath.c_str(), O_RDWR);
      if (slave < 0) _exit(127);
      ioctl(slave, TIOCSCTTY, 0);
      dup2(slave, 0);
      dup2(slave, 1);
      dup2(slave, 2);
      if (slave > 2) close(slave);
      signal(SIGWINCH, SIG_DFL);
      execv(argv[0], argv.data());
      std::fprintf(stderr, "rea: cannot run %s\n", argv[0]);
      _exit(127);
    }
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0) {
      struct termios raw = saved;
      cfmakeraw(&raw);
      rawSet = tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0;
    }
    return std::nullopt;
  }

  int run(ScenarioRecording& recording) {
    bool stdinOpen = true;
    char buffer[65536];
    for (;;) {
      struct pollfd fds[3] = {{master, POLLIN, 0},
                              {stdinOpen ? STDIN_FILENO : -1, POLLIN, 0},
                              {winchPipe[0], POLLIN, 0}};
      if (poll(fds, 3, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[2].revents & POLLIN) {
        char drain[64];
        while (read(winchPipe[0], drain, sizeof(drain)) > 0) {
        }
        struct winsize size {};
        if (ioctl(STDIN_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
          ioctl(master, TIOCSWINSZ, &size);
          recording.resize(size.ws_col, size.ws_row);
        }
      }
      if (fds[1].revents & (POLLIN | POLLHUP)) {
        ssize_t n = read(STDIN_FILENO, buffer, sizeof(buffer));
        if (n > 0) {
          recording.input(std::string_view(buffer, size_t(n)));
          writeAll(master, buffer, size_t(n));
        } else if (n == 0 || errno != EINTR) {
          stdinOpen = false;
        }
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t n = read(master, buffer, sizeof(buffer));
        if (n > 0) {
          recording.output(std::string_view(buffer, size_t(n)));
          writeAll(STDOUT_FILENO, buffer, size_t(n));
        } else if (n == 0 || errno != EINTR) {
          break;  // EIO: every slave fd is closed, the session is over
        }
      }
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  }

 private:
  int master = -1;
  pid_t child = -1;
  bool rawSet = false;
  struct termios saved {};
};

}  // namespace

int runRecordScenarioCommand(const std::vector<std::string>& args) {
  if (args.size() < 3 || args[1] != "--") {
    return usageError("expected OUT.json -- COMMAND [ARGS...]", "record-scenario");
  }
  const std::string& out = args[0];
  std::vector<std::string> command(args.begin() + 2, args.end());
  RecordedTarget target;
  target.executable = resolveExecutable(command[0]);
  target.arguments.assign(command.begin() + 1, command.end());
  char cwd[PATH_MAX];
  target.workingDirectory = getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : "/";
  const char* path = getenv("PATH");
  target.path = path != nullptr ? path : "/usr/bin:/bin";
  if (target.executable.empty() || target.executable[0] != '/') {
    return printError(evidence::executionFailure("The command was not found on PATH."), false);
  }

  ScenarioRecording recording;
  int64_t started = nowMs();
  int status = 0;
  {
    Session session;
    if (session.start(command, target)) {
      return printError(evidence::executionFailure("The terminal session could not be started."),
                        false);
    }
    status = session.run(recording);
  }
  evidence::Json scenario = recording.scenario(target, nowMs() - started);
  auto parsed = evidence::parseScenario(scenario);
  if (!parsed.issues.empty()) {
    // A recording this command cannot express (e.g. a literal over the bounds): a bug of ours.
    return printError(evidence::scenarioInvalid(parsed.issues), false);
  }
  std::ofstream file(out, std::ios::trunc);
  file << scenario.dump(2) << "\n";
  if (!file.good()) return printError(evidence::inputUnreadable(out), false);
  std::fprintf(stderr, "rea: recorded %zu events to %s (the command %s)\n", recording.eventCount(),
               out.c_str(),
               WIFEXITED(status) ? ("exited " + std::to_string(WEXITSTATUS(status))).c_str()
                                 : "was killed by a signal");
  return 0;
}

}  // namespace rea::supervisor
