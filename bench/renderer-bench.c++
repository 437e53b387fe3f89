// Renderer throughput (MB/s of terminal output) on three generated inputs, for our Renderer
// (fed 4 KiB chunks with one snapshot per chunk, as the pty helper does, and fed only) and for
// libvterm 0.1.4's own screen layer (fed only, no callbacks: its cheapest configuration), beside
// the raw PTY read rate of the same bytes (a child writes them into the slave of a raw-mode PTY,
// this process reads the master in 64 KiB reads until EOF, as the drain thread does).
// 80x24, scrollback 1000; median of RUNS runs (default 5). The emulator rates are per second of
// this process's CPU time, so other load on a shared machine does not skew them; the PTY rate is
// per second of wall time (two processes and the kernel's PTY path: what a drain can get at
// most). The renderer keeps up with the PTY when its CPU rate is above the PTY's wall rate.
// Usage: renderer-bench [RUNS] [--mb MB per input, default 8] [--only seq|ls|repaint]
//        [--renderer-only]
// --only measures one input; --renderer-only skips the libvterm and PTY columns (printed as 0), so
// that a profiler sees only the Renderer, e.g.
//   valgrind --tool=callgrind build/bin/renderer-bench 1 --mb 2 --only ls --renderer-only

#include "helpers/pty/screen-renderer.h"

#include <errno.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <vterm.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bench/support/arguments.h"
#include "helpers/common/clock.h"

namespace {

using rea::helper::RenderedScreen;
using rea::helper::Renderer;

constexpr int COLUMNS = 80;
constexpr int ROWS = 24;
constexpr int SCROLLBACK = 1000;
constexpr size_t CHUNK = 4096;
int runs = 5;
uint64_t sink = 0;  // keeps results observable so nothing is optimised away

std::string seqOutput(size_t size) {
  std::string out;
  for (int i = 1; out.size() < size; i++)
    out += std::to_string(i) + "\r\n";
  return out;
}

std::string lsOutput(size_t size) {
  // `ls -lR --color` style: ~60-70 bytes per line, a coloured name on most lines.
  static const char* const COLORS[] = {"01;34", "01;32", "00", "01;36"};
  std::string out;
  for (int i = 0; out.size() < size; i++) {
    if (i % 40 == 0) out += "\r\n./src/module" + std::to_string(i / 40) + ":\r\ntotal 128\r\n";
    char line[160];
    snprintf(line, sizeof(line),
             "-rw-r--r-- 1 user group %7d Jan %2d 12:%02d \x1b[%sm%s_%d.c++\x1b[0m\r\n",
             (i * 7919) % 1000000, 1 + i % 28, i % 60, COLORS[i % 4], "file", i);
    out += line;
  }
  return out;
}

std::string repaintOutput(size_t size) {
  // A full-screen TUI repaint loop: every row positioned, coloured, written and cleared to the
  // end, no scrolling.
  std::string out;
  for (int frame = 0; out.size() < size; frame++) {
    for (int row = 1; row <= ROWS; row++) {
      char line[200];
      snprintf(line, sizeof(line),
               "\x1b[%d;1H\x1b[%d;%dm %3d | frame %6d | value %8d | status ok \x1b[0m\x1b[K", row,
               31 + (row + frame) % 6, 40 + row % 8, row, frame, frame * 31 + row);
      out += line;
    }
  }
  return out;
}

double cpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec / 1e9;
}

double wallSeconds() {
  return double(rea::helper::monotonicNowNs()) / 1e9;
}

double megabytesPerSecond(const std::string& input, const std::function<void()>& run,
                          double (*clock)() = cpuSeconds) {
  std::vector<double> rates;
  for (int i = 0; i < runs; i++) {
    double start = clock();
    run();
    rates.push_back(input.size() / 1e6 / (clock() - start));
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

[[noreturn]] void die(const char* what) {
  fprintf(stderr, "renderer-bench: %s: %s\n", what, strerror(errno));
  exit(1);
}

void ptyRead(const std::string& input) {
  // Raw mode: the kernel passes the bytes through unchanged (no ONLCR), so exactly
  // input.size() bytes arrive and EIO follows once the writer has exited.
  int masterFd, slaveFd;
  if (openpty(&masterFd, &slaveFd, nullptr, nullptr, nullptr) != 0) die("openpty");
  termios raw;
  if (tcgetattr(slaveFd, &raw) != 0) die("tcgetattr");
  cfmakeraw(&raw);
  if (tcsetattr(slaveFd, TCSANOW, &raw) != 0) die("tcsetattr");
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    close(masterFd);
    for (size_t done = 0; done < input.size();) {
      ssize_t n = write(slaveFd, input.data() + done, input.size() - done);
      if (n < 0 && errno != EINTR) _exit(1);
      if (n > 0) done += size_t(n);
    }
    _exit(0);
  }
  close(slaveFd);
  std::vector<char> buffer(64 * 1024);
  size_t total = 0;
  for (;;) {
    ssize_t n = read(masterFd, buffer.data(), buffer.size());
    if (n > 0) {
      total += size_t(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the writer exited and closed the slave
    }
  }
  close(masterFd);
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    die("pty writer failed");
  }
  if (total != input.size()) {
    fprintf(stderr, "renderer-bench: read %zu of %zu bytes from the PTY\n", total, input.size());
    exit(1);
  }
  sink += total;
}

void rendererWithSnapshots(const std::string& input) {
  Renderer renderer(COLUMNS, ROWS, SCROLLBACK);
  for (size_t offset = 0; offset < input.size(); offset += CHUNK) {
    renderer.feed(std::string_view(input).substr(offset, CHUNK));
    sink += renderer.snapshot().cost();
  }
}

void rendererFeedOnly(const std::string& input) {
  Renderer renderer(COLUMNS, ROWS, SCROLLBACK);
  for (size_t offset = 0; offset < input.size(); offset += CHUNK) {
    renderer.feed(std::string_view(input).substr(offset, CHUNK));
  }
  sink += renderer.snapshot().cost();
}

void libvtermScreen(const std::string& input) {
  VTerm* vt = vterm_new(ROWS, COLUMNS);
  vterm_set_utf8(vt, 1);
  VTermScreen* screen = vterm_obtain_screen(vt);
  vterm_screen_enable_altscreen(screen, 1);
  vterm_screen_reset(screen, 1);
  for (size_t offset = 0; offset < input.size(); offset += CHUNK) {
    vterm_input_write(vt, input.data() + offset, std::min(CHUNK, input.size() - offset));
  }
  VTermScreenCell cell;
  vterm_screen_get_cell(screen, VTermPos{0, 0}, &cell);
  sink += cell.chars[0];
  vterm_free(vt);
}

std::string cpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "renderer-bench [runs] [--mb MB per input] [--only seq|ls|repaint] [--renderer-only]";
  auto arguments = rea::bench::parseArguments(argc, argv, usage);
  runs = arguments.runs;
  size_t megabytes = 8;
  std::string only;
  bool rendererOnly = false;
  for (size_t i = 0; i < arguments.flags.size(); ++i) {
    const std::string& flag = arguments.flags[i];
    bool hasValue = i + 1 < arguments.flags.size();
    if (flag == "--mb" && hasValue) {
      megabytes = std::strtoul(arguments.flags[++i].c_str(), nullptr, 10);
    } else if (flag == "--only" && hasValue) {
      only = arguments.flags[++i];
    } else if (flag == "--renderer-only") {
      rendererOnly = true;
    } else {
      megabytes = 0;
    }
    if (megabytes == 0 || (!only.empty() && only != "seq" && only != "ls" && only != "repaint")) {
      fprintf(stderr, "usage: %s\n", usage);
      return 2;
    }
  }
  size_t size = megabytes * 1000 * 1000;
  struct Input {
    const char* key;
    const char* name;
    std::string (*generate)(size_t);
  };
  const Input inputs[] = {{"seq", "seq (short lines)", seqOutput},
                          {"ls", "ls -lR --color", lsOutput},
                          {"repaint", "full-screen repaint", repaintOutput}};

  printf("renderer-bench: %dx%d, scrollback %d, %zu-byte chunks, %zu MB per input, median of %d\n",
         COLUMNS, ROWS, SCROLLBACK, CHUNK, megabytes, runs);
  printf("machine: %s\n\n", cpuModel().c_str());
  printf(
      "| input | Renderer + snapshot per chunk | Renderer feed only | libvterm screen layer | "
      "raw PTY read (wall) | vs libvterm | vs PTY |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (const Input& input : inputs) {
    if (!only.empty() && only != input.key) continue;
    const std::string bytes = input.generate(size);
    double withSnapshots = megabytesPerSecond(bytes, [&]() { rendererWithSnapshots(bytes); });
    double feedOnly = megabytesPerSecond(bytes, [&]() { rendererFeedOnly(bytes); });
    double libvterm = 0, pty = 0;
    if (!rendererOnly) {
      libvterm = megabytesPerSecond(bytes, [&]() { libvtermScreen(bytes); });
      pty = megabytesPerSecond(
          bytes, [&]() { ptyRead(bytes); }, wallSeconds);
    }
    printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1fx | %.2fx |\n", input.name, withSnapshots,
           feedOnly, libvterm, pty, libvterm > 0 ? withSnapshots / libvterm : 0.0,
           pty > 0 ? withSnapshots / pty : 0.0);
  }
  printf(
      "\nMB/s; emulators per CPU-second of this process, the PTY per wall second. vs libvterm = "
      "Renderer with a snapshot per chunk over libvterm's screen layer; vs PTY = the same over "
      "the raw PTY read rate (above 1: rendering keeps up with the PTY on a free core). "
      "Checksum %llu.\n",
      static_cast<unsigned long long>(sink));
  return 0;
}
