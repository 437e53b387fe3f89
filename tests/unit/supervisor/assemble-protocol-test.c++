// Protocol assembly: times from the recorder's origin, bucketed; data normalised and redacted;
// truncation and the diagnostics residual.
#include "supervisor/assembly/assemble-protocol.h"

#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

using evidence::ProtocolDirection;
using evidence::ProtocolKind;
using evidence::ProtocolOutcome;

const uint64_t ORIGIN = 5000000000ull;

ReplayEvent event(uint64_t sequence, uint64_t afterMs, ProtocolDirection direction,
                  std::string data) {
  ReplayEvent e;
  e.sequence = sequence;
  e.atNs = ORIGIN + afterMs * 1000000ull + 123;
  e.protocol = ProtocolKind::HTTP;
  e.direction = direction;
  e.method = "GET";
  e.path = "/p";
  e.data = std::move(data);
  e.outcome = ProtocolOutcome::MATCHED;
  return e;
}

TEST(AssembleProtocol, TimesCountFromTheRecorderOriginAndAreBucketed) {
  ReplayRecord record;
  record.originNs = ORIGIN;
  record.events = {event(0, 0, ProtocolDirection::REQUEST, ""),
                   event(1, 37, ProtocolDirection::RESPONSE, "x")};
  auto out = assembleProtocol(record, {}, 10);
  ASSERT_EQ(out.events.size(), 2u);
  EXPECT_EQ(out.events[0].atMs, 0);
  EXPECT_EQ(out.events[1].atMs, 30);
  EXPECT_EQ(out.events[1].sequence, 1);
  EXPECT_EQ(out.events[1].method, "GET");
  EXPECT_FALSE(out.truncated);
  EXPECT_TRUE(out.residualUnknowns.empty());
}

TEST(AssembleProtocol, DataIsNormalisedWithThePlaceholderRootAndNoPids) {
  ReplayRecord record;
  record.originNs = ORIGIN;
  record.events = {
      event(0, 1, ProtocolDirection::RESPONSE, "key=s3cr3t-v pid 4242 root /tmp/r dir /w/x")};
  evidence::NormaliseContext base;
  base.secrets = {"s3cr3t-v"};
  base.temporaryRoot = "/tmp/r";
  base.workingDirectory = "/w";
  base.pids = {4242};
  auto out = assembleProtocol(record, base, 1);
  EXPECT_EQ(out.events[0].data, "key=<redacted> pid 4242 root /tmp/r dir <working-directory>/x");
}

TEST(AssembleProtocol, TheHarnessPortIsNormalisedInBodies) {
  ReplayRecord record;
  record.originNs = ORIGIN;
  record.events = {event(0, 1, ProtocolDirection::RESPONSE, "port 43210 and x:43210")};
  evidence::NormaliseContext base;
  base.harnessPorts = {43210};
  auto out = assembleProtocol(record, base, 1);
  EXPECT_EQ(out.events[0].data, "port <port> and x:<port>");
}

TEST(AssembleProtocol, EveryReplayTruncationCauseTruncates) {
  for (int cause = 0; cause < 3; ++cause) {
    ReplayRecord record;
    record.originNs = ORIGIN;
    record.droppedEvents = cause == 0 ? 1 : 0;
    record.bodyOverLimit = cause == 1;
    record.connectionCap = cause == 2;
    EXPECT_TRUE(assembleProtocol(record, {}, 10).truncated) << cause;
  }
}

TEST(AssembleProtocol, RefusedConnectionsBecomeAProtocolResidualUnknown) {
  ReplayRecord record;
  record.originNs = ORIGIN;
  record.diagnostics = {{ORIGIN, "bad_request", "unparseable request"},
                        {ORIGIN, "bad_request", "unparseable request"},
                        {ORIGIN, "headers_too_large", "too large"}};
  record.diagnosticCount = 3;
  auto out = assembleProtocol(record, {}, 10);
  ASSERT_EQ(out.residualUnknowns.size(), 1u);
  EXPECT_EQ(out.residualUnknowns[0].scope, evidence::ResidualScope::PROTOCOL);
  EXPECT_NE(out.residualUnknowns[0].reason.find("refused 3 "), std::string::npos);
  EXPECT_NE(out.residualUnknowns[0].reason.find("bad_request x2, headers_too_large x1"),
            std::string::npos)
      << out.residualUnknowns[0].reason;
  ASSERT_EQ(out.limitations.size(), 1u);
  EXPECT_FALSE(out.truncated);
}

}  // namespace
}  // namespace rea::supervisor
