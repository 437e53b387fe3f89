#include "helpers/common/system/ownership.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <kj/debug.h>

#include "helpers/common/system/proc-stat.h"

namespace rea::helper {
namespace {

// 1 + 2 + 4 + 8 + 16 ms: longer than an exec or an exit takes even on a loaded machine.
constexpr int EMPTY_ENVIRON_RETRIES = 5;

}  // namespace

const char RUN_TOKEN_VARIABLE[] = "REA_PROCESS_RUN_ID";

const char* ownershipName(Ownership ownership) {
  switch (ownership) {
    case Ownership::OWNED:
      return "owned";
    case Ownership::TOKEN_MISSING:
      return "token_missing";
    case Ownership::TOKEN_DIFFERENT:
      return "token_different";
    case Ownership::UNREADABLE:
      return "unreadable";
    case Ownership::GONE:
      return "gone";
  }
  KJ_UNREACHABLE;
}

Ownership ownershipOfEnviron(const std::string& environ, const std::string& runToken) {
  const size_t nameLength = strlen(RUN_TOKEN_VARIABLE);
  bool found = false;
  bool matches = false;
  size_t start = 0;
  while (start < environ.size()) {
    size_t end = environ.find('\0', start);
    if (end == std::string::npos) end = environ.size();
    size_t equals = environ.find('=', start);
    if (equals != std::string::npos && equals < end && equals > start &&
        equals - start == nameLength &&
        environ.compare(start, nameLength, RUN_TOKEN_VARIABLE) == 0) {
      found = true;
      matches = environ.compare(equals + 1, end - equals - 1, runToken) == 0;
    }
    start = end + 1;
  }
  if (!found) return Ownership::TOKEN_MISSING;
  return matches ? Ownership::OWNED : Ownership::TOKEN_DIFFERENT;
}

Ownership checkRunToken(pid_t pid, const std::string& runToken) {
  std::string path = "/proc/" + std::to_string(pid) + "/environ";
  for (int attempt = 0;; ++attempt) {
    auto read = readProcFile(path);
    switch (read.status) {
      case ProcRead::GONE:
        return Ownership::GONE;
      case ProcRead::DENIED:
        // A process being torn down can refuse the read; look again before blaming it.
        KJ_IF_MAYBE (stat, readStat(pid)) {
          if (!stat->isZombie()) return Ownership::UNREADABLE;
        }
        return Ownership::GONE;
      case ProcRead::OK:
        break;
    }
    if (!read.text.empty()) return ownershipOfEnviron(read.text, runToken);
    // An empty environment is ambiguous: a zombie, a process between exit_mm() and becoming a
    // zombie, one inside execve() (its new memory has no environment yet), or a live process
    // that really has none (`env -i`). Only the last stays empty while alive.
    KJ_IF_MAYBE (stat, readStat(pid)) {
      if (stat->isZombie()) return Ownership::GONE;
    } else {
      return Ownership::GONE;
    }
    if (attempt == EMPTY_ENVIRON_RETRIES) return Ownership::TOKEN_MISSING;
    usleep(1000u << attempt);
  }
}

bool InspectedProcess::kill() {
  KJ_REQUIRE(ownership == Ownership::OWNED, "only verified processes are signalled", pid,
             ownershipName(ownership));
  auto& fd = KJ_ASSERT_NONNULL(pidfd);
  KJ_SYSCALL_HANDLE_ERRORS(syscall(SYS_pidfd_send_signal, fd.get(), SIGKILL, nullptr, 0)) {
    case ESRCH:
      return false;
    default:
      KJ_FAIL_SYSCALL("pidfd_send_signal(SIGKILL)", error, pid);
  }
  return true;
}

bool InspectedProcess::isAlive() const {
  KJ_IF_MAYBE (fd, pidfd) {
    KJ_SYSCALL_HANDLE_ERRORS(syscall(SYS_pidfd_send_signal, fd->get(), 0, nullptr, 0)) {
      case ESRCH:
        return false;
      default:
        KJ_FAIL_SYSCALL("pidfd_send_signal(0)", error, pid);
    }
    return true;
  }
  return false;
}

InspectedProcess inspectProcess(pid_t pid, const std::string& runToken) {
  KJ_CONTEXT("inspect process", pid);
  int fd;
  KJ_SYSCALL_HANDLE_ERRORS(fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0))) {
    case ESRCH:
      return InspectedProcess(pid, Ownership::GONE, nullptr);
    default:
      KJ_FAIL_SYSCALL("pidfd_open", error, pid);
  }
  kj::AutoCloseFd pidfd(fd);
  Ownership ownership = checkRunToken(pid, runToken);
  if (ownership == Ownership::GONE) return InspectedProcess(pid, ownership, nullptr);
  // The pidfd was opened before the environment was read. If its process is still alive now,
  // the pid was never free in between, so the environment we read was that process's.
  KJ_SYSCALL_HANDLE_ERRORS(syscall(SYS_pidfd_send_signal, pidfd.get(), 0, nullptr, 0)) {
    case ESRCH:
      return InspectedProcess(pid, Ownership::GONE, nullptr);
    default:
      KJ_FAIL_SYSCALL("pidfd_send_signal(0)", error, pid);
  }
  return InspectedProcess(pid, ownership, kj::mv(pidfd));
}

std::vector<pid_t> findTokenCarriers(const std::string& runToken) {
  std::vector<pid_t> carriers;
  for (pid_t pid : listPids()) {
    if (checkRunToken(pid, runToken) == Ownership::OWNED) carriers.push_back(pid);
  }
  return carriers;
}

}  // namespace rea::helper
