@0xe3d86664ac153246;
# The replay plan (SPEC B §3.8) as the supervisor sends it to the replay helper inside
# ReplayConfig (replay.capnp): typed, so the helper parses no scenario JSON. Built from the
# parsed, validated scenario by helpers/common/plan-builder.h; read by
# helpers/replay/replay-plan.h. A file of its own (no interfaces) so the helper's plan code needs
# no RPC headers.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rea::schema");

struct ReplayPlan {
  # What the server answers (B §3.8). The helper still refuses what it could not send (a status
  # outside 100-599, a response header that is not an HTTP token or carries NUL, CR or LF).
  http @0 :List(HttpRoute);
  websocketMessages @1 :List(Text);
  # Legacy: every WebSocket connection gets these.
  websocketConnections @2 :List(WebSocketConnection);
  # Entry n-1 scripts connection n.

  struct HttpRoute {
    method @0 :Text;
    path @1 :Text;
    status @2 :UInt16;
    body @3 :Text;
    requestHeaders @4 :List(Header);
    requestBody :union {
      any @5 :Void;
      equals @6 :Text;
    }
    responseHeaders @7 :List(Header);
    # In declaration order.
    delayMs @8 :UInt32;
    disconnect @9 :Bool;
    maxCalls @10 :UInt32;
  }

  struct Header {
    name @0 :Text;
    value @1 :Text;
  }

  struct WebSocketConnection {
    messages @0 :List(WebSocketMessage);
    disconnectAfter @1 :Bool;
  }

  struct WebSocketMessage {
    data @0 :Text;
    delayMs @1 :UInt32;
  }
}

