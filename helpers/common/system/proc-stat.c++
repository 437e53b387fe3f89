#include "helpers/common/system/proc-stat.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <kj/debug.h>
#include <kj/io.h>

namespace rea::helper {
namespace {

// Expected outcomes of touching another process's /proc entry; anything else is a real fault.
kj::Maybe<ProcRead::Status> classify(int error) {
  switch (error) {
    case ENOENT:
    case ESRCH:
      return ProcRead::GONE;
    case EACCES:
    case EPERM:
      return ProcRead::DENIED;
    default:
      return nullptr;
  }
}

// Parses a decimal number that must fill the whole token.
bool parseNumber(const std::string& token, long long& out) {
  if (token.empty()) return false;
  char* end;
  errno = 0;
  out = strtoll(token.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

}  // namespace

ProcRead readProcFile(const std::string& path) {
  int fd;
  KJ_SYSCALL_HANDLE_ERRORS(fd = open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    default:
      KJ_IF_MAYBE (status, classify(error)) {
        return ProcRead{*status, {}};
      }
      KJ_FAIL_SYSCALL("open", error, path);
  }
  kj::AutoCloseFd owned(fd);
  ProcRead result{ProcRead::OK, {}};
  char buffer[8192];
  for (;;) {
    ssize_t n;
    KJ_SYSCALL_HANDLE_ERRORS(n = read(fd, buffer, sizeof(buffer))) {
      default:
        KJ_IF_MAYBE (status, classify(error)) {
          return ProcRead{*status, {}};
        }
        KJ_FAIL_SYSCALL("read", error, path);
    }
    if (n == 0) break;
    result.text.append(buffer, static_cast<size_t>(n));
  }
  return result;
}

kj::Maybe<ProcStat> parseStat(pid_t pid, const std::string& text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (pid <= 0 || open == std::string::npos || close == std::string::npos || close < open) {
    return nullptr;
  }
  // Fields 3.. follow the last ')': state ppid pgrp session tty tpgid flags minflt cminflt
  // majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime.
  std::vector<std::string> fields;
  size_t at = close + 1;
  while (at < text.size() && fields.size() < 20) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n'))
      ++at;
    size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\n')
      ++end;
    if (end > at) fields.push_back(text.substr(at, end - at));
    at = end;
  }
  if (fields.size() < 20 || fields[0].size() != 1) return nullptr;
  long long ppid, pgid, sid, startTime;
  if (!parseNumber(fields[1], ppid) || !parseNumber(fields[2], pgid) ||
      !parseNumber(fields[3], sid) || !parseNumber(fields[19], startTime)) {
    return nullptr;
  }
  // A group or session whose leader lives outside our PID namespace reads as 0 (containers
  // started by `docker exec`, CI runners), so 0 is a valid value here, not a parse failure.
  if (ppid < 0 || pgid < 0 || sid < 0 || startTime < 0) return nullptr;
  return ProcStat{pid,
                  fields[0][0],
                  static_cast<pid_t>(ppid),
                  static_cast<pid_t>(pgid),
                  static_cast<pid_t>(sid),
                  static_cast<uint64_t>(startTime),
                  text.substr(open + 1, close - open - 1)};
}

kj::Maybe<ProcStat> readStat(pid_t pid) {
  auto read = readProcFile("/proc/" + std::to_string(pid) + "/stat");
  if (read.status != ProcRead::OK) return nullptr;
  return parseStat(pid, read.text);
}

std::string commandFromCmdline(const std::string& cmdline) {
  std::string command = cmdline;
  std::replace(command.begin(), command.end(), '\0', ' ');
  // JavaScript's trim(): the baseline trims every whitespace character, not only spaces.
  auto isSpace = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  size_t begin = 0;
  while (begin < command.size() && isSpace(command[begin]))
    ++begin;
  size_t end = command.size();
  while (end > begin && isSpace(command[end - 1]))
    --end;
  return command.substr(begin, end - begin);
}

kj::Maybe<std::string> readCommand(pid_t pid) {
  auto read = readProcFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (read.status != ProcRead::OK) return nullptr;
  return commandFromCmdline(read.text);
}

kj::Maybe<std::vector<pid_t>> readChildren(pid_t pid) {
  std::string taskDir = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(taskDir.c_str());
  if (dir == nullptr) {
    int error = errno;
    if (classify(error) != nullptr) return nullptr;
    KJ_FAIL_SYSCALL("opendir", error, taskDir);
  }
  KJ_DEFER(closedir(dir));
  std::vector<pid_t> children;
  bool anyRead = false;
  while (struct dirent* entry = readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    auto read = readProcFile(taskDir + "/" + entry->d_name + "/children");
    if (read.status != ProcRead::OK) continue;
    anyRead = true;
    const char* p = read.text.c_str();
    char* end;
    for (;;) {
      long child = strtol(p, &end, 10);
      if (end == p) break;
      if (child > 0) children.push_back(static_cast<pid_t>(child));
      p = end;
    }
  }
  if (!anyRead) return nullptr;
  std::sort(children.begin(), children.end());
  children.erase(std::unique(children.begin(), children.end()), children.end());
  return children;
}

ProcReader& liveProcReader() {
  static ProcReader reader;
  return reader;
}

std::vector<pid_t> listPids() {
  DIR* dir = opendir("/proc");
  if (dir == nullptr) KJ_FAIL_SYSCALL("opendir", errno, "/proc");
  KJ_DEFER(closedir(dir));
  std::vector<pid_t> pids;
  while (struct dirent* entry = readdir(dir)) {
    char* end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    pids.push_back(static_cast<pid_t>(pid));
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace rea::helper
