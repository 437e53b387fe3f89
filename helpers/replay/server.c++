#include "helpers/replay/server.h"

#include <kj/debug.h>

#include "helpers/common/event-sink.h"
#include "helpers/replay/replay-job.h"
#include "helpers/replay/seccomp-policy.h"
#include "helpers/replay/standalone.h"
#include "schema/replay.capnp.h"

namespace rea::helper {

namespace {

ReplayJobConfig configFromSchema(schema::ReplayConfig::Reader config) {
  ReplayJobConfig result;
  result.plan = readReplayPlan(config.getPlan());
  result.limits.protocolEvents = config.getProtocolEvents();
  result.limits.protocolBodyBytes = config.getProtocolBodyBytes();
  result.limits.connections = config.getConnections();
  checkReplayLimits(result.limits);
  result.loopbackNetns = config.getLoopbackNetns();
  return result;
}

schema::ProtocolEvent::Protocol protocolToSchema(ProtocolEvent::Protocol protocol) {
  return protocol == ProtocolEvent::Protocol::HTTP ? schema::ProtocolEvent::Protocol::HTTP
                                                   : schema::ProtocolEvent::Protocol::WEBSOCKET;
}

schema::ProtocolEvent::Direction directionToSchema(ProtocolEvent::Direction direction) {
  switch (direction) {
    case ProtocolEvent::Direction::REQUEST:
      return schema::ProtocolEvent::Direction::REQUEST;
    case ProtocolEvent::Direction::RESPONSE:
      return schema::ProtocolEvent::Direction::RESPONSE;
    case ProtocolEvent::Direction::RECEIVED:
      return schema::ProtocolEvent::Direction::RECEIVED;
    case ProtocolEvent::Direction::SENT:
      return schema::ProtocolEvent::Direction::SENT;
  }
  KJ_UNREACHABLE;
}

schema::ProtocolEvent::Outcome outcomeToSchema(ProtocolEvent::Outcome outcome) {
  switch (outcome) {
    case ProtocolEvent::Outcome::MATCHED:
      return schema::ProtocolEvent::Outcome::MATCHED;
    case ProtocolEvent::Outcome::UNMATCHED:
      return schema::ProtocolEvent::Outcome::UNMATCHED;
    case ProtocolEvent::Outcome::SCRIPT_EXHAUSTED:
      return schema::ProtocolEvent::Outcome::SCRIPT_EXHAUSTED;
    case ProtocolEvent::Outcome::DISCONNECTED:
      return schema::ProtocolEvent::Outcome::DISCONNECTED;
  }
  KJ_UNREACHABLE;
}

void eventToSchema(const ProtocolEvent& event, schema::ProtocolEvent::Builder builder) {
  builder.setSequence(event.sequence);
  builder.setAtNs(event.atNs);
  builder.setProtocol(protocolToSchema(event.protocol));
  builder.setDirection(directionToSchema(event.direction));
  if (event.method) {
    builder.getMethod().setValue(*event.method);
  } else {
    builder.getMethod().setNone();
  }
  builder.setPath(event.path ? *event.path : "");
  builder.setData(
      kj::arrayPtr(reinterpret_cast<const kj::byte*>(event.data.data()), event.data.size()));
  builder.setOutcome(outcomeToSchema(event.outcome));
}

class ReplayJobServer final : public schema::ReplayJob::Server, private kj::TaskSet::ErrorHandler {
 public:
  ReplayJobServer(HelperContext& context, schema::ReplaySink::Client sinkCap,
                  ReplayJobConfig config)
      : context(context),
        sinkCap(kj::mv(sinkCap)),
        batches(context.io.provider->getTimer(),
                [this](kj::Array<ProtocolEvent> batch) { return push(kj::mv(batch)); }),
        job(kj::heap<ReplayJob>(context.io, kj::mv(config),
                                [this](std::vector<ProtocolEvent> events) {
                                  for (auto& event : events) {
                                    size_t bytes = event.data.size() + 64;
                                    batches.add(kj::mv(event), bytes);
                                  }
                                })),
        tasks(*this) {
    tasks.add(batches.whenFailed());
  }

  uint16_t begin() {
    return job->start([this]() { context.lockDown(); });
  }
  uint64_t originNs() { return job->originNs(); }

  kj::Promise<void> finish(FinishContext) override {
    KJ_REQUIRE(!finished, "finish called twice");
    finished = true;
    faultPoint(FaultMoment::STOP);  // test-only
    ReplayJobSummary summary = job->finish();
    return batches.end().then([this, summary = kj::mv(summary)]() {
      auto request = sinkCap.doneRequest();
      auto out = request.initSummary();
      auto stream = out.initStream();
      // test-only: a malformed summary, whose truncated flag contradicts its dropped count
      stream.setTruncated((summary.droppedEvents > 0) != takeMalformed());
      stream.setDroppedCount(summary.droppedEvents);
      out.setBodyOverLimit(summary.truncation.bodyOverLimit);
      out.setConnectionCap(summary.truncation.connectionCap);
      auto list = out.initDiagnostics(summary.diagnostics.size());
      for (size_t i = 0; i < summary.diagnostics.size(); ++i) {
        auto& from = summary.diagnostics[i];
        list[i].setAtNs(from.atNs);
        list[i].setKind(diagnosticKindName(from.kind));
        list[i].setDetail(from.detail);
      }
      out.setDiagnosticCount(summary.diagnosticCount);
      return request.send().ignoreResult();
    });
  }

 private:
  HelperContext& context;
  schema::ReplaySink::Client sinkCap;
  BatchingSink<ProtocolEvent> batches;
  kj::Own<ReplayJob> job;  // after `batches`: destroyed first, it emits into them
  bool finished = false;
  kj::TaskSet tasks;

  kj::Promise<void> push(kj::Array<ProtocolEvent> batch) {
    auto request = sinkCap.pushRequest();
    auto events = request.initEvents(batch.size());
    for (size_t i = 0; i < batch.size(); ++i)
      eventToSchema(batch[i], events[i]);
    if (takeMalformed()) events[0].setSequence(events[0].getSequence() + 1000);  // test-only
    return request.send();
  }

  void taskFailed(kj::Exception&& exception) override { context.fail(kj::mv(exception)); }
};

class ReplayRpcServer final : public schema::Replay::Server {
 public:
  explicit ReplayRpcServer(HelperContext& context) : context(context) {}

  kj::Promise<void> start(StartContext call) override {
    KJ_REQUIRE(!started, "start called twice");
    started = true;
    faultPoint(FaultMoment::START);  // test-only
    auto params = call.getParams();
    auto job =
        kj::heap<ReplayJobServer>(context, params.getSink(), configFromSchema(params.getConfig()));
    uint16_t port = job->begin();
    auto results = call.getResults();
    results.setPort(takeMalformed() ? 0 : port);  // test-only: a malformed answer
    results.setOriginNs(job->originNs());
    results.setJob(kj::mv(job));
    return kj::READY_NOW;
  }

 private:
  HelperContext& context;
  bool started = false;
};

}  // namespace

HelperSpec replayHelperSpec() {
  HelperSpec spec;
  spec.name = "replay";
  spec.policy = []() { return replaySeccompPolicy(); };
  spec.lockDownAtStart = false;
  spec.makeServer = [](HelperContext& context) -> capnp::Capability::Client {
    return kj::heap<ReplayRpcServer>(context);
  };
  spec.runStandalone = [](HelperContext& context, const evidence::Json& request, JsonLines& out) {
    return runReplayStandalone(context, request, out);
  };
  return spec;
}

}  // namespace rea::helper
