#include "helpers/common/fault-injection.h"

// The whole file is test-only (fault-injection.h): release builds compile it to nothing.
#ifdef REA_FAULT_INJECTION

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace rea::helper {
namespace {

std::optional<FaultPlan> armed;
bool malformedPending = false;
std::function<void()> runStartReached;  // helperMain's: arms the mid-run timer
bool runStartIsLater = false;           // see runStartsLater()

std::optional<Fault> parseFault(const std::string& text) {
  if (text == "kill") return Fault::KILL;
  if (text == "abort") return Fault::ABORT;
  if (text == "exit0") return Fault::EXIT0;
  if (text == "stall") return Fault::STALL;
  if (text == "malformed") return Fault::MALFORMED;
  return std::nullopt;
}

std::optional<FaultMoment> parseMoment(const std::string& text) {
  if (text == "start") return FaultMoment::START;
  if (text == "first-batch") return FaultMoment::FIRST_BATCH;
  if (text == "mid-run") return FaultMoment::MID_RUN;
  if (text == "settle") return FaultMoment::SETTLE;
  if (text == "stop") return FaultMoment::STOP;
  return std::nullopt;
}

}  // namespace

std::optional<FaultPlan> parseFaultPlan(const std::string& tagged) {
  // "@tag" is the test's, not ours: it only makes this plan's helpers findable by their
  // environment when another test runs the same plan at the same time.
  std::string text = tagged.substr(0, tagged.find('@'));
  size_t first = text.find(':');
  if (first == std::string::npos || first == 0) return std::nullopt;
  size_t second = text.find(':', first + 1);
  if (second == std::string::npos) return std::nullopt;
  auto fault = parseFault(text.substr(first + 1, second - first - 1));
  auto moment = parseMoment(text.substr(second + 1));
  if (!fault || !moment) return std::nullopt;
  FaultPlan plan;
  plan.helper = text.substr(0, first);
  plan.fault = *fault;
  plan.moment = *moment;
  return plan;
}

void armFaults(const char* helperName) {
  const char* text = getenv("REA_TEST_FAULT");
  if (text == nullptr || *text == '\0') return;
  auto plan = parseFaultPlan(text);
  if (!plan) {
    fprintf(stderr, "rea-%s: ignoring malformed REA_TEST_FAULT\n", helperName);
    return;
  }
  if (plan->helper != helperName) return;
  if (const char* delay = getenv("REA_TEST_FAULT_DELAY_MS")) {
    plan->delayMs = strtoull(delay, nullptr, 10);
  }
  armed = plan;
}

std::optional<uint64_t> midRunFaultDelayMs() {
  if (!armed || armed->moment != FaultMoment::MID_RUN) return std::nullopt;
  return armed->delayMs;
}

void whenRunStarted(std::function<void()> callback) {
  runStartReached = std::move(callback);
}

void runStartsLater() {
  runStartIsLater = true;
}

void runStarted() {
  if (runStartReached) std::exchange(runStartReached, nullptr)();  // once
}

void faultPoint(FaultMoment moment) {
  if (moment == FaultMoment::START && !runStartIsLater && runStartReached) {
    std::exchange(runStartReached, nullptr)();  // once: the first call from the supervisor
  }
  if (!armed || armed->moment != moment) return;
  Fault fault = armed->fault;
  armed.reset();  // once
  switch (fault) {
    case Fault::KILL:
      kill(getpid(), SIGKILL);
      break;
    case Fault::ABORT:
      kill(getpid(), SIGABRT);  // abort() itself would need tgkill and rt_sigaction
      break;
    case Fault::EXIT0:
      _exit(0);
    case Fault::STALL:
      break;  // below: blocks the event loop thread for good
    case Fault::MALFORMED:
      malformedPending = true;
      return;
  }
  // Stall, or wait for the signal on its way: sleeping is allowed by every helper's filter.
  for (;;)
    sleep(3600);
}

bool takeMalformed() {
  if (!malformedPending) return false;
  malformedPending = false;
  return true;
}

}  // namespace rea::helper

#endif  // REA_FAULT_INJECTION
