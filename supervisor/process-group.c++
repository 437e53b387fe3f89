#include "supervisor/process-group.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <optional>

#include <kj/debug.h>

namespace rea::supervisor {
namespace {

// Reads a whole /proc file; nullopt when the process is gone or the file is unreadable.
std::optional<std::string> readProcFile(const std::string& path, int& error) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = errno;
    return std::nullopt;
  }
  std::string out;
  char buffer[8192];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno;
      close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  error = 0;
  return out;
}

struct StatLine {
  char state;
  pid_t pgid;
};

// Fields after the last ')' of /proc/PID/stat: state ppid pgrp ...
std::optional<StatLine> readStat(pid_t pid) {
  int error;
  auto text = readProcFile("/proc/" + std::to_string(pid) + "/stat", error);
  if (!text) return std::nullopt;
  size_t close = text->rfind(')');
  if (close == std::string::npos || close + 2 >= text->size()) return std::nullopt;
  const char* p = text->c_str() + close + 2;
  StatLine line;
  line.state = *p;
  long ppid, pgrp;
  if (sscanf(p + 1, " %ld %ld", &ppid, &pgrp) != 2) return std::nullopt;
  line.pgid = static_cast<pid_t>(pgrp);
  return line;
}

std::vector<pid_t> listLiveGroupMembers(pid_t pgid) {
  DIR* dir = opendir("/proc");
  if (dir == nullptr) KJ_FAIL_SYSCALL("opendir", errno, "/proc");
  KJ_DEFER(closedir(dir));
  std::vector<pid_t> members;
  while (struct dirent* entry = readdir(dir)) {
    char* end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    auto stat = readStat(static_cast<pid_t>(pid));
    if (!stat || stat->pgid != pgid) continue;
    if (stat->state == 'Z' || stat->state == 'X') continue;  // zombies: ignored (1.6.0)
    members.push_back(static_cast<pid_t>(pid));
  }
  return members;
}

void sleepMs(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, nullptr);
}

}  // namespace

TokenCheck checkRunToken(pid_t pid, const std::string& runToken) {
  int error;
  auto environ = readProcFile("/proc/" + std::to_string(pid) + "/environ", error);
  if (!environ)
    return error == ENOENT || error == ESRCH ? TokenCheck::GONE : TokenCheck::UNREADABLE;
  if (environ->empty()) {
    // A process that exited (or is exiting) shows an empty environ; tell it apart from a live
    // process that really has no environment.
    auto stat = readStat(pid);
    if (!stat || stat->state == 'Z' || stat->state == 'X') return TokenCheck::GONE;
    return TokenCheck::FOREIGN;
  }
  const std::string key = "REA_PROCESS_RUN_ID=";
  size_t start = 0;
  while (start < environ->size()) {
    size_t end = environ->find('\0', start);
    if (end == std::string::npos) end = environ->size();
    if (environ->compare(start, key.size(), key) == 0) {
      return environ->compare(start + key.size(), end - start - key.size(), runToken) == 0 &&
                     end - start - key.size() == runToken.size()
                 ? TokenCheck::OWNED
                 : TokenCheck::FOREIGN;
    }
    start = end + 1;
  }
  return TokenCheck::FOREIGN;
}

GroupObservation observeGroup(pid_t pgid, const std::string& runToken) {
  GroupObservation observation{GroupObservation::State::EMPTY, {}, {}};
  for (pid_t pid : listLiveGroupMembers(pgid)) {
    switch (checkRunToken(pid, runToken)) {
      case TokenCheck::GONE:
        break;
      case TokenCheck::OWNED:
        observation.members.push_back({pid, true});
        break;
      case TokenCheck::FOREIGN:
        observation.members.push_back({pid, false});
        observation.problem = "group contains an unowned or PID-reused process";
        break;
      case TokenCheck::UNREADABLE:
        observation.members.push_back({pid, false});
        observation.problem = "ownership could not be revalidated";
        break;
    }
  }
  if (!observation.problem.empty()) {
    observation.state = GroupObservation::State::UNVERIFIABLE;
  } else if (!observation.members.empty()) {
    observation.state = GroupObservation::State::ALIVE;
  }
  return observation;
}

GroupCleanup cleanupOwnedGroup(pid_t pgid, const std::string& runToken) {
  GroupCleanup result{true, {}, {}, {}};
  // A member can fork while we signal its siblings: repeat until a pass finds nothing owned.
  for (int pass = 0; pass < 50; ++pass) {
    auto observation = observeGroup(pgid, runToken);
    bool signalledAny = false;
    result.unowned.clear();
    for (const auto& member : observation.members) {
      if (!member.owned) {
        result.unowned.push_back(member.pid);
        continue;
      }
      if (kill(member.pid, SIGKILL) == 0) {
        signalledAny = true;
        result.signalled.push_back(member.pid);
      } else if (errno != ESRCH) {
        result.complete = false;
        result.problem = "owned process group signal failed";
      }
    }
    if (!signalledAny) break;
    sleepMs(pass < 5 ? 2 : 20);
  }
  if (!result.unowned.empty()) {
    result.complete = false;
    if (result.problem.empty()) result.problem = "group contains an unowned or PID-reused process";
  }
  return result;
}

}  // namespace rea::supervisor
