// Real processes under a ProcessObserver in exact mode (cgroup v2 + proc connector, A8). These
// tests need root (the machine's tests run as root); each ends with no run-token carrier and no
// capture cgroup left.

#include "helpers/sampler/process-observer.h"

#include <gtest/gtest.h>

#include "tests/unit/sampler-test-support.h"

namespace rea::helper {
namespace {

using testing::expectNothingLeft;
using testing::freshToken;
using testing::RecordingSink;
using testing::spawnTarget;
using testing::waitForExit;

class ExactObserver : public ::testing::Test {
 protected:
  ~ExactObserver() noexcept override {}
  void SetUp() override {
    token = freshToken();
    observer = kj::heap<ProcessObserver>(ObserverConfig{token, 1000, false, true},
                                         io.provider->getTimer(), io.unixEventPort, sink);
    if (observer->mode() != ObservationMode::EXACT) {
      GTEST_SKIP() << "exact observation unavailable here: " << observer->sampledReason();
    }
    cgroupPath = KJ_ASSERT_NONNULL(observer->cgroup()).path();
  }
  void TearDown() override {
    observer = nullptr;  // the cgroup's destructor cleans whatever a failed test left
    testing::killCarriers(token);
    expectNothingLeft(token, cgroupPath);
  }

  kj::AsyncIoContext io = kj::setupAsyncIo();
  RecordingSink sink;
  std::string token;
  std::string cgroupPath;
  kj::Own<ProcessObserver> observer;
};

TEST_F(ExactObserver, RecordsEveryShortLivedChild) {
  auto target = spawnTarget(*observer, token,
                            {"/bin/sh", "-c", "for i in $(seq 100); do /bin/true; done"});
  observer->start(target.pid);
  EXPECT_EQ(WEXITSTATUS(waitForExit(io, target)), 0);
  auto settlement = observer->settle(100).wait(io.waitScope);
  EXPECT_EQ(settlement.state, Settlement::State::QUIESCED);
  EXPECT_FALSE(observer->stop());

  // Each /bin/true is one process: a fork row (the shell's command), an exec row, an exit row.
  std::set<pid_t> trues;
  for (const auto& record : sink.records) {
    if (record.command == "/bin/true" || record.command == "[true]") trues.insert(record.pid);
  }
  EXPECT_EQ(trues.size(), 100u);
  size_t bracketed = sink.withCommand("[true]").size();
  std::cerr << "[true] rows: " << bracketed << " of " << sink.records.size() << "\n";
  size_t exits = 0;
  for (const auto& record : sink.records) {
    if (trues.count(record.pid) != 0 && record.command.empty()) ++exits;
    if (trues.count(record.pid) != 0) {
      EXPECT_EQ(record.ppid, target.pid);
    }
  }
  EXPECT_EQ(exits, 100u);
  // The root: its exec row first (never the launcher's image), its exit last.
  ASSERT_FALSE(sink.records.empty());
  EXPECT_EQ(sink.records.front().pid, target.pid);
  EXPECT_EQ(sink.records.front().command, "/bin/sh -c for i in $(seq 100); do /bin/true; done");
  EXPECT_EQ(sink.records.front().pgid, target.pid);
  EXPECT_EQ(sink.records.front().sid, target.pid);
  EXPECT_EQ(sink.records.back().pid, target.pid);
  EXPECT_EQ(sink.records.back().command, "");
  for (size_t i = 1; i < sink.records.size(); ++i) {
    EXPECT_LE(sink.records[i - 1].atNs, sink.records[i].atNs);
  }

  auto report = observer->cleanup().wait(io.waitScope);
  EXPECT_TRUE(report.complete) << report.problem;
  EXPECT_TRUE(report.signalled.empty());
  EXPECT_TRUE(report.cgroupRemoved);
}

}  // namespace
}  // namespace rea::helper
