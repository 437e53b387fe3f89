// backtrace(3) for statically linked binaries: kj records a stack trace in every exception, and
// glibc's backtrace() finds its unwinder by dlopen()ing libgcc_s.so.1 on first use. For a
// helper that is a file open and an executable mapping (which its seccomp filter forbids once
// it is locked down, so it had to be done beforehand) and, for every helper, ~1 ms of its
// start-up on the capture's critical path (bench/README.md, capture-bench). Our binaries link
// libgcc's unwinder statically (-static-libgcc), so the same walk needs no library at all.
//
// Defined in the executable, this definition wins over libc's for kj (linked statically) at
// link time. Sanitizer builds link libgcc_s dynamically (already loaded, so glibc's dlopen
// opens nothing) and their runtime intercepts backtrace itself: they keep glibc's.
#include "helpers/common/stack-trace.h"

#include <execinfo.h>
#include <unwind.h>

#include <cstdint>

namespace rea::helper {

void prepareStackTraces() {
#ifndef REA_OWN_BACKTRACE
  void* frames[4];
  backtrace(frames, 4);
#endif
}

}  // namespace rea::helper

#ifdef REA_OWN_BACKTRACE

namespace {

struct Walk {
  void** frames;
  int capacity;
  int count;  // -1 while still in backtrace() itself, whose frame glibc leaves out too
};

_Unwind_Reason_Code recordFrame(struct _Unwind_Context* context, void* argument) {
  Walk& walk = *static_cast<Walk*>(argument);
  uintptr_t ip = _Unwind_GetIP(context);
  if (walk.count >= 0) {
    if (ip == 0 || walk.count >= walk.capacity) return _URC_END_OF_STACK;
    walk.frames[walk.count] = reinterpret_cast<void*>(ip);
  }
  ++walk.count;
  return _URC_NO_REASON;
}

}  // namespace

extern "C" int backtrace(void** frames, int capacity) {
  if (capacity <= 0) return 0;
  Walk walk{frames, capacity, -1};
  _Unwind_Backtrace(&recordFrame, &walk);
  return walk.count < 0 ? 0 : walk.count;
}

#endif  // REA_OWN_BACKTRACE
