// evidence/limits.h: the one definition of each limit's and the terminal size's default and
// range, as the scenario parser applies them.

#include "evidence/limits.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "evidence/scenario.h"

namespace rea::evidence {
namespace {

Json minimalScenario() {
  return {{"approved", true}, {"executable", "/bin/true"}, {"working_directory", "/"}};
}

TEST(Limits, BoundsContainExactlyTheirRange) {
  EXPECT_TRUE(limit::OUTPUT_BYTES.contains(1));
  EXPECT_TRUE(limit::OUTPUT_BYTES.contains(uint64_t(10000000)));
  EXPECT_FALSE(limit::OUTPUT_BYTES.contains(0));
  EXPECT_FALSE(limit::OUTPUT_BYTES.contains(uint64_t(10000001)));
  // An unsigned value too large for int64_t is out of every range, not wrapped into one.
  EXPECT_FALSE(terminal::SCROLLBACK.contains(UINT64_MAX));
  EXPECT_TRUE(terminal::SCROLLBACK.contains(0));
  EXPECT_EQ(clampedTo(terminal::COLUMNS, 0), 1);
  EXPECT_EQ(clampedTo(terminal::ROWS, 5000), 1000);
  EXPECT_EQ(clampedTo(terminal::ROWS, 30), 30);
}

TEST(Limits, AScenarioWithoutLimitsTakesTheDefaults) {
  ScenarioParseResult parsed = parseScenario(minimalScenario());
  ASSERT_TRUE(parsed.scenario.has_value());
  const Scenario& s = *parsed.scenario;
  EXPECT_EQ(s.limits.outputBytes, 1000000);
  EXPECT_EQ(s.limits.frames, 10000);
  EXPECT_EQ(s.limits.files, 10000);
  EXPECT_EQ(s.limits.fileBytes, 10000000);
  EXPECT_EQ(s.limits.processes, 1000);
  EXPECT_EQ(s.limits.protocolEvents, 10000);
  EXPECT_EQ(s.limits.protocolBodyBytes, 1000000);
  EXPECT_EQ(s.limits.connections, 100);
  EXPECT_EQ(s.limits.filesystemDepth, 16);
  EXPECT_EQ(s.terminal.columns, 80);
  EXPECT_EQ(s.terminal.rows, 24);
  EXPECT_EQ(s.terminal.scrollback, 1000);
  EXPECT_EQ(s.timeoutMs, 30000);
  EXPECT_EQ(s.idleTimeoutMs, 30000);
}

TEST(Limits, TheParserAcceptsEachBoundAndRefusesOneBeyond) {
  struct Case {
    const char* section;
    const char* key;
    Bound bound;
  };
  const Case cases[] = {{"limits", "output_bytes", limit::OUTPUT_BYTES},
                        {"limits", "frames", limit::FRAMES},
                        {"limits", "files", limit::FILES},
                        {"limits", "file_bytes", limit::FILE_BYTES},
                        {"limits", "processes", limit::PROCESSES},
                        {"limits", "protocol_events", limit::PROTOCOL_EVENTS},
                        {"limits", "protocol_body_bytes", limit::PROTOCOL_BODY_BYTES},
                        {"limits", "connections", limit::CONNECTIONS},
                        {"limits", "filesystem_depth", limit::FILESYSTEM_DEPTH},
                        {"terminal", "columns", terminal::COLUMNS},
                        {"terminal", "rows", terminal::ROWS},
                        {"terminal", "scrollback", terminal::SCROLLBACK}};
  for (const Case& c : cases) {
    auto parses = [&](int64_t value) {
      Json scenario = minimalScenario();
      scenario[c.section] = {{c.key, value}};
      return parseScenario(scenario).scenario.has_value();
    };
    EXPECT_TRUE(parses(c.bound.min)) << c.key;
    EXPECT_TRUE(parses(c.bound.max)) << c.key;
    EXPECT_FALSE(parses(c.bound.min - 1)) << c.key;
    EXPECT_FALSE(parses(c.bound.max + 1)) << c.key;
  }
}

TEST(Limits, TheParserAcceptsEachTimeoutBoundAndRefusesOneBeyond) {
  // The timeouts sit at the scenario's top level, beside the events whose times they bound.
  const std::pair<const char*, Bound> cases[] = {{"timeout_ms", timing::TIMEOUT_MS},
                                                 {"idle_timeout_ms", timing::IDLE_TIMEOUT_MS}};
  for (const auto& c : cases) {
    const char* key = c.first;  // named, not bound: C++17 lambdas cannot capture a binding
    const Bound bound = c.second;
    auto parses = [&](int64_t value) {
      Json scenario = minimalScenario();
      scenario[key] = value;
      return parseScenario(scenario).scenario.has_value();
    };
    EXPECT_TRUE(parses(bound.min)) << key;
    EXPECT_TRUE(parses(bound.max)) << key;
    EXPECT_FALSE(parses(bound.min - 1)) << key;
    EXPECT_FALSE(parses(bound.max + 1)) << key;
  }
}

}  // namespace
}  // namespace rea::evidence
