#pragma once
// What a killed run of the differential test leaves behind, and its removal. TmuxDriver's tmux
// server daemonizes: when ctest's timeout kills the test program (SIGKILL: no destructor runs),
// the server, its panes and its directory /tmp/rea-render-diff-PID-XXXXXX stay, and
// `destroy-unattached` does not end a server nobody talks to any more. So each driver names its
// directory after its own pid (runDirectoryTemplate), and at its start sweepDeadRuns() kills the
// server of every such directory whose pid is gone and removes the directory.
//
// Directories without a pid in their name (drivers before this one, perhaps still running in
// another tree) are left alone: nothing tells whether their owner lives. A pid reused by an
// unrelated live process keeps its directory until that process ends too: leaving a leftover is
// harmless, ending a live run's server is not.

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace rea::test {

inline constexpr const char* RUN_DIRECTORY_PREFIX = "rea-render-diff-";

inline std::string runDirectoryTemplate() {
  return std::string("/tmp/") + RUN_DIRECTORY_PREFIX + std::to_string(getpid()) + "-XXXXXX";
}

// Runs `tmux -S socket args...` to its end; its stdout ("" when it could not run).
inline std::string tmuxThrough(const std::string& socket, std::vector<std::string> args) {
  args.insert(args.begin(), {"tmux", "-S", socket});
  std::vector<char*> argv;
  for (std::string& arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawnp(&pid, "tmux", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string text;
  if (rc == 0) {
    char chunk[4096];
    ssize_t n;
    while ((n = ::read(out[0], chunk, sizeof chunk)) > 0)
      text.append(chunk, n);
    int status;
    waitpid(pid, &status, 0);
  }
  close(out[0]);
  return text;
}

// Whether a process runs (a zombie has ended: its parent, perhaps us as a subreaper, reaps it).
inline bool processRuns(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

inline void sweepDeadRuns() {
  DIR* tmp = opendir("/tmp");
  if (tmp == nullptr) return;
  std::vector<std::string> dead;
  while (dirent* entry = readdir(tmp)) {
    std::string name = entry->d_name;
    std::string prefix = RUN_DIRECTORY_PREFIX;
    if (name.rfind(prefix, 0) != 0) continue;
    std::string rest = name.substr(prefix.size());
    size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.find_first_not_of("0123456789") != dash) {
      continue;  // no owner pid in the name
    }
    pid_t owner = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
    if (owner == getpid() || processRuns(owner)) continue;
    dead.push_back("/tmp/" + name);
  }
  closedir(tmp);
  for (const std::string& dir : dead) {
    // Its pid, and SIGKILL: kill-server does not end it (tmux 3.3a: the server stays, waiting for
    // the control client whose reader was the dead test; seen for over ten minutes).
    // The server's death closes its panes' terminals (the panes get SIGHUP) and its clients'
    // connections (they exit).
    pid_t server =
        static_cast<pid_t>(atol(tmuxThrough(dir + "/sock", {"display", "-p", "#{pid}"}).c_str()));
    if (server > 0 && kill(server, SIGKILL) == 0) {
      // Until it is gone (bounded), so that the caller finds no server left once this returns.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (processRuns(server) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      waitpid(server, nullptr, WNOHANG);  // ours to reap when we are its subreaper
    }
    if (DIR* d = opendir(dir.c_str())) {
      // Only the driver's files: the socket, the FIFOs.
      while (dirent* entry = readdir(d)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..") unlink((dir + "/" + name).c_str());
      }
      closedir(d);
    }
    rmdir(dir.c_str());
  }
}

}  // namespace rea::test
