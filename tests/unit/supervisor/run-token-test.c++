#include "supervisor/run/run-token.h"

#include <regex>
#include <set>

#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

TEST(RunToken, IsALowercaseUuidVersion4) {
  std::regex uuid("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  for (int i = 0; i < 100; ++i)
    EXPECT_TRUE(std::regex_match(newRunToken(), uuid));
}

TEST(RunToken, IsFreshEachTime) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i)
    seen.insert(newRunToken());
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace rea::supervisor
