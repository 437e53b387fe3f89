#include "supervisor/links/sampler-answers.h"

#include "supervisor/run/owned-cleanup.h"
#include "helpers/common/capnp-bytes.h"

namespace rea::supervisor {

using helper::textOf;

namespace {

EscapedProcess::Escape escapeOf(schema::Finding::Escape escape) {
  switch (escape) {
    case schema::Finding::Escape::NONE:
      return EscapedProcess::Escape::NONE;
    case schema::Finding::Escape::NEW_GROUP:
      return EscapedProcess::Escape::NEW_GROUP;
    case schema::Finding::Escape::NEW_SESSION:
      return EscapedProcess::Escape::NEW_SESSION;
    case schema::Finding::Escape::OUTSIDE:
      return EscapedProcess::Escape::OUTSIDE;
  }
  return EscapedProcess::Escape::OUTSIDE;  // an unknown value: the most cautious reading
}

// " (left running: pid 123 `/bin/sleep 30`, ...)": what the user must end, one line of
// printable text (the command is the process's own bytes).
std::string leftRunning(capnp::List<schema::Finding>::Reader unowned) {
  if (unowned.size() == 0) return {};
  std::string text = " (left running:";
  for (auto finding : unowned) {
    std::string command = textOf(finding.getCommand()).substr(0, 60);
    for (char& c : command) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    }
    if (text.back() != ':') text += ",";
    text += " pid " + std::to_string(finding.getPid()) + " `" + command + "`";
  }
  return text + ")";
}

}  // namespace

kj::Maybe<BrokenRule> preparedFrom(schema::Sampler::PrepareResults::Reader in,
                                   const SamplerPlan& plan, SamplerPrepared& out) {
  out = SamplerPrepared();
  out.exact = in.getMode() == schema::ObservationMode::EXACT;
  out.cgroupPath = textOf(in.getCgroupPath());
  out.sampledReason = in.getSampledReason();
  out.execNotify = in.getExecNotify();
  out.maxPids = in.getMaxPids();
  out.pidsGroupPath = textOf(in.getPidsGroupPath());
  out.pidsUnbounded = in.getPidsUnbounded();
  if (out.maxPids != 0 && out.maxPids != plan.maxPids)
    return BrokenRule{"a process bound not asked for"};
  if (out.maxPids == 0 && !out.pidsGroupPath.empty())
    return BrokenRule{"a pids group without a bound"};
  if (!out.pidsGroupPath.empty() && !isPidsGroupPath(out.pidsGroupPath, plan.runToken)) {
    return BrokenRule{"a pids group path that is not the capture's"};
  }
  if (out.execNotify && (!plan.execNotify || plan.forceSampled)) {
    return BrokenRule{"exec notification offered although not asked for"};
  }
  if (!out.cgroupPath.empty() && !isCaptureCgroupPath(out.cgroupPath, plan.runToken)) {
    return BrokenRule{"a cgroup path that is not the capture's"};
  }
  if (out.exact && out.cgroupPath.empty()) return BrokenRule{"exact mode without a capture cgroup"};
  if (out.exact && plan.forceSampled) return BrokenRule{"exact mode although sampling was forced"};
  if (in.getMode() != schema::ObservationMode::EXACT &&
      in.getMode() != schema::ObservationMode::SAMPLED) {
    return BrokenRule{"an unknown observation mode"};
  }
  if (out.exact) out.sampledReason.clear();
  return nullptr;
}

kj::Maybe<BrokenRule> settlementFrom(schema::Settlement::Reader in, SamplerSettlement& out) {
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
      return BrokenRule{"an unknown settlement state"};
  }
  out.elapsedMs = in.getElapsedMs();
  if (out.elapsedMs < 0) return BrokenRule{"a negative settlement time"};
  out.problem = in.getProblem();
  return nullptr;
}

kj::Maybe<BrokenRule> cleanupFrom(schema::Cleanup::Reader in, SamplerCleanup& out) {
  out = SamplerCleanup();
  out.complete = in.getComplete();
  out.problem = in.getProblem();
  out.signalledCount = in.getSignalled().size();
  out.unownedCount = in.getUnowned().size();
  auto add = [&](schema::Finding::Reader finding, bool signalled) {
    auto escape = escapeOf(finding.getEscape());
    if (escape == EscapedProcess::Escape::NONE) return;
    out.escapees.push_back({finding.getPid(), textOf(finding.getCommand()), escape, signalled});
  };
  for (auto finding : in.getSignalled()) {
    add(finding, true);
    if (finding.getWithoutRunToken()) {
      ++out.tokenless.found;
      ++out.tokenless.killed;
    }
  }
  for (auto finding : in.getUnowned())
    add(finding, false);
  if (out.complete != out.problem.empty()) {
    return BrokenRule{"a cleanup report whose problem contradicts its outcome"};
  }
  if (!out.complete) out.problem += leftRunning(in.getUnowned());
  return nullptr;
}

}  // namespace rea::supervisor
