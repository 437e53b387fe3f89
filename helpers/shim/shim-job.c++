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

ShimJob::ShimJob(kj::Own<ShimLedger> ledger, kj::Own<ShimLedgerServer> server)
    : ledgerPtr(kj::mv(ledger)), server(kj::mv(server)) {}

ShimJob::~ShimJob() noexcept(false) {
  server = nullptr;  // before the ledger it borrows
}

kj::Own<ShimJob> ShimJob::start(kj::AsyncIoContext& io, ShimJobConfig config,
                                std::function<void(const ShimEvent&)> onRecorded,
                                kj::Function<void()> lockDown) {
  KJ_REQUIRE(evidence::limit::PROTOCOL_EVENTS.contains(config.protocolEventLimit),
             "protocolEventLimit out of range", config.protocolEventLimit);
  ShimPlan plan = kj::mv(config.plan);
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
