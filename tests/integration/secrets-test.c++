// Secrets never leak (SPEC A3; issue "Reliability", Secrets): every bundled example scenario and
// a set of hostile targets run with a secret alias and a sensitive input; the secret values must
// appear nowhere: not on rea's stdout or stderr, not in the Evidence, not in any file rea left in
// its TMPDIR — also when the target prints them split across reads, echoes them, or hides them
// in escape sequences.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "tests/integration/harness.h"
#include "tests/test-support.h"

namespace rea::test {
namespace {

using rea::test::readFile;

const std::string SECRET = "Zq7-secret-VALUE-91x";
const std::string SENSITIVE = "pw-Hunter2-sens";

// Every regular file under `dir` except `skip` (the scenario, which holds the values by design).
void collectFiles(const std::string& dir, const std::string& skip, std::vector<std::string>& out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (struct dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    std::string path = dir + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      collectFiles(path, skip, out);
    } else if (S_ISREG(st.st_mode) && path != skip) {
      out.push_back(path);
    }
  }
  closedir(d);
}

// Adds the secret alias and a sensitive input (first event) to any scenario.
Json withSecrets(Json scenario) {
  if (!scenario.contains("environment")) scenario["environment"] = Json::object();
  scenario["environment"]["SECRET_TOKEN"] = SECRET;
  scenario["secret_aliases"] = {"SECRET_TOKEN"};
  Json events = Json::array();
  events.push_back(
      {{"type", "input"}, {"at_ms", 0}, {"data", SENSITIVE + "\r"}, {"sensitive", true}});
  if (scenario.contains("events")) {
    for (const auto& event : scenario["events"])
      events.push_back(event);
  }
  scenario["events"] = events;
  return scenario;
}

void expectNoLeak(Sandbox& sandbox, const Json& scenario, const std::string& label,
                  bool mustRedact = false) {
  std::string scenarioPath = sandbox.tmpdir() + "/scenario.json";
  auto result = sandbox.capture(scenario);
  ASSERT_TRUE(result.output.has_value()) << label << ": " << result.stdoutText << result.stderrText;
  EXPECT_EQ(result.exitCode, 0) << label << ": " << result.stdoutText;
  std::vector<std::string> files;
  collectFiles(sandbox.tmpdir(), scenarioPath, files);
  for (const std::string& value : {SECRET, SENSITIVE}) {
    EXPECT_EQ(result.stdoutText.find(value), std::string::npos) << label << " stdout: " << value;
    EXPECT_EQ(result.stderrText.find(value), std::string::npos) << label << " stderr: " << value;
    for (const auto& file : files) {
      EXPECT_EQ(readFile(file).find(value), std::string::npos) << label << " " << file;
    }
  }
  if (mustRedact) {
    // The target really printed the values: the test is not passing on an empty screen.
    EXPECT_NE(concatenatedFrames(*result.output).find("<redacted>"), std::string::npos)
        << label << ": " << concatenatedFrames(*result.output);
  }
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty()) << label;
  EXPECT_TRUE(sandbox.leftoverProcesses().empty()) << label;
}

TEST(Secrets, NoBundledExampleLeaksThem) {
  DIR* d = opendir(REA_SOURCE_DIR "/examples");
  ASSERT_NE(d, nullptr);
  std::vector<std::string> examples;
  while (struct dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) examples.push_back(name);
  }
  closedir(d);
  ASSERT_FALSE(examples.empty());
  for (const auto& name : examples) {
    Sandbox sandbox;
    Json scenario = Json::parse(readFile(REA_SOURCE_DIR "/examples/" + name));
    // Examples that observe a directory (examples/files.json) observe one of the sandbox's.
    scenario = sandbox.withOwnRoots(scenario);
    std::string workingDirectory = scenario.value("working_directory", "/tmp");
    struct stat info;
    ASSERT_TRUE(stat(workingDirectory.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
        << name << ": " << workingDirectory;
    expectNoLeak(sandbox, withSecrets(scenario), name);
  }
}

TEST(Secrets, HostileTargetsCannotMakeThemLeak) {
  const std::vector<std::pair<std::string, std::string>> targets = {
      {"printed whole", "read pw; echo \"$SECRET_TOKEN\"; echo \"$pw\""},
      {"split across reads",
       "read pw; printf '%s' \"${SECRET_TOKEN%???????????}\"; sleep 0.3; "
       "printf '%s\\n' \"${SECRET_TOKEN#?????????}\"; printf '%s' \"${pw%??????}\"; sleep 0.3; "
       "printf '%s\\n' \"${pw#?????????}\""},
      {"one byte per read",
       "read pw; printf '%s\\n' \"$SECRET_TOKEN\" | while IFS= read -r line; do "
       "i=1; while [ $i -le ${#line} ]; do printf '%s' \"$(echo \"$line\" | cut -c$i)\"; "
       "sleep 0.01; i=$((i+1)); done; done; echo"},
      {"inside escape sequences",
       "read pw; printf '\\033]0;%s\\007\\033[31m%s\\033[0m\\n' \"$SECRET_TOKEN\" \"$pw\""},
      {"echoed by the terminal and a child outliving the root",
       "stty echo; read pw; (sleep 0.2; echo \"late $SECRET_TOKEN\") & echo \"$pw$pw\""},
      {"on stderr and in a file name",
       "read pw; echo \"$SECRET_TOKEN\" >&2; ls \"/nonexistent/$SECRET_TOKEN\"; exit 3"},
  };
  for (const auto& [label, script] : targets) {
    Sandbox sandbox;
    expectNoLeak(sandbox, withSecrets(shScenario(script)), label, true);
  }
}

}  // namespace
}  // namespace rea::test
