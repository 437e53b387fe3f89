// Renderer throughput (MB/s of terminal output) on three generated inputs, for our Renderer
// (fed 4 KiB chunks with one snapshot per chunk, as the pty helper does, and fed only) and for
// libvterm 0.1.4's own screen layer (fed only, no callbacks: its cheapest configuration).
// 80x24, scrollback 1000; median of 5 runs. Rates are per second of this process's CPU time, so
// other load on a shared machine does not skew them. Usage: renderer-bench [MB per input]

#include "helpers/pty/screen-renderer.h"

#include <vterm.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using rea::helper::RenderedScreen;
using rea::helper::Renderer;

constexpr int COLUMNS = 80;
constexpr int ROWS = 24;
constexpr int SCROLLBACK = 1000;
constexpr size_t CHUNK = 4096;
constexpr int RUNS = 5;

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

double megabytesPerSecond(const std::string& input, const std::function<void()>& run) {
  std::vector<double> rates;
  for (int i = 0; i < RUNS; i++) {
    double start = cpuSeconds();
    run();
    rates.push_back(input.size() / 1e6 / (cpuSeconds() - start));
  }
  std::sort(rates.begin(), rates.end());
  return rates[RUNS / 2];
}

uint64_t sink = 0;  // keeps results observable so nothing is optimised away

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
  size_t megabytes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 8;
  size_t size = megabytes * 1000 * 1000;
  struct Input {
    const char* name;
    std::string bytes;
  };
  Input inputs[] = {{"seq (short lines)", seqOutput(size)},
                    {"ls -lR --color", lsOutput(size)},
                    {"full-screen repaint", repaintOutput(size)}};

  printf("renderer-bench: %dx%d, scrollback %d, %zu-byte chunks, %zu MB per input, median of %d\n",
         COLUMNS, ROWS, SCROLLBACK, CHUNK, megabytes, RUNS);
  printf("machine: %s\n", cpuModel().c_str());
  printf("%-22s %22s %16s %16s %9s\n", "input (MB/s of CPU)", "Renderer+snapshots", "Renderer feed",
         "libvterm screen", "speedup");
  for (const Input& input : inputs) {
    double withSnapshots =
        megabytesPerSecond(input.bytes, [&]() { rendererWithSnapshots(input.bytes); });
    double feedOnly = megabytesPerSecond(input.bytes, [&]() { rendererFeedOnly(input.bytes); });
    double libvterm = megabytesPerSecond(input.bytes, [&]() { libvtermScreen(input.bytes); });
    printf("%-22s %22.1f %16.1f %16.1f %8.1fx\n", input.name, withSnapshots, feedOnly, libvterm,
           withSnapshots / libvterm);
  }
  printf(
      "(speedup = Renderer with a snapshot per chunk over libvterm's screen layer; checksum "
      "%llu)\n",
      static_cast<unsigned long long>(sink));
  return 0;
}
