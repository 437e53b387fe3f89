#include "supervisor/cli/batch-runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>

#include <kj/debug.h>

namespace rea::supervisor {
namespace {

const int TERMINATION_SIGNALS[] = {SIGINT, SIGTERM, SIGHUP};

sigset_t batchSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : TERMINATION_SIGNALS)
    sigaddset(&set, signal);
  sigaddset(&set, SIGCHLD);
  return set;
}

// Everything the child needs is prepared before fork: between fork and exec only
// async-signal-safe calls run.
struct ChildPlan {
  std::string stdoutFile, stderrFile, scenarioFile;
  std::vector<char*> argv;
  std::string arg0 = "rea", command = "capture-process", separator = "--";
};

pid_t startChild(ChildPlan& plan, pid_t parent) {
  plan.argv = {plan.arg0.data(), plan.command.data(), plan.separator.data(),
               plan.scenarioFile.data(), nullptr};
  pid_t pid;
  KJ_SYSCALL(pid = fork(), "capture-batch child");
  if (pid != 0) return pid;
  // Child. Die with the batch, but through SIGTERM: capture-process cancels and cleans up.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(126);  // the batch died before the line above
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int in = open("/dev/null", O_RDONLY);
  int out = open(plan.stdoutFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = open(plan.stderrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || err < 0) _exit(125);
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(125);
  if (in > 2) close(in);
  if (out > 2) close(out);
  if (err > 2) close(err);
  execv("/proc/self/exe", plan.argv.data());
  static const char message[] = "rea capture-batch: could not start rea capture-process\n";
  (void)!write(2, message, sizeof(message) - 1);
  _exit(127);
}

}  // namespace

size_t availableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  int count = CPU_COUNT(&set);
  return count > 0 ? static_cast<size_t>(count) : 1;
}

void blockBatchSignals() {
  sigset_t set = batchSignals();
  KJ_SYSCALL(sigprocmask(SIG_BLOCK, &set, nullptr));
}

bool runCaptureTasks(const std::vector<CaptureTask>& tasks, size_t jobs,
                     const CaptureTaskEvents& events) {
  KJ_REQUIRE(jobs >= 1);
  blockBatchSignals();
  sigset_t set = batchSignals();
  int fd;
  KJ_SYSCALL(fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK), "capture-batch signals");
  KJ_DEFER(close(fd));

  pid_t self = getpid();
  std::map<pid_t, size_t> running;  // child -> task
  std::vector<ChildPlan> plans(tasks.size());
  size_t next = 0;
  bool interrupted = false;
  for (;;) {
    // Signals first, so one that arrived before the first child (while the batch was reading
    // its scenarios) starts none.
    signalfd_siginfo info;
    ssize_t n;
    while ((n = read(fd, &info, sizeof(info))) == static_cast<ssize_t>(sizeof(info))) {
      if (info.ssi_signo == SIGCHLD) continue;  // reaped below, whichever child it was
      // Stop: no new capture; each running one cancels and cleans up, then is reaped below.
      interrupted = true;
      for (const auto& child : running)
        kill(child.first, SIGTERM);
    }
    KJ_ASSERT(n < 0 && (errno == EAGAIN || errno == EINTR), "capture-batch signals", n);
    // SIGCHLD coalesces: reap every child that has ended.
    for (;;) {
      int status;
      pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid <= 0) break;
      auto found = running.find(pid);
      if (found == running.end()) continue;
      size_t task = found->second;
      running.erase(found);
      if (events.onEnd) events.onEnd(task, status, interrupted);
    }
    while (!interrupted && next < tasks.size() && running.size() < jobs) {
      ChildPlan& plan = plans[next];
      plan.stdoutFile = tasks[next].stdoutFile;
      plan.stderrFile = tasks[next].stderrFile;
      plan.scenarioFile = tasks[next].scenarioFile;
      running[startChild(plan, self)] = next;
      if (events.onStart) events.onStart(next);
      ++next;
    }
    if (running.empty() && (interrupted || next == tasks.size())) break;
    pollfd wait{fd, POLLIN, 0};
    int ready = poll(&wait, 1, -1);
    if (ready < 0 && errno != EINTR) KJ_FAIL_SYSCALL("poll", errno, "capture-batch signals");
  }
  return !interrupted;
}

}  // namespace rea::supervisor
