#include "supervisor/assembly/assemble-processes.h"

#include "evidence/bucket.h"
#include "evidence/process-renumber.h"
#include "evidence/utf.h"

namespace rea::supervisor {

using namespace rea::evidence;

const char SAMPLED_PROCESS_LIMITATION[] =
    "The process tree is only sampled, so brief descendants can be missed.";
const char PARTIAL_SAMPLING_LIMITATION[] = "The last process sampling pass was incomplete.";

namespace {

const char PARTIAL_EXACT_LIMITATION[] =
    "Process observation is incomplete: the process limit was reached or process events were "
    "lost.";
// Exact mode: an exec is always seen, but what it ran is read from /proc, and a program that
// lives about a millisecond can be reaped first (or exec again) before the sampler looks,
// often on a loaded machine without realtime priority. Like a brief descendant that sampling
// misses, that is an unknown, not a truncation; the sentence has no count, so that it does not
// vary with timing.
const char UNREAD_COMMANDS_LIMITATION[] =
    "Some short-lived programs ended before their command lines could be read; their exec rows "
    "are missing.";

int64_t rawMsSince(uint64_t t0Ns, uint64_t atNs) {
  return atNs <= t0Ns ? 0 : static_cast<int64_t>((atNs - t0Ns) / 1000000);
}

std::string escapeSentence(const std::vector<EscapedProcess>& escapees) {
  // Named by class and count only: the commands are in process_samples (normalised there).
  size_t group = 0, session = 0, outside = 0, unowned = 0;
  for (const auto& process : escapees) {
    if (!process.signalled) {
      ++unowned;
    } else if (process.escape == EscapedProcess::Escape::NEW_GROUP) {
      ++group;
    } else if (process.escape == EscapedProcess::Escape::NEW_SESSION) {
      ++session;
    } else if (process.escape == EscapedProcess::Escape::OUTSIDE) {
      ++outside;
    }
  }
  std::string text = "Cleanup met processes that had left the root's process group:";
  auto part = [&text](size_t count, const char* what) {
    if (count == 0) return;
    if (text.back() != ':') text += ";";
    text += " " + std::to_string(count) + " " + what;
  };
  part(session, "in a new session, killed");
  part(group, "in a new process group, killed");
  part(outside, "outside the capture's scope, killed");
  part(unowned, "without the run token, left running");
  return text + ".";
}

}  // namespace

ProcessAssembly assembleProcesses(const CaptureRunResult& run, const NormaliseContext& base,
                                  int64_t timeBucketMs) {
  ProcessAssembly result;
  const SamplerRecord& sampler = run.sampler;
  bool exact = sampler.prepared && sampler.prepared->exact;
  result.observation = exact ? ProcessObservation::EXACT : ProcessObservation::SAMPLED;
  if (sampler.execObservation == "seccomp_notify") {
    result.execObservation = ExecObservation::SECCOMP_NOTIFY;
  } else if (sampler.execObservation == "procfs") {
    result.execObservation = ExecObservation::PROCFS;
  }
  result.partial = sampler.partial;

  std::vector<RawProcessSample> raw;
  raw.reserve(sampler.samples.size());
  for (const auto& row : sampler.samples) {
    raw.push_back({rawMsSince(run.t0MonoNs, row.atNs), row.pid, row.parentPid, row.processGroupId,
                   row.sessionId, sanitizeUtf8(row.command)});
  }
  int64_t rootPid = run.pty.spawn ? run.pty.spawn->rootPid : 0;
  result.samples = renumberProcessSamples(raw, rootPid, base, timeBucketMs);

  if (!exact) {
    result.leadingLimitations.push_back(SAMPLED_PROCESS_LIMITATION);
    result.residualUnknowns.push_back({ResidualScope::PROCESS, SAMPLED_PROCESS_LIMITATION});
  }
  if (exact && sampler.unreadCommands > 0) {
    result.leadingLimitations.push_back(UNREAD_COMMANDS_LIMITATION);
    result.residualUnknowns.push_back({ResidualScope::PROCESS, UNREAD_COMMANDS_LIMITATION});
  }
  if (result.partial) {
    result.leadingLimitations.push_back(exact ? PARTIAL_EXACT_LIMITATION
                                              : PARTIAL_SAMPLING_LIMITATION);
    if (exact)
      result.residualUnknowns.push_back({ResidualScope::PROCESS, PARTIAL_EXACT_LIMITATION});
  }
  if (!run.processCleanup.escapees.empty()) {
    result.trailingLimitations.push_back(escapeSentence(run.processCleanup.escapees));
  }
  const auto& tokenless = run.processCleanup.tokenless;
  if (tokenless.found > 0) {
    // Issue 18.4: how many shed the run token, and that none survived (counts only: the
    // commands are in process_samples).
    result.trailingLimitations.push_back("Cleanup found " + std::to_string(tokenless.found) +
                                         " processes born in the capture without its run token; " +
                                         std::to_string(tokenless.killed) + " were killed, " +
                                         std::to_string(tokenless.found - tokenless.killed) +
                                         " left running.");
  }
  return result;
}

Settlement assembleSettlement(const CaptureRunResult& run, int64_t timeBucketMs) {
  Settlement settlement;
  if (!run.settlement) {
    settlement.state = SettlementState::UNVERIFIABLE;
    settlement.cleanupOutcome = CleanupOutcome::CLEANED;
    return settlement;
  }
  switch (run.settlement->state) {
    case SamplerSettlement::State::QUIESCED:
      settlement.state = SettlementState::QUIESCED;
      break;
    case SamplerSettlement::State::ALIVE_AT_DEADLINE:
      settlement.state = SettlementState::ALIVE_AT_DEADLINE;
      break;
    case SamplerSettlement::State::UNVERIFIABLE:
      settlement.state = SettlementState::UNVERIFIABLE;
      break;
  }
  settlement.elapsedMs = bucketMs(run.settlement->elapsedMs, timeBucketMs);  // A6
  // B §6.1 FINISH: a capture with a failed cleanup is never returned (it becomes an error).
  settlement.cleanupOutcome = settlement.state == SettlementState::QUIESCED
                                  ? CleanupOutcome::NOT_REQUIRED
                                  : CleanupOutcome::CLEANED;
  return settlement;
}

}  // namespace rea::supervisor
