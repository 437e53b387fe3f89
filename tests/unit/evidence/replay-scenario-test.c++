// The scenario rules the replay server depends on: response headers it can actually send.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "evidence/scenario.h"

namespace rea::evidence {
namespace {

std::vector<Issue> issuesFor(const char* responseHeaders) {
  Json scenario = Json::parse(R"({"approved":true,"executable":"/bin/true",
      "working_directory":"/tmp"})");
  scenario["replay"] = {{"http",
                         {{{"method", "GET"},
                           {"path", "/x"},
                           {"status", 200},
                           {"body", ""},
                           {"request_headers", {{"any name at all", "a\r\nb"}}},
                           {"response_headers", Json::parse(responseHeaders)}}}}};
  return parseScenario(scenario).issues;
}

TEST(ReplayScenario, SendableResponseHeadersAndAnyRequestHeadersAreAccepted) {
  EXPECT_TRUE(issuesFor(R"({"Content-Type":"text/plain","X-A_b.c~1!":"v\tw"})").empty());
}

TEST(ReplayScenario, AResponseHeaderNameMustBeAToken) {
  auto issues = issuesFor(R"j({"Bad Name":"v","":"w","X(y)":"z"})j");
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues[0].path, "replay.http[0].response_headers.Bad Name");
  EXPECT_EQ(issues[0].message, "header name must be an HTTP token");
}

TEST(ReplayScenario, AResponseHeaderValueMustNotHoldCrLfOrNul) {
  auto issues = issuesFor(R"({"A":"x\r\nInjected: 1","B":"y\n","C":"nul\u0000"})");
  ASSERT_EQ(issues.size(), 3u);
  for (const auto& issue : issues)
    EXPECT_EQ(issue.message, "header value must not contain CR, LF or NUL");
}

}  // namespace
}  // namespace rea::evidence
