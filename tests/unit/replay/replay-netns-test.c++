// The loopback network namespace (SPEC A9): only lo, up, no routes; the replay server inside
// answers a target inside; the host's loopback is out of reach from inside and the other way
// round. Every socket here talks to 127.0.0.1; the route checks use connect() on datagram
// sockets, which only looks a route up and sends nothing.

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <kj/async-io.h>

#include "helpers/replay/loopback-netns.h"
#include "helpers/replay/replay-server.h"
#include "tests/unit/replay-test-support.h"
#include "tests/test-support.h"

namespace rea::helper::test {
namespace {

using rea::test::readFile;

// Runs `check` in a forked child; returns what it returned ("" = all good), or how it died.
std::string inChild(const std::function<std::string()>& check) {
  int fds[2];
  EXPECT_EQ(pipe2(fds, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string problem;
    try {
      problem = check();
    } catch (const std::exception& e) {
      problem = std::string("exception: ") + e.what();
    }
    ssize_t ignored = write(fds[1], problem.data(), problem.size());
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0)
    text.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return "child died with signal " + std::to_string(WTERMSIG(status));
  return text;
}

std::vector<std::string> interfaceNames() {
  std::vector<std::string> names;
  struct if_nameindex* list = if_nameindex();
  if (list == nullptr) return names;
  for (auto* i = list; i->if_index != 0; ++i)
    names.push_back(i->if_name);
  if_freenameindex(list);
  return names;
}

std::vector<std::string> procNetDevNames() {
  std::vector<std::string> names;
  std::istringstream in(readFile("/proc/net/dev"));
  std::string line;
  for (int i = 0; std::getline(in, line); ++i) {
    if (i < 2) continue;  // two header lines
    size_t colon = line.find(':');
    size_t start = line.find_first_not_of(' ');
    if (colon != std::string::npos) names.push_back(line.substr(start, colon - start));
  }
  return names;
}

int connectErrno(int family, int type, const char* address, uint16_t port) {
  int s = socket(family, type | SOCK_CLOEXEC, 0);
  if (s < 0) return errno;
  int result = 0;
  if (family == AF_INET) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, address, &a.sin_addr);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) result = errno;
  } else {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(port);
    inet_pton(AF_INET6, address, &a.sin6_addr);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) result = errno;
  }
  close(s);
  return result;
}

// A TCP listener on the host's 127.0.0.1, outside any namespace of ours.
struct HostListener {
  HostListener() {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    listen(fd, 4);
    socklen_t length = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length);
    port = ntohs(a.sin_port);
  }
  ~HostListener() { close(fd); }
  int fd;
  uint16_t port;
};

// Checks made from inside the namespace; "" when all hold.
std::string checkInside(uint16_t hostPort) {
  auto names = interfaceNames();
  if (names != std::vector<std::string>{"lo"}) {
    std::string all;
    for (auto& n : names)
      all += n + " ";
    return "if_nameindex shows: " + all;
  }
  if (procNetDevNames() != std::vector<std::string>{"lo"}) return "/proc/net/dev shows more";
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq request {};
  strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  bool up = ioctl(s, SIOCGIFFLAGS, &request) == 0 && (request.ifr_flags & IFF_UP) != 0;
  close(s);
  if (!up) return "lo is not up";
  std::istringstream routes(readFile("/proc/net/route"));
  std::string line;
  int lines = 0;
  while (std::getline(routes, line))
    ++lines;
  if (lines != 1) return "/proc/net/route has routes: " + std::to_string(lines - 1);
  // Route lookups only (datagram connect sends nothing): TEST-NET-1 and the IPv6 documentation
  // prefix are unreachable.
  if (int e = connectErrno(AF_INET, SOCK_DGRAM, "192.0.2.1", 9); e != ENETUNREACH) {
    return std::string("IPv4 route lookup: ") + strerror(e);
  }
  if (int e = connectErrno(AF_INET6, SOCK_DGRAM, "2001:db8::1", 9); e != ENETUNREACH) {
    return std::string("IPv6 route lookup: ") + strerror(e);
  }
  // The host's 127.0.0.1 listener is not this namespace's 127.0.0.1.
  if (int e = connectErrno(AF_INET, SOCK_STREAM, "127.0.0.1", hostPort); e != ECONNREFUSED) {
    return std::string("host listener reachable or odd: ") + strerror(e);
  }
  return "";
}

TEST(ReplayNetns, ANamespaceHasOnlyLoUpAndNoRoutes) {
  HostListener host;
  LoopbackNetnsResult result = createLoopbackNetns();
  LoopbackNetns* ns = nullptr;
  KJ_IF_MAYBE (n, result.netns) {
    ns = n;
  }
  ASSERT_NE(ns, nullptr) << result.detail;
  EXPECT_EQ(ns->mode,
            geteuid() == 0 ? LoopbackNetns::Mode::DIRECT : LoopbackNetns::Mode::USER_NAMESPACE);
  int net = ns->net.get(), user = ns->user.get();
  EXPECT_EQ(inChild([&]() {
              enterLoopbackNetns(net, user);
              return checkInside(host.port);
            }),
            "");
  // The pty helper's way (between fork and exec) lands in the same place.
  EXPECT_EQ(inChild([&]() {
              int e = joinLoopbackNetns(net, user);
              return e != 0 ? std::string(strerror(e)) : checkInside(host.port);
            }),
            "");
}

TEST(ReplayNetns, TheCallerStaysInItsOwnNamespace) {
  struct stat before, after, created;
  ASSERT_EQ(stat("/proc/self/ns/net", &before), 0);
  LoopbackNetnsResult result = createLoopbackNetns();
  ASSERT_EQ(stat("/proc/self/ns/net", &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  KJ_IF_MAYBE (ns, result.netns) {
    ASSERT_EQ(fstat(ns->net.get(), &created), 0);
    EXPECT_NE(created.st_ino, before.st_ino);
  } else {
    ADD_FAILURE() << result.detail;
  }
}

TEST(ReplayNetns, ATargetInsideReachesTheReplayServerInsideAndNothingOutside) {
  HostListener host;
  LoopbackNetnsResult result = createLoopbackNetns();
  LoopbackNetns* ns = nullptr;
  KJ_IF_MAYBE (n, result.netns) {
    ns = n;
  }
  ASSERT_NE(ns, nullptr) << result.detail;
  int net = ns->net.get(), user = ns->user.get();

  // The replay helper: joins the namespace, listens, reports its port, serves until told to
  // stop, then reports its events.
  int portPipe[2], stopPipe[2], eventPipe[2];
  ASSERT_EQ(pipe2(portPipe, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(stopPipe, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(eventPipe, O_CLOEXEC), 0);
  pid_t server = fork();
  if (server == 0) {
    close(portPipe[0]);
    close(stopPipe[1]);  // else the stop pipe never reaches EOF
    close(eventPipe[0]);
    enterLoopbackNetns(net, user);
    auto io = kj::setupAsyncIo();
    ReplayServer replay(io, planFrom(R"({"http":[{"method":"GET","path":"/hello","status":200,
                                     "body":"inside"}],"websocket_messages":["w"]})"),
                        {}, kj::systemPreciseMonotonicClock());
    uint16_t port = replay.listen();
    ssize_t ignored = write(portPipe[1], &port, sizeof(port));
    auto stop = io.lowLevelProvider->wrapInputFd(stopPipe[0]);
    kj::byte byte;
    stop->tryRead(&byte, 1, 1).wait(io.waitScope);  // EOF: the test is done
    replay.close();
    std::string text;
    for (auto& e : replay.recorder().takeEvents()) {
      text += std::string(protocolName(e.protocol)) + " " + directionName(e.direction) + " " +
              e.data + " " + outcomeName(e.outcome) + "\n";
    }
    ignored = write(eventPipe[1], text.data(), text.size());
    (void)ignored;
    _exit(0);
  }
  close(portPipe[1]);
  close(stopPipe[0]);
  close(eventPipe[1]);
  uint16_t port = 0;
  ASSERT_EQ(read(portPipe[0], &port, sizeof(port)), static_cast<ssize_t>(sizeof(port)));
  close(portPipe[0]);

  // The target, started the way the pty helper starts it: fork, join, exec.
  std::string base = "127.0.0.1:" + std::to_string(port);
  std::string script =
      "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' '\n"
      "echo routes=$(tail -n +2 /proc/net/route | wc -l)\n"
      "curl -sS --max-time 5 \"$REA_REPLAY_HTTP_URL/hello\"; echo\n"
      "\"$WS_CLIENT\" --close-after 1 \"$REA_REPLAY_WEBSOCKET_URL\"\n"
      "curl -sS --max-time 5 \"http://127.0.0.1:$HOST_PORT/\" >/dev/null 2>&1; echo host=$?\n";
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "REA_REPLAY_HTTP_URL=http://" + base,
                                  "REA_REPLAY_WEBSOCKET_URL=ws://" + base + "/ws",
                                  "WS_CLIENT=" + wsClientPath(),
                                  "HOST_PORT=" + std::to_string(host.port)};
  int outPipe[2];
  ASSERT_EQ(pipe2(outPipe, O_CLOEXEC), 0);
  pid_t target = fork();
  if (target == 0) {
    if (joinLoopbackNetns(net, user) != 0) _exit(126);
    dup2(outPipe[1], STDOUT_FILENO);
    std::vector<char*> envp;
    for (auto& e : env)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    execle("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr), envp.data());
    _exit(127);
  }
  close(outPipe[1]);
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = read(outPipe[0], buffer, sizeof(buffer))) > 0)
    out.append(buffer, n);
  close(outPipe[0]);
  int status = 0;
  waitpid(target, &status, 0);
  EXPECT_EQ(out, "lo\nroutes=0\ninside\n# open\nw\n# close 1000\nhost=7\n");

  // From the host, the replay server's port is not there (it listens inside only).
  EXPECT_EQ(connectErrno(AF_INET, SOCK_STREAM, "127.0.0.1", port), ECONNREFUSED);

  close(stopPipe[1]);
  std::string events;
  while ((n = read(eventPipe[0], buffer, sizeof(buffer))) > 0)
    events.append(buffer, n);
  close(eventPipe[0]);
  waitpid(server, &status, 0);
  EXPECT_EQ(events,
            "http request  matched\nhttp response inside matched\nwebsocket sent w matched\n");
}

TEST(ReplayNetns, AnUnprivilegedCallerGetsOneThroughAUserNamespace) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to become another user";
  }
  HostListener host;
  uint16_t hostPort = host.port;
  EXPECT_EQ(
      inChild([hostPort]() -> std::string {
        if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
          return "cannot drop to 65534";
        }
        LoopbackNetnsResult result = createLoopbackNetns();
        KJ_IF_MAYBE (ns, result.netns) {
          if (ns->mode != LoopbackNetns::Mode::USER_NAMESPACE) return "not via userns";
          if (result.detail.find("user namespace") == std::string::npos) {
            return "detail: " + result.detail;
          }
          int net = ns->net.get(), user = ns->user.get();
          return inChild([net, user, hostPort]() -> std::string {
            enterLoopbackNetns(net, user);
            if (getuid() != 65534) return "uid changed to " + std::to_string(getuid());
            return checkInside(hostPort);
          });
        }
        // A kernel that forbids unprivileged user namespaces must say so.
        if (result.detail.find("unshare(CLONE_NEWUSER|CLONE_NEWNET) failed") == std::string::npos) {
          return "unexplained: " + result.detail;
        }
        return "";
      }),
      "");
}

TEST(ReplayNetns, WhenNeitherWayWorksTheResultSaysWhy) {
  EXPECT_EQ(inChild([]() -> std::string {
              scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
              seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
              if (seccomp_load(ctx) != 0) return "cannot load the filter";
              seccomp_release(ctx);
              LoopbackNetnsResult result = createLoopbackNetns();
              if (result.netns != nullptr) return "created one anyway";
              const char* expected[] = {
                  "no private network namespace for network_access \"loopback\"",
                  "unshare(CLONE_NEWNET) failed: Operation not permitted",
                  "unshare(CLONE_NEWUSER|CLONE_NEWNET) failed: Operation not permitted"};
              for (const char* e : expected) {
                if (result.detail.find(e) == std::string::npos) return "detail: " + result.detail;
              }
              LoopbackNetnsProbe probe = probeLoopbackNetns();
              if (probe.available || probe.detail != result.detail) return "probe disagrees";
              return "";
            }),
            "");
}

TEST(ReplayNetns, ProbeReportsHowItWorks) {
  LoopbackNetnsProbe probe = probeLoopbackNetns();
  EXPECT_TRUE(probe.available) << probe.detail;
  EXPECT_NE(probe.detail.find("only lo"), std::string::npos) << probe.detail;
}

}  // namespace
}  // namespace rea::helper::test
