#include "helpers/sampler/server.h"

#include <sys/stat.h>

#include <kj/debug.h>

#include "evidence/limits.h"
#include "helpers/common/event-sink.h"
#include "helpers/common/exec-channel.h"
#include "helpers/common/system/capture-cgroup.h"
#include "helpers/sampler/pids-bound.h"
#include "helpers/sampler/process-observer.h"
#include "helpers/sampler/seccomp-policy.h"
#include "helpers/sampler/standalone.h"
#include "schema/sampler.capnp.h"

namespace rea::helper {

namespace {

kj::ArrayPtr<const kj::byte> bytesOf(const std::string& text) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text.data()), text.size());
}

void findingToSchema(const ProcessFinding& finding, schema::Finding::Builder out) {
  out.setPid(finding.pid);
  out.setParentPid(finding.ppid);
  out.setProcessGroupId(finding.pgid);
  out.setSessionId(finding.sid);
  out.setCommand(bytesOf(finding.command));
  out.setWithoutRunToken(finding.ownership != Ownership::OWNED);
  switch (finding.escape) {
    case Escape::NONE:
      out.setEscape(schema::Finding::Escape::NONE);
      break;
    case Escape::NEW_GROUP:
      out.setEscape(schema::Finding::Escape::NEW_GROUP);
      break;
    case Escape::NEW_SESSION:
      out.setEscape(schema::Finding::Escape::NEW_SESSION);
      break;
    case Escape::OUTSIDE:
      out.setEscape(schema::Finding::Escape::OUTSIDE);
      break;
  }
}

schema::ExecObservation execObservationToSchema(ExecObservation observation) {
  switch (observation) {
    case ExecObservation::NONE:
      return schema::ExecObservation::NONE;
    case ExecObservation::PROCFS:
      return schema::ExecObservation::PROCFS;
    case ExecObservation::SECCOMP_NOTIFY:
      return schema::ExecObservation::SECCOMP_NOTIFY;
  }
  KJ_UNREACHABLE;
}

schema::Settlement::State settlementState(Settlement::State state) {
  switch (state) {
    case Settlement::State::QUIESCED:
      return schema::Settlement::State::QUIESCED;
    case Settlement::State::ALIVE_AT_DEADLINE:
      return schema::Settlement::State::ALIVE_AT_DEADLINE;
    case Settlement::State::UNVERIFIABLE:
      return schema::Settlement::State::UNVERIFIABLE;
  }
  KJ_UNREACHABLE;
}

class SamplerJobServer final : public schema::SamplerJob::Server,
                               public ProcessSink,
                               private kj::TaskSet::ErrorHandler {
 public:
  SamplerJobServer(HelperContext& context, ObserverConfig config, uint32_t maxPids)
      : context(context),
        runToken(config.runToken),
        observer(kj::mv(config), context.io.provider->getTimer(), context.io.unixEventPort, *this),
        tasks(*this) {
    boundPids(maxPids);
  }

  ProcessObserver& job() { return observer; }
  kj::Maybe<PidsBound&> pidsBound() {
    KJ_IF_MAYBE (bound, pids) {
      return **bound;
    }
    return nullptr;
  }
  const std::string& pidsUnbounded() const { return pidsWhyNot; }

  // implements ProcessSink ---------------------------------------------------------------

  void record(const ProcessRecord& row) override {
    KJ_IF_MAYBE (b, batches) {
      (*b)->add(row, row.command.size() + 32);
    } else {
      early.push_back(row);  // exact mode records from the root's fork on, before start()
    }
  }

  // implements schema::SamplerJob::Server -------------------------------------------------

  kj::Promise<void> start(StartContext call) override {
    KJ_REQUIRE(!started, "start called twice");
    started = true;
    auto params = call.getParams();
    uint32_t root = params.getRootPid();
    KJ_REQUIRE(root > 0 && root <= uint32_t(INT32_MAX), "invalid root pid", root);
    sinkCap = params.getSink();
    auto sink = kj::heap<BatchingSink<ProcessRecord>>(
        context.io.provider->getTimer(),
        [this](kj::Array<ProcessRecord> batch) { return push(kj::mv(batch)); });
    tasks.add(sink->whenFailed());
    for (auto& row : early)
      sink->add(row, row.command.size() + 32);
    early.clear();
    batches = kj::mv(sink);
    observer.start(pid_t(root));
    runStarted();  // test-only
    return kj::READY_NOW;
  }

  kj::Promise<void> settle(SettleContext call) override {
    KJ_REQUIRE(started && !settled, "settle needs a started job and is single use");
    settled = true;
    faultPoint(FaultMoment::SETTLE);  // test-only
    return observer.settle(call.getParams().getSettleMs()).then([call](Settlement s) mutable {
      auto out = call.getResults().initSettlement();
      // test-only: a malformed answer carries a state the schema does not know
      out.setState(takeMalformed() ? schema::Settlement::State(7) : settlementState(s.state));
      out.setElapsedMs(s.elapsedMs);
      out.setProblem(s.problem);
    });
  }

  kj::Promise<void> stop(StopContext call) override {
    KJ_REQUIRE(started && !stopped, "stop needs a started job and is single use");
    stopped = true;
    faultPoint(FaultMoment::STOP);  // test-only
    bool partial = observer.stop();
    uint32_t count = observer.recordedCount();
    uint32_t unread = observer.unreadCommandCount();
    auto& sink = *KJ_ASSERT_NONNULL(batches);
    return sink.end().then([this, call, partial, count, unread]() mutable {
      auto request = KJ_ASSERT_NONNULL(sinkCap).doneRequest();
      request.setPartial(partial);
      request.setUnreadCommands(unread);
      request.setExecObservation(execObservationToSchema(observer.execObservation()));
      request.setExecProblem(observer.execProblem());
      KJ_IF_MAYBE (bound, pids) {
        request.setPidsLimitHits((*bound)->limitHits());
      }
      request.setRecordedCount(count + takeMalformed());  // test-only: a wrong count
      return request.send().ignoreResult().then(
          [call, partial]() mutable { call.getResults().setPartial(partial); });
    });
  }

  kj::Promise<void> cleanup(CleanupContext call) override {
    KJ_REQUIRE(!cleanedUp, "cleanup is single use");
    KJ_REQUIRE(stopped || !started, "cleanup comes after stop");
    cleanedUp = true;
    return observer.cleanup().then([this, call](CleanupReport report) mutable {
      // Every member is gone now, so the v1 pids group (if any) can go; one that cannot (a
      // member still dying) is removed by the next capture's sweep (pids-bound.h).
      KJ_IF_MAYBE (bound, pids) {
        (*bound)->remove();
      }
      auto out = call.getResults().initReport();
      out.setComplete(report.complete);
      out.setProblem(report.problem);
      auto signalled = out.initSignalled(report.signalled.size());
      for (size_t i = 0; i < report.signalled.size(); ++i)
        findingToSchema(report.signalled[i], signalled[i]);
      auto unowned = out.initUnowned(report.unowned.size());
      for (size_t i = 0; i < report.unowned.size(); ++i)
        findingToSchema(report.unowned[i], unowned[i]);
      out.setUsedCgroupKill(report.usedCgroupKill);
      out.setCgroupRemoved(report.cgroupRemoved);
    });
  }

 private:
  HelperContext& context;
  kj::Maybe<schema::SamplerSink::Client> sinkCap;
  kj::Maybe<kj::Own<BatchingSink<ProcessRecord>>> batches;
  std::vector<ProcessRecord> early;  // recorded before start() brought the sink
  std::string runToken;
  // Before `observer`: destroyed after it (its cgroup's last-resort kill empties this group).
  kj::Maybe<kj::Own<PidsBound>> pids;
  std::string pidsWhyNot;
  ProcessObserver observer;  // after `batches`: destroyed first, it records into them
  bool started = false;
  bool settled = false;
  bool stopped = false;
  bool cleanedUp = false;
  kj::TaskSet tasks;

  void boundPids(uint32_t maxPids) {
    if (maxPids == 0) {
      pidsWhyNot = "no bound was asked for (REA_PROCESS_MAX_PIDS)";
      return;
    }
    KJ_IF_MAYBE (group, observer.cgroup()) {
      auto applied = PidsBound::apply(group->path(), runToken, maxPids);
      if (applied.is<std::string>()) {
        pidsWhyNot = kj::mv(applied.get<std::string>());
      } else {
        pids = kj::mv(applied.get<kj::Own<PidsBound>>());
      }
    } else {
      pidsWhyNot = "no capture cgroup (" + observer.sampledReason() + ")";
    }
  }

  kj::Promise<void> push(kj::Array<ProcessRecord> batch) {
    auto request = KJ_ASSERT_NONNULL(sinkCap).pushRequest();
    auto samples = request.initSamples(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      auto& row = batch[i];
      auto out = samples[i];
      out.setAtNs(row.atNs);
      out.setPid(row.pid);
      out.setParentPid(row.ppid);
      out.setProcessGroupId(row.pgid ? *row.pgid : -1);
      out.setSessionId(row.sid ? *row.sid : -1);
      out.setCommand(bytesOf(row.command));
    }
    if (takeMalformed()) samples[0].setPid(0);  // test-only: a process id no process has
    return request.send();
  }

  void taskFailed(kj::Exception&& exception) override { context.fail(kj::mv(exception)); }
};

bool isValidRunToken(const std::string& token) {
  // A lowercase hyphenated UUID: it names the capture cgroup directory, so nothing else (no
  // '/', no "..") may pass.
  if (token.size() != 36) return false;
  for (size_t i = 0; i < token.size(); ++i) {
    char c = token[i];
    bool hyphen = i == 8 || i == 13 || i == 18 || i == 23;
    if (hyphen ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

ObserverConfig configFromSchema(schema::SamplerConfig::Reader config) {
  ObserverConfig result;
  result.runToken = config.getRunToken();
  KJ_REQUIRE(isValidRunToken(result.runToken), "the run token is not a lowercase UUID");
  result.maxProcesses = config.getMaxProcesses();
  KJ_REQUIRE(evidence::limit::PROCESSES.contains(result.maxProcesses), "maxProcesses out of range",
             result.maxProcesses);
  result.forceSampled = config.getForceSampled();
  result.execNotify = config.getExecNotify();
  // The exec channel the supervisor passed (helpers/common/exec-channel.h), if it did.
  struct stat channel;
  if (result.execNotify && fstat(EXEC_CHANNEL_FD, &channel) == 0 && S_ISSOCK(channel.st_mode)) {
    result.execChannel = EXEC_CHANNEL_FD;
  }
  return result;
}

class SamplerServer final : public schema::Sampler::Server {
 public:
  explicit SamplerServer(HelperContext& context) : context(context) {
    runStartsLater();  // test-only: mid-run counts from the job's start (the target launched)
  }

  kj::Promise<void> prepare(PrepareContext call) override {
    KJ_REQUIRE(!prepared, "prepare called twice");
    prepared = true;
    faultPoint(FaultMoment::START);  // test-only
    auto config = call.getParams().getConfig();
    auto job = kj::heap<SamplerJobServer>(context, configFromSchema(config), config.getMaxPids());
    // The cgroup exists and the proc connector is subscribed: nothing else needs privileges.
    context.lockDown();
    auto results = call.getResults();
    auto& observer = job->job();
    results.setMode(observer.mode() == ObservationMode::EXACT ? schema::ObservationMode::EXACT
                                                              : schema::ObservationMode::SAMPLED);
    if (takeMalformed()) results.setMode(schema::ObservationMode(7));  // test-only: unknown enum
    KJ_IF_MAYBE (group, observer.cgroup()) {
      results.setCgroupPath(bytesOf(group->path()));
    }
    results.setSampledReason(observer.sampledReason());
    results.setExecNotify(observer.execNotifyOffered());
    KJ_IF_MAYBE (bound, job->pidsBound()) {
      results.setMaxPids(bound->maxPids());
      results.setPidsGroupPath(bytesOf(bound->joinPath()));
    } else {
      results.setPidsUnbounded(job->pidsUnbounded());
    }
    results.setJob(kj::mv(job));
    return kj::READY_NOW;
  }

 private:
  HelperContext& context;
  bool prepared = false;
};

}  // namespace

HelperSpec samplerHelperSpec() {
  HelperSpec spec;
  spec.name = "sampler";
  spec.policy = []() { return samplerSeccompPolicy(); };
  spec.lockDownAtStart = false;
  spec.makeServer = [](HelperContext& context) -> capnp::Capability::Client {
    return kj::heap<SamplerServer>(context);
  };
  spec.runStandalone = [](HelperContext& context, const evidence::Json& request, JsonLines& out) {
    return runSamplerStandalone(context, request, out);
  };
  return spec;
}

}  // namespace rea::helper
