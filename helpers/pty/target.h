#pragma once
// Target: the command under capture, started in a new PTY session the way the baseline's PTY
// layer (node-pty 1.1.0) does it (SPEC B §6.3): root pid = pgid = sid with the PTY as its
// controlling terminal, the given cwd, exactly the given environment, the given terminal size,
// the baseline's termios, argv = [executable, arguments...], PR_SET_PDEATHSIG(SIGKILL) (the
// target dies with its helper) and no fd but 0-2. Owns the PTY master and a pidfd of the root
// until handed on.
//
// Errors: spawnTarget throws FAILED when the PTY, the child or the pidfd cannot be made. A failed
// namespace join, chdir or exec is not an error here: the child writes one line to the PTY
// ("execvp(3) failed.: <reason>", as the baseline does) and exits 1, and the capture records that.

#include <cstdint>
#include <kj/io.h>
#include <string>
#include <sys/types.h>
#include <termios.h>
#include <vector>

namespace rea::helper {

struct TargetSpec {
  std::string executable;  // no PATH search when it contains '/'; else the environment's PATH
  std::vector<std::string> arguments;
  std::string workingDirectory;
  std::string executableObject;  // non-empty: exec this object (a /proc/<pid>/fd/<n> path)
                                 // with argv[0] = executable, instead of `executable` by path
  std::vector<std::string> environment;  // NAME=VALUE
  uint16_t columns = 80;
  uint16_t rows = 24;
  std::string netnsPath;      // non-empty: join this network namespace before exec (A9)
  std::string usernsPath;     // non-empty: join this user namespace first (the netns's owner)
  std::string cgroupPath;     // non-empty: the target is born in this cgroup v2 group (the
                              // sampler's capture cgroup, A8) through clone3(CLONE_INTO_CGROUP)
  std::string pidsGroupPath;  // non-empty: a cgroup v1 pids group the child joins before exec
                              // (the capture's bound on live processes, pids-bound.h)
  int execChannel = -1;       // >= 0: the exec channel (helpers/common/exec-channel.h): the child
                              // installs the exec filter and sends its listener there before exec
};

struct Target {
  pid_t pid;               // root pid = pgid = sid
  kj::AutoCloseFd pidfd;   // for signals and reaping; safe from pid reuse
  kj::AutoCloseFd master;  // the PTY master (blocking mode, close-on-exec)
  uint64_t spawnedAtNs;    // CLOCK_MONOTONIC right before the child was created
};

Target spawnTarget(const TargetSpec& spec);
// Starts the target (vfork semantics: returns once it has exec'd or failed to). Call before the
// helper's seccomp filter is loaded (the child must not inherit it) and from the thread that
// will outlive the target (PR_SET_PDEATHSIG fires when the creating thread ends).

struct termios targetTermios();
// The baseline's termios: ICRNL IXON IXANY IMAXBEL BRKINT IUTF8, OPOST ONLCR, CREAD CS8 HUPCL,
// ICANON ISIG IEXTEN ECHO ECHOE ECHOK ECHOKE ECHOCTL, standard control characters, 38400 baud.

}  // namespace rea::helper
