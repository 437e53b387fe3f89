#include "helpers/shim/server.h"

#include <kj/debug.h>

#include "helpers/common/event-sink.h"
#include "helpers/shim/seccomp-policy.h"
#include "helpers/shim/shim-job.h"
#include "helpers/shim/standalone.h"
#include "schema/shim.capnp.h"

namespace rea::helper {

namespace {

std::string text(capnp::Data::Reader data) {
  return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
}

size_t eventBytes(const ShimEvent& event) {
  size_t bytes = 32 + event.command.size() + event.workingDirectory.size();
  for (const auto& argument : event.arguments)
    bytes += argument.size() + 8;
  return bytes;
}

void eventToSchema(const ShimEvent& event, schema::ShimInvocation::Builder builder) {
  builder.setSequence(event.sequence);
  builder.setAtNs(event.atNs);
  builder.setCommand(event.command);
  auto arguments = builder.initArguments(event.arguments.size());
  for (size_t i = 0; i < event.arguments.size(); ++i)
    arguments.set(i, event.arguments[i]);
  builder.setWorkingDirectory(event.workingDirectory);
  builder.setRouteIndex(event.routeIndex ? int32_t(*event.routeIndex) : -1);
  switch (event.outcome) {
    case ShimOutcome::MATCHED:
      builder.setOutcome(schema::ShimInvocation::Outcome::MATCHED);
      break;
    case ShimOutcome::UNMATCHED:
      builder.setOutcome(schema::ShimInvocation::Outcome::UNMATCHED);
      break;
    case ShimOutcome::EXHAUSTED:
      builder.setOutcome(schema::ShimInvocation::Outcome::EXHAUSTED);
      break;
  }
}

class ShimJobServer final : public schema::ShimJob::Server, private kj::TaskSet::ErrorHandler {
 public:
  ShimJobServer(HelperContext& context, schema::ShimSink::Client sinkCap)
      : context(context),
        sinkCap(kj::mv(sinkCap)),
        batches(context.io.provider->getTimer(),
                [this](kj::Array<ShimEvent> batch) { return push(kj::mv(batch)); }),
        tasks(*this) {
    tasks.add(batches.whenFailed());
  }

  uint16_t begin(ShimJobConfig config) {
    job = ShimJob::start(
        context.io, kj::mv(config),
        [this](const ShimEvent& event) {
          if (!finished) batches.add(ShimEvent(event), eventBytes(event));
        },
        [this]() { context.lockDown(); });
    return KJ_ASSERT_NONNULL(job)->port();
  }

  // implements schema::ShimJob::Server ------------------------------------------------------

  kj::Promise<void> finish(FinishContext) override {
    KJ_REQUIRE(!finished, "finish called twice");
    finished = true;
    faultPoint(FaultMoment::STOP);  // test-only
    auto& shimJob = *KJ_ASSERT_NONNULL(job);
    shimJob.stop();  // no request is answered (or recorded) after this
    bool truncated = shimJob.ledger().truncated();
    uint64_t dropped = shimJob.ledger().droppedCount();
    return batches.end().then([this, truncated, dropped]() {
      auto request = sinkCap.doneRequest();
      auto summary = request.initSummary();
      // test-only: a malformed summary, whose truncated flag contradicts its dropped count
      summary.setTruncated(truncated != takeMalformed());
      summary.setDroppedCount(dropped);
      return request.send().ignoreResult();
    });
  }

 private:
  HelperContext& context;
  schema::ShimSink::Client sinkCap;
  BatchingSink<ShimEvent> batches;
  kj::Maybe<kj::Own<ShimJob>> job;  // after `batches`: destroyed first, it emits into them
  bool finished = false;
  kj::TaskSet tasks;

  kj::Promise<void> push(kj::Array<ShimEvent> batch) {
    auto request = sinkCap.pushRequest();
    auto events = request.initEvents(batch.size());
    for (size_t i = 0; i < batch.size(); ++i)
      eventToSchema(batch[i], events[i]);
    if (takeMalformed()) events[0].setSequence(events[0].getSequence() + 1000);  // test-only
    return request.send();
  }

  void taskFailed(kj::Exception&& exception) override { context.fail(kj::mv(exception)); }
};

class ShimServer final : public schema::Shim::Server {
 public:
  explicit ShimServer(HelperContext& context) : context(context) {}

  kj::Promise<void> start(StartContext call) override {
    KJ_REQUIRE(!started, "start called twice");
    started = true;
    faultPoint(FaultMoment::START);  // test-only
    auto params = call.getParams();
    auto config = params.getConfig();
    ShimJobConfig jobConfig;
    jobConfig.plan = readShimPlan(config.getPlan());
    jobConfig.shimsDirectory = text(config.getShimsDirectory());
    jobConfig.clientPath = text(config.getClientPath());
    jobConfig.protocolEventLimit = config.getProtocolEventLimit();
    jobConfig.netnsPath = text(config.getNetns());
    jobConfig.usernsPath = text(config.getUserns());
    auto job = kj::heap<ShimJobServer>(context, params.getSink());
    uint16_t port = job->begin(kj::mv(jobConfig));
    auto results = call.getResults();
    results.setPort(takeMalformed() ? 0 : port);  // test-only: a malformed answer
    results.setJob(kj::mv(job));
    return kj::READY_NOW;
  }

 private:
  HelperContext& context;
  bool started = false;
};

}  // namespace

HelperSpec shimHelperSpec() {
  HelperSpec spec;
  spec.name = "shim";
  spec.policy = []() { return shimSeccompPolicy(); };
  spec.lockDownAtStart = false;
  spec.makeServer = [](HelperContext& context) -> capnp::Capability::Client {
    return kj::heap<ShimServer>(context);
  };
  spec.runStandalone = [](HelperContext& context, const evidence::Json& request, JsonLines& out) {
    return runShimStandalone(context, request, out);
  };
  return spec;
}

}  // namespace rea::helper
