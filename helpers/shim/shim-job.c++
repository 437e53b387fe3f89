#include "helpers/shim/shim-job.h"

#include <fcntl.h>
#include <sched.h>

#include <kj/debug.h>
#include <kj/io.h>
#include <nlohmann/json.hpp>

#include "helpers/common/clock.h"
#include "helpers/shim/shim-files.h"
#include "helpers/shim/shim-ledger-server.h"

namespace rea::helper {

namespace {

template <typename T>
T field(const evidence::Json& object, const char* name, T fallback) {
  auto it = object.find(name);
  if (it == object.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception& e) {
    KJ_FAIL_REQUIRE("malformed field", name, e.what());
  }
}

}  // namespace

ShimJob::ShimJob(kj::Own<ShimLedger> ledger, kj::Own<ShimLedgerServer> server)
    : ledgerPtr(kj::mv(ledger)), server(kj::mv(server)) {}

ShimJob::~ShimJob() noexcept(false) {
  server = nullptr;  // before the ledger it borrows
}

kj::Own<ShimJob> ShimJob::start(kj::AsyncIoContext& io, ShimJobConfig config,
                                std::function<void(const ShimEvent&)> onRecorded,
                                kj::Function<void()> lockDown) {
  KJ_REQUIRE(config.protocolEventLimit >= 1 && config.protocolEventLimit <= 100000,
             "protocolEventLimit out of range", config.protocolEventLimit);
  evidence::Json planJson;
  try {
    planJson = evidence::Json::parse(config.planJson);
  } catch (const nlohmann::json::exception& e) {
    KJ_FAIL_REQUIRE("the shim plan is not JSON", e.what());
  }
  KJ_REQUIRE(planJson.is_array(), "the shim plan is not an array");
  ShimPlan plan = parseShimPlan(planJson);
  std::vector<std::string> names;
  for (const Shim& shim : plan.shims)
    names.push_back(shim.name);
  writeShimExecutables(config.shimsDirectory, names, config.clientPath);

  // A loopback capture's target can reach only its own namespace's 127.0.0.1: the ledger must
  // listen there. Entered before the filter (setns is not in it) and before any socket exists.
  const std::pair<std::string, int> namespaces[] = {{config.usernsPath, CLONE_NEWUSER},
                                                     {config.netnsPath, CLONE_NEWNET}};
  for (const auto& entry : namespaces) {
    const std::string& path = entry.first;
    if (path.empty()) continue;
    int fd;
    KJ_SYSCALL(fd = open(path.c_str(), O_RDONLY | O_CLOEXEC), path);
    kj::AutoCloseFd owned(fd);
    KJ_SYSCALL(setns(fd, entry.second), path);
  }

  auto ledger = kj::heap<ShimLedger>(kj::mv(plan), config.protocolEventLimit);
  ledger->onRecorded(kj::mv(onRecorded));
  auto server = kj::heap<ShimLedgerServer>(*io.lowLevelProvider, io.provider->getTimer(), *ledger,
                                           monotonicNowNs);
  auto job = kj::heap<ShimJob>(kj::mv(ledger), kj::mv(server));
  job->boundPort = KJ_ASSERT_NONNULL(job->server)->start();
  // Bound and listening, nothing read yet: the filter goes on before the loop serves a byte.
  lockDown();
  return job;
}

uint16_t ShimJob::port() const {
  return boundPort;
}

void ShimJob::stop() {
  server = nullptr;
}

kj::Maybe<const kj::Exception&> ShimJob::failure() const {
  KJ_IF_MAYBE (s, server) {
    return (*s)->failure();
  }
  return nullptr;
}

ShimJobConfig shimJobConfigFromJson(const evidence::Json& request) {
  KJ_REQUIRE(request.is_object(), "the request is not a JSON object");
  ShimJobConfig config;
  auto shims = request.find("commandShims");
  KJ_REQUIRE(shims != request.end() && shims->is_array(), "commandShims must be an array");
  config.planJson = shims->dump();
  config.shimsDirectory = field<std::string>(request, "shimsDirectory", "");
  KJ_REQUIRE(!config.shimsDirectory.empty(), "shimsDirectory is required");
  config.clientPath = field<std::string>(request, "clientPath", "");
  KJ_REQUIRE(!config.clientPath.empty(), "clientPath is required");
  config.protocolEventLimit = field<uint32_t>(request, "protocolEventLimit", 10000);
  return config;
}

evidence::Json shimEventToJson(const ShimEvent& event) {
  evidence::Json line = {
      {"event", "invocation"},        {"sequence", event.sequence},
      {"atNs", event.atNs},           {"command", event.command},
      {"arguments", event.arguments}, {"workingDirectory", event.workingDirectory}};
  if (event.routeIndex) {
    line["routeIndex"] = *event.routeIndex;
  } else {
    line["routeIndex"] = nullptr;
  }
  line["outcome"] = shimOutcomeName(event.outcome);
  return line;
}

}  // namespace rea::helper
