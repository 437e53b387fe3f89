// `cmake --install` (issue 25): the installed rea finds its helpers relative to its own location,
// runs a capture from another directory, and `man` finds its page; binaries are stripped.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/integration/harness.h"

namespace rea::test {
namespace {

const std::vector<std::string> HELPERS = {"rea-pty",  "rea-sampler", "rea-fswatch",
                                          "rea-shim", "rea-replay",  "rea-shim-client"};

bool executable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

bool hasSymbolTable(Sandbox& sandbox, const std::string& binary) {
  auto sections = sandbox.runProgram("/usr/bin/readelf", {"-S", "-W", binary});
  EXPECT_EQ(sections.exitCode, 0) << sections.stderrText;
  return sections.stdoutText.find(" .symtab ") != std::string::npos;
}

TEST(Install, TheInstalledReaFindsItsHelpersAndItsManPageFromAnotherDirectory) {
  Sandbox sandbox;
  std::string prefix = sandbox.tmpdir() + "/prefix with space";
  auto installed =
      sandbox.runProgram("/usr/bin/cmake", {"--install", REA_BINARY_DIR, "--prefix", prefix});
  ASSERT_EQ(installed.exitCode, 0) << installed.stdoutText << installed.stderrText;

  std::string rea = prefix + "/bin/rea";
  ASSERT_TRUE(executable(rea));
  EXPECT_FALSE(hasSymbolTable(sandbox, rea)) << "installed binaries are stripped";
  for (const auto& helper : HELPERS) {
    EXPECT_TRUE(executable(prefix + "/libexec/rea/" + helper)) << helper;
    EXPECT_FALSE(executable(prefix + "/bin/" + helper)) << helper << " is not on the PATH";
    EXPECT_FALSE(hasSymbolTable(sandbox, prefix + "/libexec/rea/" + helper)) << helper;
  }
  for (const char* file :
       {"/share/rea/schema/scenario.schema.json", "/share/rea/schema/capture-evidence.schema.json",
        "/share/rea/examples/hello.json", "/share/rea/examples/policy.env"}) {
    EXPECT_EQ(access((prefix + file).c_str(), R_OK), 0) << file;
  }

  // A capture with the installed binary, started from / (not the build tree).
  std::string scenario =
      sandbox.writeFile("scenario.json", shScenario("echo installed-capture; sleep 0.1").dump());
  auto captured = sandbox.runProgram(
      "/bin/sh", {"-c", "cd / && exec \"$0\" capture-process \"$1\"", rea, scenario});
  expectValidAndClean(sandbox, captured);
  ASSERT_TRUE(captured.output);
  EXPECT_NE(concatenatedFrames(*captured.output).find("installed-capture"), std::string::npos);
  EXPECT_EQ(capture(*captured.output)["exit"]["code"], 0);

  if (!executable("/usr/bin/man")) GTEST_SKIP() << "man is not installed (man-db)";
  auto man =
      sandbox.runProgram("/usr/bin/env", {"MANPATH=" + prefix + "/share/man", "man", "-w", "rea"});
  EXPECT_EQ(man.exitCode, 0) << man.stderrText;
  EXPECT_EQ(man.stdoutText, prefix + "/share/man/man1/rea.1\n");
}

}  // namespace
}  // namespace rea::test
