#pragma once
// A blocking pause for the few loops that wait on the kernel outside an event loop (a cgroup
// that is still emptying, a process group that is still dying): cleanup code that runs after
// the loop is gone, or in a helper's synchronous teardown.
//
// Errors: none. A signal does not shorten the pause (EINTR resumes with the time left).

namespace rea::helper {

void sleepMs(long ms);
// Sleeps `ms` milliseconds (0 ≤ ms) on CLOCK_MONOTONIC.

}  // namespace rea::helper
