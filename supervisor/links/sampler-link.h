#pragma once
// SamplerLink: the supervisor's one connection to the sampler helper (rea-sampler). Owns the
// helper process, its Cap'n Proto connection and the sink receiving its process samples, and is
// the only supervisor code that reads schema/sampler.capnp types: every message is converted to
// the plain structs below and checked on the way in (sample times never decrease and never lie
// in the future, ids in range, no more samples than limits.processes, a cgroup path that is the
// capture's own, one done). A helper that breaks a rule is killed and reported as a fault,
// exactly like a helper that dies (A13).
//
// Owned cleanup never depends on the helper: if it is lost, or the link is destroyed before
// cleanup() completed (rea was cancelled: the capture promise was dropped), the link kills the
// helper and runs the fallback of owned-cleanup.h itself (cgroup members and the root's group,
// each process only after its run-token check).
//
// Typical use (one link per capture, one event loop):
//   SamplerLink link(io);
//   SamplerPrepared p = link.prepare({token, maxProcesses, forceSampled}).wait(ws);
//   ... start the target inside p.cgroupPath (when not empty) ...
//   link.start(rootPid);
//   ... root exits ...
//   std::optional<SamplerSettlement> s = link.settle(settleMs).wait(ws);
//   link.stop().wait(ws);                        // samples complete
//   SamplerCleanup c = link.cleanup().wait(ws);  // helper hung up (reaped by ~SamplerLink)
//
// Errors: nothing rejects; a lost helper is record().fault, and every promise still resolves
// (settle() with nullopt, cleanup() with the fallback's result). Calls out of order throw.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kj/async-io.h>

#include "evidence/limits.h"
#include "supervisor/links/helper-process.h"

namespace rea::supervisor {

struct SamplerPlan {
  std::string runToken;  // REA_PROCESS_RUN_ID of the capture
  uint32_t maxProcesses = uint32_t(evidence::limit::PROCESSES.defaultValue);  // limits.processes
  bool forceSampled = false;  // REA_FORCE_SAMPLED=1: the baseline's sampling (tests)
  bool execNotify = false;    // kernel-side exec observation where possible (exec-channel.h);
                              // set by runCapture when it made the channel
  uint32_t maxPids = 0;       // REA_PROCESS_MAX_PIDS: bound on live processes; 0 = none
};

struct SamplerPrepared {
  bool exact = false;         // manifest.process_observation "exact" (A8) vs "sampled"
  std::string cgroupPath;     // start the target here; "" = no capture cgroup
  std::string sampledReason;  // why sampled ("" when exact)
  bool execNotify = false;    // the target is to install the exec filter (PtyLaunch::execNotify)
  uint32_t maxPids = 0;       // the bound in force (0: none; pidsUnbounded says why)
  std::string pidsGroupPath;  // a v1 pids group the target joins (PtyLaunch); "" = none
  std::string pidsUnbounded;  // why there is no bound ("" when there is)
};

struct RawProcessRow {
  // One recorded process sample (B §4.3 before renumbering), validated.
  uint64_t atNs = 0;  // CLOCK_MONOTONIC
  int64_t pid = 0;
  int64_t parentPid = 0;
  std::optional<int64_t> processGroupId;
  std::optional<int64_t> sessionId;
  std::string command;  // raw bytes of the cmdline (not necessarily UTF-8)
};

struct SamplerSettlement {
  enum class State { QUIESCED, ALIVE_AT_DEADLINE, UNVERIFIABLE };
  State state = State::UNVERIFIABLE;
  int64_t elapsedMs = 0;  // raw
  std::string problem;
};

struct EscapedProcess {
  // A process cleanup met outside the root's process group (or outside the capture's scope).
  enum class Escape { NONE, NEW_GROUP, NEW_SESSION, OUTSIDE };
  int64_t pid = 0;
  std::string command;
  Escape escape = Escape::NONE;
  bool signalled = false;  // false: it did not carry the run token and was left alone
};

struct TokenlessCount {
  // Issue 18.4: processes born in the capture cgroup without the run token, found at cleanup.
  size_t found = 0;
  size_t killed = 0;  // the others were left running (only where no cgroup made them ours)
};

struct SamplerCleanup {
  bool complete = false;
  std::string problem;  // B §6.7.1 sentence of the first failure, "" when complete
  size_t signalledCount = 0;
  size_t unownedCount = 0;
  std::vector<EscapedProcess> escapees;
  TokenlessCount tokenless;
  bool byFallback = false;  // the helper was lost: the supervisor cleaned up itself
};

struct SamplerRecord {
  std::optional<SamplerPrepared> prepared;
  std::vector<RawProcessRow> samples;
  bool streamDone = false;
  bool partial = false;         // the helper said so (limit hit or observations lost)
  uint32_t unreadCommands = 0;  // execs whose program could not be read (rows missing)
  std::string execObservation;  // manifest.exec_observation: "seccomp_notify", "procfs" or ""
  std::string execProblem;      // why kernel-side exec observation is not in use, "" if it is
  uint64_t pidsLimitHits = 0;   // process creations the bound (maxPids) refused
  std::optional<SamplerSettlement> settlement;
  std::optional<HelperFault> fault;  // the helper was lost; its reason names "the sampler helper"
};

class SamplerLink {
 public:
  explicit SamplerLink(kj::AsyncIoContext& io,
                       std::string helperDirectory = defaultHelperDirectory());
  ~SamplerLink() noexcept(false);
  // If cleanup() has not completed: kills the helper, then cleans up synchronously (fallback).
  KJ_DISALLOW_COPY(SamplerLink);

  void setExecChannel(kj::AutoCloseFd channel);
  // Before prepare(): the sampler's end of the exec channel (helpers/common/exec-channel.h),
  // passed to the helper as fd 4 and closed here once it is spawned.

  kj::Promise<SamplerPrepared> prepare(SamplerPlan plan);
  // Spawns rea-sampler and asks for a capture cgroup and the mode. A helper that cannot be
  // started or answers nonsense is a fault; the result is then sampled mode without a cgroup.

  void start(pid_t rootPid);
  // The target was spawned (in the cgroup when there is one). Samples arrive from now on.

  kj::Promise<std::optional<SamplerSettlement>> settle(int64_t settleMs);
  // After the root's exit. nullopt when the helper is (or gets) lost.

  kj::Promise<void> stop();
  // Ends sampling: resolves once the last sample arrived (record().samples is complete).

  kj::Promise<SamplerCleanup> cleanup();
  // Ownership-verified cleanup by the helper, then the helper is stopped. When the helper is
  // lost (before or during this call), or claims "complete" while the capture cgroup still
  // exists, the supervisor's fallback does it; an incomplete report of a helper that answered
  // is kept as it is, its problem followed by what was left running. Once.

  const SamplerRecord& record() const;

  class Impl;

 private:
  kj::Own<Impl> impl;
};

}  // namespace rea::supervisor
