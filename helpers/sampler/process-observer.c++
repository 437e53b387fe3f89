#include "helpers/sampler/process-observer.h"

#include <sched.h>

#include <map>
#include <vector>

#include <kj/debug.h>

#include "helpers/common/clock.h"
#include "helpers/common/system/capture-cgroup.h"
#include "helpers/common/system/cgroup-mounts.h"
#include "helpers/sampler/event-tracker.h"
#include "helpers/sampler/exec-notifier.h"
#include "helpers/sampler/proc-connector.h"
#include "helpers/sampler/process-walker.h"

namespace rea::helper {
namespace {

constexpr uint64_t SAMPLE_INTERVAL_NS = 50000000;  // B §6.8
// Exact mode: events handled per turn of the event loop, and the most read ahead of handling.
constexpr size_t MAX_EVENTS_PER_DRAIN = 4096;
constexpr size_t MAX_UNHANDLED_EVENTS = 65536;

}  // namespace

// Forwards rows to the caller's sink and remembers the groups recorded processes lead, with
// the leader's start time (read while the row is fresh: a live process's row has a command),
// so that a group whose leader pid was recycled can be told apart (GroupScope).
class ProcessObserver::LeaderSink final : public ProcessSink {
 public:
  explicit LeaderSink(ProcessSink& next) : next(next) {}
  void record(const ProcessRecord& record) override {
    if (record.pgid == record.pid) {
      uint64_t& startTime = leaders[record.pid];  // 0 = unknown: the group is kept
      if (!record.command.empty()) {
        KJ_IF_MAYBE (stat, readStat(record.pid)) {
          startTime = stat->startTime;
        }
      }
    }
    next.record(record);
  }
  ProcessSink& next;
  std::map<pid_t, uint64_t> leaders;
};

// Raises the calling thread to SCHED_FIFO for its lifetime and restores the previous policy.
class ProcessObserver::RealtimeBoost {
 public:
  RealtimeBoost() {
    previousPolicy = sched_getscheduler(0);
    if (previousPolicy < 0 || sched_getparam(0, &previousParam) != 0) return;
    struct sched_param param = {};
    param.sched_priority = 10;
    active = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) == 0;
  }
  ~RealtimeBoost() noexcept(false) {
    if (active) sched_setscheduler(0, previousPolicy, &previousParam);
  }
  KJ_DISALLOW_COPY(RealtimeBoost);

 private:
  int previousPolicy = -1;
  struct sched_param previousParam = {};
  bool active = false;
};

const char* observationModeName(ObservationMode mode) {
  switch (mode) {
    case ObservationMode::EXACT:
      return "exact";
    case ObservationMode::SAMPLED:
      return "sampled";
  }
  KJ_UNREACHABLE;
}

ProcessObserver::ProcessObserver(ObserverConfig configParam, kj::Timer& timer,
                                 kj::UnixEventPort& eventPort, ProcessSink& sink)
    : config(kj::mv(configParam)),
      timer(timer),
      eventPort(eventPort),
      leaderSink(kj::heap<LeaderSink>(sink)),
      recorder(config.maxProcesses, *leaderSink) {
  KJ_REQUIRE(!config.runToken.empty(), "a capture needs a run token");
  kj::AutoCloseFd execChannel;
  if (config.execChannel >= 0) execChannel = kj::AutoCloseFd(config.execChannel);
  config.execChannel = -1;
  if (config.forceSampled) {
    whySampled = "sampling forced";  // the baseline's behaviour: no exec observation either
    return;
  }
  KJ_ON_SCOPE_SUCCESS(if (config.execNotify) startExecNotifier(kj::mv(execChannel)));
  auto made = CaptureCgroup::create(config.runToken);
  if (made.is<std::string>()) {
    whySampled = made.get<std::string>();
    return;
  }
  group = kj::mv(made.get<kj::Own<CaptureCgroup>>());
  auto subscribed = ProcConnector::subscribe();
  if (subscribed.is<std::string>()) {
    whySampled = subscribed.get<std::string>();
  } else {
    connector = kj::mv(subscribed.get<kj::Own<ProcConnector>>());
    exact = true;
    KJ_IF_MAYBE (mount, findCgroup2Mount()) {
      if (group->path().compare(0, mount->size(), *mount) == 0) {
        cgroupRelativePath = group->path().substr(mount->size());
        if (cgroupRelativePath.empty() || cgroupRelativePath[0] != '/') {
          cgroupRelativePath = "/" + cgroupRelativePath;
        }
      }
    }
    connectorWatch = kj::heap<kj::UnixEventPort::FdObserver>(
        eventPort, connector->fd(), kj::UnixEventPort::FdObserver::OBSERVE_READ);
    if (config.realtimeEvents) boost = kj::heap<RealtimeBoost>();
    observation = followEvents().eagerlyEvaluate([this](kj::Exception&& exception) {
      KJ_LOG(ERROR, "process event observation failed; samples are partial", exception);
      recorder.markPartial();
    });
  }
}

bool ProcessObserver::bornInCaptureCgroup(pid_t pid) {
  if (cgroupRelativePath.empty()) return false;
  auto read = readProcFile("/proc/" + std::to_string(pid) + "/cgroup");
  if (read.status != ProcRead::OK) return false;
  std::string wanted = "0::" + cgroupRelativePath + "\n";
  return read.text.find(wanted) != std::string::npos;
}

bool ProcessObserver::launchedFromOutside(pid_t parentPid) {
  // The launcher lives outside the capture cgroup for the whole capture; a parent we cannot
  // read is not proof (a root that forked and died at once looks like that to its child).
  auto read = readProcFile("/proc/" + std::to_string(parentPid) + "/cgroup");
  if (read.status != ProcRead::OK) return false;
  return read.text.find("0::" + cgroupRelativePath + "\n") == std::string::npos;
}

void ProcessObserver::handleEvent(const ProcEvent& event) {
  if (!started) {
    if (history.size() < 100000) {
      history.push_back(event);
    } else {
      historyOverflow = true;
    }
  }
  if (tracker.get() == nullptr) {
    if (event.kind != ProcEvent::FORK || started || !bornInCaptureCgroup(event.pid) ||
        !launchedFromOutside(event.parentPid)) {
      return;  // kept in `history` for start()
    }
    // The first process born in the fresh capture cgroup from outside it is the root
    // (launcher contract); start() checks the guess.
    rootPid = event.pid;
    tracker = makeTracker();
  }
  tracker->handle(event);
}

ProcessObserver::~ProcessObserver() noexcept(false) {
  notifier = nullptr;  // first: its callback uses the members below
  observation = nullptr;
  boost = nullptr;
  connectorWatch = nullptr;
  cgroupWatch = nullptr;
}

kj::Maybe<CaptureCgroup&> ProcessObserver::cgroup() {
  if (group.get() == nullptr) return nullptr;
  return *group;
}

void ProcessObserver::start(pid_t root) {
  KJ_REQUIRE(!started && !stopped, "start() is single use and comes before stop()");
  KJ_REQUIRE(root > 0, "the root pid must be positive", root);
  started = true;
  if (connector.get() != nullptr) {
    if (tracker.get() != nullptr && rootPid == root) {
      history.clear();
      return;
    }
    // The root's fork was not identified live (it left before we looked), or under load the
    // guess was wrong (another process of the group was read first): follow the launcher's
    // root from what came before start(), replayed through the pending queue so that each exec
    // sees what followed it. Rows a wrong guess recorded are genuine descendants' rows; the
    // recorder keeps the row times non-decreasing.
    rootPid = root;
    tracker = makeTracker();
    if (historyOverflow) recorder.markPartial();
    // They precede whatever a flood left unhandled (drains handle a bounded share per turn).
    auto replay = kj::mv(history);
    history.clear();
    for (auto& event : replay) {
      if (event.kind == ProcEvent::EXEC) --execsHandled[event.pid];  // handled again below
    }
    pending.insert(pending.begin() + static_cast<ptrdiff_t>(nextPending), replay.begin(),
                   replay.end());
    countPendingExecs(nextPending, nextPending + replay.size());
    while (nextPending < pending.size()) {
      handlePending(MAX_EVENTS_PER_DRAIN);
    }
  } else {
    rootPid = root;
    for (auto& row : sampledExecsBeforeStart)
      recorder.offerUnfiltered(row);
    sampledExecsBeforeStart.clear();
    walker = kj::heap<ProcessWalker>(rootPid, config.runToken, config.maxProcesses, recorder);
    observation = samplePasses().eagerlyEvaluate([this](kj::Exception&& exception) {
      KJ_LOG(ERROR, "process sampling failed; samples are partial", exception);
      recorder.markPartial();
    });
  }
}

kj::Own<EventTracker> ProcessObserver::makeTracker() {
  CaptureCgroup& cgroupRef = *group;
  return kj::heap<EventTracker>(
      rootPid, recorder, [&cgroupRef]() { return cgroupRef.members(); }, liveProcReader(),
      [this](pid_t pid) { return laterExecQueued(pid); },
      [this](pid_t pid) { return takeNotifiedCommand(pid); });
}

void ProcessObserver::countPendingExecs(size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    if (pending[i].kind == ProcEvent::EXEC) ++pendingExecs[pending[i].pid];
  }
}

void ProcessObserver::readConnector() {
  size_t before = pending.size();
  queueEmpty = connector->readAvailable(pending);
  countPendingExecs(before, pending.size());
  for (size_t i = before; i < pending.size(); ++i) {
    if (pending[i].kind == ProcEvent::EXEC) ++execsRead[pending[i].pid];
  }
}

bool ProcessObserver::laterExecQueued(pid_t pid) {
  // Called right after /proc was read for an exec: whatever the kernel queued up to now counts.
  // (Far behind, the backlog is not grown further: the kernel's queue waits for the next drain.)
  if (connector.get() != nullptr && pending.size() - nextPending < MAX_UNHANDLED_EVENTS) {
    readConnector();
  }
  auto found = pendingExecs.find(pid);
  return found != pendingExecs.end() && found->second > 0;
}

void ProcessObserver::handlePending(size_t budget) {
  // Handling may read more (laterExecQueued): index, and copy each event out first.
  for (size_t handled = 0; handled < budget && nextPending < pending.size(); ++handled) {
    ProcEvent event = pending[nextPending++];
    if (event.kind == ProcEvent::EXEC) {
      auto found = pendingExecs.find(event.pid);
      if (found != pendingExecs.end() && --found->second == 0) pendingExecs.erase(found);
      ++execsHandled[event.pid];
    }
    handleEvent(event);
    if (event.kind == ProcEvent::EXEC) forgetSettledExecCounts(event.pid);
  }
  if (nextPending == pending.size()) {
    pending.clear();
    nextPending = 0;
  } else if (nextPending > pending.size() / 2) {
    pending.erase(pending.begin(), pending.begin() + static_cast<ptrdiff_t>(nextPending));
    nextPending = 0;
  }
}

bool ProcessObserver::drainEvents() {
  if (pending.size() - nextPending < MAX_UNHANDLED_EVENTS) readConnector();
  // A bounded share per turn: the caller yields to the event loop (RPC, timers) in between.
  handlePending(MAX_EVENTS_PER_DRAIN);
  return queueEmpty && nextPending == pending.size();
}

kj::Promise<void> ProcessObserver::followEvents() {
  // Readiness is edge-triggered: wait only once the queue has been read empty.
  if (!drainEvents()) return kj::evalLater([this]() { return followEvents(); });
  return connectorWatch->whenBecomesReadable().then([this]() { return followEvents(); });
}

kj::Promise<void> ProcessObserver::samplePasses() {
  uint64_t passStartNs = monotonicNowNs();
  walker->pass(passStartNs);
  return sleepUntilNs(timer, passStartNs + SAMPLE_INTERVAL_NS).then([this]() {
    return samplePasses();
  });
}

kj::Promise<void> ProcessObserver::whenCgroupChanges() {
  // A change since the last look counts at once; after the drain, the next change is an edge.
  if (group->drainEventsWatch()) return kj::READY_NOW;
  if (cgroupWatch.get() == nullptr) {
    cgroupWatch = kj::heap<kj::UnixEventPort::FdObserver>(
        eventPort, group->eventsWatchFd(), kj::UnixEventPort::FdObserver::OBSERVE_URGENT);
  }
  return cgroupWatch->whenUrgentDataAvailable();
}

CaptureScope& ProcessObserver::captureScope() {
  if (scope.get() == nullptr) {
    if (group.get() != nullptr) {
      scope = kj::heap<CgroupScope>(*group);
    } else {
      scope = kj::heap<GroupScope>(observedGroups(), leaderSink->leaders);
    }
  }
  return *scope;
}

kj::Promise<Settlement> ProcessObserver::settle(uint64_t settleMs) {
  KJ_REQUIRE(started, "settle() needs a started target");
  KJ_REQUIRE(!cleanedUp, "settle() after cleanup()");
  // A group scope is the groups known now; cleanup() builds its own from the groups known then.
  scope = nullptr;
  std::function<kj::Promise<void>()> changes;
  if (group.get() != nullptr) changes = [this]() { return whenCgroupChanges(); };
  return rea::helper::settle(timer, captureScope(), config.runToken, rootPid, settleMs,
                             kj::mv(changes));
}

bool ProcessObserver::stop() {
  if (stopped) return recorder.isPartial();
  stopped = true;
  observation = nullptr;  // exact mode observes from construction on, started or not
  if (connector.get() != nullptr && started) {
    KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() {
                   while (!drainEvents()) {
                   }
                 })) {
      KJ_LOG(ERROR, "draining process events failed; samples are partial", *exception);
      recorder.markPartial();
    }
  }
  connectorWatch = nullptr;
  connector = nullptr;  // unsubscribes: the kernel stops queueing events for us
  boost = nullptr;
  return recorder.isPartial();
}

kj::Promise<CleanupReport> ProcessObserver::cleanup() {
  KJ_REQUIRE(!cleanedUp, "cleanup() is single use");
  cleanedUp = true;
  stop();
  scope = nullptr;
  // Not every observed group may exist at settlement time; cleanup takes the final set.
  std::function<std::vector<pid_t>()> candidates;
  std::function<std::vector<pid_t>()> born;  // issue 18.4: known only from complete events
  if (tracker.get() != nullptr && !recorder.isPartial()) {
    EventTracker& trackerRef = *tracker;
    candidates = [&trackerRef]() { return trackerRef.trackedPids(); };
    born = candidates;
  } else {
    candidates = [token = config.runToken]() { return findTokenCarriers(token); };
  }
  auto promise = cleanupCapture(timer, captureScope(), config.runToken, rootPid, kj::mv(candidates),
                                kj::mv(born));
  return promise.then([this](CleanupReport report) {
    cgroupWatch = nullptr;
    return report;
  });
}

std::set<pid_t> ProcessObserver::observedGroups() const {
  std::set<pid_t> groups;
  for (const auto& leader : leaderSink->leaders)
    groups.insert(leader.first);
  if (rootPid > 0) groups.insert(rootPid);
  return groups;
}

}  // namespace rea::helper
