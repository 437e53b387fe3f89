// Issue 18: a hostile target and a careless operator against the real `rea` binary. Each test
// reproduces one attack that used to work and checks that it now gets nothing, while the
// legitimate path next to it still works.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

const std::string CURL = "curl -sS --max-time 10 -H 'Expect:' ";

struct HostListener {
  // A TCP socket listening on the host's 127.0.0.1 (not in any capture's namespace). A
  // connection completes in the backlog without accept(), so pending() tells whether anything
  // reached it.
  int fd = -1;
  int port = 0;
  HostListener() {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        listen(fd, 16) != 0) {
      throw std::runtime_error("host listener");
    }
    socklen_t size = sizeof(address);
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
    port = ntohs(address.sin_port);
  }
  ~HostListener() { close(fd); }
  int pending() const {
    int count = 0;
    for (;;) {
      int connection = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection < 0) return count;
      close(connection);
      ++count;
    }
  }
};

TEST(Hardening, ARootTargetCannotJoinTheHostNetworkFromLoopback) {
  // Issue 18.1: as root the target used to keep CAP_SYS_ADMIN, and `nsenter --net=...` of its
  // parent's (the pty helper's) or init's namespace reached the host's loopback.
  if (geteuid() != 0) GTEST_SKIP() << "the attack needs a root target";
  HostListener host;
  Sandbox sandbox;
  Policy policy;
  policy.allowExternalNetwork = false;
  std::string url = "http://127.0.0.1:" + std::to_string(host.port) + "/";
  Json scenario{{"approved", true},
                {"executable", "/bin/sh"},
                {"arguments",
                 {"-c",
                  "for ns in /proc/$PPID/ns/net /proc/1/ns/net; do\n"
                  "  nsenter --net=$ns curl -s --max-time 2 " +
                      url +
                      " >/dev/null 2>&1; echo join=$?\n"
                      "done\n"
                      "unshare --net true 2>/dev/null; echo unshare=$?\n"
                      "grep CapBnd /proc/self/status\n" +
                      CURL + "\"$REA_REPLAY_HTTP_URL/inside\"; echo\n"}},
                {"working_directory", "/tmp"},
                {"environment", {{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}}},
                {"timeout_ms", 30000},
                {"network_access", "loopback"},
                {"replay", Json::parse(R"({"http":[{"method":"GET","path":"/inside","status":200,
                                         "body":"inside"}]})")}};
  auto result = sandbox.capture(scenario, policy);
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  ASSERT_TRUE(result.output);
  std::string out = concatenatedFrames(*result.output);
  // nsenter's setns() is refused (exit 1): curl never ran, so neither 0 nor a timeout (28).
  EXPECT_NE(out.find("join=1\r\njoin=1\r\nunshare=1\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("inside"), std::string::npos) << out;  // the replay server still answers
  EXPECT_EQ(host.pending(), 0);
  const Json& c = capture(*result.output);
  bool socketsNamed = false;
  for (const auto& sentence : c["limitations"]) {
    socketsNamed =
        socketsNamed || sentence.get<std::string>().find("Unix sockets") != std::string::npos;
  }
  EXPECT_TRUE(socketsNamed) << c["limitations"].dump();
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
}

class SymlinkSwapper {
  // Flips `link` between two targets as fast as it can (rename over it: always present).
 public:
  SymlinkSwapper(std::string link, std::string inside, std::string outside)
      : thread([this, link, inside, outside]() {
          std::string temporary = link + ".next";
          for (bool out = true; !stop; out = !out) {
            unlink(temporary.c_str());
            if (symlink((out ? outside : inside).c_str(), temporary.c_str()) == 0) {
              rename(temporary.c_str(), link.c_str());
            }
          }
        }) {}
  ~SymlinkSwapper() {
    stop = true;
    thread.join();
  }

 private:
  std::atomic<bool> stop{false};
  std::thread thread;
};

TEST(Hardening, ASymlinkSwappedAfterTheCheckNeverRunsOrStartsOutsideTheRoots) {
  // Issue 18.2: the executable and the working directory were checked with realpath, then used
  // by path, so a symlink flipped in between ran a program (or started in a directory) outside
  // the roots in about a fifth of the tries.
  namespace fs = std::filesystem;
  Sandbox sandbox;
  std::string root = sandbox.tmpdir() + "/root", outside = sandbox.tmpdir() + "/outside";
  fs::create_directories(root + "/bin");
  fs::create_directories(root + "/work");
  fs::create_directories(outside);
  fs::copy_file("/bin/sh", root + "/bin/tool");
  fs::copy_file("/bin/echo", outside + "/tool");  // prints its arguments instead of running them
  fs::create_directory_symlink("bin", root + "/exe");
  fs::create_directory_symlink("work", root + "/cwd");
  Policy policy;
  policy.executableRoots = "[\"" + root + "\"]";
  policy.workingRoots = "[\"" + root + "\"]";
  Json scenario = shScenario("echo ran-inside; pwd -P");
  scenario["executable"] = root + "/exe/tool";
  scenario["working_directory"] = root + "/cwd";
  scenario["timeout_ms"] = 10000;

  int inside = 0, refused = 0, escaped = 0;
  {
    SymlinkSwapper executable(root + "/exe", "bin", outside);
    SymlinkSwapper directory(root + "/cwd", "work", outside);
    for (int i = 0; i < 40; ++i) {
      auto result = sandbox.capture(scenario, policy);
      std::string out = result.output && result.exitCode == 0 ? concatenatedFrames(*result.output)
                                                              : std::string();
      if (result.exitCode != 0) {
        ++refused;  // the check (or the opened object) was outside: denied, never run
      } else if (out.find("ran-inside\r\n" + root + "/work\r\n") != std::string::npos) {
        ++inside;
      } else {
        ++escaped;
        ADD_FAILURE() << "try " << i << ": " << out;
      }
    }
  }
  EXPECT_EQ(escaped, 0) << inside << " inside, " << refused << " refused";
  EXPECT_GT(inside + refused, 0);
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
}

// Every string value in a JSON document (object keys are the schema's own).
void collectStrings(const Json& value, std::vector<std::string>& out) {
  if (value.is_string()) {
    out.push_back(value.get<std::string>());
  } else if (value.is_object() || value.is_array()) {
    for (const auto& item : value)
      collectStrings(item, out);
  }
}

TEST(Hardening, NoSecretInAnyStringOfACaptureMadeUnderHostileNames) {
  // Issue 18.3: file names, symlink targets and request paths holding a secret were recorded in
  // the clear, and so was the ^A echo of a sensitive input with a control character.
  const std::string secret = "Qx9-hostile-SECRET";
  const std::string sensitive = std::string("pin\x01") + "code-77";  // echoed as "pin^Acode-77"
  Sandbox sandbox;
  std::string root = sandbox.tmpdir() + "/root";
  ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
  std::ofstream(root + "/before-" + secret) << "x";  // in files_before already
  Json scenario{
      {"approved", true},
      {"executable", "/bin/sh"},
      {"arguments",
       {"-c",
        "R='" + root +
            "'\n"
            "read line\n"
            "touch \"$R/made-$SECRET_TOKEN\"; ln -s \"sub-$SECRET_TOKEN\" \"$R/link\"\n"
            "echo mark\n"
            "mv \"$R/before-$SECRET_TOKEN\" \"$R/moved-$SECRET_TOKEN-x\"\n"
            "curl -s --max-time 10 \"$REA_REPLAY_HTTP_URL/p/$SECRET_TOKEN?q=$SECRET_TOKEN\" "
            ">/dev/null\n"
            "curl -s --max-time 10 -X \"M$SECRET_TOKEN\" \"$REA_REPLAY_HTTP_URL/ok\" >/dev/null\n"
            "echo done\n"}},
      {"working_directory", "/tmp"},
      {"environment", {{"PATH", "/usr/bin:/bin"}, {"SECRET_TOKEN", secret}}},
      {"secret_aliases", {"SECRET_TOKEN"}},
      {"filesystem_roots", {root}},
      {"checkpoints",
       {{{"name", "mark"}, {"trigger", {{"type", "terminal_literal"}, {"value", "mark"}}}}}},
      {"events",
       {{{"type", "input"}, {"at_ms", 0}, {"data", sensitive + "\r"}, {"sensitive", true}}}},
      {"replay", Json::parse(R"({"http":[{"method":"GET","path":"/ok","status":200,
                                         "body":"ok"}]})")},
      {"timeout_ms", 20000}};
  auto result = sandbox.capture(scenario);
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  ASSERT_TRUE(result.output);
  const std::string caret = "pin^Acode-77";
  std::vector<std::string> strings;
  collectStrings(*result.output, strings);
  size_t redacted = 0;
  for (const auto& text : strings) {
    EXPECT_EQ(text.find(secret), std::string::npos) << text;
    EXPECT_EQ(text.find(caret), std::string::npos) << text;
    EXPECT_EQ(text.find(sensitive), std::string::npos) << text;
    EXPECT_EQ(text.find("code-77"), std::string::npos) << text;  // no tail of it either
    if (text.find("<redacted>") != std::string::npos) ++redacted;
  }
  for (const std::string& value : {secret, caret}) {
    EXPECT_EQ(result.stdoutText.find(value), std::string::npos) << value;
    EXPECT_EQ(result.stderrText.find(value), std::string::npos) << value;
  }
  // The hostile names really were recorded (redacted), so the walk saw them.
  const Json& c = capture(*result.output);
  std::string after = c["files_after"].dump(), effects = c["filesystem_effects"].dump();
  EXPECT_NE(after.find("made-<redacted>"), std::string::npos) << after;
  EXPECT_NE(after.find("\"symlink_target\":\"sub-<redacted>\""), std::string::npos) << after;
  EXPECT_NE(effects.find("moved-<redacted>-x"), std::string::npos) << effects;
  EXPECT_NE(c["files_before"].dump().find("before-<redacted>"), std::string::npos);
  EXPECT_NE(c["protocol_events"].dump().find("/p/<redacted>"), std::string::npos)
      << c["protocol_events"].dump();
  EXPECT_GE(redacted, 6u);
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
}

TEST(Hardening, SigtermEndsTheReadOfAScenarioFifoWithoutAWriter) {
  // Issue 18.5: rea blocked SIGTERM before it read the scenario; opening a FIFO nobody writes
  // then hung until SIGKILL. `timeout` sends SIGTERM after 1 s and SIGKILL 30 s later: the
  // first must end it (nothing exists yet that would need cleaning up).
  Sandbox sandbox;
  std::string fifo = sandbox.tmpdir() + "/scenario.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto result = sandbox.runProgram("/usr/bin/timeout", {"--preserve-status", "--kill-after=30", "1",
                                                        reaBinary(), "capture-process", fifo});
  EXPECT_EQ(result.exitCode, 128 + SIGTERM) << result.stdoutText << result.stderrText;
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
}

TEST(Hardening, ADashReadsTheScenarioFromStandardInput) {
  // Standard input is /dev/null here: read as an empty document, not as a file named "-".
  Sandbox sandbox;
  auto result = sandbox.run({"capture-process", "-"});
  EXPECT_EQ(result.exitCode, 1);
  ASSERT_TRUE(result.output) << result.stdoutText;
  EXPECT_EQ(result.stdoutText.find("Cannot open"), std::string::npos) << result.stdoutText;
}

TEST(Hardening, ACaptureLeavesALookAlikeTemporaryRootAlone) {
  // Issue 18.6: the stale-root sweep of every capture removed any old rea-process-* directory
  // without an owner file (and any with an unlocked one), whoever made it.
  Sandbox sandbox;
  std::string bare = sandbox.tmpdir() + "/rea-process-mine01";
  std::string locked = sandbox.tmpdir() + "/rea-process-mine02";
  for (const auto& dir : {bare, locked}) {
    ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
    std::ofstream(dir + "/precious") << "keep me";
  }
  std::ofstream(locked + "/.rea-owner") << "";
  struct timespec old[2] = {{time(nullptr) - 600, 0}, {time(nullptr) - 600, 0}};
  for (const auto& path :
       {bare + "/precious", locked + "/precious", locked + "/.rea-owner", bare, locked}) {
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), old, 0), 0);
  }
  auto result = sandbox.capture(shScenario("true"));
  EXPECT_EQ(result.exitCode, 0) << result.stdoutText;
  struct stat st;
  EXPECT_EQ(stat((bare + "/precious").c_str(), &st), 0);
  EXPECT_EQ(stat((locked + "/precious").c_str(), &st), 0);
  auto doctor = sandbox.run({"doctor", "--json"});
  ASSERT_TRUE(doctor.output) << doctor.stdoutText;
  EXPECT_EQ(doctor.output->at("stale_temporary_roots").at("not_ours").size(), 2u)
      << doctor.stdoutText;
}

// Live processes whose command line holds `marker`.
std::vector<int> processesWithArgument(const std::string& marker) {
  std::vector<int> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find(marker) != std::string::npos) out.push_back(std::stoi(name));
  }
  return out;
}

TEST(Hardening, DescendantsThatScrubbedTheRunTokenAreKilledAndCounted) {
  // Issue 18.4: `setsid env -i` children (no run token) were moved out of the capture cgroup
  // and left alive, and the capture did not say how many.
  if (geteuid() != 0) GTEST_SKIP() << "exact process observation needs root here";
  const std::string marker = "307.0071";
  Sandbox sandbox;
  auto result =
      sandbox.capture(shScenario("for i in 1 2 3 4 5 6 7 8 9 10; do setsid env -i sleep " + marker +
                                 " </dev/null >/dev/null 2>&1 & done\n"
                                 "sleep 0.5; echo started\n"));
  auto survivors = processesWithArgument(marker);
  for (int pid : survivors)
    kill(pid, SIGKILL);
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  ASSERT_TRUE(result.output);
  const Json& c = capture(*result.output);
  if (c["manifest"].value("process_observation", "") != "exact") {
    GTEST_SKIP() << "no capture cgroup on this machine";
  }
  EXPECT_TRUE(survivors.empty()) << survivors.size() << " scrubbed escapees survived";
  std::string counted;
  for (const auto& sentence : c["limitations"]) {
    if (sentence.get<std::string>().find("without its run token") != std::string::npos) {
      counted = sentence;
    }
  }
  EXPECT_NE(counted.find("Cleanup found 10 processes born in the capture without its run "
                         "token; 10 were killed, 0 left running."),
            std::string::npos)
      << c["limitations"].dump();
}

bool doctorSaysAvailable(Sandbox& sandbox, const std::string& probe) {
  auto doctor = sandbox.run({"doctor", "--json"});
  if (!doctor.output) return false;
  for (const auto& check : (*doctor.output)["machine"]) {
    if (check["name"] == probe) return check["available"] == true;
  }
  return false;
}

TEST(Hardening, AForkBombUnderTheOperatorsProcessBoundEndsAsARecordedLimit) {
  // Issue 18.7: nothing bounded a target, so a fork bomb inside a capture took the machine.
  // Under REA_PROCESS_MAX_PIDS=64 its forks fail; the capture ends at its timeout, says how
  // many creations the bound refused, and leaves nothing behind.
  if (geteuid() != 0) GTEST_SKIP() << "the capture cgroup needs root here";
  Sandbox sandbox;
  if (!doctorSaysAvailable(sandbox, "pids_bound")) {
    GTEST_SKIP() << "no pids controller on this machine (rea doctor: pids_bound)";
  }
  Policy policy;
  policy.maxPids = "64";
  // `exec sleep`: the shell must not need a fork of its own once the bomb has filled the bound
  // (a refused fork ended it at once with status 2, which a slow build saw now and then).
  Json scenario = shScenario("bomb() { bomb | bomb & }; bomb 2>/dev/null; exec sleep 30");
  scenario["timeout_ms"] = 3000;
  auto result = sandbox.capture(scenario, policy);
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  if (c["manifest"].value("process_observation", "") != "exact") {
    GTEST_SKIP() << "no capture cgroup on this machine";
  }
  std::string bound;
  for (const auto& sentence : c["limitations"]) {
    if (sentence.get<std::string>().find("REA_PROCESS_MAX_PIDS") != std::string::npos) {
      bound = sentence;
    }
  }
  EXPECT_EQ(bound.rfind("Limit reached: the target reached REA_PROCESS_MAX_PIDS (64 processes at "
                        "once); ",
                        0),
            0u)
      << c["limitations"].dump();
  EXPECT_EQ(c["exit"]["reason"], "timeout") << c["exit"].dump();
}

TEST(Hardening, ATargetWithinTheProcessBoundRecordsNoLimit) {
  if (geteuid() != 0) GTEST_SKIP() << "the capture cgroup needs root here";
  Sandbox sandbox;
  Policy policy;
  policy.maxPids = "64";
  auto result = sandbox.capture(
      shScenario("for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.2 & done; wait; echo done"), policy);
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  for (const auto& sentence : c["limitations"])
    EXPECT_EQ(sentence.get<std::string>().find("REA_PROCESS_MAX_PIDS"), std::string::npos);
  EXPECT_NE(concatenatedFrames(*result.output).find("done"), std::string::npos);
}

}  // namespace
}  // namespace rea::test
