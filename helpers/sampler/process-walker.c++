#include "helpers/sampler/process-walker.h"

#include <unordered_set>
#include <utility>
#include <vector>

#include <kj/debug.h>

#include "helpers/common/system/ownership.h"
#include "helpers/common/system/proc-stat.h"

namespace rea::helper {

ProcessWalker::ProcessWalker(pid_t rootPid, std::string runToken, uint32_t maxProcesses,
                             SampleRecorder& recorder)
    : rootPid(rootPid),
      runToken(kj::mv(runToken)),
      maxProcesses(maxProcesses),
      recorder(recorder) {}

void ProcessWalker::pass(uint64_t atNs) {
  KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() {
                 if (!initialised && !checkRootInitialised()) return;
                 walk(atNs);
               })) {
    KJ_LOG(WARNING, "sampling pass failed; samples are partial", *exception);
    recorder.markPartial();
  }
}

bool ProcessWalker::checkRootInitialised() {
  auto before = readStat(rootPid);
  KJ_IF_MAYBE (stat, before) {
    if (stat->isZombie() || stat->pgid != rootPid || stat->sid != rootPid) return false;
    if (checkRunToken(rootPid, runToken) != Ownership::OWNED) return false;
    KJ_IF_MAYBE (after, readStat(rootPid)) {
      if (after->startTime != stat->startTime) return false;
      if (rootStartTimeKnown && rootStartTime != stat->startTime) return false;
      rootStartTime = stat->startTime;
      rootStartTimeKnown = true;
      initialised = true;
      return true;
    }
  }
  return false;
}

void ProcessWalker::walk(uint64_t atNs) {
  if (readStat(rootPid) == nullptr) return;
  const size_t rowLimit = static_cast<size_t>(maxProcesses) + 1;
  std::vector<ProcessRecord> rows;
  std::unordered_set<pid_t> visited = {rootPid};
  // (candidate, expected parent); the root's parent is whatever it is.
  std::vector<std::pair<pid_t, pid_t>> level = {{rootPid, -1}};
  while (!level.empty() && rows.size() < rowLimit) {
    std::vector<std::pair<pid_t, pid_t>> next;
    for (const auto& item : level) {
      // Named copies, not a structured binding: KJ_CONTEXT's lambda captures pid.
      pid_t pid = item.first;
      pid_t expectedParent = item.second;
      if (rows.size() >= rowLimit) break;
      KJ_CONTEXT("proc", pid);
      auto before = readStat(pid);
      ProcStat* first;
      KJ_IF_MAYBE (s, before) {
        first = s;
      } else {
        continue;
      }
      if (expectedParent >= 0 && first->ppid != expectedParent) continue;
      auto command = readCommand(pid);
      if (command == nullptr) continue;
      auto children = readChildren(pid);
      auto after = readStat(pid);
      ProcStat* second;
      KJ_IF_MAYBE (s, after) {
        second = s;
      } else {
        continue;
      }
      if (second->startTime != first->startTime || second->ppid != first->ppid) continue;
      auto known = startTimes.find(pid);
      if (known != startTimes.end() && known->second != first->startTime) continue;  // reused pid
      startTimes[pid] = first->startTime;
      rows.push_back(ProcessRecord{atNs, pid, second->ppid, second->pgid, second->sid,
                                   KJ_ASSERT_NONNULL(command)});
      KJ_IF_MAYBE (list, children) {
        for (pid_t child : *list) {
          if (visited.insert(child).second) next.emplace_back(child, pid);
        }
      }
    }
    level = kj::mv(next);
  }
  for (const auto& row : rows) {
    recorder.offer(row);
  }
}

}  // namespace rea::helper
