#include "evidence/policy-config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>

// A namespace of its own: unity batches share one translation unit with policy-check-test.
namespace rea::evidence::policy_config {
namespace {

using Env = std::map<std::string, std::string>;

EnvironmentLookup lookupIn(const Env& env) {
  return [&env](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

class ConfigTableResolver final : public PathResolver {
  // Resolves exactly the paths in its table (path -> canonical path); anything else is missing.
 public:
  explicit ConfigTableResolver(std::map<std::string, std::string> table)
      : table_(std::move(table)) {}
  ResolvedPath realPath(const std::string& path) const override {
    auto it = table_.find(path);
    if (it == table_.end()) return ResolvedPath{std::nullopt, ENOENT};
    return ResolvedPath{it->second, 0};
  }

 private:
  std::map<std::string, std::string> table_;
};

const ConfigTableResolver USUAL_ROOTS({{"/usr/bin", "/usr/bin"},
                                       {"/bin", "/usr/bin"},
                                       {"/bin/", "/usr/bin"},
                                       {"/work", "/work"},
                                       {"/data", "/data"}});

OperatorPolicyLoad load(const Env& env, const PathResolver& resolver = USUAL_ROOTS) {
  return loadOperatorPolicy(lookupIn(env), "/work", resolver);
}

std::string policyIssuesOf(const OperatorPolicyLoad& loaded) {
  return formatIssues(loaded.issues);
}

TEST(PolicyConfig, DefaultsToDisabledAndEmptyWhenNothingIsSet) {
  OperatorPolicyLoad loaded = load({});
  ASSERT_TRUE(loaded.policy.has_value()) << policyIssuesOf(loaded);
  EXPECT_FALSE(loaded.policy->captureEnabled);
  EXPECT_FALSE(loaded.policy->allowExternalNetwork);
  EXPECT_TRUE(loaded.policy->executableRoots.empty());
  EXPECT_TRUE(loaded.policy->workingRoots.empty());
  EXPECT_TRUE(loaded.policy->allowedEnvironment.empty());
}

TEST(PolicyConfig, ReadsAFullConfiguration) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_CAPTURE_ENABLED", "true"},
                                    {"REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["/usr/bin"])"},
                                    {"REA_PROCESS_WORKING_ROOTS_JSON", R"(["/work", "/data"])"},
                                    {"REA_PROCESS_ALLOWED_ENV_JSON", R"(["PATH", "LANG"])"},
                                    {"REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "false"}});
  ASSERT_TRUE(loaded.policy.has_value()) << policyIssuesOf(loaded);
  EXPECT_TRUE(loaded.policy->captureEnabled);
  EXPECT_FALSE(loaded.policy->allowExternalNetwork);
  ASSERT_EQ(loaded.policy->executableRoots.size(), 1u);
  EXPECT_EQ(loaded.policy->executableRoots[0].canonical, "/usr/bin");
  ASSERT_EQ(loaded.policy->workingRoots.size(), 2u);
  EXPECT_EQ(loaded.policy->workingRoots[1].lexical, "/data");
  EXPECT_EQ(loaded.policy->allowedEnvironment, (std::vector<std::string>{"PATH", "LANG"}));
}

TEST(PolicyConfig, AcceptsOnlyLowercaseBooleanLiterals) {
  for (const char* variable : {CAPTURE_ENABLED_VARIABLE, ALLOW_EXTERNAL_NETWORK_VARIABLE}) {
    EXPECT_TRUE(load({{variable, "true"}}).issues.empty());
    EXPECT_TRUE(load({{variable, "false"}}).issues.empty());
    for (const char* bad : {"TRUE", "True", "1", "0", "yes", "no", "on", " true", "true ", ""}) {
      SCOPED_TRACE(std::string(variable) + "=" + bad);
      OperatorPolicyLoad loaded = load({{variable, bad}});
      EXPECT_FALSE(loaded.policy.has_value());
      ASSERT_EQ(loaded.issues.size(), 1u);
      EXPECT_EQ(loaded.issues[0].path, variable);
      EXPECT_NE(loaded.issues[0].message.find("`true` or `false`"), std::string::npos);
    }
  }
  EXPECT_TRUE(load({{"REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "true"}}).policy->allowExternalNetwork);
}

TEST(PolicyConfig, BoundsTheTargetsProcessesByDefaultAndReadsTheOperatorsNumber) {
  EXPECT_EQ(load({}).policy->maxPids, DEFAULT_MAX_PIDS);
  EXPECT_EQ(load({{MAX_PIDS_VARIABLE, "64"}}).policy->maxPids, 64u);
  EXPECT_EQ(load({{MAX_PIDS_VARIABLE, "0"}}).policy->maxPids, 0u);  // no bound
  EXPECT_EQ(load({{MAX_PIDS_VARIABLE, "4194304"}}).policy->maxPids, MAX_MAX_PIDS);
  for (const char* bad : {"", "-1", "4194305", "99999999", "1e3", " 64", "64 ", "0x40", "many"}) {
    SCOPED_TRACE(bad);
    OperatorPolicyLoad loaded = load({{MAX_PIDS_VARIABLE, bad}});
    EXPECT_FALSE(loaded.policy.has_value());
    ASSERT_EQ(loaded.issues.size(), 1u);
    EXPECT_EQ(loaded.issues[0].path, MAX_PIDS_VARIABLE);
    EXPECT_NE(loaded.issues[0].message.find("decimal integer"), std::string::npos);
    if (*bad != '\0') {
      EXPECT_EQ(loaded.issues[0].message.find(bad), std::string::npos);  // never echoed
    }
  }
}

TEST(PolicyConfig, RejectsListsThatAreNotJson) {
  for (const char* bad : {"[", "not json", "['PATH']", "[\"PATH\",]", "", "[] // note"}) {
    SCOPED_TRACE(bad);
    OperatorPolicyLoad loaded = load({{"REA_PROCESS_ALLOWED_ENV_JSON", bad}});
    EXPECT_FALSE(loaded.policy.has_value());
    ASSERT_EQ(loaded.issues.size(), 1u);
    EXPECT_EQ(loaded.issues[0].path, "REA_PROCESS_ALLOWED_ENV_JSON");
    EXPECT_NE(loaded.issues[0].message.find("valid JSON"), std::string::npos);
  }
}

TEST(PolicyConfig, RejectsJsonThatIsNotAnArray) {
  for (const char* bad : {R"({"PATH":true})", R"("PATH")", "null", "42", "true"}) {
    SCOPED_TRACE(bad);
    OperatorPolicyLoad loaded = load({{"REA_PROCESS_WORKING_ROOTS_JSON", bad}});
    EXPECT_FALSE(loaded.policy.has_value());
    ASSERT_EQ(loaded.issues.size(), 1u);
    EXPECT_EQ(loaded.issues[0].path, "REA_PROCESS_WORKING_ROOTS_JSON");
    EXPECT_NE(loaded.issues[0].message.find("JSON array"), std::string::npos);
  }
}

TEST(PolicyConfig, AcceptsWhitespaceAroundJson) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_ALLOWED_ENV_JSON", " [ \"PATH\" ]\n"}});
  ASSERT_TRUE(loaded.policy.has_value()) << policyIssuesOf(loaded);
  EXPECT_EQ(loaded.policy->allowedEnvironment, std::vector<std::string>{"PATH"});
}

TEST(PolicyConfig, AllowsAtMost128Items) {
  Json names = Json::array();
  for (int i = 0; i < 128; ++i)
    names.push_back("NAME_" + std::to_string(i));
  OperatorPolicyLoad full = load({{"REA_PROCESS_ALLOWED_ENV_JSON", names.dump()}});
  ASSERT_TRUE(full.policy.has_value()) << policyIssuesOf(full);
  EXPECT_EQ(full.policy->allowedEnvironment.size(), 128u);

  names.push_back("ONE_TOO_MANY");
  OperatorPolicyLoad tooMany = load({{"REA_PROCESS_ALLOWED_ENV_JSON", names.dump()}});
  EXPECT_FALSE(tooMany.policy.has_value());
  ASSERT_EQ(tooMany.issues.size(), 1u);
  EXPECT_EQ(tooMany.issues[0].path, "REA_PROCESS_ALLOWED_ENV_JSON");
  EXPECT_EQ(tooMany.issues[0].message, "must have at most 128 items (has 129)");
}

TEST(PolicyConfig, RejectsEmptyAndNonStringItems) {
  OperatorPolicyLoad loaded =
      load({{"REA_PROCESS_ALLOWED_ENV_JSON", R"(["PATH", "", 7, null, ["X"]])"}});
  EXPECT_FALSE(loaded.policy.has_value());
  EXPECT_EQ(policyIssuesOf(loaded),
            "REA_PROCESS_ALLOWED_ENV_JSON[1]: must be a non-empty string; "
            "REA_PROCESS_ALLOWED_ENV_JSON[2]: must be a non-empty string; "
            "REA_PROCESS_ALLOWED_ENV_JSON[3]: must be a non-empty string; "
            "REA_PROCESS_ALLOWED_ENV_JSON[4]: must be a non-empty string");
}

TEST(PolicyConfig, RejectsAnEmptyRootString) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["/usr/bin", ""])"}});
  EXPECT_FALSE(loaded.policy.has_value());
  EXPECT_EQ(policyIssuesOf(loaded),
            "REA_PROCESS_EXECUTABLE_ROOTS_JSON[1]: must be a non-empty string");
}

TEST(PolicyConfig, KeepsDuplicateEntries) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_WORKING_ROOTS_JSON", R"(["/work", "/work"])"}});
  ASSERT_TRUE(loaded.policy.has_value()) << policyIssuesOf(loaded);
  EXPECT_EQ(loaded.policy->workingRoots.size(), 2u);
}

TEST(PolicyConfig, FailsOnAMissingRootAndNamesIt) {
  OperatorPolicyLoad loaded =
      load({{"REA_PROCESS_WORKING_ROOTS_JSON", R"(["/work", "/no/such/root"])"}});
  EXPECT_FALSE(loaded.policy.has_value());
  EXPECT_EQ(policyIssuesOf(loaded),
            "REA_PROCESS_WORKING_ROOTS_JSON[1]: root `/no/such/root` does not exist");

  CommandError error = loaded.error();
  EXPECT_EQ(error.code, "configuration_invalid");
  EXPECT_EQ(error.category, "execution_failure");
  EXPECT_NE(error.message.find("REA_PROCESS_WORKING_ROOTS_JSON[1]: root `/no/such/root` does "
                               "not exist"),
            std::string::npos);
  EXPECT_NE(error.message.find("rea doctor"), std::string::npos);
}

TEST(PolicyConfig, FailsOnAMissingRootEvenWhileCaptureIsDisabled) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_CAPTURE_ENABLED", "false"},
                                    {"REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["/opt/missing"])"}});
  EXPECT_FALSE(loaded.policy.has_value());
  EXPECT_EQ(policyIssuesOf(loaded),
            "REA_PROCESS_EXECUTABLE_ROOTS_JSON[0]: root `/opt/missing` does not exist");
}

TEST(PolicyConfig, ResolvesRelativeRootsAgainstTheGivenDirectory) {
  const ConfigTableResolver resolver(
      std::map<std::string, std::string>{{"/work/tools/../bin", "/work/bin"}});
  OperatorPolicyLoad loaded = loadOperatorPolicy(
      lookupIn({{"REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["tools/../bin"])"}}), "/work", resolver);
  ASSERT_TRUE(loaded.policy.has_value()) << policyIssuesOf(loaded);
  const PolicyRoot& root = loaded.policy->executableRoots.at(0);
  EXPECT_EQ(root.configured, "tools/../bin");
  EXPECT_EQ(root.lexical, "/work/bin");
  EXPECT_EQ(root.canonical, "/work/bin");
}

TEST(PolicyConfig, NamesTheResolvedPathOfAMissingRelativeRoot) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_WORKING_ROOTS_JSON", R"(["./sub"])"}});
  EXPECT_EQ(policyIssuesOf(loaded),
            "REA_PROCESS_WORKING_ROOTS_JSON[0]: root `./sub` (`/work/sub`) does not exist");
}

TEST(PolicyConfig, CanonicalisesRootsAtLoad) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["/bin/"])"}});
  ASSERT_TRUE(loaded.policy.has_value()) << policyIssuesOf(loaded);
  const PolicyRoot& root = loaded.policy->executableRoots.at(0);
  EXPECT_EQ(root.configured, "/bin/");
  EXPECT_EQ(root.lexical, "/bin");
  EXPECT_EQ(root.canonical, "/usr/bin");
}

TEST(PolicyConfig, ReportsEveryProblemInVariableOrder) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_CAPTURE_ENABLED", "yes"},
                                    {"REA_PROCESS_EXECUTABLE_ROOTS_JSON", "{}"},
                                    {"REA_PROCESS_WORKING_ROOTS_JSON", R"(["/gone"])"},
                                    {"REA_PROCESS_ALLOWED_ENV_JSON", R"([""])"},
                                    {"REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "1"}});
  EXPECT_FALSE(loaded.policy.has_value());
  ASSERT_EQ(loaded.issues.size(), 5u);
  EXPECT_EQ(loaded.issues[0].path, "REA_PROCESS_CAPTURE_ENABLED");
  EXPECT_EQ(loaded.issues[1].path, "REA_PROCESS_EXECUTABLE_ROOTS_JSON");
  EXPECT_EQ(loaded.issues[2].path, "REA_PROCESS_WORKING_ROOTS_JSON[0]");
  EXPECT_EQ(loaded.issues[3].path, "REA_PROCESS_ALLOWED_ENV_JSON[0]");
  EXPECT_EQ(loaded.issues[4].path, "REA_PROCESS_ALLOW_EXTERNAL_NETWORK");
}

TEST(PolicyConfig, NeverEchoesVariableValues) {
  OperatorPolicyLoad loaded = load({{"REA_PROCESS_CAPTURE_ENABLED", "hunter2-secret"},
                                    {"REA_PROCESS_ALLOWED_ENV_JSON", "sk-live-secret"}});
  std::string message = loaded.error().message;
  EXPECT_EQ(message.find("hunter2"), std::string::npos);
  EXPECT_EQ(message.find("sk-live"), std::string::npos);
}

TEST(PolicyConfig, RequiresAnAbsoluteCurrentDirectory) {
  EXPECT_THROW(loadOperatorPolicy(lookupIn({}), "relative", USUAL_ROOTS), std::invalid_argument);
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = std::filesystem::temp_directory_path() / "rea-policy-config-XXXXXX";
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    path_ = std::filesystem::canonical(pattern).string();
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(PolicyConfig, ResolvesRealRelativeAndSymlinkedRoots) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/real/bin");
  std::filesystem::create_directories(dir.path() + "/real/x");
  std::filesystem::create_directory_symlink(dir.path() + "/real", dir.path() + "/link");
  std::filesystem::create_directory_symlink(dir.path() + "/real/bin", dir.path() + "/bin-link");
  Env env = {{"REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["link/bin"])"},
             {"REA_PROCESS_WORKING_ROOTS_JSON", R"(["bin-link/../x"])"}};
  OperatorPolicyLoad loaded = loadOperatorPolicy(lookupIn(env), dir.path(), systemPathResolver());
  ASSERT_TRUE(loaded.policy.has_value()) << policyIssuesOf(loaded);
  EXPECT_EQ(loaded.policy->executableRoots.at(0).lexical, dir.path() + "/link/bin");
  EXPECT_EQ(loaded.policy->executableRoots.at(0).canonical, dir.path() + "/real/bin");
  // realpath follows `bin-link` before applying `..` (dir/real/x, which exists), while the
  // lexical form drops `bin-link/..` (dir/x). Both forms are kept; checks need both to hold.
  EXPECT_EQ(loaded.policy->workingRoots.at(0).lexical, dir.path() + "/x");
  EXPECT_EQ(loaded.policy->workingRoots.at(0).canonical, dir.path() + "/real/x");
}

TEST(PolicyConfig, ReportsARealMissingRoot) {
  TempDir dir;
  Env env = {{"REA_PROCESS_WORKING_ROOTS_JSON", "[\"" + dir.path() + "/absent\"]"}};
  OperatorPolicyLoad loaded = loadOperatorPolicy(lookupIn(env), dir.path(), systemPathResolver());
  EXPECT_FALSE(loaded.policy.has_value());
  EXPECT_EQ(policyIssuesOf(loaded),
            "REA_PROCESS_WORKING_ROOTS_JSON[0]: root `" + dir.path() + "/absent` does not exist");
}

}  // namespace
}  // namespace rea::evidence::policy_config
