#pragma once
// TmuxDriver: tmux 3.3a as an independent terminal emulator for the differential renderer test.
// It starts a private tmux server (its own socket in a temporary directory, `-f /dev/null`) with
// one control-mode client (`tmux -C`), whose commands and answers go through two pipes: no
// terminal, no fork per command. Each transcript gets a fresh window whose pane runs
// `cat FIFO` on a raw tty (no ONLCR: the bytes reach tmux's parser as the renderer gets them).
//
// Waiting is deterministic, never a sleep: after the bytes of a step, feed() writes a marker
// (OSC 2, the pane title `rea-mk-N`) and asks for `#{pane_title}` until it is the marker. tmux
// parses pane output in order, so every byte before the marker has been parsed. A resize
// (`resize-window`) is followed by such a marker too.
//
// A run killed before its destructor leaves its server behind; the next driver ends it
// (tmux-leftovers.h).
//
// Errors: std::runtime_error when tmux cannot be started or stops answering.

#include "tests/unit/render-diff/tmux-capture.h"
#include "tests/unit/render-diff/tmux-leftovers.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace rea::test {

struct TmuxScreen {
  std::vector<std::string> lines;  // capture-pane -p: trailing spaces trimmed
  int cursorX = 0;
  int cursorY = 0;
  bool alternate = false;
};

class TmuxDriver {
 public:
  static bool available() { return system("tmux -V >/dev/null 2>&1") == 0; }

  explicit TmuxDriver(int historyLimit) {
    // (`set -g window-size manual` crashes tmux 3.3a's server while a control client is
    // attached; resize-window makes each window's size manual by itself.)
    signal(SIGPIPE, SIG_IGN);  // a dead tmux is an exception, not the end of the test program
    // The server daemonizes; as a subreaper this process gets it (and its panes) back as
    // children when their parents exit, and reaps them at the end instead of leaving zombies.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    trace = getenv("REA_TMUX_TRACE") != nullptr;
    sweepDeadRuns();
    std::string dirTemplate = runDirectoryTemplate();
    if (mkdtemp(dirTemplate.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir = dirTemplate;
    startClient();
    sync();
    for (const char* command :
         {"refresh-client -f no-output", "set -g status off", "set -g remain-on-exit on"}) {
      run(command);
    }
    run("set -g history-limit " + std::to_string(historyLimit));
  }

  ~TmuxDriver() {
    if (clientPid > 0) {
      // The server exits with its last session; the client then sees EOF and exits.
      std::string kill = "kill-server\n";
      (void)!::write(toTmux, kill.data(), kill.size());
      close(toTmux);
      int status;
      waitpid(clientPid, &status, 0);
      // The server and its panes exit with kill-server: reap them (subreaper, above).
      while (waitpid(-1, &status, 0) > 0) {
      }
    }
    if (fromTmux >= 0) close(fromTmux);
    if (fifoFd >= 0) close(fifoFd);
    unlink(fifo.c_str());
    unlink((dir + "/sock").c_str());
    rmdir(dir.c_str());
  }

  TmuxDriver(const TmuxDriver&) = delete;
  TmuxDriver& operator=(const TmuxDriver&) = delete;

  void start(int columns, int rows) {
    // A fresh window (fresh terminal state) of this size; the previous one goes.
    // Each window reads its own FIFO: the previous window's cat may still be reading its FIFO
    // until the SIGHUP of kill-window reaches it.
    if (fifoFd >= 0) {
      close(fifoFd);
      unlink(fifo.c_str());
    }
    fifo = dir + "/in" + std::to_string(++windows);
    if (mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");
    // O_RDWR: the open never blocks, and cat never sees EOF.
    fifoFd = open(fifo.c_str(), O_RDWR | O_CLOEXEC);
    if (fifoFd < 0) throw std::runtime_error("cannot open the fifo");
    std::string size = std::to_string(columns) + "x" + std::to_string(rows);
    run("set -g default-size " + size);
    std::vector<std::string> pane =
        run("new-window -d -t rea-diff: -P -F '#{window_id}' \"stty raw -echo -opost; exec cat " +
            fifo + "\"");
    if (pane.size() != 1) throw std::runtime_error("new-window gave no window id");
    if (!window.empty()) run("kill-window -t " + window);
    window = pane[0];
    resize(columns, rows);
  }

  void feed(std::string_view bytes) {
    std::string marker = "rea-mk-" + std::to_string(++markers);
    std::string data(bytes);
    data += "\x1b]2;" + marker + "\x07";
    writeAll(fifoFd, data);
    // Ask until the title is the marker. Each answer is a round trip through the server's event
    // loop, which reads and parses the pane's output in between; no sleep, no guessing. (tmux's
    // wait-for cannot be used: a second signal to a channel nobody waits on cancels the first,
    // so a title the transcript sets itself could make the marker's signal vanish.)
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (true) {
      std::vector<std::string> title = run("display -p -t " + window + " '#{pane_title}'");
      if (title.size() == 1 && title[0] == marker) return;
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("tmux did not parse the output within 60 s");
      }
    }
  }

  void resize(int columns, int rows) {
    run("resize-window -t " + window + " -x " + std::to_string(columns) + " -y " +
        std::to_string(rows));
    feed("");  // a round trip through the server loop, where tmux 3.3 finishes pane resizes
  }

  TmuxScreen capture() {
    TmuxScreen screen;
    // -e: line drawing is marked, so it can be told from letters (tmux-capture.h).
    bool graphics = false;
    for (const std::string& line : run("capture-pane -p -e -t " + window))
      screen.lines.push_back(capturedText(line, graphics));
    std::vector<std::string> state =
        run("display -p -t " + window + " '#{cursor_x} #{cursor_y} #{alternate_on}'");
    int alternate = 0;
    if (state.size() != 1 ||
        sscanf(state[0].c_str(), "%d %d %d", &screen.cursorX, &screen.cursorY, &alternate) != 3) {
      throw std::runtime_error("unexpected display answer");
    }
    screen.alternate = alternate != 0;
    return screen;
  }

  std::vector<std::string> run(const std::string& command) {
    // One command; its output lines (between %begin and %end). Notifications are skipped, and so
    // are whole blocks of commands that are not ours: a command read from this control client
    // has flags 1 in its guard lines, the new-session of tmux's own command line has 0, and a
    // busy server can print that block after its answers to our first commands (seen with six
    // busy loops on two cores: every later command then read the answer of the one before).
    if (trace) fprintf(stderr, "tmux> %s\n", command.c_str());
    writeAll(toTmux, command + "\n");
    std::vector<std::string> output;
    enum { BETWEEN_BLOCKS, OUR_BLOCK, OTHER_BLOCK } state = BETWEEN_BLOCKS;
    while (true) {
      std::string line = readLine();
      bool ends = line.rfind("%end ", 0) == 0 || line.rfind("%error ", 0) == 0;
      switch (state) {
        case BETWEEN_BLOCKS:
          if (line.rfind("%begin ", 0) == 0) state = fromThisClient(line) ? OUR_BLOCK : OTHER_BLOCK;
          continue;
        case OTHER_BLOCK:
          if (ends) state = BETWEEN_BLOCKS;
          continue;
        case OUR_BLOCK:
          break;
      }
      if (line.rfind("%end ", 0) == 0) return output;
      if (line.rfind("%error ", 0) == 0) {
        throw std::runtime_error("tmux: " + command + ": " +
                                 (output.empty() ? std::string() : output[0]));
      }
      output.push_back(line);
    }
  }

 private:
  std::string dir;
  std::string fifo;
  std::string window;
  int fifoFd = -1;
  int toTmux = -1;
  int fromTmux = -1;
  pid_t clientPid = -1;
  unsigned markers = 0;
  unsigned windows = 0;
  bool trace = false;  // REA_TMUX_TRACE set: every command on stderr
  std::string buffered;

  void startClient() {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
      throw std::runtime_error("pipe failed");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    std::string socket = dir + "/sock";
    // The session's first window is a placeholder; every transcript makes its own.
    std::vector<std::string> args = {"tmux", "-S",          socket, "-f",       "/dev/null",
                                     "-C",   "new-session", "-s",   "rea-diff", "cat"};
    std::vector<char*> argv;
    for (std::string& arg : args)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    int rc = posix_spawnp(&clientPid, "tmux", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    toTmux = in[1];
    fromTmux = out[0];
    if (rc != 0) {
      clientPid = -1;
      throw std::runtime_error("cannot start tmux");
    }
  }

  void sync() {
    // Until the session of tmux's command line exists: a busy server can answer this client's
    // commands before that new-session has run (run() skips its block wherever it comes).
    // Each try is a round trip through the server's loop, as in feed().
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (true) {
      try {
        run("has-session -t rea-diff");
        return;
      } catch (const std::runtime_error&) {
        if (std::chrono::steady_clock::now() > deadline) {
          throw std::runtime_error("tmux made no session within 60 s");
        }
      }
    }
  }

  static bool fromThisClient(const std::string& guard) {
    // "%begin TIME NUMBER FLAGS": FLAGS is 1 for a command this control client sent.
    size_t last = guard.find_last_of(' ');
    return last != std::string::npos && guard.compare(last + 1, std::string::npos, "1") == 0;
  }

  std::string readLine() {
    while (true) {
      size_t newline = buffered.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffered.substr(0, newline);
        if (trace) fprintf(stderr, "tmux< %s\n", line.c_str());
        buffered.erase(0, newline + 1);
        return line;
      }
      char chunk[65536];
      ssize_t n = ::read(fromTmux, chunk, sizeof chunk);
      if (n <= 0) throw std::runtime_error("tmux stopped answering");
      buffered.append(chunk, n);
    }
  }

  static void writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::write(fd, data.data(), data.size());
      if (n <= 0) throw std::runtime_error("write to tmux failed");
      data.remove_prefix(n);
    }
  }
};

}  // namespace rea::test
