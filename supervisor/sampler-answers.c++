#include "supervisor/sampler-answers.h"

#include "supervisor/owned-cleanup.h"

namespace rea::supervisor {

namespace {

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

}  // namespace rea::supervisor
