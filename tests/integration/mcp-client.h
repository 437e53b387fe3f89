#pragma once
// A small MCP client of our own for the tests of `rea mcp`: it starts the real binary with
// pipes for stdin and stdout (stderr to a file in the sandbox), the sandbox's TMPDIR and an
// operator policy, writes JSON-RPC lines and reads them back, keeping notifications and
// responses that arrive out of order.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "tests/integration/harness.h"
#include "tests/test-support.h"

namespace rea::test {

class McpClient {
 public:
  McpClient(Sandbox& sandbox, const Policy& policy = {})
      : stderrPath(sandbox.tmpdir() + "/.mcp-stderr") {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) abort();
    pid = fork();
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      int err = open(stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(err, 2);
      setenv("TMPDIR", sandbox.tmpdir().c_str(), 1);
      setenv("REA_PROCESS_CAPTURE_ENABLED", policy.enabled ? "true" : "false", 1);
      setenv("REA_PROCESS_EXECUTABLE_ROOTS_JSON", policy.executableRoots.c_str(), 1);
      setenv("REA_PROCESS_WORKING_ROOTS_JSON", policy.workingRoots.c_str(), 1);
      setenv("REA_PROCESS_ALLOWED_ENV_JSON", policy.allowedEnvironment.c_str(), 1);
      setenv("REA_PROCESS_ALLOW_EXTERNAL_NETWORK", policy.allowExternalNetwork ? "true" : "false",
             1);
      std::string binary = reaBinary();
      execl(binary.c_str(), binary.c_str(), "mcp", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    toServer = in[1];
    fromServer = out[0];
  }

  ~McpClient() {
    if (toServer >= 0) close(toServer);
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    close(fromServer);
  }

  void sendLine(const std::string& line) {
    std::string text = line + "\n";
    ASSERT_EQ(write(toServer, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }

  void notify(const std::string& method, const Json& params) {
    sendLine(Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump());
  }

  int64_t send(const std::string& method, const Json& params) {
    int64_t id = nextId++;
    sendLine(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump());
    return id;
  }

  Json receive(int timeoutMs = 180000) {
    // The next message, or null on timeout or end of output.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (true) {
      size_t newline = buffer.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer.substr(0, newline);
        buffer.erase(0, newline + 1);
        lines.push_back(line);
        Json message = Json::parse(line, nullptr, false);
        EXPECT_FALSE(message.is_discarded()) << "not JSON on stdout: " << line;
        EXPECT_EQ(message.value("jsonrpc", ""), "2.0") << line;
        return message;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return nullptr;
      pollfd fd = {fromServer, POLLIN, 0};
      if (poll(&fd, 1, static_cast<int>(left)) <= 0) continue;
      char chunk[65536];
      ssize_t n = read(fromServer, chunk, sizeof(chunk));
      if (n <= 0) return nullptr;
      buffer.append(chunk, static_cast<size_t>(n));
    }
  }

  Json response(int64_t id, int timeoutMs = 180000) {
    // The response to request `id`; notifications and other responses are kept meanwhile.
    auto kept = responses.find(id);
    if (kept != responses.end()) {
      Json out = kept->second;
      responses.erase(kept);
      return out;
    }
    while (true) {
      Json message = receive(timeoutMs);
      if (message.is_null()) return nullptr;
      if (message.contains("method")) {
        notifications.push_back(message);
      } else if (message.contains("id") && message["id"] == id) {
        return message;
      } else if (message.contains("id") && message["id"].is_number_integer()) {
        responses[message["id"].get<int64_t>()] = message;
      } else {
        unmatched.push_back(message);
      }
    }
  }

  Json call(const std::string& method, const Json& params) {
    return response(send(method, params));
  }

  Json initialize(const std::string& version = "2025-11-25") {
    Json result = call("initialize", {{"protocolVersion", version},
                                      {"capabilities", Json::object()},
                                      {"clientInfo", {{"name", "rea-test"}, {"version", "1"}}}});
    notify("notifications/initialized", Json::object());
    return result;
  }

  Json callTool(const std::string& name, const Json& arguments,
                const Json& progressToken = nullptr) {
    Json params = {{"name", name}, {"arguments", arguments}};
    if (!progressToken.is_null()) params["_meta"] = {{"progressToken", progressToken}};
    return call("tools/call", params);
  }

  int finish(int timeoutMs = 120000) {
    // Closes stdin (what a client does to end the session) and returns rea's exit code.
    close(toServer);
    toServer = -1;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) return -1;
      usleep(10000);
    }
    pid = -1;
    // Whatever it still wrote: each a protocol message.
    while (!receive(1000).is_null()) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  void signal(int number) { ::kill(pid, number); }

  std::string stderrText() const { return readFile(stderrPath); }

  std::vector<Json> notifications;
  std::vector<Json> unmatched;     // messages with an id that is not an integer (null: errors)
  std::vector<std::string> lines;  // everything read from stdout

 private:
  std::string stderrPath;
  pid_t pid = -1;
  int toServer = -1;
  int fromServer = -1;
  int64_t nextId = 1;
  std::string buffer;
  std::map<int64_t, Json> responses;
};

}  // namespace rea::test
