// Gate 1 of SPEC B §2.2 (evidence/permission-ceiling.h): the refusal a script can act on, with
// B §2.4's details — `capability`, `requested` (canonical paths), `missing` (only the parts not
// covered), `ceiling` (null when capture is disabled) and `elicitation_supported: false`.
#include "evidence/permission-ceiling.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <map>

#include <nlohmann/json.hpp>

namespace rea::evidence::permission_ceiling {
namespace {

class Resolver final : public PathResolver {
  // A merged-/usr machine: /bin -> /usr/bin, /bin/sh -> /usr/bin/dash; anything else missing.
 public:
  ResolvedPath realPath(const std::string& path) const override {
    static const std::map<std::string, std::string> TABLE = {
        {"/usr/bin", "/usr/bin"},  {"/bin", "/usr/bin"},         {"/bin/sh", "/usr/bin/dash"},
        {"/work", "/work"},        {"/work/data", "/work/data"}, {"/srv", "/srv"},
        {"/srv/tool", "/srv/tool"}};
    auto it = TABLE.find(path);
    if (it == TABLE.end()) return ResolvedPath{std::nullopt, ENOENT};
    return ResolvedPath{it->second, 0};
  }
};
const Resolver MACHINE;

OperatorPolicy ceiling(bool enabled = true, bool external = true) {
  OperatorPolicy policy;
  policy.captureEnabled = enabled;
  policy.executableRoots = {{"/bin", "/bin", "/usr/bin"}};
  policy.workingRoots = {{"/work", "/work", "/work"}};
  policy.allowedEnvironment = {"PATH"};
  policy.allowExternalNetwork = external;
  return policy;
}

PolicyRequest request() {
  PolicyRequest r;
  r.executable = "/bin/sh";
  r.workingDirectory = "/work";
  r.filesystemRoots = {"/work/data"};
  r.environmentNames = {"PATH"};
  return r;
}

TEST(PermissionCeiling, ACoveredRequestPasses) {
  EXPECT_EQ(checkPermissionCeiling(ceiling(), request(), MACHINE), std::nullopt);
  // A9: loopback needs no approval of external networking.
  PolicyRequest loopback = request();
  loopback.networkAccess = NetworkAccess::LOOPBACK;
  EXPECT_EQ(checkPermissionCeiling(ceiling(true, false), loopback, MACHINE), std::nullopt);
}

TEST(PermissionCeiling, EveryUncoveredPartIsListedWithTheCeiling) {
  PolicyRequest r = request();
  r.executable = "/srv/tool";
  r.filesystemRoots = {"/work/data", "/srv"};
  r.environmentNames = {"PATH", "API_TOKEN"};
  auto error = checkPermissionCeiling(ceiling(true, false), r, MACHINE);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "permission_required");
  EXPECT_EQ(error->category, "permission_required");
  EXPECT_FALSE(error->retryable);
  ASSERT_TRUE(error->details);
  const Json& details = *error->details;
  EXPECT_EQ(details["capability"], "process_capture");
  EXPECT_EQ(details["requested"],
            Json::parse(R"({"capability":"process_capture","roots":["/work","/work/data","/srv"],
                "executables":["/srv/tool"],"environment_names":["PATH","API_TOKEN"],
                "network":"external","mount":false})"));
  EXPECT_EQ(details["missing"], Json::parse(R"({"roots":["/srv"],"executables":["/srv/tool"],
                "environment_names":["API_TOKEN"],"network":"external"})"));
  EXPECT_EQ(details["ceiling"], Json::parse(R"({"capability":"process_capture","roots":["/work"],
                "executables":["/usr/bin"],"environment_names":["PATH"],"network":"loopback",
                "mount":false})"));
  Json object = error->toJson();
  EXPECT_EQ(object["remediation"]["elicitation_supported"], false);
  EXPECT_EQ(object["remediation"]["restart_required"], false);
}

TEST(PermissionCeiling, ADisabledCaptureHasNoCeilingAndMissesEverything) {
  auto error = checkPermissionCeiling(ceiling(false), request(), MACHINE);
  ASSERT_TRUE(error.has_value());
  ASSERT_TRUE(error->details);
  const Json& details = *error->details;
  EXPECT_EQ(details["capability"], "process_capture");
  EXPECT_TRUE(details["ceiling"].is_null());
  EXPECT_EQ(details["missing"]["executables"], Json::parse(R"(["/usr/bin/dash"])"));
  EXPECT_EQ(details["missing"]["roots"], Json::parse(R"(["/work","/work/data"])"));
}

TEST(PermissionCeiling, AMissingRequestPathIsUnreadableOutput) {
  PolicyRequest r = request();
  r.filesystemRoots = {"/work/nosuch"};
  auto error = checkPermissionCeiling(ceiling(), r, MACHINE);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "unreadable_output");
  EXPECT_EQ(error->category, "execution_failure");
}

}  // namespace
}  // namespace rea::evidence::permission_ceiling
