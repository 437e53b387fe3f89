#include "helpers/shim/shim-invocation.h"

#include <gtest/gtest.h>

namespace rea::helper {
namespace {

TEST(ShimInvocation, ReadsTheThreeMembersAndIgnoresOthers) {
  auto invocation = parseShimInvocation(
      R"({"command":"git","arguments":["a b","","\n","é"],"working_directory":"/w","x":[1]})");
  ASSERT_TRUE(invocation);
  EXPECT_EQ(invocation->command, "git");
  EXPECT_EQ(invocation->arguments, (std::vector<std::string>{"a b", "", "\n", "\xC3\xA9"}));
  EXPECT_EQ(invocation->workingDirectory, "/w");
}

TEST(ShimInvocation, RejectsWhatIsNotAnInvocation) {
  const char* const bad[] = {
      "",
      "not json",
      "[]",
      "null",
      R"({"command":"git","arguments":[]})",
      R"({"command":"git","working_directory":"/"})",
      R"({"arguments":[],"working_directory":"/"})",
      R"({"command":1,"arguments":[],"working_directory":"/"})",
      R"({"command":"git","arguments":"a","working_directory":"/"})",
      R"({"command":"git","arguments":["a",2],"working_directory":"/"})",
      R"({"command":"git","arguments":[null],"working_directory":"/"})",
      R"({"command":"git","arguments":[],"working_directory":null})",
      R"({"command":"git","arguments":[],"working_directory":"/"} trailing)",
      R"({"command":"git","arguments":[],"working_directory":"\ud800"})",
  };
  for (const char* body : bad)
    EXPECT_FALSE(parseShimInvocation(body)) << body;
}

TEST(ShimInvocation, DecodesIllFormedUtf8AsReplacementCharacters) {
  auto invocation = parseShimInvocation(
      "{\"command\":\"t\",\"arguments\":[\"a\xFF"
      "b\"],\"working_directory\":\"/\"}");
  ASSERT_TRUE(invocation);
  EXPECT_EQ(invocation->arguments[0],
            "a\xEF\xBF\xBD"
            "b");
}

TEST(ShimInvocation, AcceptsExactly64KiBAndNotOneByteMore) {
  std::string prefix = R"({"command":"t","arguments":[],"working_directory":")";
  std::string suffix = "\"}";
  std::string body =
      prefix + std::string(SHIM_REQUEST_BODY_LIMIT - prefix.size() - suffix.size(), 'x') + suffix;
  ASSERT_EQ(body.size(), 65536u);
  EXPECT_TRUE(parseShimInvocation(body));
  body.insert(prefix.size(), "x");
  EXPECT_FALSE(parseShimInvocation(body));
}

TEST(ShimInvocation, SurvivesDeepNesting) {
  std::string body(SHIM_REQUEST_BODY_LIMIT / 2, '[');
  body += std::string(SHIM_REQUEST_BODY_LIMIT / 2, ']');
  EXPECT_FALSE(parseShimInvocation(body));
}

}  // namespace
}  // namespace rea::helper
