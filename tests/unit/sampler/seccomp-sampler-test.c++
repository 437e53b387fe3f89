// The sampler helper's filter: its golden listing, a real observation under it, and what it
// kills.
#include "helpers/sampler/seccomp-policy.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tests/unit/sampler-test-support.h"
#include "tests/test-support.h"

namespace rea::helper {
namespace {

using rea::test::readFile;

using namespace rea::helper::testing;

TEST(SamplerSeccompPolicy, MatchesTheGoldenFile) {
  // A policy change must show up as a readable diff of tests/data/seccomp/sampler.txt.
  auto golden = readFile(REA_SOURCE_DIR "/tests/data/seccomp/sampler.txt");
  EXPECT_EQ(std::string(samplerSeccompPolicy().describe().cStr()), golden);
}

TEST(SamplerSeccompPolicy, TheBinaryPrintsTheSamePolicy) {
  FILE* pipe = popen(REA_BINARY_DIR "/bin/rea-sampler --seccomp-policy", "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    text.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(text, readFile(REA_SOURCE_DIR "/tests/data/seccomp/sampler.txt"));
}

[[noreturn]] void observeUnderTheFilter(bool forceSampled) {
  // Prepare (cgroup, proc connector), spawn, lock down, then observe, settle, stop and clean up
  // a target that forks, execs and leaves a daemon behind, all under the filter.
  auto io = kj::setupAsyncIo();
  RecordingSink sink;
  std::string token = freshToken();
  ObserverConfig config;
  config.runToken = token;
  config.forceSampled = forceSampled;
  ProcessObserver observer(config, io.provider->getTimer(), io.unixEventPort, sink);
  std::string cgroupPath;
  KJ_IF_MAYBE (group, observer.cgroup()) {
    cgroupPath = group->path();
  }
  auto target =
      spawnTarget(observer, token, {"/bin/sh", "-c", "/bin/true; (setsid sleep 30 &); sleep 0.2"});
  samplerSeccompPolicy().load();
  observer.start(target.pid);
  kj::UnixEventPort::FdObserver exited(io.unixEventPort, target.pidfd.get(),
                                       kj::UnixEventPort::FdObserver::OBSERVE_READ);
  exited.whenBecomesReadable().wait(io.waitScope);
  auto settlement = observer.settle(200).wait(io.waitScope);
  observer.stop();
  auto report = observer.cleanup().wait(io.waitScope);
  // Sampled mode may miss the daemon's escape before settlement (the baseline's limitation);
  // cleanup's final run-token scan still finds and kills it.
  bool settled = forceSampled ? settlement.state != Settlement::State::UNVERIFIABLE
                              : settlement.state == Settlement::State::ALIVE_AT_DEADLINE;
  bool ok = settled && report.complete && !report.signalled.empty() && sink.records.size() >= 2;
  if (!ok) {
    fprintf(stderr, "settlement %s, cleanup %d (%s), %zu records\n",
            settlementStateName(settlement.state), int(report.complete), report.problem.c_str(),
            sink.records.size());
  }
  _exit(ok ? 0 : 1);
}

TEST(SamplerSeccompPolicy, AnObservationRunsUnderTheFilter) {
  EXPECT_EXIT(observeUnderTheFilter(false), ::testing::ExitedWithCode(0), "");
}

TEST(SamplerSeccompPolicy, ASampledObservationRunsUnderTheFilter) {
  EXPECT_EXIT(observeUnderTheFilter(true), ::testing::ExitedWithCode(0), "");
}

[[noreturn]] void execUnderTheFilter() {
  samplerSeccompPolicy().load();
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  execv("/bin/true", argv);
  _exit(0);
}

[[noreturn]] void openForWritingUnderTheFilter() {
  samplerSeccompPolicy().load();
  open("/tmp/rea-sampler-seccomp-test", O_WRONLY | O_CREAT, 0600);
  _exit(0);
}

[[noreturn]] void socketUnderTheFilter() {
  samplerSeccompPolicy().load();
  socket(AF_INET, SOCK_STREAM, 0);
  _exit(0);
}

[[noreturn]] void forkUnderTheFilter() {
  samplerSeccompPolicy().load();
  fork();
  _exit(0);
}

[[noreturn]] void mkdirUnderTheFilter() {
  samplerSeccompPolicy().load();
  mkdir("/tmp/rea-sampler-seccomp-test", 0700);
  _exit(0);
}

TEST(SamplerSeccompPolicy, KillsExecWritesSocketsForkAndMkdir) {
  EXPECT_EXIT(execUnderTheFilter(), ::testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(openForWritingUnderTheFilter(), ::testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(socketUnderTheFilter(), ::testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(forkUnderTheFilter(), ::testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(mkdirUnderTheFilter(), ::testing::KilledBySignal(SIGSYS), "");
}

}  // namespace
}  // namespace rea::helper
