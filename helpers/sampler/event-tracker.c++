#include "helpers/sampler/event-tracker.h"

#include <algorithm>

#include "helpers/common/system/proc-stat.h"

namespace rea::helper {

EventTracker::EventTracker(pid_t rootPid, SampleRecorder& recorder,
                           std::function<std::vector<pid_t>()> listMembers, ProcReader& proc,
                           std::function<bool(pid_t)> laterExecQueued,
                           std::function<kj::Maybe<std::string>(pid_t)> notifiedCommand)
    : rootPid(rootPid),
      recorder(recorder),
      listMembers(kj::mv(listMembers)),
      proc(proc),
      laterExecQueued(kj::mv(laterExecQueued)),
      notifiedCommand(kj::mv(notifiedCommand)) {}

void EventTracker::offer(uint64_t atNs, pid_t pid, const Process& process, bool exited) {
  if (pid == rootPid && !rootExeced && !exited) return;
  recorder.offer(
      ProcessRecord{atNs, pid, process.ppid, process.pgid, process.sid, process.command});
}

void EventTracker::refreshIds(pid_t pid, Process& process) {
  KJ_IF_MAYBE (stat, proc.stat(pid)) {
    process.ppid = stat->ppid;
    process.pgid = stat->pgid;
    process.sid = stat->sid;
  }
}

void EventTracker::handle(const ProcEvent& event) {
  switch (event.kind) {
    case ProcEvent::FORK: {
      if (event.pid == rootPid && !rootSeen) {
        // The root is born: from here on its events are the capture's. Its image is the
        // launcher's until it execs, so it gets no row yet.
        rootSeen = true;
        Process root{event.parentPid, std::nullopt, std::nullopt, {}};
        refreshIds(event.pid, root);
        tracked[event.pid] = root;
        return;
      }
      auto parent = tracked.find(event.parentPid);
      if (parent == tracked.end()) {
        auto stale = tracked.find(event.pid);
        if (stale != tracked.end()) {
          // Our process's pid now names a stranger's child: its exit event was lost.
          Process gone = stale->second;
          gone.command.clear();
          offer(event.atNs, event.pid, gone, true);
          tracked.erase(stale);
        }
        return;
      }
      Process child = parent->second;
      child.ppid = event.parentPid;
      KJ_IF_MAYBE (stat, proc.stat(event.pid)) {
        if (stat->ppid == event.parentPid) {
          child.pgid = stat->pgid;
          child.sid = stat->sid;
        }
      }
      tracked[event.pid] = child;
      offer(event.atNs, event.pid, child);
      return;
    }
    case ProcEvent::EXEC: {
      auto found = tracked.find(event.pid);
      if (found == tracked.end()) {
        if (event.pid != rootPid || rootSeen) return;
        // The root's fork event was not in the stream (subscribed late): start at its exec.
        rootSeen = true;
        found = tracked.emplace(event.pid, Process{0, std::nullopt, std::nullopt, {}}).first;
      }
      Process& process = found->second;
      if (event.pid == rootPid) rootExeced = true;
      if (notifiedCommand) {
        KJ_IF_MAYBE (notified, notifiedCommand(event.pid)) {
          // Read before the exec happened: no race with its exit or its next exec.
          if (!notified->empty()) {
            refreshIds(event.pid, process);
            process.command = kj::mv(*notified);
            offer(event.atNs, event.pid, process);
            return;
          }
        }
      }
      auto command = proc.command(event.pid);
      auto stat = proc.stat(event.pid);
      if (laterExecQueued && laterExecQueued(event.pid)) {
        // It exec'd again before we looked: what we read may be the later program, which has
        // its own EXEC event. What this one ran is lost; a row naming the later one would lie.
        recorder.noteUnreadCommand();
        return;
      }
      KJ_IF_MAYBE (s, stat) {
        process.ppid = s->ppid;
        process.pgid = s->pgid;
        process.sid = s->sid;
      }
      bool live = false;
      KJ_IF_MAYBE (s, stat) {
        live = !s->isZombie();
      }
      KJ_IF_MAYBE (c, command) {
        if (!c->empty()) {
          process.command = *c;
          offer(event.atNs, event.pid, process);
          return;
        }
        if (live) {
          // Between an exec's new memory and its arguments, /proc shows no argv (and perhaps
          // the next program's name): this one is being replaced. An empty command would also
          // read as an exit row.
          recorder.noteUnreadCommand();
          return;
        }
      }
      KJ_IF_MAYBE (s, stat) {
        // The program already exited; its argv went with its memory, its name did not.
        process.command = "[" + s->comm + "]";
        offer(event.atNs, event.pid, process);
        return;
      }
      // Reaped before we could look: the exec happened, what it ran is lost.
      recorder.noteUnreadCommand();
      return;
    }
    case ProcEvent::EXIT: {
      auto found = tracked.find(event.pid);
      if (found == tracked.end()) return;
      Process gone = found->second;
      gone.command.clear();
      offer(event.atNs, event.pid, gone, true);
      tracked.erase(found);
      return;
    }
    case ProcEvent::SID: {
      auto found = tracked.find(event.pid);
      if (found == tracked.end()) return;
      found->second.pgid = event.pid;
      found->second.sid = event.pid;
      offer(event.atNs, event.pid, found->second);
      return;
    }
    case ProcEvent::OVERRUN:
      recorder.markPartial();
      resynchronise(event.atNs);
      return;
  }
}

void EventTracker::resynchronise(uint64_t atNs) {
  std::vector<pid_t> members = listMembers();
  std::sort(members.begin(), members.end());
  for (auto it = tracked.begin(); it != tracked.end();) {
    if (std::binary_search(members.begin(), members.end(), it->first)) {
      ++it;
      continue;
    }
    Process gone = it->second;
    gone.command.clear();
    offer(atNs, it->first, gone, true);
    it = tracked.erase(it);
  }
  for (pid_t pid : members) {
    if (tracked.count(pid) != 0) continue;
    KJ_IF_MAYBE (stat, proc.stat(pid)) {
      if (stat->isZombie()) continue;
      Process process{stat->ppid, stat->pgid, stat->sid, {}};
      KJ_IF_MAYBE (command, proc.command(pid)) {
        process.command = *command;
      }
      if (pid == rootPid) rootSeen = rootExeced = true;
      tracked[pid] = process;
      offer(atNs, pid, process);
    }
  }
}

std::vector<pid_t> EventTracker::trackedPids() const {
  std::vector<pid_t> pids;
  for (const auto& entry : tracked)
    pids.push_back(entry.first);
  return pids;
}

}  // namespace rea::helper
