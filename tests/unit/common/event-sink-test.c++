// BatchingSink with a manual timer: when batches go out, how big they are, and failures.
#include "helpers/common/event-sink.h"

#include <gtest/gtest.h>
#include <kj/async.h>
#include <kj/debug.h>
#include <kj/timer.h>
#include <string>
#include <vector>

namespace rea::helper {
namespace {

struct Harness {
  kj::EventLoop loop;
  kj::WaitScope waitScope{loop};
  kj::TimerImpl timer{kj::origin<kj::TimePoint>()};
  std::vector<std::vector<int>> sent;
  kj::Vector<kj::Own<kj::PromiseFulfiller<void>>> pendingSends;
  bool holdSends = false;

  BatchingSink<int>::Send sender() {
    return [this](kj::Array<int> batch) -> kj::Promise<void> {
      sent.emplace_back(batch.begin(), batch.end());
      if (!holdSends) return kj::READY_NOW;
      auto paf = kj::newPromiseAndFulfiller<void>();
      pendingSends.add(kj::mv(paf.fulfiller));
      return kj::mv(paf.promise);
    };
  }

  void advance(kj::Duration by) {
    timer.advanceTo(timer.now() + by);
    waitScope.poll();
  }
};

TEST(BatchingSink, SendsABatchOnceTheDelayHasPassed) {
  Harness h;
  BatchingSink<int> sink(h.timer, h.sender(), {1024, 100, 5 * kj::MILLISECONDS});
  sink.add(1, 1);
  sink.add(2, 1);
  h.advance(4 * kj::MILLISECONDS);
  EXPECT_TRUE(h.sent.empty());
  sink.add(3, 1);
  h.advance(1 * kj::MILLISECONDS);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0], (std::vector<int>{1, 2, 3}));
}

TEST(BatchingSink, SendsAtOnceWhenTheSizeLimitIsReached) {
  Harness h;
  BatchingSink<int> sink(h.timer, h.sender(), {10, 100, 5 * kj::MILLISECONDS});
  sink.add(1, 4);
  sink.add(2, 4);
  h.waitScope.poll();
  EXPECT_TRUE(h.sent.empty());
  sink.add(3, 4);
  h.waitScope.poll();
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0], (std::vector<int>{1, 2, 3}));
}

TEST(BatchingSink, KeepsOneBatchInFlightAndSplitsTheBacklog) {
  Harness h;
  h.holdSends = true;
  BatchingSink<int> sink(h.timer, h.sender(), {8, 3, 5 * kj::MILLISECONDS});
  sink.add(0, 1);
  sink.flush();
  h.waitScope.poll();
  ASSERT_EQ(h.sent.size(), 1u);
  for (int i = 1; i <= 7; ++i)
    sink.add(i, 1);  // piles up while the first send is in flight
  h.advance(10 * kj::MILLISECONDS);
  EXPECT_EQ(h.sent.size(), 1u);
  for (int round = 0; round < 3; ++round) {
    h.pendingSends[h.pendingSends.size() - 1]->fulfill();
    h.waitScope.poll();
  }
  ASSERT_EQ(h.sent.size(), 4u);
  EXPECT_EQ(h.sent[1], (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(h.sent[2], (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(h.sent[3], (std::vector<int>{7}));
}

TEST(BatchingSink, StopsABatchOnceItHoldsMaxBytes) {
  Harness h;
  h.holdSends = true;
  BatchingSink<int> sink(h.timer, h.sender(), {10, 100, 5 * kj::MILLISECONDS});
  sink.add(0, 1);
  sink.flush();
  h.waitScope.poll();
  for (int i = 1; i <= 4; ++i)
    sink.add(i, 6);
  h.pendingSends[0]->fulfill();
  h.waitScope.poll();
  ASSERT_EQ(h.sent.size(), 2u);
  EXPECT_EQ(h.sent[1], (std::vector<int>{1, 2}));  // 12 bytes: over 10 by less than one event
}

TEST(BatchingSink, WhenPendingBelowResolvesOnceASendTookEnough) {
  Harness h;
  h.holdSends = true;
  BatchingSink<int> sink(h.timer, h.sender(), {4, 100, 5 * kj::MILLISECONDS});
  for (int i = 0; i < 6; ++i)
    sink.add(i, 2);  // the first batch (0, 1) goes out, 8 bytes stay
  h.waitScope.poll();
  EXPECT_EQ(sink.pendingSize(), 8u);
  EXPECT_TRUE(sink.whenPendingBelow(9).poll(h.waitScope));
  bool below = false;
  auto waiting = sink.whenPendingBelow(5).then([&]() { below = true; });
  h.waitScope.poll();
  EXPECT_FALSE(below);
  h.pendingSends[0]->fulfill();  // (2, 3) goes out: 4 bytes left
  waiting.wait(h.waitScope);
  EXPECT_TRUE(below);
  EXPECT_EQ(sink.pendingSize(), 4u);
  auto first = sink.whenPendingBelow(1);
  auto second = sink.whenPendingBelow(1);
  EXPECT_TRUE(first.poll(h.waitScope));  // replaced: resolved, not broken
  EXPECT_FALSE(second.poll(h.waitScope));
}

TEST(BatchingSink, WhenPendingBelowResolvesWhenTheSinkFails) {
  Harness h;
  auto fail = kj::newPromiseAndFulfiller<void>();
  BatchingSink<int> sink(h.timer,
                         [&](kj::Array<int>) -> kj::Promise<void> { return kj::mv(fail.promise); },
                         {2, 100, 5 * kj::MILLISECONDS});
  for (int i = 0; i < 4; ++i)
    sink.add(i, 2);
  auto waiting = sink.whenPendingBelow(1);
  h.waitScope.poll();
  EXPECT_FALSE(waiting.poll(h.waitScope));
  fail.fulfiller->reject(KJ_EXCEPTION(DISCONNECTED, "supervisor gone"));
  waiting.wait(h.waitScope);  // add() drops everything now: nothing to wait for
  EXPECT_EQ(sink.pendingSize(), 0u);
}

TEST(BatchingSink, EndResolvesAfterTheLastSend) {
  Harness h;
  h.holdSends = true;
  BatchingSink<int> sink(h.timer, h.sender(), {1024, 100, 5 * kj::MILLISECONDS});
  sink.add(1, 1);
  bool ended = false;
  auto end = sink.end().then([&]() { ended = true; });
  h.waitScope.poll();
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_FALSE(ended);
  h.pendingSends[0]->fulfill();
  end.wait(h.waitScope);
  EXPECT_TRUE(ended);
}

TEST(BatchingSink, AFailedSendFailsTheSink) {
  Harness h;
  BatchingSink<int> sink(h.timer,
                         [](kj::Array<int>) -> kj::Promise<void> {
                           return KJ_EXCEPTION(DISCONNECTED, "supervisor gone");
                         },
                         {1024, 100, 5 * kj::MILLISECONDS});
  auto failed = sink.whenFailed();
  sink.add(1, 1);
  sink.flush();
  auto result = kj::runCatchingExceptions([&]() { failed.wait(h.waitScope); });
  KJ_IF_MAYBE (e, result) {
    EXPECT_EQ(e->getType(), kj::Exception::Type::DISCONNECTED);
  } else {
    ADD_FAILURE() << "whenFailed() did not reject";
  }
  sink.add(2, 1);
  EXPECT_EQ(sink.pendingCount(), 0u);
  EXPECT_ANY_THROW(sink.end().wait(h.waitScope));
}

}  // namespace
}  // namespace rea::helper
