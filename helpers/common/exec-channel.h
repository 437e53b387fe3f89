#pragma once
// The exec channel: how kernel-side exec observation (helpers/sampler/README.md, "Kernel-side
// exec observation") gets the seccomp listener from the target to the sampler without the
// supervisor or the pty helper ever holding it.
//
// The supervisor makes one SOCK_SEQPACKET socketpair per capture and gives one end to rea-pty
// and the other to rea-sampler, each as fd EXEC_CHANNEL_FD (helper-process.h). When asked
// (PtyConfig.execNotify), the target's child, right before its first exec, installs a filter
// answering execve/execveat with SECCOMP_RET_USER_NOTIF and sends one message on the channel:
//   EXEC_CHANNEL_LISTENER  with the listener fd as SCM_RIGHTS, then closes its copy, or
//   EXEC_CHANNEL_FAILED    followed by the errno (4 bytes, native order) of the failed install;
// so the sampler holds the only copy of the listener. When it closes (the sampler ended), the
// kernel fails execs still waiting and later ones with ENOSYS: the capture is then already
// truncated and its processes are killed by the supervisor (owned-cleanup.h).

namespace rea::helper {

constexpr int EXEC_CHANNEL_FD = 4;
constexpr char EXEC_CHANNEL_LISTENER = 'L';
constexpr char EXEC_CHANNEL_FAILED = 'E';

}  // namespace rea::helper
