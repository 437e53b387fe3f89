// `rea stability`'s aggregation (SPEC A15): per dimension, do all pairs of captures agree?

#include "evidence/stability.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "evidence/compare.h"
#include "tests/unit/compare-fixtures.h"

namespace rea::evidence {
namespace {

using compare_fixtures::interactiveCapture;

TEST(Stability, IdenticalCapturesAreStableInEveryDimension) {
  Json capture = interactiveCapture();
  Json result = assessStability({capture, capture, capture});
  EXPECT_EQ(result.dump(),
            R"({"runs":3,"pairs":3,"status":"stable","dimensions":{"terminal":"stable",)"
            R"("interaction":"stable","exit":"stable","filesystem":"stable","protocol":"stable",)"
            R"("process":"stable","shim":"stable"},"differences":[],"limitations":)"
            R"(["The filesystem is observed through before/after snapshots rather than syscall )"
            R"(tracing."]})");
  EXPECT_EQ(summariseStability(result).substr(0, 44),
            "stability: stable (3 runs, 3 pairs compared)");
}

TEST(Stability, OneDifferingCaptureNamesEachDifferingPairAndItsFirstDivergence) {
  Json same = interactiveCapture();
  Json other = interactiveCapture();
  other["exit"]["code"] = 3;
  Json result = assessStability({same, other, same});
  EXPECT_EQ(result["status"], "unstable");
  EXPECT_EQ(result["dimensions"]["exit"], "unstable");
  EXPECT_EQ(result["dimensions"]["terminal"], "stable");
  ASSERT_EQ(result["differences"].size(), 2u);  // (1,2) and (2,3); (1,3) agree
  EXPECT_EQ(result["differences"][0]["left"], 1);
  EXPECT_EQ(result["differences"][0]["right"], 2);
  EXPECT_EQ(result["differences"][1]["left"], 2);
  EXPECT_EQ(result["differences"][1]["right"], 3);
  EXPECT_EQ(result["differences"][0]["dimensions"].dump(), R"(["exit"])");
  EXPECT_EQ(result["differences"][0]["first_divergence"]["dimension"], "exit");
  EXPECT_NE(summariseStability(result).find("runs 1 and 2: changed, first divergence in exit"),
            std::string::npos)
      << summariseStability(result);
}

TEST(Stability, TruncationOrResidualsMakeADimensionUnknownNotStable) {
  Json capture = interactiveCapture();
  Json truncated = interactiveCapture();
  truncated["truncated"] = true;
  Json result = assessStability({capture, truncated});
  EXPECT_EQ(result["status"], "unknown");
  EXPECT_EQ(result["dimensions"]["terminal"], "unknown");
  EXPECT_EQ(result["limitations"].dump(), R"(["At least one capture is truncated."])");
}

TEST(Stability, NeedsTwoCaptures) {
  EXPECT_THROW(assessStability({interactiveCapture()}), std::invalid_argument);
}

}  // namespace
}  // namespace rea::evidence
