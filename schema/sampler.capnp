@0xa6763bfa4c986416;
# The sampler helper (helpers/sampler, binary rea-sampler): observes the target's whole process
# tree, decides settlement after the root exits and cleans up only what the capture owns
# (SPEC A8, B §6.7, §6.8, §12).
#
# Runs in rea-sampler; the supervisor's SamplerLink (supervisor/links/sampler-link.c++) is the only
# caller and the only reader of these types on the supervisor side. Everything the helper sends
# is a claim: SamplerLink checks it and stops a helper that breaks a rule.
# Times are CLOCK_MONOTONIC nanoseconds.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rea::schema");

interface Sampler {
  # Bootstrap capability of rea-sampler.

  prepare @0 (config :SamplerConfig)
      -> (job :SamplerJob, mode :ObservationMode, cgroupPath :Data, sampledReason :Text,
          execNotify :Bool, maxPids :UInt32, pidsGroupPath :Data, pidsUnbounded :Text);
  # Before the target exists: creates the capture cgroup and subscribes to process events
  # (unless forced sampled), then installs the helper's seccomp filter. `cgroupPath` is the
  # group the target must be born in (empty: none); `mode` is fixed from here on
  # (`sampledReason` says why it is sampled, "" when exact). Throws FAILED on an invalid config.
  # Single use: a second call throws FAILED. `execNotify`: the helper serves seccomp exec
  # notifications arriving on the exec channel (fd 4, helpers/common/exec-channel.h); the
  # launcher is to install the filter (PtyConfig.execNotify).
  # `maxPids`: the bound on the target's live processes now in force (0: none, `pidsUnbounded`
  # says why; helpers/sampler/pids-bound.h). `pidsGroupPath`: a cgroup v1 pids group the
  # launcher must join before the target execs (PtyConfig.pidsGroupPath); empty when the bound
  # is the capture cgroup's own (v2) or there is none.
}

enum ObservationMode {
  exact @0;
  sampled @1;
}

struct SamplerConfig {
  runToken @0 :Text;
  # REA_PROCESS_RUN_ID of the target (B §6.1): a lowercase UUID v4.
  maxProcesses @1 :UInt32;
  # limits.processes (B §3.6), 1-10000.
  forceSampled @2 :Bool;
  # No cgroup, no proc connector: the baseline's sampling (B §6.8 with the fixes of B §12).
  execNotify @3 :Bool;
  # Exact mode: observe execs kernel-side (seccomp user notification) when the exec channel,
  # the kernel and the container allow it. False: /proc after the exec event only.
  maxPids @4 :UInt32;
  # The operator's bound on the target's live processes (REA_PROCESS_MAX_PIDS); 0: none.
}

enum ExecObservation {
  # How an exec's command line was observed in this capture (the manifest's exec_observation).
  none @0;
  # sampled mode: no exec events at all
  procfs @1;
  # exact mode: /proc/PID/cmdline read after the kernel's exec event (may lose short programs)
  seccompNotify @2;
  # exact mode: argv read while the caller was paused in execve (kernel-side)
}

interface SamplerJob {
  # Returned by `prepare`; the order of the calls below is fixed, each at most once.

  start @0 (rootPid :UInt32, sink :SamplerSink);
  # The target was spawned (rootPid = pgid = sid). Samples flow to `sink` from now on.

  settle @1 (settleMs :UInt64) -> (settlement :Settlement);
  # After the root exited (B §6.7.2, A8): exact/cgroup: quiesced as soon as the group is empty.

  stop @2 () -> (partial :Bool);
  # Ends observation, pushes the last batch and calls `sink.done`, then returns. `partial`: the
  # process limit was hit or observations were lost (B §4.8).

  cleanup @3 () -> (report :Cleanup);
  # After stop: ownership-verified cleanup (B §6.7.1 with A8), then the cgroup is removed.
}

interface SamplerSink {
  # Implemented by the supervisor, called by rea-sampler.

  push @0 (samples :List(ProcessSample)) -> stream;
  # One batch (at most 4096 samples), in recording order.

  done @1 (partial :Bool, recordedCount :UInt32, unreadCommands :UInt32,
           execObservation :ExecObservation, execProblem :Text, pidsLimitHits :UInt64);
  # `pidsLimitHits`: process creations the bound (`maxPids`) refused during the capture.
  # Last call: every recorded sample has been pushed (`recordedCount` of them in all).
  # `unreadCommands`: execs observed whose program could not be read in time (exact mode); their
  # rows are missing. `execObservation`: how execs were observed; `execProblem`: why
  # kernel-side observation was asked for and not used ("" otherwise).
}

struct ProcessSample {
  # One recorded row (B §4.3 before renumbering): raw ids of the helper's PID namespace.
  atNs @0 :UInt64;
  pid @1 :Int32;
  # >= 1
  parentPid @2 :Int32;
  # >= 0
  processGroupId @3 :Int32;
  # >= 1, or -1 when it could not be observed (null)
  sessionId @4 :Int32;
  # >= 0, or -1 when it could not be observed (null)
  command @5 :Data;
  # cmdline with NULs as spaces, trimmed; empty once the process exited. Not necessarily UTF-8.
}

struct Settlement {
  state @0 :State;
  enum State {
    quiesced @0;
    aliveAtDeadline @1;
    unverifiable @2;
  }
  elapsedMs @1 :Int64;
  # raw monotonic time of the observation
  problem @2 :Text;
  # unverifiable: B §6.7.1's sentence for the first failure
}

struct Cleanup {
  complete @0 :Bool;
  # nothing owned survives, nothing unowned was met, the capture cgroup is gone
  problem @1 :Text;
  # "" when complete, else B §6.7.1's sentence for the first failure
  signalled @2 :List(Finding);
  # owned processes that were SIGKILLed
  unowned @3 :List(Finding);
  # processes met but never signalled (token missing, different or unreadable)
  usedCgroupKill @4 :Bool;
  cgroupRemoved @5 :Bool;
}

struct Finding {
  pid @0 :Int32;
  parentPid @1 :Int32;
  processGroupId @2 :Int32;
  sessionId @3 :Int32;
  command @4 :Data;
  escape @5 :Escape;
  enum Escape {
    none @0;
    # still in the root's process group
    newGroup @1;
    newSession @2;
    outside @3;
    # carried the run token but was outside the scope
  }
  withoutRunToken @6 :Bool;
  # in `signalled`: a member of the capture cgroup that did not carry the run token (scrubbed
  # environment, or one it could not read). Born in the capture, so the target's: killed all the
  # same (issue 18.4).
}
