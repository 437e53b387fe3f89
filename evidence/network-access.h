#pragma once
// The scenario's `network_access` (SPEC B §3.1 with A9), shared by the scenario model and the
// policy check.

namespace rea::evidence {

enum class NetworkAccess {
  HOST,      // "host": the target shares the host's network (needs operator permission)
  LOOPBACK,  // "loopback" (A9): private network namespace holding only `lo`
};

}  // namespace rea::evidence
