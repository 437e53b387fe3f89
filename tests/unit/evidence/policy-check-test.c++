#include "evidence/policy-check.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace rea::evidence {
namespace {

using Env = std::map<std::string, std::string>;
using Table = std::map<std::string, std::string>;

class TableResolver final : public PathResolver {
  // Resolves exactly the paths in its table (path -> canonical path); anything else is missing.
 public:
  explicit TableResolver(Table table) : table_(std::move(table)) {}
  ResolvedPath realPath(const std::string& path) const override {
    auto it = table_.find(path);
    if (it == table_.end()) return ResolvedPath{std::nullopt, ENOENT};
    return ResolvedPath{it->second, 0};
  }

 private:
  Table table_;
};

// A merged-/usr machine: /bin is a symlink to /usr/bin and /bin/sh to dash.
const TableResolver MACHINE(Table{
    {"/usr/bin", "/usr/bin"},
    {"/usr/bin/", "/usr/bin"},
    {"/bin", "/usr/bin"},
    {"/bin/sh", "/usr/bin/dash"},
    {"/usr/bin/env", "/usr/bin/env"},
    {"/bin/../usr/bin/env", "/usr/bin/env"},
    {"/work", "/work"},
    {"/work/sub", "/work/sub"},
    {"/work/data", "/work/data"},
    {"/tm", "/tm"},
    {"/tmp", "/tmp"},
    {"/opt/tool", "/opt/tool"},
    {"/srv", "/srv"},
    {"/", "/"},
});

OperatorPolicy policyFrom(const Env& env, const PathResolver& resolver = MACHINE,
                          const std::string& cwd = "/work") {
  OperatorPolicyLoad loaded = loadOperatorPolicy(
      [&env](const char* name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      cwd, resolver);
  EXPECT_TRUE(loaded.policy.has_value()) << formatIssues(loaded.issues);
  return loaded.policy.value_or(OperatorPolicy{});
}

// Everything below admits `/usr/bin/env` in `/work` with PATH, host networking and /work/data.
Env permissive() {
  return {{"REA_PROCESS_CAPTURE_ENABLED", "true"},
          {"REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["/usr/bin"])"},
          {"REA_PROCESS_WORKING_ROOTS_JSON", R"(["/work"])"},
          {"REA_PROCESS_ALLOWED_ENV_JSON", R"(["PATH", "LANG"])"},
          {"REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "true"}};
}

PolicyRequest admissible() {
  PolicyRequest request;
  request.executable = "/usr/bin/env";
  request.workingDirectory = "/work";
  request.filesystemRoots = {"/work/data"};
  request.environmentNames = {"PATH", "LANG"};
  request.networkAccess = NetworkAccess::HOST;
  return request;
}

Env with(Env env, const std::string& name, const std::string& value) {
  env[name] = value;
  return env;
}

// The denial a gate-2 check produces, to compare whole errors rather than fragments.
std::string denialMessage(PolicyDenial reason, const std::string& subject = "",
                          const std::string& resolvedTo = "") {
  return policyDenied(reason, subject, resolvedTo).message;
}

void expectDenied(const std::optional<CommandError>& error, PolicyDenial reason,
                  const std::string& subject = "", const std::string& resolvedTo = "") {
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "permission_required");
  EXPECT_EQ(error->category, "permission_required");
  EXPECT_EQ(error->message, denialMessage(reason, subject, resolvedTo));
  EXPECT_EQ(error->remediation.action, error->message);
}

TEST(PolicyCheck, AdmitsARequestInsideEveryRoot) {
  EXPECT_EQ(checkPolicy(policyFrom(permissive()), admissible(), MACHINE), std::nullopt);
}

TEST(PolicyCheck, DeniesEverythingWhileCaptureIsDisabled) {
  OperatorPolicy policy = policyFrom(with(permissive(), "REA_PROCESS_CAPTURE_ENABLED", "false"));
  expectDenied(checkPolicy(policy, admissible(), MACHINE), PolicyDenial::CAPTURE_DISABLED);
  expectDenied(checkPolicy(policyFrom({}), admissible(), MACHINE), PolicyDenial::CAPTURE_DISABLED);
}

TEST(PolicyCheck, RequiresApprovalForHostNetworking) {
  OperatorPolicy policy =
      policyFrom(with(permissive(), "REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "false"));
  expectDenied(checkPolicy(policy, admissible(), MACHINE), PolicyDenial::HOST_NETWORK_NOT_APPROVED);
}

TEST(PolicyCheck, NeedsNoNetworkApprovalForLoopback) {
  OperatorPolicy policy =
      policyFrom(with(permissive(), "REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "false"));
  PolicyRequest request = admissible();
  request.networkAccess = NetworkAccess::LOOPBACK;
  EXPECT_EQ(checkPolicy(policy, request, MACHINE), std::nullopt);
}

TEST(PolicyCheck, DeniesAnExecutableOutsideTheRoots) {
  PolicyRequest request = admissible();
  request.executable = "/opt/tool";
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS, "/opt/tool");
}

TEST(PolicyCheck, DeniesAShellReachedOnlyThroughASymlinkedDirectory) {
  // SPEC B §2.2: /bin/sh under roots ["/usr/bin"] fails lexically although realpath is inside.
  PolicyRequest request = admissible();
  request.executable = "/bin/sh";
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS, "/bin/sh");

  // With roots ["/bin"] both /bin/sh (lexically) and /usr/bin/dash (canonically) are inside.
  OperatorPolicy binRoot =
      policyFrom(with(permissive(), "REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["/bin"])"));
  EXPECT_EQ(checkPolicy(binRoot, request, MACHINE), std::nullopt);
}

TEST(PolicyCheck, NormalisesDotDotBeforeTheLexicalCheck) {
  PolicyRequest request = admissible();
  request.executable = "/bin/../usr/bin/env";  // lexically /usr/bin/env
  EXPECT_EQ(checkPolicy(policyFrom(permissive()), request, MACHINE), std::nullopt);
}

TEST(PolicyCheck, TreatsARootWithTrailingSlashLikeTheDirectory) {
  OperatorPolicy policy =
      policyFrom(with(permissive(), "REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["/usr/bin/"])"));
  EXPECT_EQ(checkPolicy(policy, admissible(), MACHINE), std::nullopt);
}

TEST(PolicyCheck, AcceptsAnExecutableRootThatIsTheFileItself) {
  OperatorPolicy policy =
      policyFrom(with(permissive(), "REA_PROCESS_EXECUTABLE_ROOTS_JSON", R"(["/usr/bin/env"])"));
  EXPECT_EQ(checkPolicy(policy, admissible(), MACHINE), std::nullopt);
}

TEST(PolicyCheck, DoesNotTreatAStringPrefixAsARoot) {
  OperatorPolicy policy =
      policyFrom(with(permissive(), "REA_PROCESS_WORKING_ROOTS_JSON", R"(["/tm", "/work"])"));
  PolicyRequest request = admissible();
  request.workingDirectory = "/tmp";
  expectDenied(checkPolicy(policy, request, MACHINE), PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS,
               "/tmp");
}

TEST(PolicyCheck, AdmitsEverythingUnderTheFilesystemRoot) {
  OperatorPolicy policy =
      policyFrom(with(permissive(), "REA_PROCESS_WORKING_ROOTS_JSON", R"(["/"])"));
  PolicyRequest request = admissible();
  request.workingDirectory = "/srv";
  request.filesystemRoots = {"/", "/tmp"};
  EXPECT_EQ(checkPolicy(policy, request, MACHINE), std::nullopt);
}

TEST(PolicyCheck, DeniesAWorkingDirectoryOutsideTheRoots) {
  PolicyRequest request = admissible();
  request.workingDirectory = "/srv";
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS, "/srv");
}

TEST(PolicyCheck, DeniesAWorkingDirectoryClimbingOutWithDotDot) {
  PolicyRequest request = admissible();
  request.workingDirectory = "/work/../srv";
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS, "/work/../srv");
}

TEST(PolicyCheck, DeniesTheFirstEnvironmentNameNotAllowed) {
  PolicyRequest request = admissible();
  request.environmentNames = {"PATH", "API_TOKEN", "HOME_DIR"};  // explicit, then inherited
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::ENVIRONMENT_NOT_ALLOWED, "API_TOKEN");
}

TEST(PolicyCheck, MatchesEnvironmentNamesExactly) {
  PolicyRequest request = admissible();
  request.environmentNames = {"path"};
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::ENVIRONMENT_NOT_ALLOWED, "path");
}

TEST(PolicyCheck, DeniesAFilesystemRootOutsideTheWorkingRoots) {
  PolicyRequest request = admissible();
  request.filesystemRoots = {"/work/data", "/srv"};
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS, "/srv");
}

TEST(PolicyCheck, ChecksFilesystemRootsAgainstWorkingRootsNotExecutableRoots) {
  PolicyRequest request = admissible();
  request.filesystemRoots = {"/usr/bin"};
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS, "/usr/bin");
}

TEST(PolicyCheck, ReportsTheFirstFailingCheckInGateTwoOrder) {
  // Request k fails checks k..6; the answer must always be check k.
  PolicyRequest failsAll;
  failsAll.executable = "/opt/tool";
  failsAll.workingDirectory = "/srv";
  failsAll.environmentNames = {"API_TOKEN"};
  failsAll.filesystemRoots = {"/srv"};
  failsAll.networkAccess = NetworkAccess::HOST;

  Env noNetwork = with(permissive(), "REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "false");
  expectDenied(checkPolicy(policyFrom(with(noNetwork, "REA_PROCESS_CAPTURE_ENABLED", "false")),
                           failsAll, MACHINE),
               PolicyDenial::CAPTURE_DISABLED);
  expectDenied(checkPolicy(policyFrom(noNetwork), failsAll, MACHINE),
               PolicyDenial::HOST_NETWORK_NOT_APPROVED);

  OperatorPolicy policy = policyFrom(permissive());
  expectDenied(checkPolicy(policy, failsAll, MACHINE), PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS,
               "/opt/tool");
  failsAll.executable = "/usr/bin/env";
  expectDenied(checkPolicy(policy, failsAll, MACHINE),
               PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS, "/srv");
  failsAll.workingDirectory = "/work";
  expectDenied(checkPolicy(policy, failsAll, MACHINE), PolicyDenial::ENVIRONMENT_NOT_ALLOWED,
               "API_TOKEN");
  failsAll.environmentNames = {"PATH"};
  expectDenied(checkPolicy(policy, failsAll, MACHINE), PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS,
               "/srv");
  failsAll.filesystemRoots = {};
  EXPECT_EQ(checkPolicy(policy, failsAll, MACHINE), std::nullopt);
}

TEST(PolicyCheck, ReportsAMissingRequestPathAsACaptureFailureNamingTheField) {
  OperatorPolicy policy = policyFrom(permissive());
  struct Case {
    PolicyRequest request;
    std::string expected;
  };
  PolicyRequest missingExecutable = admissible();
  missingExecutable.executable = "/usr/bin/missing";
  PolicyRequest missingDirectory = admissible();
  missingDirectory.workingDirectory = "/work/missing";
  PolicyRequest missingRoot = admissible();
  missingRoot.filesystemRoots = {"/work/data", "/work/missing"};
  for (const Case& c :
       {Case{missingExecutable, "The scenario's executable `/usr/bin/missing` does not exist."},
        Case{missingDirectory, "The scenario's working_directory `/work/missing` does not exist."},
        Case{missingRoot, "The scenario's filesystem_roots[1] `/work/missing` does not exist."}}) {
    SCOPED_TRACE(c.expected);
    std::optional<CommandError> error = checkPolicy(policy, c.request, MACHINE);
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->code, "process_capture_failed");
    EXPECT_EQ(error->category, "execution_failure");
    EXPECT_EQ(error->message.rfind(c.expected + " ", 0), 0u) << error->message;
    EXPECT_NE(error->message.find("rea doctor"), std::string::npos);
  }
}

TEST(PolicyCheck, DeniesAMissingPathOutsideTheRootsBeforeResolvingIt) {
  // The lexical check comes first, so a path outside every root is a denial, not "missing".
  PolicyRequest request = admissible();
  request.executable = "/opt/missing";
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS, "/opt/missing");
}

TEST(PolicyCheck, EveryLexicalDenialComesBeforeAnyPathIsResolved) {
  // B §2.2: gate 2 runs whole before gate 3, so a missing executable or working directory does
  // not hide a later gate-2 denial (environment, filesystem root).
  PolicyRequest missingThenEnvironment = admissible();
  missingThenEnvironment.executable = "/usr/bin/missing";
  missingThenEnvironment.environmentNames = {"PATH", "API_TOKEN"};
  expectDenied(checkPolicy(policyFrom(permissive()), missingThenEnvironment, MACHINE),
               PolicyDenial::ENVIRONMENT_NOT_ALLOWED, "API_TOKEN");

  PolicyRequest missingThenRoot = admissible();
  missingThenRoot.workingDirectory = "/work/missing";
  missingThenRoot.filesystemRoots = {"/srv"};
  expectDenied(checkPolicy(policyFrom(permissive()), missingThenRoot, MACHINE),
               PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS, "/srv");
}

TEST(PolicyCheck, NeverAdmitsARelativeRequestPath) {
  PolicyRequest request = admissible();
  request.workingDirectory = "work";
  expectDenied(checkPolicy(policyFrom(permissive()), request, MACHINE),
               PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS, "work");
}

// ---- Real directories with symlinks ---------------------------------------------------------

class Sandbox {
  // base/root/{bin/tool, work/, data/} inside the roots; base/outside/{tool, dir/} outside them;
  // symlinks inside the root that lead out.
 public:
  Sandbox() {
    std::string pattern = std::filesystem::temp_directory_path() / "rea-policy-check-XXXXXX";
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    base = std::filesystem::canonical(pattern).string();
    namespace fs = std::filesystem;
    fs::create_directories(base + "/root/bin");
    fs::create_directories(base + "/root/work");
    fs::create_directories(base + "/root/data");
    fs::create_directories(base + "/outside/dir");
    std::ofstream(base + "/root/bin/tool") << "#!/bin/sh\n";
    std::ofstream(base + "/outside/tool") << "#!/bin/sh\n";
    fs::create_symlink(base + "/outside/tool", base + "/root/bin/escape");
    fs::create_symlink("../../outside/tool", base + "/root/bin/relative-escape");
    fs::create_symlink(base + "/root/bin/tool", base + "/root/bin/alias");
    fs::create_directory_symlink(base + "/outside/dir", base + "/root/work-link");
    fs::create_directory_symlink(base + "/outside/dir", base + "/root/data-link");
    fs::create_directory_symlink(base + "/root/data", base + "/root/data-alias");
    fs::create_directory_symlink(base + "/root", base + "/root-link");
  }
  ~Sandbox() { std::filesystem::remove_all(base); }

  OperatorPolicy policy(const std::string& executableRoot = "root/bin",
                        const std::string& workingRoot = "root") const {
    Env env = {{"REA_PROCESS_CAPTURE_ENABLED", "true"},
               {"REA_PROCESS_EXECUTABLE_ROOTS_JSON", "[\"" + executableRoot + "\"]"},
               {"REA_PROCESS_WORKING_ROOTS_JSON", "[\"" + workingRoot + "\"]"},
               {"REA_PROCESS_ALLOWED_ENV_JSON", "[]"}};
    return policyFrom(env, systemPathResolver(), base);  // relative roots resolve against base
  }

  PolicyRequest request() const {
    PolicyRequest request;
    request.executable = base + "/root/bin/tool";
    request.workingDirectory = base + "/root/work";
    request.filesystemRoots = {base + "/root/data"};
    request.networkAccess = NetworkAccess::LOOPBACK;
    return request;
  }

  std::string base;
};

TEST(PolicyCheck, AdmitsARealRequestInsideItsRoots) {
  Sandbox box;
  EXPECT_EQ(checkPolicy(box.policy(), box.request()), std::nullopt);
}

TEST(PolicyCheck, DeniesAnExecutableSymlinkThatLeadsOutOfItsRoot) {
  Sandbox box;
  PolicyRequest request = box.request();
  request.executable = box.base + "/root/bin/escape";
  expectDenied(checkPolicy(box.policy(), request), PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS,
               request.executable, box.base + "/outside/tool");

  request.executable = box.base + "/root/bin/relative-escape";
  expectDenied(checkPolicy(box.policy(), request), PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS,
               request.executable, box.base + "/outside/tool");
}

TEST(PolicyCheck, DeniesAWorkingDirectorySymlinkThatLeadsOutOfItsRoot) {
  Sandbox box;
  PolicyRequest request = box.request();
  request.workingDirectory = box.base + "/root/work-link";
  expectDenied(checkPolicy(box.policy(), request), PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS,
               request.workingDirectory, box.base + "/outside/dir");
}

TEST(PolicyCheck, DeniesAFilesystemRootSymlinkThatLeadsOutOfItsRoot) {
  Sandbox box;
  PolicyRequest request = box.request();
  request.filesystemRoots = {box.base + "/root/data", box.base + "/root/data-link"};
  expectDenied(checkPolicy(box.policy(), request), PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS,
               box.base + "/root/data-link", box.base + "/outside/dir");
}

TEST(PolicyCheck, DeniesADotDotThatClimbsOutThroughASymlink) {
  // Lexically `root/work-link/../work` is `root/work` (inside), but realpath follows the link
  // before applying `..` and lands in base/outside/work.
  Sandbox box;
  std::filesystem::create_directories(box.base + "/outside/work");
  PolicyRequest request = box.request();
  request.workingDirectory = box.base + "/root/work-link/../work";
  expectDenied(checkPolicy(box.policy(), request), PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS,
               request.workingDirectory, box.base + "/outside/work");
}

TEST(PolicyCheck, AdmitsSymlinksThatStayInsideTheRoots) {
  Sandbox box;
  PolicyRequest request = box.request();
  request.executable = box.base + "/root/bin/alias";
  request.filesystemRoots = {box.base + "/root/data-alias"};
  EXPECT_EQ(checkPolicy(box.policy(), request), std::nullopt);
}

TEST(PolicyCheck, AdmitsPathsUnderARootConfiguredThroughASymlink) {
  Sandbox box;
  OperatorPolicy policy = box.policy("root-link/bin", "root-link");
  // Written through the link: lexically inside root-link, canonically inside root.
  PolicyRequest request = box.request();
  request.executable = box.base + "/root-link/bin/tool";
  request.workingDirectory = box.base + "/root-link/work";
  request.filesystemRoots = {box.base + "/root-link/data"};
  EXPECT_EQ(checkPolicy(policy, request), std::nullopt);

  // Written by its real path: canonically inside, but not lexically (gate 2 is literal).
  expectDenied(checkPolicy(policy, box.request()), PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS,
               box.base + "/root/bin/tool");
}

TEST(PolicyCheck, ReportsAMissingRealPathAsACaptureFailure) {
  Sandbox box;
  PolicyRequest request = box.request();
  request.filesystemRoots = {box.base + "/root/not-there"};
  std::optional<CommandError> error = checkPolicy(box.policy(), request);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "process_capture_failed");
  EXPECT_EQ(error->message.rfind("The scenario's filesystem_roots[0] `" + box.base +
                                     "/root/not-there` does not exist.",
                                 0),
            0u);
}

TEST(PolicyCheck, RejectsAConfiguredRootThatDoesNotExist) {
  Sandbox box;
  Env env = {{"REA_PROCESS_CAPTURE_ENABLED", "true"},
             {"REA_PROCESS_WORKING_ROOTS_JSON", R"(["root", "gone"])"}};
  OperatorPolicyLoad loaded = loadOperatorPolicy(
      [&env](const char* name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      box.base);
  ASSERT_FALSE(loaded.policy.has_value());
  CommandError error = loaded.error();
  EXPECT_EQ(error.code, "configuration_invalid");
  EXPECT_NE(error.message.find("REA_PROCESS_WORKING_ROOTS_JSON[1]: root `gone` (`" + box.base +
                               "/gone`) does not exist"),
            std::string::npos)
      << error.message;
}

}  // namespace
}  // namespace rea::evidence
