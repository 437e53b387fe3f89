#include "supervisor/sampler-stream-check.h"

#include "supervisor/owned-cleanup.h"

namespace rea::supervisor {

namespace {

const size_t MAX_COMMAND_BYTES = 4 * 1024 * 1024;  // above any ARG_MAX cmdline
const size_t MAX_BATCH = 4096;                     // the helper's BatchLimits::maxEvents

std::string textOf(capnp::Data::Reader data) {
  return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
}

}  // namespace

std::string preparedFrom(schema::Sampler::PrepareResults::Reader in, const SamplerPlan& plan,
                         SamplerPrepared& out) {
  out = SamplerPrepared();
  out.exact = in.getMode() == schema::ObservationMode::EXACT;
  out.cgroupPath = textOf(in.getCgroupPath());
  out.sampledReason = in.getSampledReason();
  if (!out.cgroupPath.empty() && !isCaptureCgroupPath(out.cgroupPath, plan.runToken)) {
    return "a cgroup path that is not the capture's";
  }
  if (out.exact && out.cgroupPath.empty()) return "exact mode without a capture cgroup";
  if (out.exact && plan.forceSampled) return "exact mode although sampling was forced";
  if (in.getMode() != schema::ObservationMode::EXACT &&
      in.getMode() != schema::ObservationMode::SAMPLED) {
    return "an unknown observation mode";
  }
  if (out.exact) out.sampledReason.clear();
  return {};
}

std::string settlementFrom(schema::Settlement::Reader in, SamplerSettlement& out) {
  switch (in.getState()) {
    case schema::Settlement::State::QUIESCED:
      out.state = SamplerSettlement::State::QUIESCED;
      break;
    case schema::Settlement::State::ALIVE_AT_DEADLINE:
      out.state = SamplerSettlement::State::ALIVE_AT_DEADLINE;
      break;
    case schema::Settlement::State::UNVERIFIABLE:
      out.state = SamplerSettlement::State::UNVERIFIABLE;
      break;
    default:
      return "an unknown settlement state";
  }
  out.elapsedMs = in.getElapsedMs();
  if (out.elapsedMs < 0) return "a negative settlement time";
  out.problem = in.getProblem();
  return {};
}

std::string SampleStreamCheck::batch(size_t size, const SamplerRecord& record) const {
  if (record.streamDone) return "samples after done";
  if (size > MAX_BATCH) return "a batch of more than 4096 samples";
  return {};
}

std::string SampleStreamCheck::sample(schema::ProcessSample::Reader in, uint64_t nowNs,
                                      SamplerRecord& record) {
  uint64_t atNs = in.getAtNs();
  if (atNs < lastAtNs) return "sample times go back";
  if (atNs > nowNs) return "a sample time in the future";
  lastAtNs = atNs;
  if (record.samples.size() >= maxProcesses) return "more samples than the limit";
  RawProcessRow row;
  row.atNs = atNs;
  row.pid = in.getPid();
  row.parentPid = in.getParentPid();
  int32_t pgid = in.getProcessGroupId();
  int32_t sid = in.getSessionId();
  if (row.pid < 1 || row.parentPid < 0 || pgid < -1 || sid < -1) {
    return "a process id out of range";
  }
  if (pgid >= 0) row.processGroupId = pgid;
  if (sid >= 0) row.sessionId = sid;
  auto command = in.getCommand();
  if (command.size() > MAX_COMMAND_BYTES) return "a command longer than any cmdline";
  row.command = textOf(command);
  record.samples.push_back(kj::mv(row));
  return {};
}

std::string SampleStreamCheck::done(bool partial, uint32_t recordedCount,
                                    SamplerRecord& record) const {
  if (record.streamDone) return "done twice";
  if (recordedCount != record.samples.size()) return "done with a wrong sample count";
  record.streamDone = true;
  record.partial = partial;
  return {};
}

}  // namespace rea::supervisor
