#include "helpers/sampler/standalone.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include "helpers/common/request-field.h"
#include "helpers/common/system/capture-cgroup.h"
#include "helpers/sampler/process-observer.h"

namespace rea::helper {

namespace {

class JsonSink final : public ProcessSink {
 public:
  explicit JsonSink(JsonLines& out) : out(out) {}
  void record(const ProcessRecord& row) override {
    evidence::Json line = {
        {"event", "sample"}, {"atNs", row.atNs}, {"pid", row.pid}, {"ppid", row.ppid}};
    line["pgid"] = row.pgid ? evidence::Json(*row.pgid) : evidence::Json();
    line["sid"] = row.sid ? evidence::Json(*row.sid) : evidence::Json();
    line["command"] = row.command;
    out.write(line);
  }

 private:
  JsonLines& out;
};

struct Launch {
  std::vector<std::string> argvText;
  std::vector<std::string> envText;
  std::vector<char*> argv;
  std::vector<char*> envp;
};

pid_t spawnCommand(Launch& launch, kj::Maybe<CaptureCgroup&> group, kj::AutoCloseFd& pidfd) {
  for (auto& a : launch.argvText)
    launch.argv.push_back(const_cast<char*>(a.c_str()));
  launch.argv.push_back(nullptr);
  for (auto& e : launch.envText)
    launch.envp.push_back(const_cast<char*>(e.c_str()));
  launch.envp.push_back(nullptr);
  // The root is never waited for: with SIGCHLD ignored the kernel reaps it, and its pidfd still
  // becomes readable when it exits.
  signal(SIGCHLD, SIG_IGN);
  pid_t pid;
  int fd = -1;
  KJ_IF_MAYBE (g, group) {
    pid = cloneIntoCgroup(g->dirFd(), &fd);
  } else {
    KJ_SYSCALL(pid = fork());
  }
  if (pid == 0) {
    signal(SIGCHLD, SIG_DFL);
    setsid();
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
    }
    execve(launch.argv[0], launch.argv.data(), launch.envp.data());
    _exit(127);
  }
  if (fd < 0) {
    KJ_SYSCALL(fd = int(syscall(SYS_pidfd_open, pid, 0)));
  }
  pidfd = kj::AutoCloseFd(fd);
  return pid;
}

struct StandaloneJob {
  JsonSink sink;
  kj::Own<ProcessObserver> observer;
  kj::AutoCloseFd pidfd;
  kj::Own<kj::UnixEventPort::FdObserver> exitWatch;
  explicit StandaloneJob(JsonLines& out) : sink(out) {}
};

}  // namespace

kj::Promise<void> runSamplerStandalone(HelperContext& context, const evidence::Json& request,
                                       JsonLines& out) {
  KJ_REQUIRE(request.is_object(), "the request is not a JSON object");
  ObserverConfig config;
  config.runToken = field<std::string>(request, "runToken", "");
  KJ_REQUIRE(!config.runToken.empty(), "runToken is required");
  config.maxProcesses = field<uint32_t>(request, "maxProcesses", config.maxProcesses);
  config.forceSampled = field<bool>(request, "forceSampled", false);
  uint64_t settleMs = field<uint64_t>(request, "settleMs", 100);
  Launch launch;
  launch.argvText = field<std::vector<std::string>>(request, "command", {});
  KJ_REQUIRE(!launch.argvText.empty(), "command is required");
  launch.envText = {"PATH=/usr/bin:/bin", "REA_PROCESS_RUN_ID=" + config.runToken};

  auto job = kj::heap<StandaloneJob>(out);
  auto& io = context.io;
  job->observer = kj::heap<ProcessObserver>(kj::mv(config), io.provider->getTimer(),
                                            io.unixEventPort, job->sink);
  auto& observer = *job->observer;
  std::string cgroupPath;
  KJ_IF_MAYBE (g, observer.cgroup()) {
    cgroupPath = g->path();
  }
  out.write({{"event", "prepared"},
             {"mode", observationModeName(observer.mode())},
             {"cgroupPath", cgroupPath},
             {"sampledReason", observer.sampledReason()}});
  pid_t root = spawnCommand(launch, observer.cgroup(), job->pidfd);
  context.lockDown();
  observer.start(root);
  out.write({{"event", "spawned"}, {"rootPid", root}});
  job->exitWatch = kj::heap<kj::UnixEventPort::FdObserver>(
      io.unixEventPort, job->pidfd.get(), kj::UnixEventPort::FdObserver::OBSERVE_READ);
  auto& jobRef = *job;
  return jobRef.exitWatch->whenBecomesReadable()
      .then([&jobRef, settleMs]() { return jobRef.observer->settle(settleMs); })
      .then([&jobRef, &out](Settlement settlement) {
        out.write({{"event", "settled"},
                   {"state", settlementStateName(settlement.state)},
                   {"elapsedMs", settlement.elapsedMs}});
        bool partial = jobRef.observer->stop();
        out.write({{"event", "stopped"},
                   {"partial", partial},
                   {"recorded", jobRef.observer->recordedCount()},
                   {"unreadCommands", jobRef.observer->unreadCommandCount()}});
        return jobRef.observer->cleanup();
      })
      .then([&out](CleanupReport report) {
        out.write({{"event", "cleaned"},
                   {"complete", report.complete},
                   {"problem", report.problem},
                   {"signalled", report.signalled.size()},
                   {"unowned", report.unowned.size()}});
      })
      .attach(kj::mv(job));
}

}  // namespace rea::helper
