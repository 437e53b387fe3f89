// ProcessObserver (process-observer.h), kernel-side exec observation (README.md, "Kernel-side
// exec observation"): the notifier on the exec channel, and how a notified command reaches its
// row. Exact mode stamps each notification with the ordinal of the EXEC event it will cause and
// hands the command to that event; sampled mode records the row at once.

#include "helpers/sampler/process-observer.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include <kj/debug.h>

#include "helpers/common/clock.h"
#include "helpers/sampler/exec-notifier.h"
#include "helpers/sampler/proc-connector.h"
#include "helpers/sampler/process-walker.h"

namespace rea::helper {

void ProcessObserver::startExecNotifier(kj::AutoCloseFd channel) {
  // Probed now: after the lock-down the seccomp syscall is not ours to make.
  execWhyNot = execNotifyUnavailableReason();
  if (channel == nullptr) execWhyNot = "the sampler has no exec channel";
  if (!execWhyNot.empty()) return;
  if (!exact) {
    // A pass may read a process whose notified exec is still under way (we answered; the
    // kernel has not swapped the image yet): that older command is not a new row. Exec keeps
    // the start time, so a different one is another process with the same pid.
    recorder.setFilter([this](const ProcessRecord& row) {
      auto found = lastNotifiedExec.find(row.pid);
      if (found == lastNotifiedExec.end() || found->second.command == row.command) return true;
      KJ_IF_MAYBE (s, readStat(row.pid)) {
        if (s->startTime == found->second.startTime) return false;
        lastNotifiedExec.erase(found);
        return true;
      }
      return false;
    });
  }
  notifier = kj::heap<ExecNotifier>(eventPort, kj::mv(channel), [this](ExecRequest request) {
    if (exact) {
      pid_t process = threadGroupOf(request.pid);
      if (process > 0) noteExecRequest(process, kj::mv(request.command));
    } else {
      recordSampledExec(kj::mv(request));
    }
  });
}

pid_t ProcessObserver::threadGroupOf(pid_t pid) {
  // A non-leader thread's exec is notified under its thread id; the process it becomes (and
  // its exec event) has the thread group's id. 0 when the caller is gone.
  auto status = readProcFile("/proc/" + std::to_string(pid) + "/status");
  if (status.status != ProcRead::OK) return 0;
  size_t tgid = status.text.find("\nTgid:");
  if (tgid == std::string::npos) return 0;
  return pid_t(strtol(status.text.c_str() + tgid + 6, nullptr, 10));
}

void ProcessObserver::recordSampledExec(ExecRequest request) {
  // Sampled mode has no exec events to confirm an exec: the row is recorded now, while the
  // caller waits, for a program that exists and is executable (a PATH search tries entries
  // that do not). Ids are read from the paused caller, whose /proc cannot race its exit.
  if (stopped || request.command.empty()) return;
  if (!request.path.empty()) {
    struct stat info;
    if (stat(request.path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
        (info.st_mode & 0111) == 0) {
      return;
    }
  }
  request.pid = threadGroupOf(request.pid);
  if (request.pid <= 0) return;
  KJ_IF_MAYBE (s, readStat(request.pid)) {
    ProcessRecord row{monotonicNowNs(), request.pid, s->ppid,
                      s->pgid,          s->sid,      kj::mv(request.command)};
    lastNotifiedExec[request.pid] = LastExec{s->startTime, row.command};
    if (started) {
      recorder.offerUnfiltered(row);
    } else if (sampledExecsBeforeStart.size() < 100000) {
      sampledExecsBeforeStart.push_back(kj::mv(row));  // the root's own first exec is here
    }
  }
}

ExecObservation ProcessObserver::execObservation() const {
  bool notified = notifier.get() != nullptr && notifier->received();
  if (!exact) return notified ? ExecObservation::SECCOMP_NOTIFY : ExecObservation::NONE;
  return notified ? ExecObservation::SECCOMP_NOTIFY : ExecObservation::PROCFS;
}

std::string ProcessObserver::execProblem() const {
  if (notifier.get() == nullptr || notifier->received()) return execWhyNot;
  if (!notifier->problem().empty()) return notifier->problem();
  return "the target sent no exec listener";
}

void ProcessObserver::noteExecRequest(pid_t pid, std::string command) {
  // Everything the kernel queued so far precedes this exec's own event (it comes only once we
  // answer): read it all, so that the count of read EXEC events of `pid` is exact.
  if (connector.get() != nullptr) {
    do {
      readConnector();
    } while (!queueEmpty);
  }
  auto read = execsRead.find(pid);
  uint32_t ordinal = (read == execsRead.end() ? 0 : read->second) + 1;
  notifiedExecs[pid] = NotifiedExec{ordinal, kj::mv(command)};
}

void ProcessObserver::forgetSettledExecCounts(pid_t pid) {
  // The counts only matter while they differ or a notification waits: equal, both restart
  // from zero together. (The connector reports every exec on the machine; this keeps the maps
  // to the pids with exec events in flight.)
  if (notifiedExecs.count(pid) != 0) return;
  auto handled = execsHandled.find(pid);
  auto read = execsRead.find(pid);
  uint32_t readCount = read == execsRead.end() ? 0 : read->second;
  if (handled == execsHandled.end() || handled->second != readCount) return;
  execsHandled.erase(handled);
  if (read != execsRead.end()) execsRead.erase(read);
}

kj::Maybe<std::string> ProcessObserver::takeNotifiedCommand(pid_t pid) {
  auto found = notifiedExecs.find(pid);
  if (found == notifiedExecs.end()) return nullptr;
  uint32_t handled = execsHandled[pid];
  if (found->second.ordinal == handled) {
    std::string command = kj::mv(found->second.command);
    notifiedExecs.erase(found);
    return kj::mv(command);
  }
  if (found->second.ordinal < handled) notifiedExecs.erase(found);  // its event was lost
  return nullptr;
}

}  // namespace rea::helper
