@0xfd3f0630423295d8;
# The pty helper (helpers/pty, binary rea-pty): runs the target in a new PTY session, drains its
# output, dispatches the scenario's interaction events, enforces the deadline watchdog and reaps
# the root (SPEC B §6.3-§6.6, A2, A4, A10).
#
# Runs in rea-pty; the supervisor's PtyLink (supervisor/links/pty-link.c++) is the only caller and the
# only reader of these types on the supervisor side. Everything the helper sends is a claim:
# PtyLink checks it (timestamps, sizes, indices, UTF-8) and stops a helper that breaks a rule.
# Times are CLOCK_MONOTONIC nanoseconds (shared by all processes on the machine).

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rea::schema");

using Common = import "common.capnp";

interface Pty {
  # Bootstrap capability of rea-pty.

  start @0 (config :PtyConfig, sink :PtySink)
      -> (job :PtyJob, rootPid :UInt32, spawnedAtNs :UInt64);
  # Spawns the target, installs the helper's seccomp filter, then starts draining, arms the
  # interaction events (A2: relative to the spawn) and the watchdog. Returns once the target is
  # forked: rootPid = pgid = sid of the target. A failed exec is not an error (the target writes
  # a diagnostic to the PTY and exits 1). Throws FAILED on an invalid config or when the PTY or
  # the fork cannot be made. Single use: a second call throws FAILED.
}

struct PtyConfig {
  executable @0 :Data;
  # Path of the program (no PATH search when it contains '/'; else searched in the PATH of
  # `environment`).
  arguments @1 :List(Data);
  # argv[1..]; argv[0] is `executable`.
  workingDirectory @2 :Data;
  environment @3 :List(Data);
  # The target's complete environment, each entry NAME=VALUE (composed by the supervisor,
  # SPEC B §6.3). Nothing else reaches the target.
  columns @4 :UInt16;
  rows @5 :UInt16;
  # Initial terminal size, each 1-1000.
  events @6 :List(PtyInteraction);
  # The scenario's interaction events, in scenario order; an event's index in this list is the
  # `eventIndex` of its dispatch report. At most 1000, sorted by atMs.
  timeoutMs @7 :UInt64;
  idleTimeoutMs @8 :UInt64;
  t0Ns @9 :UInt64;
  # The supervisor's T0: the watchdog measures `timeoutMs` and the initial idle time from it.
  maxFrames @10 :UInt32;
  maxOutputBytes @11 :UInt64;
  # Raw frame limits (SPEC B §6.5): a chunk that would exceed either is dropped whole and the
  # stream ends truncated; a later, smaller chunk that fits is still sent.
  network @12 :TargetNetwork;
  # network_access "loopback" (A9): the target joins this namespace between fork and exec.
  # Unset or empty `net`: the helper's own (host) network namespace.

  # ---- Terminal renderer (B §6.11, A11) ----
  scrollback @13 :UInt32;
  # terminal.scrollback: rows the renderer keeps above the screen (0-100000).
  renderMaxFrames @14 :UInt32;
  renderMaxBytes @15 :UInt64;
  # The rendered-frame budget (B §6.11: the same values as the raw limits, counted apart). When
  # it runs out the renderer stops emulating (it still answers terminal queries) and `done`
  # reports `renderTruncated`.

  # ---- Process observation (A8) ----
  cgroupPath @16 :Data;
  # The capture cgroup made by the sampler (A8): when non-empty the target is born inside it
  # (clone3 with CLONE_INTO_CGROUP); when empty (sampled mode) it is forked as usual.
  execNotify @17 :Bool;
  # Kernel-side exec observation (helpers/sampler/README.md): right before its first exec the
  # target installs a seccomp filter answering execve/execveat with SECCOMP_RET_USER_NOTIF and
  # sends the listener over the exec channel (fd 4, helpers/common/exec-channel.h) to the
  # sampler; the helper keeps no copy. Set only when the sampler said it serves the channel.

  executableObject @18 :Data;
  # The executable the supervisor opened and checked against the policy (issue 18.2): a path
  # that names that very object (/proc/<pid>/fd/<n> of the supervisor). When non-empty the
  # target execs that object (execveat with AT_EMPTY_PATH), with argv[0] = `executable`, so a
  # symlink swapped after the check changes nothing. Empty: `executable` is exec'd by path.

  pidsGroupPath @19 :Data;
  # A cgroup v1 pids group (Sampler.prepare's `pidsGroupPath`) the target joins right before
  # its exec (writing "0" to its cgroup.procs), so the capture's bound on live processes holds
  # for it and every descendant. Empty: nothing to join.
}

struct TargetNetwork {
  net @0 :Data;
  # Path of the network namespace to join (/proc/<pid>/fd/<n> of the supervisor).
  user @1 :Data;
  # Path of its owning user namespace, joined first; empty when it is the helper's own.
}

struct PtyInteraction {
  atMs @0 :UInt64;
  # Milliseconds after the spawn at which the event fires (A2: armed at spawn).
  union {
    input @1 :Data;
    # Bytes written to the PTY master.
    resize @2 :TerminalSize;
    # TIOCSWINSZ on the master (the target gets SIGWINCH).
    signal @3 :Int32;
    # Signal number (SIGINT, SIGTERM or SIGKILL) sent to the root pid only.
  }
  waits @4 :Bool;
  # A reactive event (its scenario `when`): once it is its turn and `atMs` has passed, the
  # helper holds it until the supervisor, which watches the condition, calls PtyJob.release.
  # Events stay in list order: no later event fires before this one is released.
  waitsForExit @5 :Bool;
  # With `waits`: the event waits for the root's exit. When the root exits while the chain
  # holds this event, the helper performs it then (input still reaches a descendant that holds
  # the terminal; a signal to the gone root is dispatched, B §6.4) instead of reporting it
  # `targetExited`; every later event is `targetExited`.
}

struct TerminalSize {
  columns @0 :UInt16;
  rows @1 :UInt16;
}

interface PtySink {
  # Implemented by the supervisor, called by rea-pty. Events arrive in time order.

  push @0 (events :List(PtyEvent)) -> stream;
  # One batch, flushed every few milliseconds or at 64 KiB. The helper awaits each push before
  # sending the next. A batch holds at most 4096 events.

  done @1 (summary :Common.StreamSummary, renderTruncated :Bool, renderedFrames :UInt32);
  # Last call: every event has been pushed. `truncated` counts raw output chunks dropped by the
  # frame or byte limit. `renderTruncated`: the rendered-frame budget dropped at least one frame;
  # `renderedFrames`: how many `rendered` events were pushed.
}

struct PtyEvent {
  atNs @0 :UInt64;
  # When it happened; never decreasing along the stream.
  union {
    output @1 :Data;
    # One PTY read, decoded as UTF-8 (invalid bytes replaced by U+FFFD, a sequence split across
    # reads kept whole), never empty. Chunks may follow `exited`: the helper drains until EIO
    # (A10) or until `finish`.
    dispatched @2 :Dispatch;
    # An interaction event fired (or was abandoned at the root's exit). Each index once.
    exited @3 :Exit;
    # The root was reaped. Once.
    rendered @4 :RenderedFrame;
    # The emulator's state after the accepted `output` chunk just before it (same `atNs`) or
    # after a dispatched resize (the dispatch's `atNs`), if the rendered budget admitted it.
    replied @5 :QueryReply;
    # The renderer answered a terminal query the target sent: `reply` was written to the PTY
    # master (as if typed) at `atNs`.
  }
}

struct RenderedFrame {
  # B §6.11 before normalisation: `lines` untrimmed and padded, `serializedState` this project's
  # encoding (helpers/pty/screen-serializer.h).
  columns @0 :UInt16;
  rows @1 :UInt16;
  cursorX @2 :UInt16;
  cursorY @3 :UInt16;
  # 0-based, relative to the top visible row of the active buffer.
  alternate @4 :Bool;
  lines @5 :List(Data);
  # One per visible row (exactly `rows`), valid UTF-8.
  serializedState @6 :Data;
}

struct QueryReply {
  query @0 :Text;
  # Which query was answered: "DA", "DA2", "DSR-status", "DSR-cursor", "DSR-cursor-dec",
  # "DECRQM", "DECRQSS" or "other" (helpers/pty/screen-queries.h).
  reply @1 :Data;
  # The bytes written to the PTY master.
}

struct Dispatch {
  eventIndex @0 :UInt32;
  outcome @1 :Outcome;
  enum Outcome {
    dispatched @0;
    # Performed (a signal to a vanished root is still dispatched, B §6.4).
    failed @1;
    # The operation raised an error (e.g. resizing a closed PTY).
    targetExited @2;
    # Never fired: the root exited first. `atNs` is the exit time.
    timedOut @3;
    # A waiting event released as timed out: never performed. `atNs` is the release time.
  }
}

struct Exit {
  union {
    code @0 :Int32;
    # Exited normally with this status.
    signal @1 :Int32;
    # Died by this signal.
  }
  reason @2 :Reason;
  enum Reason {
    exited @0;
    timeout @1;
    # The watchdog killed the root: timeoutMs elapsed since T0.
    idleTimeout @2;
    # The watchdog killed the root: no output for idleTimeoutMs.
  }
}

interface PtyJob {
  # Returned by `start`; exists only while a target runs under this helper.

  release @1 (eventIndex :UInt32, timedOut :Bool, stop :Bool);
  # Lets the waiting event `eventIndex` go: performed now (or once its turn comes), or, with
  # `timedOut`, reported `timedOut` without being performed; `stop` then also ends the run as
  # the watchdog's timeout does (SIGKILL, reason `timeout`). Ignored for an event that does not
  # wait, was already released, or after the root's exit.

  finish @0 ();
  # Ends the job: SIGKILLs the root if it is still running (and reports its exit), reads what
  # the PTY master still holds, closes it, pushes the last batch and calls `sink.done`, then
  # returns. Single use: a second call throws FAILED.
}
