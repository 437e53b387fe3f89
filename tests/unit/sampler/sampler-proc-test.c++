// The sampler's parsers and pure rules: proc-connector datagrams, the sample recorder's
// de-duplication and limit, and the exact-mode tracker fed with synthetic events (for pids that
// cannot exist, so no /proc read succeeds).

#include "helpers/sampler/proc-connector.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "helpers/common/clock.h"
#include "helpers/common/system/capture-cgroup.h"
#include "helpers/sampler/event-tracker.h"
#include "helpers/sampler/sample-recorder.h"
#include "tests/unit/sampler-test-support.h"

namespace rea::helper {
namespace {

// One proc-connector datagram as the kernel lays it out.
std::vector<kj::byte> datagram(const proc_event& event, uint32_t idx = CN_IDX_PROC) {
  std::vector<kj::byte> bytes(NLMSG_SPACE(sizeof(cn_msg) + sizeof(proc_event)));
  nlmsghdr header{};
  header.nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + sizeof(proc_event));
  header.nlmsg_type = NLMSG_DONE;
  cn_msg message{};
  message.id.idx = idx;
  message.id.val = CN_VAL_PROC;
  message.len = sizeof(proc_event);
  memcpy(bytes.data(), &header, sizeof(header));
  memcpy(bytes.data() + NLMSG_HDRLEN, &message, sizeof(message));
  memcpy(bytes.data() + NLMSG_HDRLEN + sizeof(cn_msg), &event, sizeof(event));
  return bytes;
}

std::vector<ProcEvent> decode(const std::vector<kj::byte>& bytes) {
  std::vector<ProcEvent> out;
  decodeProcEvents(kj::arrayPtr(bytes.data(), bytes.size()), out);
  return out;
}

TEST(SamplerProcConnector, DecodesForkExecExitAndSetsid) {
  proc_event event{};
  event.what = proc_event::PROC_EVENT_FORK;
  event.timestamp_ns = 1000;
  event.event_data.fork = {10, 10, 11, 11};
  auto fork = decode(datagram(event));
  ASSERT_EQ(fork.size(), 1u);
  EXPECT_EQ(fork[0].kind, ProcEvent::FORK);
  EXPECT_EQ(fork[0].atNs, 1000u);
  EXPECT_EQ(fork[0].pid, 11);
  EXPECT_EQ(fork[0].parentPid, 10);

  event.event_data.fork = {10, 10, 12, 10};  // a new thread of 10
  EXPECT_TRUE(decode(datagram(event)).empty());

  event = proc_event{};
  event.what = proc_event::PROC_EVENT_EXEC;
  event.event_data.exec = {11, 11};
  auto exec = decode(datagram(event));
  ASSERT_EQ(exec.size(), 1u);
  EXPECT_EQ(exec[0].kind, ProcEvent::EXEC);
  EXPECT_EQ(exec[0].pid, 11);

  event = proc_event{};
  event.what = proc_event::PROC_EVENT_EXIT;
  event.event_data.exit.process_pid = 11;
  event.event_data.exit.process_tgid = 11;
  event.event_data.exit.exit_code = 256;
  event.event_data.exit.parent_tgid = 10;
  auto exit = decode(datagram(event));
  ASSERT_EQ(exit.size(), 1u);
  EXPECT_EQ(exit[0].kind, ProcEvent::EXIT);
  EXPECT_EQ(exit[0].exitStatus, 256);
  EXPECT_EQ(exit[0].parentPid, 10);
  event.event_data.exit.process_pid = 12;  // a thread of 11 ended
  EXPECT_TRUE(decode(datagram(event)).empty());

  event = proc_event{};
  event.what = proc_event::PROC_EVENT_SID;
  event.event_data.sid = {11, 11};
  auto sid = decode(datagram(event));
  ASSERT_EQ(sid.size(), 1u);
  EXPECT_EQ(sid[0].kind, ProcEvent::SID);
}

TEST(SamplerProcConnector, SkipsWhatIsNotAProcessEvent) {
  proc_event event{};
  event.what = proc_event::PROC_EVENT_NONE;  // the subscription's acknowledgement
  EXPECT_TRUE(decode(datagram(event)).empty());
  event.what = proc_event::PROC_EVENT_UID;
  EXPECT_TRUE(decode(datagram(event)).empty());
  event.what = proc_event::PROC_EVENT_EXEC;
  event.event_data.exec = {11, 11};
  EXPECT_TRUE(decode(datagram(event, CN_IDX_PROC + 1)).empty());
  auto bytes = datagram(event);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::vector<kj::byte> truncated(bytes.begin(), bytes.begin() + cut);
    EXPECT_TRUE(decode(truncated).empty()) << cut;
  }
  // Two messages in one datagram.
  auto twice = bytes;
  twice.insert(twice.end(), bytes.begin(), bytes.end());
  EXPECT_EQ(decode(twice).size(), 2u);
}

TEST(SamplerProcConnector, FindsTheKernelsAcknowledgement) {
  proc_event event{};
  event.what = proc_event::PROC_EVENT_NONE;
  event.event_data.ack.err = EPERM;
  auto bytes = datagram(event);
  cn_msg message;
  memcpy(&message, bytes.data() + NLMSG_HDRLEN, sizeof(message));
  message.ack = 778;
  memcpy(bytes.data() + NLMSG_HDRLEN, &message, sizeof(message));
  auto view = kj::arrayPtr(bytes.data(), bytes.size()).asConst();
  EXPECT_EQ(KJ_ASSERT_NONNULL(findAcknowledgement(view, 778)), EPERM);
  EXPECT_TRUE(findAcknowledgement(view, 779) == nullptr) << "another listener's";
  event.what = proc_event::PROC_EVENT_EXEC;
  auto notAck = datagram(event);
  EXPECT_TRUE(findAcknowledgement(kj::arrayPtr(notAck.data(), notAck.size()).asConst(), 0) ==
              nullptr);
}

TEST(SamplerProcConnector, SubscribesAndSeesAFork) {
  auto subscribed = ProcConnector::subscribe();
  if (subscribed.is<std::string>()) GTEST_SKIP() << subscribed.get<std::string>();
  auto& connector = *subscribed.get<kj::Own<ProcConnector>>();
  uint64_t before = monotonicNowNs();
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  bool sawFork = false, sawExit = false;
  for (int i = 0; i < 200 && !(sawFork && sawExit); ++i) {
    std::vector<ProcEvent> events;
    connector.readAvailable(events);
    for (const auto& event : events) {
      if (event.pid != child) continue;
      if (event.kind == ProcEvent::FORK) {
        sawFork = true;
        EXPECT_EQ(event.parentPid, getpid());
        EXPECT_GE(event.atNs, before);
        EXPECT_LE(event.atNs, monotonicNowNs());
      }
      if (event.kind == ProcEvent::EXIT) sawExit = true;
    }
    usleep(5000);
  }
  EXPECT_TRUE(sawFork);
  EXPECT_TRUE(sawExit);
}

TEST(SamplerProcConnector, RefusesAtOnceInsideAChildPidNamespace) {
  // The kernel drops a subscription from a non-initial namespace without an acknowledgement;
  // the subscription must name that reason instead of waiting for an answer that never comes
  // (whose reason would be "did not acknowledge"). Exit codes: 0 named, 1 other reason,
  // 2 subscribed, 77 no namespace here (unprivileged).
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (unshare(CLONE_NEWPID) != 0) _exit(77);
    pid_t inner = fork();
    if (inner < 0) _exit(3);
    if (inner == 0) {
      auto subscribed = ProcConnector::subscribe();
      if (!subscribed.is<std::string>()) _exit(2);
      _exit(subscribed.get<std::string>().find("initial PID and user namespaces") !=
                    std::string::npos
                ? 0
                : 1);
    }
    int status = 0;
    if (waitpid(inner, &status, 0) != inner || !WIFEXITED(status)) _exit(4);
    _exit(WEXITSTATUS(status));
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "unshare(CLONE_NEWPID) is not permitted here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

class Rows final : public ProcessSink {
 public:
  void record(const ProcessRecord& record) override { rows.push_back(record); }
  std::vector<ProcessRecord> rows;
};

TEST(SamplerRecorder, RecordsAProcessAgainOnlyWhenItChanges) {
  Rows sink;
  SampleRecorder recorder(10, sink);
  ProcessRecord row{1, 100, 1, 100, 100, "sh -c x"};
  EXPECT_TRUE(recorder.offer(row));
  row.atNs = 2;
  EXPECT_FALSE(recorder.offer(row)) << "same tuple, later pass";
  row.command = "x";
  EXPECT_TRUE(recorder.offer(row)) << "exec'd";
  row.pgid = 101;
  EXPECT_TRUE(recorder.offer(row)) << "moved group";
  row.command = "";
  EXPECT_FALSE(recorder.offer(row)) << "exited: never a row with an empty command (A15)";
  row.command = "x";
  EXPECT_TRUE(recorder.offer(row)) << "the exit forgot the tuple: a reused pid is recorded";
  row.pid = 101;
  EXPECT_TRUE(recorder.offer(row)) << "another pid, same tuple";
  EXPECT_EQ(sink.rows.size(), 5u);
  EXPECT_FALSE(recorder.isPartial());
}

TEST(SamplerRecorder, AFilterRefusesPassRowsButNotNotifiedExecs) {
  Rows sink;
  SampleRecorder recorder(10, sink);
  recorder.setFilter([](const ProcessRecord& row) { return row.command != "stale"; });
  EXPECT_TRUE(recorder.offerUnfiltered({1, 100, 1, 100, 100, "new"}));
  EXPECT_FALSE(recorder.offer({2, 100, 1, 100, 100, "stale"})) << "refused by the filter";
  EXPECT_TRUE(recorder.offerUnfiltered({3, 100, 1, 100, 100, "stale"})) << "not filtered";
  EXPECT_TRUE(recorder.offer({4, 101, 1, 100, 100, "other"}));
  EXPECT_EQ(sink.rows.size(), 3u);
}

TEST(SamplerRecorder, RowTimesNeverGoBack) {
  Rows sink;
  SampleRecorder recorder(10, sink);
  EXPECT_TRUE(recorder.offer({5, 100, 1, 100, 100, "a"}));
  EXPECT_TRUE(recorder.offer({3, 101, 1, 100, 100, "b"})) << "a replayed older event";
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_EQ(sink.rows[1].atNs, 5u);
}

TEST(SamplerRecorder, StopsAtTheProcessLimitAndMarksPartial) {
  Rows sink;
  SampleRecorder recorder(2, sink);
  EXPECT_TRUE(recorder.offer({1, 100, 1, 100, 100, "a"}));
  EXPECT_TRUE(recorder.offer({1, 101, 1, 100, 100, "b"}));
  EXPECT_FALSE(recorder.isPartial());
  EXPECT_FALSE(recorder.offer({1, 101, 1, 100, 100, "b"})) << "unchanged: not a new row";
  EXPECT_FALSE(recorder.isPartial());
  EXPECT_FALSE(recorder.offer({1, 102, 1, 100, 100, "c"}));
  EXPECT_TRUE(recorder.isPartial());
  EXPECT_EQ(recorder.recordedCount(), 2u);
  EXPECT_EQ(sink.rows.size(), 2u);
}

// Synthetic processes for the tracker: what /proc would show right now.
class FakeProc final : public ProcReader {
 public:
  kj::Maybe<ProcStat> stat(pid_t pid) override {
    auto found = processes.find(pid);
    if (found == processes.end()) return nullptr;
    return found->second.first;
  }
  kj::Maybe<std::string> command(pid_t pid) override {
    auto found = processes.find(pid);
    if (found == processes.end()) return nullptr;
    return found->second.second;
  }
  void set(pid_t pid, pid_t ppid, pid_t pgid, pid_t sid, std::string command, char state = 'S') {
    processes[pid] = {ProcStat{pid, state, ppid, pgid, sid, 1, "comm"}, kj::mv(command)};
  }
  void remove(pid_t pid) { processes.erase(pid); }
  std::map<pid_t, std::pair<ProcStat, std::string>> processes;
};

constexpr pid_t ROOT = 5000000;
constexpr pid_t CHILD = 5000001;
constexpr pid_t GRANDCHILD = 5000002;
constexpr pid_t STRANGER = 5000100;

ProcEvent event(ProcEvent::Kind kind, uint64_t at, pid_t pid, pid_t parent = 0) {
  return ProcEvent{kind, at, pid, parent, 0};
}

TEST(SamplerEventTracker, FollowsTheRootsDescendantsOnly) {
  Rows sink;
  SampleRecorder recorder(100, sink);
  FakeProc proc;
  EventTracker tracker(
      ROOT, recorder, []() { return std::vector<pid_t>(); }, proc);
  tracker.handle(event(ProcEvent::EXIT, 1, ROOT));         // an older process with the root's pid
  tracker.handle(event(ProcEvent::FORK, 2, CHILD, ROOT));  // not yet the root's child
  EXPECT_TRUE(sink.rows.empty());
  EXPECT_FALSE(tracker.hasRoot());

  proc.set(ROOT, 77, 77, 77, "launcher");
  tracker.handle(event(ProcEvent::FORK, 3, ROOT, 77));  // the root is born: no row yet
  proc.set(ROOT, 77, ROOT, ROOT, "launcher");
  tracker.handle(event(ProcEvent::SID, 4, ROOT));  // the launcher's setsid: no row either
  EXPECT_TRUE(tracker.hasRoot());
  EXPECT_TRUE(sink.rows.empty());
  proc.set(ROOT, 77, ROOT, ROOT, "/bin/sh -c job");
  tracker.handle(event(ProcEvent::EXEC, 5, ROOT));
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0], (ProcessRecord{5, ROOT, 77, ROOT, ROOT, "/bin/sh -c job"}));

  tracker.handle(event(ProcEvent::FORK, 6, STRANGER, 12));  // someone else's child
  tracker.handle(event(ProcEvent::FORK, 7, CHILD, ROOT));   // gone before /proc was read
  proc.set(CHILD, ROOT, ROOT, ROOT, "/bin/sh -c job");
  proc.set(GRANDCHILD, CHILD, ROOT, ROOT, "/bin/sh -c job");
  tracker.handle(event(ProcEvent::FORK, 8, GRANDCHILD, CHILD));
  proc.set(GRANDCHILD, CHILD, ROOT, ROOT, "daemon --flag");
  tracker.handle(event(ProcEvent::EXEC, 9, GRANDCHILD));
  tracker.handle(event(ProcEvent::SID, 10, GRANDCHILD));
  tracker.handle(event(ProcEvent::EXIT, 11, STRANGER));
  tracker.handle(event(ProcEvent::EXIT, 12, GRANDCHILD));
  ASSERT_EQ(sink.rows.size(), 5u);
  // A fork copies its parent: command and ids are the parent's.
  EXPECT_EQ(sink.rows[1], (ProcessRecord{7, CHILD, ROOT, ROOT, ROOT, "/bin/sh -c job"}));
  EXPECT_EQ(sink.rows[2], (ProcessRecord{8, GRANDCHILD, CHILD, ROOT, ROOT, "/bin/sh -c job"}));
  EXPECT_EQ(sink.rows[3], (ProcessRecord{9, GRANDCHILD, CHILD, ROOT, ROOT, "daemon --flag"}));
  EXPECT_EQ(sink.rows[4],
            (ProcessRecord{10, GRANDCHILD, CHILD, GRANDCHILD, GRANDCHILD, "daemon --flag"}));
  // Its exit is no row (A15: never an empty command), but it is no longer tracked.
  EXPECT_FALSE(tracker.isTracked(GRANDCHILD));

  // The grandchild's pid recycled by a stranger's fork is not the capture's.
  tracker.handle(event(ProcEvent::FORK, 13, GRANDCHILD, STRANGER));
  EXPECT_FALSE(tracker.isTracked(GRANDCHILD));
  EXPECT_EQ(sink.rows.size(), 5u);
  EXPECT_FALSE(recorder.isPartial());
}

TEST(SamplerEventTracker, AnExecThatRacedItsExitKeepsWhatCanBeKnown) {
  Rows sink;
  SampleRecorder recorder(100, sink);
  FakeProc proc;
  EventTracker tracker(
      ROOT, recorder, []() { return std::vector<pid_t>(); }, proc);
  proc.set(ROOT, 77, ROOT, ROOT, "/bin/sh");
  tracker.handle(event(ProcEvent::FORK, 1, ROOT, 77));
  tracker.handle(event(ProcEvent::EXEC, 2, ROOT));
  tracker.handle(event(ProcEvent::FORK, 3, CHILD, ROOT));
  // Exited, not yet reaped: argv is gone, the kernel's short name is not.
  proc.set(CHILD, ROOT, ROOT, ROOT, "", 'Z');
  tracker.handle(event(ProcEvent::EXEC, 4, CHILD));
  ASSERT_EQ(sink.rows.size(), 3u);
  EXPECT_EQ(sink.rows[2].command, "[comm]");
  EXPECT_FALSE(recorder.isPartial());
  // Reaped before we looked: the exec's command is lost, and counted (not partial).
  EXPECT_EQ(recorder.unreadCommandCount(), 0u);
  proc.remove(CHILD);
  tracker.handle(event(ProcEvent::EXEC, 5, CHILD));
  EXPECT_EQ(sink.rows.size(), 3u);
  EXPECT_EQ(recorder.unreadCommandCount(), 1u);
  EXPECT_FALSE(recorder.isPartial());
}

TEST(SamplerEventTracker, AnExecReadAfterTheNextExecIsLostNotMisnamed) {
  // `sh -c 'exec /bin/echo quick'` read late: /proc already shows echo for the shell's exec.
  Rows sink;
  SampleRecorder recorder(100, sink);
  FakeProc proc;
  std::vector<ProcEvent> queue;  // what is read but not yet handled, as the observer holds it
  size_t next = 0;
  EventTracker tracker(
      ROOT, recorder, []() { return std::vector<pid_t>(); }, proc,
      [&](pid_t pid) {
        for (size_t i = next; i < queue.size(); ++i) {
          if (queue[i].kind == ProcEvent::EXEC && queue[i].pid == pid) return true;
        }
        return false;
      });
  proc.set(ROOT, 77, ROOT, ROOT, "/bin/echo quick");
  queue = {event(ProcEvent::FORK, 1, ROOT, 77), event(ProcEvent::EXEC, 2, ROOT),
           event(ProcEvent::EXEC, 3, ROOT)};
  while (next < queue.size())
    tracker.handle(queue[next++]);
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0], (ProcessRecord{3, ROOT, 77, ROOT, ROOT, "/bin/echo quick"}));
  EXPECT_EQ(recorder.unreadCommandCount(), 1u) << "what the shell ran is lost, and counted";
  EXPECT_FALSE(recorder.isPartial());
}

TEST(SamplerEventTracker, ACommandReadKernelSideNeedsNoProc) {
  // Kernel-side exec observation (exec-notifier.h) read argv while the caller was paused: the
  // program may be reaped, or have exec'd again, before its event is handled.
  Rows sink;
  SampleRecorder recorder(100, sink);
  FakeProc proc;
  std::map<pid_t, std::string> notified;
  EventTracker tracker(
      ROOT, recorder, []() { return std::vector<pid_t>(); }, proc, [](pid_t) { return true; },
      [&](pid_t pid) -> kj::Maybe<std::string> {
        auto found = notified.find(pid);
        if (found == notified.end()) return nullptr;
        std::string command = found->second;
        notified.erase(found);
        return command;
      });
  proc.set(ROOT, 77, ROOT, ROOT, "/bin/sh");
  tracker.handle(event(ProcEvent::FORK, 1, ROOT, 77));
  notified[ROOT] = "/bin/sh -c job";
  tracker.handle(event(ProcEvent::EXEC, 2, ROOT));
  tracker.handle(event(ProcEvent::FORK, 3, CHILD, ROOT));
  proc.remove(CHILD);  // reaped before its exec event was handled
  notified[CHILD] = "/bin/true 42";
  tracker.handle(event(ProcEvent::EXEC, 4, CHILD));
  ASSERT_EQ(sink.rows.size(), 3u);
  EXPECT_EQ(sink.rows[0].command, "/bin/sh -c job") << "not /proc's later view";
  EXPECT_EQ(sink.rows[2], (ProcessRecord{4, CHILD, ROOT, ROOT, ROOT, "/bin/true 42"}));
  EXPECT_EQ(recorder.unreadCommandCount(), 0u);
  // Without a notification the /proc path decides as before (here: a later exec is queued).
  tracker.handle(event(ProcEvent::EXEC, 5, ROOT));
  EXPECT_EQ(sink.rows.size(), 3u);
  EXPECT_EQ(recorder.unreadCommandCount(), 1u);
}

TEST(SamplerEventTracker, ALiveProcessWithoutArgvIsBetweenTwoExecs) {
  Rows sink;
  SampleRecorder recorder(100, sink);
  FakeProc proc;
  EventTracker tracker(
      ROOT, recorder, []() { return std::vector<pid_t>(); }, proc);
  proc.set(ROOT, 77, ROOT, ROOT, "/bin/sh");
  tracker.handle(event(ProcEvent::FORK, 1, ROOT, 77));
  tracker.handle(event(ProcEvent::EXEC, 2, ROOT));
  proc.set(CHILD, ROOT, ROOT, ROOT, "/bin/sh");
  tracker.handle(event(ProcEvent::FORK, 3, CHILD, ROOT));
  ASSERT_EQ(sink.rows.size(), 2u);
  // Its next exec has new memory but no arguments yet: no row (an empty command would read as
  // an exit), and the exec is counted as unread.
  proc.set(CHILD, ROOT, ROOT, ROOT, "", 'R');
  tracker.handle(event(ProcEvent::EXEC, 4, CHILD));
  EXPECT_EQ(sink.rows.size(), 2u);
  EXPECT_EQ(recorder.unreadCommandCount(), 1u);
  EXPECT_TRUE(tracker.isTracked(CHILD));
}

TEST(SamplerEventTracker, AnOverrunResynchronisesFromTheCgroup) {
  Rows sink;
  SampleRecorder recorder(100, sink);
  FakeProc proc;
  std::vector<pid_t> members;
  EventTracker tracker(
      ROOT, recorder, [&members]() { return members; }, proc);
  proc.set(ROOT, 77, ROOT, ROOT, "/bin/sh");
  tracker.handle(event(ProcEvent::FORK, 1, ROOT, 77));
  tracker.handle(event(ProcEvent::EXEC, 2, ROOT));
  tracker.handle(event(ProcEvent::FORK, 3, CHILD, ROOT));
  ASSERT_EQ(sink.rows.size(), 2u);
  // While events were lost the child exited and a grandchild (reparented) appeared.
  members = {ROOT, GRANDCHILD};
  proc.remove(CHILD);
  proc.set(GRANDCHILD, 1, ROOT, ROOT, "sleep 9");
  tracker.handle(event(ProcEvent::OVERRUN, 4, 0));
  EXPECT_TRUE(recorder.isPartial());
  EXPECT_FALSE(tracker.isTracked(CHILD));
  EXPECT_TRUE(tracker.isTracked(GRANDCHILD));
  ASSERT_EQ(sink.rows.size(), 3u);  // the child's exit is no row (A15)
  EXPECT_EQ(sink.rows[2], (ProcessRecord{4, GRANDCHILD, 1, ROOT, ROOT, "sleep 9"}));
}

}  // namespace
}  // namespace rea::helper
