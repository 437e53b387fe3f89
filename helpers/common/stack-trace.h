#pragma once
// Stack traces under a seccomp filter. kj records a stack trace in every exception through
// backtrace(3). glibc's backtrace() dlopen()s libgcc_s.so.1 on its first call (an openat and an
// executable mapping, which a locked-down helper's filter kills). Our regular builds link
// libgcc's unwinder statically and replace backtrace() with one that loads nothing
// (stack-trace.c++); sanitizer builds keep glibc's.

namespace rea::helper {

void prepareStackTraces();
// Call before a seccomp lock-down: loads whatever the first stack trace would load later.
// Nothing to do (and nothing done) in regular builds, where the first trace also costs the
// unwinder's one-time sort of every frame description of the binary (~3 ms here): better paid
// by the rare helper that fails than by every helper's start-up.

}  // namespace rea::helper
