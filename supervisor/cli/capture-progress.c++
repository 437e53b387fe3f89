#include "supervisor/cli/capture-progress.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include <kj/debug.h>

#include "helpers/common/clock.h"

namespace rea::supervisor {
namespace {

constexpr kj::Duration REDRAW_INTERVAL = 250 * kj::MILLISECONDS;
constexpr char ERASE_LINE[] = "\r\033[K";

uint64_t monotonicMs() {
  return helper::monotonicNowNs() / 1000000;
}

}  // namespace

const char* capturePhaseName(CapturePhase phase) {
  switch (phase) {
    case CapturePhase::STARTING:
      return "starting";
    case CapturePhase::RUNNING:
      return "running";
    case CapturePhase::SETTLING:
      return "settling";
    case CapturePhase::SNAPSHOT:
      return "snapshot";
    case CapturePhase::CLEANUP:
      return "cleanup";
    case CapturePhase::ASSEMBLING:
      return "assembling";
  }
  KJ_UNREACHABLE;
}

CaptureProgress::CaptureProgress(kj::Timer& timer, int fd)
    : timer(timer), fd(fd), startedAtMs(monotonicMs()) {
  loop = redrawLoop().eagerlyEvaluate(
      [](kj::Exception&& e) { KJ_LOG(ERROR, "capture progress line stopped", e); });
}

CaptureProgress::CaptureProgress(kj::Timer& timer, Report report)
    : timer(timer), fd(-1), report(std::move(report)), startedAtMs(monotonicMs()) {
  loop = redrawLoop().eagerlyEvaluate(
      [](kj::Exception&& e) { KJ_LOG(ERROR, "capture progress reports stopped", e); });
}

CaptureProgress::~CaptureProgress() noexcept(false) {
  finish();
}

bool CaptureProgress::enabledFor(int fd) {
  return isatty(fd) == 1;
}

kj::Promise<void> CaptureProgress::redrawLoop() {
  return timer.afterDelay(REDRAW_INTERVAL).then([this]() {
    draw();
    return redrawLoop();
  });
}

void CaptureProgress::draw() {
  if (report) {
    report(current, bytes);
    return;
  }
  uint64_t elapsedMs = monotonicMs() - startedAtMs;
  char line[192];
  bool reached = limitReached || (outputBytesLimit > 0 && bytes >= outputBytesLimit);
  int n = snprintf(line, sizeof(line), "%srea: %llu.%llu s  %s  %llu bytes captured%s", ERASE_LINE,
                   static_cast<unsigned long long>(elapsedMs / 1000),
                   static_cast<unsigned long long>(elapsedMs % 1000 / 100),
                   capturePhaseName(current), static_cast<unsigned long long>(bytes),
                   reached ? "  (limits.output_bytes reached: output truncated)" : "");
  if (n <= 0) return;
  writeText(line, std::min(static_cast<size_t>(n), sizeof(line) - 1));
  drawn = true;
}

void CaptureProgress::redrawNow() {
  if ((drawn || report) && !finished) draw();
}

void CaptureProgress::finish() {
  if (finished) return;
  finished = true;
  loop = nullptr;
  if (drawn) writeText(ERASE_LINE, sizeof(ERASE_LINE) - 1);
}

void CaptureProgress::writeText(const char* text, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, text, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // cosmetic: a terminal that went away is not the capture's failure
    text += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace rea::supervisor
