#include "supervisor/mcp/mcp-server.h"

#include <errno.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <kj/async.h>
#include <nlohmann/json.hpp>

#include "supervisor/cli/capture-comparison.h"
#include "supervisor/run/capture-scenario.h"
#include "supervisor/mcp/jsonrpc.h"
#include "supervisor/mcp/mcp-ledger.h"
#include "supervisor/mcp/mcp-tools.h"

namespace rea::supervisor {
namespace {

using evidence::Json;
using jsonrpc::Message;

// The newest revision first; an initialize naming another one of these gets it back.
const char* const PROTOCOL_VERSIONS[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

const char INSTRUCTIONS[] =
    "rea records one approved command run in a real terminal as deterministic Evidence "
    "(capture_process_scenario) and compares two such records (compare_process_captures). "
    "What may run is decided by the operator policy of the server's environment.";

struct CaptureJob {
  Json requestId;
  Json progressToken;  // null: the caller asked for no progress
  evidence::Scenario scenario;

  mutable std::mutex mutex;  // guards the two below (the protocol thread cancels, the capture
                             // thread runs)
  bool cancelled = false;
  kj::Own<kj::CrossThreadPromiseFulfiller<void>> fulfiller;  // set while the capture runs

  bool isCancelled() const {
    std::lock_guard<std::mutex> lock(mutex);
    return cancelled;
  }

  void cancel() {
    std::lock_guard<std::mutex> lock(mutex);
    cancelled = true;
    if (fulfiller) fulfiller->fulfill();
  }
};

class Session {
 public:
  Session(int inputFd, int outputFd, int signalFd)
      : inputFd(inputFd), outputFd(outputFd), signalFd(signalFd) {}

  int run() {
    worker = std::thread([this]() { captureLoop(); });
    readLoop();
    {
      std::lock_guard<std::mutex> lock(jobsMutex);
      stopping = true;
      queue.clear();  // nobody is left to answer
      if (running) running->cancel();
    }
    jobsChanged.notify_all();
    worker.join();
    return 0;
  }

 private:
  const int inputFd;
  const int outputFd;
  const int signalFd;
  McpLedger ledger;

  std::mutex outputMutex;
  bool outputBroken = false;

  std::mutex jobsMutex;
  std::condition_variable jobsChanged;
  std::deque<std::shared_ptr<CaptureJob>> queue;
  std::shared_ptr<CaptureJob> running;
  bool stopping = false;
  std::thread worker;

  bool send(const Json& message) {
    std::string line = jsonrpc::serialise(message);
    std::lock_guard<std::mutex> lock(outputMutex);
    size_t done = 0;
    while (!outputBroken && done < line.size()) {
      ssize_t n = write(outputFd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        outputBroken = true;  // EPIPE: the client went away
      else
        done += static_cast<size_t>(n);
    }
    return !outputBroken;
  }

  bool broken() {
    std::lock_guard<std::mutex> lock(outputMutex);
    return outputBroken;
  }

  // Progress values only grow (the protocol requires it): 0 at the start, one more for each
  // change of phase or byte count, and the last one, equal to `total`, at the end. None once
  // the call was cancelled.
  void progress(const CaptureJob& job, int64_t value, const std::string& message,
                bool last = false) {
    // A cancelled call is over for the client (the protocol's cancellation: it forgets the
    // request), so further progress about it would only be noise it must reject.
    if (job.progressToken.is_null() || job.isCancelled()) return;
    Json params = {{"progressToken", job.progressToken}, {"progress", value}, {"message", message}};
    if (last) params["total"] = value;
    send(jsonrpc::notification("notifications/progress", std::move(params)));
  }

  // ---- the capture thread --------------------------------------------------------------------

  void captureLoop() {
    while (true) {
      std::shared_ptr<CaptureJob> job;
      {
        std::unique_lock<std::mutex> lock(jobsMutex);
        jobsChanged.wait(lock, [this]() { return stopping || !queue.empty(); });
        if (stopping) return;
        job = queue.front();
        queue.pop_front();
        running = job;
      }
      Json answer = capture(*job);
      {
        std::lock_guard<std::mutex> lock(jobsMutex);
        running = nullptr;
        if (stopping) return;
      }
      send(jsonrpc::result(job->requestId, std::move(answer)));
    }
  }

  Json capture(CaptureJob& job) {
    ScenarioCaptureOptions options;
    options.showProgress = false;  // stderr is for logs here, and no person watches it
    options.cancellation = [&job](kj::AsyncIoContext&) -> kj::Promise<void> {
      auto paf = kj::newPromiseAndCrossThreadFulfiller<void>();
      std::lock_guard<std::mutex> lock(job.mutex);
      if (job.cancelled) paf.fulfiller->fulfill();
      job.fulfiller = kj::mv(paf.fulfiller);
      return kj::mv(paf.promise);
    };
    if (job.isCancelled()) return toolError(evidence::cancelled());  // never launched
    int64_t step = 0;
    progress(job, step, "capture started");
    CapturePhase lastPhase = CapturePhase::STARTING;
    uint64_t lastBytes = 0;
    options.onProgress = [&](CapturePhase phase, uint64_t bytes) {
      if (phase == lastPhase && bytes == lastBytes) return;
      lastPhase = phase;
      lastBytes = bytes;
      progress(
          job, ++step,
          std::string(capturePhaseName(phase)) + ": " + std::to_string(bytes) + " bytes captured");
    };
    ScenarioCapture outcome = captureScenario(job.scenario, options);
    {
      std::lock_guard<std::mutex> lock(job.mutex);
      job.fulfiller = nullptr;  // its promise is gone with the capture's event loop
    }
    progress(job, ++step,
             outcome.error ? "capture ended without Evidence"
                           : "capture finished: " + std::to_string(lastBytes) + " bytes captured",
             /*last=*/true);
    if (outcome.error) return toolError(*outcome.error);
    LedgerEntry entry = ledgerEntryFor(std::move(*outcome.evidence));
    std::string id = entry.evidenceId;
    auto evidence = entry.evidence;
    auto admission = ledger.add(std::move(entry));
    return toolResult(*evidence, ledgerNotes(id, admission));
  }

  // ---- the protocol thread -------------------------------------------------------------------

  void readLoop() {
    std::string buffer;
    bool discarding = false;  // inside a line longer than MAX_MESSAGE_BYTES
    char chunk[65536];
    while (!broken()) {
      pollfd fds[2] = {{inputFd, POLLIN, 0}, {signalFd, POLLIN, 0}};
      int ready = poll(fds, signalFd >= 0 ? 2 : 1, -1);
      if (ready < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (signalFd >= 0 && (fds[1].revents & POLLIN) != 0) return;
      if (fds[0].revents == 0) continue;
      ssize_t n = read(inputFd, chunk, sizeof(chunk));
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return;  // end of input: the client is done
      size_t start = 0;
      for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
        if (chunk[i] != '\n') continue;
        if (!discarding) {
          buffer.append(chunk + start, i - start);
          handleLine(buffer);
        }
        buffer.clear();
        discarding = false;
        start = i + 1;
      }
      if (!discarding) buffer.append(chunk + start, static_cast<size_t>(n) - start);
      if (!discarding && buffer.size() > jsonrpc::MAX_MESSAGE_BYTES) {
        buffer.clear();
        buffer.shrink_to_fit();
        discarding = true;
        send(jsonrpc::error(nullptr, jsonrpc::PARSE_ERROR,
                            "Parse error: the message is longer than rea reads (160 MiB)"));
      }
    }
  }

  void handleLine(std::string& line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) return;  // blank lines are no messages
    Message message = jsonrpc::parseMessage(line);
    line.clear();
    switch (message.kind) {
      case Message::Kind::INVALID:
        send(message.error);
        return;
      case Message::Kind::RESPONSE:
        return;  // rea sends no requests, so there is nothing to match it with
      case Message::Kind::NOTIFICATION:
        if (message.method == "notifications/cancelled") cancel(message.params);
        return;  // notifications/initialized and any other: nothing to do
      case Message::Kind::REQUEST:
        handleRequest(message);
        return;
    }
  }

  void handleRequest(Message& request) {
    const std::string& method = request.method;
    if (method == "initialize") {
      send(jsonrpc::result(request.id, initializeResult(request.params)));
    } else if (method == "ping") {
      send(jsonrpc::result(request.id, Json::object()));
    } else if (method == "tools/list") {
      send(jsonrpc::result(request.id, Json{{"tools", mcpTools()}}));
    } else if (method == "tools/call") {
      callTool(request);
    } else {
      send(jsonrpc::error(request.id, jsonrpc::METHOD_NOT_FOUND, "Method not found: " + method));
    }
  }

  Json initializeResult(const Json& params) {
    std::string version = PROTOCOL_VERSIONS[0];
    auto requested = params.find("protocolVersion");
    if (requested != params.end() && requested->is_string()) {
      for (const char* known : PROTOCOL_VERSIONS) {
        if (*requested == known) version = known;
      }
    }
    return Json{{"protocolVersion", version},
                {"capabilities", {{"tools", {{"listChanged", false}}}}},
                {"serverInfo",
                 {{"name", "rea"}, {"title", "rea process capture"}, {"version", REA_VERSION}}},
                {"instructions", INSTRUCTIONS}};
  }

  void callTool(Message& request) {
    auto name = request.params.find("name");
    if (name == request.params.end() || !name->is_string()) {
      send(jsonrpc::error(request.id, jsonrpc::INVALID_PARAMS,
                          "Invalid params: tools/call needs the tool's name"));
      return;
    }
    Json arguments = Json::object();
    auto given = request.params.find("arguments");
    if (given != request.params.end()) arguments = std::move(*given);
    if (*name == COMPARE_TOOL) {
      send(jsonrpc::result(request.id, compareProcessCaptures(arguments, ledger, epochNowMs())));
    } else if (*name == CAPTURE_TOOL) {
      startCapture(request, arguments);
    } else {
      send(jsonrpc::error(request.id, jsonrpc::INVALID_PARAMS,
                          "Invalid params: unknown tool " + name->get<std::string>()));
    }
  }

  void startCapture(Message& request, const Json& arguments) {
    CaptureRequest admitted = readCaptureRequest(arguments);
    if (admitted.error) {
      send(jsonrpc::result(request.id, toolError(*admitted.error)));
      return;
    }
    auto job = std::make_shared<CaptureJob>();
    job->requestId = request.id;
    job->scenario = std::move(*admitted.scenario);
    auto meta = request.params.find("_meta");
    if (meta != request.params.end() && meta->is_object() && meta->contains("progressToken")) {
      const Json& token = (*meta)["progressToken"];
      if (token.is_string() || token.is_number_integer()) job->progressToken = token;
    }
    {
      std::lock_guard<std::mutex> lock(jobsMutex);
      queue.push_back(std::move(job));
    }
    jobsChanged.notify_all();
  }

  void cancel(const Json& params) {
    auto id = params.find("requestId");
    if (id == params.end()) return;
    std::shared_ptr<CaptureJob> dropped;
    {
      std::lock_guard<std::mutex> lock(jobsMutex);
      if (running && running->requestId == *id) {
        running->cancel();  // answered by the capture thread once the cleanup is complete
        return;
      }
      for (auto it = queue.begin(); it != queue.end(); ++it) {
        if ((*it)->requestId == *id) {
          dropped = *it;
          queue.erase(it);
          break;
        }
      }
    }
    // Anything else (a finished call, a comparison, an unknown id) has nothing to stop.
    if (dropped) send(jsonrpc::result(dropped->requestId, toolError(evidence::cancelled())));
  }
};

}  // namespace

int serveMcp(int inputFd, int outputFd, int signalFd) {
  Session session(inputFd, outputFd, signalFd);
  return session.run();
}

}  // namespace rea::supervisor
