#include "supervisor/links/sampler-batch.h"

#include "supervisor/links/helper-message.h"

namespace rea::supervisor {

namespace {

const size_t MAX_COMMAND_BYTES = 4 * 1024 * 1024;  // above any ARG_MAX cmdline
}  // namespace

kj::Maybe<BrokenRule> SamplerStreamCheck::push(
    kj::FunctionParam<schema::SamplerSink::PushParams::Reader()> readParams, uint64_t nowNs,
    SamplerRecord& record) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto params = readParams();
    auto samples = params.getSamples();
    if (record.streamDone) return BrokenRule{"samples after done"};
    if (samples.size() > MAX_BATCH_EVENTS) return BrokenRule{"a batch of more than 4096 samples"};
    for (auto sample : samples) {
      uint64_t atNs = sample.getAtNs();
      if (atNs < lastAtNs) return BrokenRule{"sample times go back"};
      if (atNs > nowNs) return BrokenRule{"a sample time in the future"};
      lastAtNs = atNs;
      if (record.samples.size() >= maxProcesses) return BrokenRule{"more samples than the limit"};
      RawProcessRow row;
      row.atNs = atNs;
      row.pid = sample.getPid();
      row.parentPid = sample.getParentPid();
      int32_t pgid = sample.getProcessGroupId();
      int32_t sid = sample.getSessionId();
      if (row.pid < 1 || row.parentPid < 0 || pgid < -1 || sid < -1) {
        return BrokenRule{"a process id out of range"};
      }
      if (pgid >= 0) row.processGroupId = pgid;
      if (sid >= 0) row.sessionId = sid;
      auto command = sample.getCommand();
      if (command.size() > MAX_COMMAND_BYTES)
        return BrokenRule{"a command longer than any cmdline"};
      row.command.assign(reinterpret_cast<const char*>(command.begin()), command.size());
      record.samples.push_back(kj::mv(row));
    }
    return nullptr;
  });
}

kj::Maybe<BrokenRule> SamplerStreamCheck::done(
    kj::FunctionParam<schema::SamplerSink::DoneParams::Reader()> readParams,
    SamplerRecord& record) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto params = readParams();
    if (record.streamDone) return BrokenRule{"done twice"};
    if (params.getRecordedCount() != record.samples.size())
      return BrokenRule{"done with a wrong sample count"};
    record.streamDone = true;
    record.partial = params.getPartial();
    record.unreadCommands = params.getUnreadCommands();
    switch (params.getExecObservation()) {
      case schema::ExecObservation::NONE:
        record.execObservation = "";
        break;
      case schema::ExecObservation::PROCFS:
        record.execObservation = "procfs";
        break;
      case schema::ExecObservation::SECCOMP_NOTIFY:
        record.execObservation = "seccomp_notify";
        break;
      default:
        return BrokenRule{"an unknown exec observation"};
    }
    record.execProblem = params.getExecProblem();
    record.pidsLimitHits = params.getPidsLimitHits();
    return nullptr;
  });
}

}  // namespace rea::supervisor
