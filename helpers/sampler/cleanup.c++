#include "helpers/sampler/cleanup.h"

#include <set>
#include <utility>

#include <kj/debug.h>

#include "helpers/common/system/capture-cgroup.h"
#include "helpers/sampler/settlement.h"

namespace rea::helper {
namespace {

constexpr int MAX_KILL_ROUNDS = 200;  // ~4 s: a tree that forks faster than we kill it
constexpr int MAX_EMPTY_WAITS = 200;  // ~2 s for killed members to leave the cgroup
constexpr int MAX_SCANS = 50;

kj::Duration pause(int round) {
  return (round < 10 ? 2 : 20) * kj::MILLISECONDS;
}

struct CleanupLoop {
  CleanupLoop(kj::Timer& timer, CaptureScope& scope, std::string runToken, pid_t rootPid,
              std::function<std::vector<pid_t>()> findCandidates,
              std::function<std::vector<pid_t>()> bornInCapture)
      : timer(timer),
        scope(scope),
        runToken(kj::mv(runToken)),
        rootPid(rootPid),
        findCandidates(kj::mv(findCandidates)),
        bornInCapture(kj::mv(bornInCapture)) {}

  kj::Timer& timer;
  CaptureScope& scope;
  std::string runToken;
  pid_t rootPid;
  std::function<std::vector<pid_t>()> findCandidates;
  std::function<std::vector<pid_t>()> bornInCapture;
  CleanupReport report{true, {}, {}, {}, false, false};
  std::set<std::pair<pid_t, uint64_t>> seen;  // (pid, start time) already in the report
  int round = 0;

  void fail(const std::string& problem) {
    report.complete = false;
    if (report.problem.empty()) report.problem = problem;
  }

  bool firstTime(const ProcStat& stat) { return seen.insert({stat.pid, stat.startTime}).second; }

  kj::Promise<void> killRound() {
    // Issue 18.4: a member of the capture cgroup that the proc connector saw born from the
    // capture's own processes is the target's whether it kept the run token or not (`setsid
    // env -i` scrubs it): it is killed with the rest. A member not seen born there (written
    // into cgroup.procs by someone else) is still judged by its token.
    std::set<pid_t> born;
    KJ_IF_MAYBE (group, scope.cgroup()) {
      (void)group;
      if (bornInCapture) {
        for (pid_t pid : bornInCapture())
          born.insert(pid);
      }
    }
    std::vector<ProcStat> members;
    KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() { members = scope.liveMembers(); })) {
      KJ_LOG(WARNING, "cleanup: capture membership unreadable", *exception);
      fail("process group could not be inspected");
      return finishScope(false);
    }
    std::vector<InspectedProcess> owned;
    std::vector<InspectedProcess> unowned;
    bool unownedAlive = false;
    for (const auto& member : members) {
      KJ_CONTEXT("proc", member.pid);
      auto process = inspectProcess(member.pid, runToken);
      switch (process.getOwnership()) {
        case Ownership::GONE:
          continue;
        case Ownership::OWNED:
          if (firstTime(member)) {
            report.signalled.push_back(describeProcess(member, Ownership::OWNED, rootPid));
          }
          owned.push_back(kj::mv(process));
          continue;
        case Ownership::TOKEN_MISSING:
        case Ownership::TOKEN_DIFFERENT:
        case Ownership::UNREADABLE:
          if (born.count(member.pid) != 0) {
            if (firstTime(member)) {
              report.signalled.push_back(describeProcess(member, process.getOwnership(), rootPid));
            }
            owned.push_back(kj::mv(process));
            continue;
          }
          unownedAlive = true;
          if (firstTime(member)) {
            report.unowned.push_back(describeProcess(member, process.getOwnership(), rootPid));
          }
          fail(ownershipProblem(process.getOwnership()));
          unowned.push_back(kj::mv(process));
          continue;
      }
    }
    if (owned.empty()) {
      KJ_IF_MAYBE (group, scope.cgroup()) {
        if (unownedAlive) return releaseUnowned(*group, unowned);
      }
      return finishScope(unownedAlive);
    }
    KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() {
                   KJ_IF_MAYBE (group, scope.cgroup()) {
                     if (!unownedAlive) {
                       // Every member is ours: one write kills them all, including any forked
                       // since the listing (children of owned processes).
                       group->kill();
                       report.usedCgroupKill = true;
                       return;
                     }
                   }
                   for (auto& process : owned) {
                     process.kill();
                   }
                 })) {
      KJ_LOG(WARNING, "cleanup: signal failed", *exception);
      fail("owned process group signal failed");
      return finishScope(unownedAlive);
    }
    if (++round >= MAX_KILL_ROUNDS) {
      fail("owned process group signal failed");
      return finishScope(unownedAlive);
    }
    return timer.afterDelay(pause(round)).then([this]() { return killRound(); });
  }

  // Only unowned members are left in the capture cgroup: they are moved to its parent, alive
  // and unsignalled, so that the group can be removed; then the next round checks that nothing
  // (e.g. a child one of them forked meanwhile) is left.
  kj::Promise<void> releaseUnowned(CaptureCgroup& group, std::vector<InspectedProcess>& unowned) {
    KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() {
                   for (auto& process : unowned) {
                     KJ_CONTEXT("release unowned member", process.getPid());
                     group.release(process);
                   }
                 })) {
      KJ_LOG(WARNING, "cleanup: an unowned member could not leave the capture cgroup", *exception);
      return finishScope(true);
    }
    if (++round >= MAX_KILL_ROUNDS) return finishScope(true);
    return timer.afterDelay(pause(round)).then([this]() { return killRound(); });
  }

  // Waits for the cgroup to empty (unless unowned members keep it populated) and removes it.
  kj::Promise<void> finishScope(bool unownedAlive, int waits = 0) {
    KJ_IF_MAYBE (group, scope.cgroup()) {
      bool removed = false;
      KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() { removed = group->remove(); })) {
        KJ_LOG(WARNING, "cleanup: rmdir of the capture cgroup failed", *exception);
      }
      if (removed) {
        report.cgroupRemoved = true;
      } else if (!unownedAlive && waits < MAX_EMPTY_WAITS) {
        return timer.afterDelay(pause(waits)).then([this, waits]() {
          return finishScope(false, waits + 1);
        });
      } else {
        fail("capture cgroup could not be removed");
      }
    }
    return scan();
  }

  // Token carriers among the candidates that the scope did not contain.
  kj::Promise<void> scan(int scans = 0) {
    bool anyAlive = false;
    KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() {
                   for (pid_t pid : findCandidates()) {
                     KJ_CONTEXT("proc", pid);
                     auto stat = readStat(pid);
                     auto process = inspectProcess(pid, runToken);
                     if (process.getOwnership() != Ownership::OWNED) continue;
                     KJ_IF_MAYBE (s, stat) {
                       if (firstTime(*s)) {
                         auto finding = describeProcess(*s, Ownership::OWNED, rootPid);
                         finding.escape = Escape::OUTSIDE;
                         report.signalled.push_back(kj::mv(finding));
                       }
                     }
                     anyAlive = true;
                     process.kill();
                   }
                 })) {
      KJ_LOG(WARNING, "cleanup: token scan failed", *exception);
      fail("process group could not be inspected");
      return kj::READY_NOW;
    }
    if (!anyAlive) return kj::READY_NOW;
    // A carrier lived outside the scope: what it forked before its kill may not be among the
    // candidates (exact mode stopped following forks at stop()), so later rounds look at the
    // whole machine.
    std::string token = runToken;
    findCandidates = [token]() { return findTokenCarriers(token); };
    if (scans + 1 >= MAX_SCANS) {
      fail("owned process group signal failed");
      return kj::READY_NOW;
    }
    return timer.afterDelay(pause(scans)).then([this, scans]() { return scan(scans + 1); });
  }
};

}  // namespace

std::vector<ProcessFinding> CleanupReport::escapees() const {
  std::vector<ProcessFinding> out;
  for (const auto* list : {&signalled, &unowned}) {
    for (const auto& finding : *list) {
      if (finding.escape != Escape::NONE) out.push_back(finding);
    }
  }
  return out;
}

kj::Promise<CleanupReport> cleanupCapture(kj::Timer& timer, CaptureScope& scope,
                                          std::string runToken, pid_t rootPid,
                                          std::function<std::vector<pid_t>()> findCandidates,
                                          std::function<std::vector<pid_t>()> bornInCapture) {
  auto loop = kj::heap<CleanupLoop>(timer, scope, kj::mv(runToken), rootPid, kj::mv(findCandidates),
                                    kj::mv(bornInCapture));
  auto& ref = *loop;
  auto done = kj::evalNow([&ref]() { return ref.killRound(); });
  return done.then([&ref]() { return kj::mv(ref.report); }).attach(kj::mv(loop));
}

}  // namespace rea::helper
