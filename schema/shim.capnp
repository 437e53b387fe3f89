@0xc4b1d2f37a9e5601;
# The shim helper (helpers/shim, binary rea-shim): writes one executable per declared command
# shim into the capture's shim directory, serves the shim ledger on 127.0.0.1:<ephemeral> and
# streams every recorded shim invocation to the supervisor (SPEC B §7, §6.3).
#
# Runs in rea-shim; the supervisor's ShimLink (supervisor/links/shim-link.c++) is the only caller and
# the only reader of these types on the supervisor side. Everything the helper sends is a claim:
# ShimLink checks each event against the plan it sent (route exists, arguments equal the route's,
# per-route counts within max_calls, outcomes consistent, timestamps ordered) and stops a helper
# that breaks a rule. Times are CLOCK_MONOTONIC nanoseconds (shared by all processes).

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rea::schema");

using Common = import "common.capnp";
using ShimPlan = import "shim-plan.capnp".ShimPlan;

interface Shim {
  # Bootstrap capability of rea-shim.

  start @0 (config :ShimConfig, sink :ShimSink) -> (job :ShimJob, port :UInt16);
  # Writes the shim executables, installs the helper's seccomp filter, then listens and serves
  # the ledger; returns once the listening socket is bound (`port`, so the target's
  # REA_SHIM_LEDGER_URL is http://127.0.0.1:<port>/invoke). Throws FAILED on an invalid config,
  # when a shim file cannot be written or the socket cannot be bound. Single use.
}

struct ShimConfig {
  plan @0 :ShimPlan;
  # The scenario's parsed `command_shims`, defaults applied (the value manifest.shim_plan
  # commits to): the ledger answers a matched call with exactly that route (B §7.2).
  shimsDirectory @1 :Data;
  # Existing, empty directory (<temp root>/shims): one file per shim is created in it,
  # exclusively, mode 0700.
  clientPath @2 :Data;
  # The native shim client each shim file is a byte copy of (rea-shim-client).
  protocolEventLimit @3 :UInt32;
  # limits.protocol_events (1-100,000): events beyond it are answered but not recorded.
  netns @4 :Data;
  userns @5 :Data;
  # network_access "loopback" (A9): the ledger listens inside the capture's private network
  # namespace (the one the target joins), entering `userns` first when it is set; empty: the
  # helper's own namespace.
}

interface ShimSink {
  # Implemented by the supervisor, called by rea-shim. Events arrive in ledger order.

  push @0 (events :List(ShimInvocation)) -> stream;
  # One batch, flushed every few milliseconds or at 64 KiB; at most 4096 events. The helper
  # awaits each push before sending the next.

  done @1 (summary :Common.StreamSummary);
  # Last call: every recorded event has been pushed. `droppedCount` counts invocations that
  # were answered but not recorded because of protocolEventLimit.
}

struct ShimInvocation {
  # One recorded ledger request (B §7.3), raw: normalisation happens at assembly.
  sequence @0 :UInt32;
  # 0, 1, 2, ... contiguous.
  atNs @1 :UInt64;
  # When the ledger handled the request; never decreasing.
  command @2 :Text;
  # The shim name the client sent (UTF-8; ill-formed bytes were replaced by U+FFFD).
  arguments @3 :List(Text);
  workingDirectory @4 :Text;
  routeIndex @5 :Int32;
  # Index of the route found in that shim's routes, or -1 exactly when `outcome` is unmatched.
  outcome @6 :Outcome;
  enum Outcome {
    matched @0;
    unmatched @1;
    exhausted @2;
  }
}

interface ShimJob {
  # Returned by `start`; exists while the ledger serves.

  finish @0 ();
  # Stops serving (closes the listening socket and every open ledger connection), pushes the
  # last batch and calls `sink.done`, then returns. Single use.
}
