// Shims end to end: a real /bin/sh target runs the real rea-shim-client copies against a real
// ledger served on this test's kj event loop (SPEC B §7). Every capture-to-be is checked against
// validation rules 10 and 11 of B §5.4.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <map>

#include <kj/async-io.h>
#include <kj/async-unix.h>
#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "helpers/common/clock.h"
#include "helpers/shim/shim-files.h"
#include "helpers/shim/shim-ledger-server.h"
#include "helpers/shim/shim-ledger.h"
#include "helpers/shim/standalone.h"

extern char** environ;

namespace rea::helper {
namespace {

const std::string SHIM_CLIENT = std::string(REA_BINARY_DIR) + "/bin/" + SHIM_CLIENT_BINARY_NAME;

struct ShellRun {
  int status = 0;  // as from waitpid
  std::string out;
  std::string err;
  double elapsedMs = 0;
};

std::string shellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

double nowMs() {
  return double(monotonicNowNs()) / 1e6;
}

// Rules 10 and 11 of SPEC B §5.4 over the ledger's events and plan.
void expectValidationRules10And11(const ShimLedger& ledger) {
  const ShimPlan& plan = ledger.plan();
  std::map<std::pair<std::string, uint32_t>, uint32_t> matched;
  for (const ShimEvent& event : ledger.events()) {
    if (event.outcome == ShimOutcome::UNMATCHED) {
      EXPECT_EQ(event.routeIndex, std::nullopt) << "rule 10, event " << event.sequence;
      continue;
    }
    ASSERT_TRUE(event.routeIndex) << "rule 10, event " << event.sequence;
    bool exists = std::any_of(plan.shims.begin(), plan.shims.end(), [&](const Shim& shim) {
      return shim.name == event.command && *event.routeIndex < shim.routes.size();
    });
    EXPECT_TRUE(exists) << "rule 10, event " << event.sequence;
    if (event.outcome == ShimOutcome::MATCHED) ++matched[{event.command, *event.routeIndex}];
  }
  for (const Shim& shim : plan.shims) {
    for (uint32_t r = 0; r < shim.routes.size(); ++r) {
      EXPECT_LE((matched[{shim.name, r}]), shim.routes[r].maxCalls)
          << "rule 11, " << shim.name << " route " << r;
    }
  }
}

// A private directory holding shims/ (the shim dir) and work/ (the shell's directory).
struct TempRoot {
  TempRoot() {
    char pattern[] = "/tmp/rea-shim-shell-XXXXXX";
    KJ_ASSERT(mkdtemp(pattern) != nullptr);
    char resolved[PATH_MAX];
    KJ_ASSERT(realpath(pattern, resolved) != nullptr);
    path = resolved;
    KJ_SYSCALL(mkdir(shims().c_str(), 0700));
    KJ_SYSCALL(mkdir(work().c_str(), 0700));
  }
  ~TempRoot() { EXPECT_EQ(system(("rm -rf " + shellQuote(path)).c_str()), 0); }
  std::string shims() const { return path + "/shims"; }
  std::string work() const { return path + "/work"; }
  std::string path;
};

class Harness {
 public:
  explicit Harness(const std::string& planJson, uint32_t protocolEventLimit = 10000)
      : ledger(shimPlanFromJson(evidence::Json::parse(planJson)), protocolEventLimit),
        server(*io.lowLevelProvider, io.provider->getTimer(), ledger) {
    std::vector<std::string> names;
    for (const Shim& shim : ledger.plan().shims)
      names.push_back(shim.name);
    writeShimExecutables(root.shims(), names, SHIM_CLIENT);
    server.start();
  }
  ~Harness() { expectValidationRules10And11(ledger); }

  ShellRun run(const std::string& script) {
    return runWithEnvironment(
        script, {"PATH=" + root.shims() + ":/usr/bin:/bin", "REA_SHIM_LEDGER_URL=" + server.url()});
  }

  // Runs `/bin/sh -c script` in work/ with exactly `environment`, while this loop serves the
  // ledger; returns once the shell has exited and both output pipes are closed.
  ShellRun runWithEnvironment(const std::string& script, std::vector<std::string> environment) {
    int outPipe[2], errPipe[2];
    KJ_SYSCALL(pipe2(outPipe, O_CLOEXEC));
    KJ_SYSCALL(pipe2(errPipe, O_CLOEXEC));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
    posix_spawn_file_actions_addchdir_np(&actions, root.work().c_str());
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> envp;
    for (std::string& entry : environment)
      envp.push_back(entry.data());
    envp.push_back(nullptr);
    const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
    double started = nowMs();
    pid_t pid;
    int rc =
        posix_spawn(&pid, "/bin/sh", &actions, &attributes, const_cast<char**>(argv), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(outPipe[1]);
    close(errPipe[1]);
    KJ_ASSERT(rc == 0, "posix_spawn /bin/sh", strerror(rc));

    int pidfd;
    KJ_SYSCALL(pidfd = int(syscall(SYS_pidfd_open, pid, 0)));
    kj::AutoCloseFd ownedPidfd(pidfd);
    auto out =
        io.lowLevelProvider->wrapInputFd(outPipe[0], kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
    auto err =
        io.lowLevelProvider->wrapInputFd(errPipe[0], kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
    auto outText = out->readAllText().eagerlyEvaluate(nullptr);
    auto errText = err->readAllText().eagerlyEvaluate(nullptr);
    ShellRun result;
    {
      kj::UnixEventPort::FdObserver observer(io.unixEventPort, pidfd,
                                             kj::UnixEventPort::FdObserver::OBSERVE_READ);
      auto exited = observer.whenBecomesReadable().eagerlyEvaluate(nullptr);
      result.out = outText.wait(io.waitScope).cStr();
      result.err = errText.wait(io.waitScope).cStr();
      exited.wait(io.waitScope);
    }
    KJ_SYSCALL(waitpid(pid, &result.status, 0));
    result.elapsedMs = nowMs() - started;
    return result;
  }

  kj::AsyncIoContext io = kj::setupAsyncIo();
  TempRoot root;
  ShimLedger ledger;
  ShimLedgerServer server;
};

int exitCode(const ShellRun& run) {
  return WIFEXITED(run.status) ? WEXITSTATUS(run.status) : -1;
}

TEST(ShimShell, AMatchedCallWritesItsChunksInOrderAndExitsWithItsCode) {
  Harness h(R"([{"name":"tool","routes":[{"arguments":["build","--fast"],"max_calls":2,
      "outputs":[{"at_ms":0,"stream":"stdout","data":"one\n"},
                 {"at_ms":30,"stream":"stderr","data":"two\n"},
                 {"at_ms":30,"stream":"stdout","data":"three\n"},
                 {"at_ms":60,"stream":"stderr","data":"four\n"}],
      "termination":{"type":"exit","code":7}}]}])");
  ShellRun merged = h.run("tool build --fast 2>&1; echo \"rc=$?\"");
  EXPECT_EQ(merged.out, "one\ntwo\nthree\nfour\nrc=7\n");
  EXPECT_EQ(merged.err, "");
  EXPECT_GE(merged.elapsedMs, 60);  // the declared delays were waited (a lower bound only)

  ShellRun split = h.run("tool build --fast; echo \"rc=$?\"");
  EXPECT_EQ(split.out, "one\nthree\nrc=7\n");
  EXPECT_EQ(split.err, "two\nfour\n");

  ASSERT_EQ(h.ledger.events().size(), 2u);
  const ShimEvent& event = h.ledger.events()[0];
  EXPECT_EQ(event.command, "tool");
  EXPECT_EQ(event.routeIndex, 0u);
  EXPECT_EQ(event.arguments, (std::vector<std::string>{"build", "--fast"}));
  EXPECT_EQ(event.workingDirectory, h.root.work());
  EXPECT_EQ(event.outcome, ShimOutcome::MATCHED);
  EXPECT_LE(h.ledger.events()[0].atNs, h.ledger.events()[1].atNs);
}

TEST(ShimShell, TheExitCodeIsWhatTheShellSees) {
  Harness h(R"([{"name":"tool","routes":[
      {"arguments":["0"],"termination":{"type":"exit","code":0}},
      {"arguments":["255"],"termination":{"type":"exit","code":255},"max_calls":2}]}])");
  EXPECT_EQ(h.run("tool 0; echo $?; tool 255; echo $?").out, "0\n255\n");
  EXPECT_EQ(exitCode(h.run("exec tool 255")), 255);
}

TEST(ShimShell, ASignalRouteKillsTheClientSoTheShellSees128PlusN) {
  Harness h(R"([{"name":"tool","routes":[
      {"arguments":["term"],"outputs":[{"at_ms":0,"stream":"stdout","data":"bye\n"}],
       "termination":{"type":"signal","signal":"SIGTERM"},"max_calls":2},
      {"arguments":["int"],"termination":{"type":"signal","signal":"SIGINT"}},
      {"arguments":["kill"],"termination":{"type":"signal","signal":"SIGKILL"}}]}])");
  ShellRun run = h.run(
      "tool term; echo \"rc=$?\"; tool int; echo \"rc=$?\"; "
      "tool kill; echo \"rc=$?\"");
  EXPECT_EQ(run.out, "bye\nrc=143\nrc=130\nrc=137\n");
  EXPECT_EQ(run.err.find("rea shim"), std::string::npos) << run.err;  // the shell may report
                                                                      // "Terminated"

  // With exec the shell's own process is the client: it dies by the signal itself.
  ShellRun direct = h.run("exec tool term");
  EXPECT_TRUE(WIFSIGNALED(direct.status));
  EXPECT_EQ(WTERMSIG(direct.status), SIGTERM);
  EXPECT_EQ(direct.out, "bye\n");
}

TEST(ShimShell, ASignalIgnoredByTheShellStillKillsTheClient) {
  Harness h(R"([{"name":"tool","routes":[{"arguments":[],
      "termination":{"type":"signal","signal":"SIGINT"}}]}])");
  // A background job of a non-interactive shell starts with SIGINT ignored.
  EXPECT_EQ(h.run("trap '' INT TERM; tool & wait $!; echo \"rc=$?\"").out, "rc=130\n");
}

TEST(ShimShell, CallsBeyondMaxCallsAreExhaustedAndExit127WithoutOutput) {
  Harness h(R"([{"name":"tool","routes":[{"arguments":[],
      "outputs":[{"at_ms":0,"stream":"stdout","data":"hi\n"}],
      "termination":{"type":"exit","code":0}}]}])");
  ShellRun run = h.run("tool; echo \"rc=$?\"; tool; echo \"rc=$?\"");
  EXPECT_EQ(run.out, "hi\nrc=0\nrc=127\n");
  EXPECT_EQ(run.err, "");
  ASSERT_EQ(h.ledger.events().size(), 2u);
  EXPECT_EQ(h.ledger.events()[0].outcome, ShimOutcome::MATCHED);
  EXPECT_EQ(h.ledger.events()[1].outcome, ShimOutcome::EXHAUSTED);
  EXPECT_EQ(h.ledger.events()[1].routeIndex, 0u);
}

TEST(ShimShell, AnUnmatchedCallExits127WithoutOutputAndHasNoRoute) {
  Harness h(R"([{"name":"tool","routes":[{"arguments":["known"],
      "termination":{"type":"exit","code":0}}]}])");
  ShellRun run = h.run("tool unknown; echo \"rc=$?\"");
  EXPECT_EQ(run.out, "rc=127\n");
  EXPECT_EQ(run.err, "");
  ASSERT_EQ(h.ledger.events().size(), 1u);
  EXPECT_EQ(h.ledger.events()[0].outcome, ShimOutcome::UNMATCHED);
  EXPECT_EQ(h.ledger.events()[0].routeIndex, std::nullopt);
  EXPECT_EQ(h.ledger.events()[0].arguments, std::vector<std::string>{"unknown"});
}

TEST(ShimShell, ArgumentsArriveExactlyAsTheShellPassedThem) {
  std::vector<std::string> arguments = {"with space",
                                        "\"double\" 'single'",
                                        "line1\nline2\n",
                                        "*",
                                        "",
                                        "tab\there",
                                        "\xC3\xA9\xE4\xB8\x96\xF0\x9F\x99\x82",
                                        "$HOME `x` \\back",
                                        "-",
                                        "--flag=a=b"};
  nlohmann::json plan = nlohmann::json::parse(R"([{"name":"tool","routes":[{
      "outputs":[{"at_ms":0,"stream":"stdout","data":"matched\n"}],
      "termination":{"type":"exit","code":0}}]}])");
  plan[0]["routes"][0]["arguments"] = arguments;
  Harness h(plan.dump());
  std::string script = "touch a b c; tool";  // files, so an unquoted * would have globbed
  for (const std::string& argument : arguments)
    script += " " + shellQuote(argument);
  script += "; tool \"$(printf 'bad\\377byte')\"; echo \"rc=$?\"";
  ShellRun run = h.run(script);
  EXPECT_EQ(run.out, "matched\nrc=127\n");
  ASSERT_EQ(h.ledger.events().size(), 2u);
  EXPECT_EQ(h.ledger.events()[0].arguments, arguments);
  EXPECT_EQ(h.ledger.events()[0].outcome, ShimOutcome::MATCHED);
  // Ill-formed UTF-8 becomes U+FFFD (the request is JSON text).
  EXPECT_EQ(h.ledger.events()[1].arguments, std::vector<std::string>{"bad\xEF\xBF\xBD"
                                                                     "byte"});
}

TEST(ShimShell, ACallFromASubdirectoryRecordsThatDirectory) {
  Harness h(R"([{"name":"tool","routes":[{"arguments":[],"max_calls":2,
      "termination":{"type":"exit","code":0}}]}])");
  ShellRun run = h.run("mkdir -p 'sub dir/deeper' && cd 'sub dir/deeper' && tool && cd / && tool");
  EXPECT_EQ(exitCode(run), 0) << run.err;
  ASSERT_EQ(h.ledger.events().size(), 2u);
  EXPECT_EQ(h.ledger.events()[0].workingDirectory, h.root.work() + "/sub dir/deeper");
  EXPECT_EQ(h.ledger.events()[1].workingDirectory, "/");
}

TEST(ShimShell, TheShimIsNamedByItsFileNotByArgv0) {
  Harness h(R"([{"name":"tool","routes":[{"arguments":["x"],"max_calls":2,
      "termination":{"type":"exit","code":0}}]}])");
  ShellRun run = h.run(
      "ln -s \"$(command -v tool)\" alias && ./alias x && "
      "bash -c 'exec -a other tool x'");
  EXPECT_EQ(exitCode(run), 0) << run.err;
  ASSERT_EQ(h.ledger.events().size(), 2u);
  for (const ShimEvent& event : h.ledger.events()) {
    EXPECT_EQ(event.command, "tool");
    EXPECT_EQ(event.outcome, ShimOutcome::MATCHED);
  }
}

TEST(ShimShell, ManyShimsAnswerSequentiallyAndAtOnce) {
  nlohmann::json plan = nlohmann::json::array();
  std::string names;
  for (int i = 0; i < 32; ++i) {
    std::string name = "s" + std::to_string(i);
    plan.push_back({{"name", name},
                    {"routes",
                     {{{"arguments", nlohmann::json::array()},
                       {"outputs", {{{"at_ms", 0}, {"stream", "stdout"}, {"data", name + "\n"}}}},
                       {"termination", {{"type", "exit"}, {"code", 0}}},
                       {"max_calls", 2}}}}});
    names += " " + name;
  }
  Harness h(plan.dump());
  std::string expected;
  for (int i = 0; i < 32; ++i)
    expected += "s" + std::to_string(i) + "\n";

  ShellRun sequential = h.run("for n in" + names + "; do $n || exit 1; done");
  EXPECT_EQ(sequential.out, expected);
  EXPECT_EQ(exitCode(sequential), 0) << sequential.err;

  ShellRun parallel = h.run("for n in" + names + "; do $n & done; wait");
  EXPECT_EQ(exitCode(parallel), 0) << parallel.err;
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = parallel.out.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(parallel.out.substr(start, end - start + 1));
  }
  std::sort(lines.begin(), lines.end());
  std::vector<std::string> expectedLines;
  for (int i = 0; i < 32; ++i)
    expectedLines.push_back("s" + std::to_string(i) + "\n");
  std::sort(expectedLines.begin(), expectedLines.end());
  EXPECT_EQ(lines, expectedLines);

  ASSERT_EQ(h.ledger.events().size(), 64u);
  for (size_t s = 0; s < 32; ++s)
    EXPECT_EQ(h.ledger.callCount(s, 0), 2u);
  for (const ShimEvent& event : h.ledger.events())
    EXPECT_EQ(event.outcome, ShimOutcome::MATCHED);
}

TEST(ShimShell, TheProtocolEventLimitTruncatesTheCaptureButCallsAreStillAnswered) {
  Harness h(R"([{"name":"tool","routes":[{"arguments":[],"max_calls":4,
      "outputs":[{"at_ms":0,"stream":"stdout","data":"x"}],
      "termination":{"type":"exit","code":0}}]}])",
            /*protocolEventLimit=*/2);
  ShellRun run = h.run("for i in 1 2 3 4 5; do tool; echo \" $?\"; done");
  EXPECT_EQ(run.out, "x 0\nx 0\nx 0\nx 0\n 127\n");
  EXPECT_EQ(h.ledger.events().size(), 2u);
  EXPECT_TRUE(h.ledger.truncated());
  EXPECT_EQ(h.ledger.callCount(0, 0), 4u);
}

TEST(ShimShell, WithoutTheLedgerVariableTheClientSaysSoAndExits127) {
  Harness h(
      R"([{"name":"tool","routes":[{"arguments":[],"termination":{"type":"exit","code":0}}]}])");
  std::string path = "PATH=" + h.root.shims() + ":/usr/bin:/bin";
  ShellRun missing = h.runWithEnvironment("tool; echo \"rc=$?\"", {path});
  EXPECT_EQ(missing.out, "rc=127\n");
  EXPECT_EQ(missing.err,
            "tool: rea shim: REA_SHIM_LEDGER_URL is not set, so the shim ledger is "
            "unknown\n");

  ShellRun malformed =
      h.runWithEnvironment("tool; echo \"rc=$?\"", {path, "REA_SHIM_LEDGER_URL=ftp://nowhere"});
  EXPECT_EQ(malformed.out, "rc=127\n");
  EXPECT_EQ(malformed.err,
            "tool: rea shim: REA_SHIM_LEDGER_URL is not an http://127.0.0.1:<port>/invoke URL\n");

  // A port nobody listens on: bind one, close it.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(fd, reinterpret_cast<struct sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<struct sockaddr*>(&address), &length), 0);
  close(fd);
  std::string deadUrl =
      "REA_SHIM_LEDGER_URL=http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/invoke";
  ShellRun unreachable = h.runWithEnvironment("tool; echo \"rc=$?\"", {path, deadUrl});
  EXPECT_EQ(unreachable.out, "rc=127\n");
  EXPECT_NE(unreachable.err.find("tool: rea shim: cannot reach the shim ledger at 127.0.0.1:"),
            std::string::npos)
      << unreachable.err;

  EXPECT_TRUE(h.ledger.events().empty());
}

TEST(ShimShell, AWrongLedgerPathIsRefusedLikeAnUnmatchedCall) {
  Harness h(
      R"([{"name":"tool","routes":[{"arguments":[],"termination":{"type":"exit","code":0}}]}])");
  std::string url = h.server.url();
  url.replace(url.size() - strlen("invoke"), strlen("invoke"), "elsewhere");
  ShellRun run = h.runWithEnvironment(
      "tool; echo \"rc=$?\"",
      {"PATH=" + h.root.shims() + ":/usr/bin:/bin", "REA_SHIM_LEDGER_URL=" + url});
  EXPECT_EQ(run.out, "rc=127\n");  // 404 is a non-2xx answer: no output, exit 127
  EXPECT_EQ(run.err, "");
  EXPECT_TRUE(h.ledger.events().empty());
}

TEST(ShimShell, TheListeningSocketIsNotInheritedByTheTarget) {
  Harness h(
      R"([{"name":"tool","routes":[{"arguments":[],"termination":{"type":"exit","code":0}}]}])");
  ShellRun run = h.run("ls -l /proc/self/fd/");
  EXPECT_NE(run.out.find("pipe:"), std::string::npos) << run.out;  // the listing worked
  EXPECT_EQ(run.out.find("socket:"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace rea::helper
