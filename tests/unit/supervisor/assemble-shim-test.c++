// assembleShimEvents: ledger calls into `shim_events` (B §4.3, §7.3; A3, A5, A6).
#include "supervisor/assembly/assemble-shim.h"

#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

const uint64_t SHIM_T0 = 5000000000ull;

int64_t bucketed(uint64_t atNs) {
  // The capture's clock: ms since SHIM_T0, clamped, 10 ms buckets.
  int64_t ms = atNs <= SHIM_T0 ? 0 : int64_t((atNs - SHIM_T0) / 1000000);
  return ms / 10 * 10;
}

ShimCall callOf(uint64_t atNs, std::vector<std::string> arguments, std::string directory,
                std::optional<uint32_t> route, ShimCall::Outcome outcome) {
  ShimCall call;
  call.atNs = atNs;
  call.command = "tool";
  call.arguments = std::move(arguments);
  call.workingDirectory = std::move(directory);
  call.routeIndex = route;
  call.outcome = outcome;
  return call;
}

evidence::NormaliseContext contextOf() {
  evidence::NormaliseContext context;
  context.temporaryRoot = "/tmp/rea-process-abc123";
  context.workingDirectory = "/srv/work";
  context.pids = {4242};
  context.harnessPorts = {40123};
  context.secrets = {"hunter2-secret"};
  return context;
}

TEST(AssembleShimEvents, NumbersBucketsAndNormalisesArgumentsAndDirectoryButNotTheCommand) {
  ShimRecord record;
  record.calls.push_back(callOf(SHIM_T0 + 12500000, {"--pid=4242", "http://127.0.0.1:40123/x"},
                                "/tmp/rea-process-abc123/home/sub", 0u,
                                ShimCall::Outcome::MATCHED));
  record.calls.push_back(callOf(SHIM_T0 + 37000000, {"token=hunter2-secret", ""}, "/srv/work",
                                std::nullopt, ShimCall::Outcome::UNMATCHED));
  record.calls.back().command = "tool-4242";
  auto events = assembleShimEvents(record, bucketed, contextOf());
  ASSERT_EQ(events.size(), 2u);

  EXPECT_EQ(events[0].sequence, 0);
  EXPECT_EQ(events[0].atMs, 10);
  EXPECT_EQ(events[0].command, "tool");
  EXPECT_EQ(events[0].routeIndex, 0);
  EXPECT_EQ(events[0].arguments,
            (std::vector<std::string>{"--pid=<pid>", "http://127.0.0.1:<port>/x"}));
  EXPECT_EQ(events[0].workingDirectory, "<temporary-root>/home/sub");
  EXPECT_EQ(events[0].outcome, evidence::ShimOutcome::MATCHED);

  EXPECT_EQ(events[1].sequence, 1);
  EXPECT_EQ(events[1].atMs, 30);
  EXPECT_EQ(events[1].command, "tool-4242");  // B §7.3: the command is not normalised
  EXPECT_FALSE(events[1].routeIndex.has_value());
  EXPECT_EQ(events[1].arguments, (std::vector<std::string>{"token=<redacted>", ""}));
  EXPECT_EQ(events[1].workingDirectory, "<working-directory>");
  EXPECT_EQ(events[1].outcome, evidence::ShimOutcome::UNMATCHED);
}

TEST(AssembleShimEvents, ACallBeforeT0IsClampedToZero) {
  ShimRecord record;
  record.calls.push_back(
      callOf(SHIM_T0 - 1000, {}, "/", std::nullopt, ShimCall::Outcome::UNMATCHED));
  auto events = assembleShimEvents(record, bucketed, contextOf());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].atMs, 0);
}

}  // namespace
}  // namespace rea::supervisor
