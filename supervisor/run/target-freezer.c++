#include "supervisor/run/target-freezer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rea::supervisor {

kj::Maybe<kj::Own<TargetFreezer>> TargetFreezer::open(kj::Timer& timer,
                                                      const std::string& cgroupPath) {
  if (cgroupPath.empty()) return nullptr;
  int freeze = ::open((cgroupPath + "/cgroup.freeze").c_str(), O_WRONLY | O_CLOEXEC);
  if (freeze < 0) return nullptr;
  kj::AutoCloseFd freezeFile(freeze);
  int events = ::open((cgroupPath + "/cgroup.events").c_str(), O_RDONLY | O_CLOEXEC);
  if (events < 0) return nullptr;
  return kj::heap<TargetFreezer>(timer, kj::mv(freezeFile), kj::AutoCloseFd(events));
}

TargetFreezer::TargetFreezer(kj::Timer& timer, kj::AutoCloseFd freezeFile,
                             kj::AutoCloseFd eventsFile)
    : timer(timer), freezeFile(kj::mv(freezeFile)), eventsFile(kj::mv(eventsFile)) {}

kj::Own<TargetFreezer::Hold> TargetFreezer::hold() {
  if (holds++ == 0 && !broken_) write('1');
  return kj::heap<Hold>(*this);
}

void TargetFreezer::release() {
  if (holds == 0) return;
  if (--holds > 0) return;
  if (!broken_) write('0');
  for (auto& waiter : thawWaiters)
    waiter->fulfill();
  thawWaiters.clear();
}

kj::Promise<void> TargetFreezer::whenThawed() {
  if (holds == 0) return kj::READY_NOW;
  auto paf = kj::newPromiseAndFulfiller<void>();
  thawWaiters.push_back(kj::mv(paf.fulfiller));
  return kj::mv(paf.promise);
}

void TargetFreezer::write(char state) {
  if (writeState(state)) return;
  // The cgroup is gone or the kernel refuses: stop holding. A refused '1' froze nothing; a
  // refused '0' is tried once more, then left to the capture's cleanup, which kills the cgroup
  // frozen or not.
  if (state == '0') writeState(state);
  broken_ = true;
}

bool TargetFreezer::writeState(char state) {
  ssize_t n;
  do {
    n = ::pwrite(freezeFile.get(), &state, 1, 0);
  } while (n < 0 && errno == EINTR);
  return n == 1;
}

bool TargetFreezer::frozen() {
  // cgroup.events: "populated 0|1\nfrozen 0|1\n"; read whole from offset 0 each time.
  char text[128];
  ssize_t n;
  do {
    n = ::pread(eventsFile.get(), text, sizeof(text) - 1, 0);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return true;  // unreadable: nothing to wait for
  text[n] = '\0';
  const char* line = strstr(text, "frozen ");
  return line == nullptr || line[7] == '1';
}

kj::Promise<void> TargetFreezer::whenFrozen() {
  if (holds == 0 || broken_) return kj::READY_NOW;
  return pollFrozen(timer.now() + FROZEN_WAIT_LIMIT);
}

kj::Promise<void> TargetFreezer::pollFrozen(kj::TimePoint giveUpAt) {
  if (holds == 0 || broken_ || frozen() || timer.now() >= giveUpAt) return kj::READY_NOW;
  return timer.afterDelay(FROZEN_POLL).then([this, giveUpAt]() { return pollFrozen(giveUpAt); });
}

}  // namespace rea::supervisor
