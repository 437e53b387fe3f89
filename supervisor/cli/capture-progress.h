#pragma once
// The progress line `rea capture-process` draws on stderr while a capture runs, when stderr is a
// terminal (issue "rea doctor ... outputs people look at"): elapsed time, bytes of target
// output captured so far, and the phase, e.g.
//   rea: 2.3 s  running  1532 bytes captured
// redrawn in place ("\r" + erase line) at most four times a second, and erased by `finish()`
// so that whatever rea writes to stderr afterwards starts on a clean line. Nothing at all is
// written when stderr is not a terminal (`enabledFor`): pipes and files see only the usual.
//
// It is a PtyObserver (bytes come from the pty link's output notifications, see
// PtyObserverFanOut) and is told the phase by the capture run. Owns: its redraw loop (a timer
// promise, dropped by finish() or the destructor).
//
// Errors: none; a failed write to stderr is ignored (the line is cosmetic).

#include <cstdint>
#include <functional>

#include <kj/async.h>
#include <kj/timer.h>

#include "supervisor/links/pty-link.h"

namespace rea::supervisor {

enum class CapturePhase { STARTING, RUNNING, SETTLING, SNAPSHOT, CLEANUP, ASSEMBLING };

const char* capturePhaseName(CapturePhase phase);
// "starting", "running", "settling", "snapshot", "cleanup", "assembling".

class CaptureProgress final : public PtyObserver {
 public:
  CaptureProgress(kj::Timer& timer, int fd);
  // Starts the clock now and redraws on `fd` every 250 ms of `timer` (the first time 250 ms
  // from now), so at most four times a second while the event loop runs.
  using Report = std::function<void(CapturePhase phase, uint64_t bytes)>;
  CaptureProgress(kj::Timer& timer, Report report);
  // The same rhythm, but each "redraw" calls `report` instead of writing (for progress shown
  // elsewhere than on a terminal: `rea mcp`); redrawNow() always reports.
  ~CaptureProgress() noexcept(false);
  KJ_DISALLOW_COPY(CaptureProgress);

  static bool enabledFor(int fd);
  // isatty(fd): draw only for a person watching a terminal.

  void phase(CapturePhase next) { current = next; }
  // Shown by the next redraw.
  void redrawNow();
  // Redraws at once if a line is already on the screen: for a phase entered after the event
  // loop stopped running (assembling), which the timer can no longer show.
  void output(const PtyChunk& chunk) override { bytes += chunk.data.size(); }
  void outputLimit(uint64_t limit) { outputBytesLimit = limit; }
  // limits.output_bytes: once the bytes reach it, the line says so (the output is truncated
  // from there on, and a person should not wait for more).
  void outputLimitReached() { limitReached = true; }
  // Output was dropped at the limit (known once the PTY stream has ended): said from now on.

  void finish();
  // Stops redrawing and erases the line if one was drawn. Idempotent.

 private:
  kj::Timer& timer;
  int fd;
  Report report;         // set: report instead of drawing
  uint64_t startedAtMs;  // CLOCK_MONOTONIC: fresh also outside the event loop
  CapturePhase current = CapturePhase::STARTING;
  uint64_t bytes = 0;
  uint64_t outputBytesLimit = 0;  // 0: none known
  bool limitReached = false;
  bool drawn = false;
  bool finished = false;
  kj::Promise<void> loop = nullptr;

  kj::Promise<void> redrawLoop();
  void draw();
  void writeText(const char* text, size_t size);
};

}  // namespace rea::supervisor
