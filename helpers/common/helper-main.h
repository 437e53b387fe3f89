#pragma once
// helperMain: the skeleton every helper's main.c++ hands its hooks to (STYLE §8, Postfix's
// single_server). Owns the process-wide order of a helper's life:
//
//   RPC mode (`rea-<name>`, started by the supervisor with fd 3 = its socketpair end):
//     event loop → prepare hook (opens what the job needs) → lock down (NO_NEW_PRIVS, rlimits,
//     seccomp filter) → bootstrap a two-party RPC server on fd 3 serving makeServer() → serve
//     until the connection drops → exit 0 at once (no reconnect, no cleanup beyond the kernel's).
//   Standalone mode (`rea-<name> --standalone request.json`): the same hooks, but the start
//     request is read from a JSON file and the job's events are printed as JSON lines on stdout.
//   `rea-<name> --seccomp-policy` prints the helper's filter (SeccompPolicy::describe()).
//
// A helper whose filter must come later (pty: the target must never run under it) sets
// `lockDownAtStart = false` and calls HelperContext::lockDown() itself at the right moment;
// no untrusted byte may be read before that.
//
// Exit status: 0 connection closed / standalone job done, 1 the job failed (the exception is
// written to stderr), 2 usage error. A seccomp violation kills the process with SIGSYS (exit 159
// in debug mode).
//
// Errors: a hook's exception ends the helper with status 1 after logging it.

#include <capnp/capability.h>
#include <kj/async-io.h>
#include <kj/function.h>
#include <sys/resource.h>
#include <vector>

#include "helpers/common/seccomp.h"
#include "helpers/common/standalone.h"

namespace rea::helper {

class HelperContext {
 public:
  HelperContext(kj::AsyncIoContext& io, kj::Function<void()> lockDown, bool standalone);

  kj::AsyncIoContext& io;
  const bool standalone;

  void lockDown();
  // NO_NEW_PRIVS, rlimits, then the seccomp filter (with TSYNC). Once; later calls do nothing.

  bool lockedDown() const { return locked; }

  void fail(kj::Exception&& exception);
  // Ends the helper: logs `exception` and exits 1 once control returns to the loop. For
  // background failures with no caller to report to (a failed batch push).

  kj::Promise<void> whenFailed();

 private:
  kj::Function<void()> doLockDown;
  bool locked = false;
  kj::Own<kj::PromiseFulfiller<void>> failFulfiller;
  kj::ForkedPromise<void> failed;
};

struct HelperSpec {
  kj::StringPtr name;
  // "pty": the binary is rea-<name>; names the helper in log lines and seccomp reports.

  kj::Function<SeccompPolicy()> policy;
  // The helper's filter (its seccomp-policy.c++).

  std::vector<std::pair<int, rlim_t>> rlimits = {{RLIMIT_CORE, 0}};
  // Applied at lock-down. No core files: a helper's memory may hold the target's secrets.

  bool lockDownAtStart = true;
  // False: the job calls HelperContext::lockDown() itself (before reading untrusted bytes).

  kj::Function<void(HelperContext&)> prepare = [](HelperContext&) {};
  // Before the lock-down: open what the filter will forbid later.

  kj::Function<capnp::Capability::Client(HelperContext&)> makeServer;
  // The bootstrap capability served on fd 3.

  kj::Function<kj::Promise<void>(HelperContext&, const evidence::Json& request, JsonLines& out)>
      runStandalone;
  // Standalone mode: run the job described by `request` against the real system, printing its
  // events to `out`; resolves when the job is done. Throw FAILED on a malformed request.
};

int helperMain(int argc, char** argv, HelperSpec& spec);
// Runs the helper; returns its exit status (or never returns: a dropped connection exits 0 at
// once).

}  // namespace rea::helper
