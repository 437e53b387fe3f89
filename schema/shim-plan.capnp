@0xcea1e5b0b26ddc3f;
# The shim plan (SPEC B §3.4, §7.2) as the supervisor sends it to the shim helper inside
# ShimConfig (shim.capnp): typed, so the helper parses no scenario JSON. Built from the parsed,
# validated scenario by helpers/common/plan-builder.h; read by helpers/shim/shim-plan.h.
# A file of its own (no interfaces) so the helper's plan code needs no RPC headers.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rea::schema");

struct ShimPlan {
  shims @0 :List(CommandShim);
  # Declaration order: the first shim with a name wins.
}

struct CommandShim {
  # One declared shim (B §3.4), built by the supervisor from the validated scenario. The helper
  # still refuses what it could not serve (a name that is not a plain file name, an unknown
  # enum value): a message is a claim.
  name @0 :Text;
  # 1-128 characters, no '/': also the shim's file name.
  routes @1 :List(Route);

  struct Route {
    arguments @0 :List(Text);
    # Matched exactly against the shim's argv[1..].
    outputs @1 :List(Output);
    termination :union {
      exit @2 :UInt8;
      # The exit code.
      signal @3 :Signal;
    }
    maxCalls @4 :UInt32;
    # 1-100.
  }

  struct Output {
    atMs @0 :UInt32;
    stream @1 :Stream;
    data @2 :Text;
    enum Stream { stdout @0; stderr @1; }
  }

  enum Signal { interrupt @0; terminate @1; kill @2; }
  # SIGINT, SIGTERM, SIGKILL.
}
