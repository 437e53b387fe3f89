#include "helpers/pty/server.h"

#include <kj/debug.h>
#include <malloc.h>

#include "helpers/common/event-sink.h"
#include "helpers/pty/pty-job.h"
#include "helpers/pty/seccomp-policy.h"
#include "helpers/pty/standalone.h"
#include "schema/pty.capnp.h"

namespace rea::helper {

namespace {

PtyJobConfig configFromSchema(schema::PtyConfig::Reader config) {
  auto text = [](capnp::Data::Reader data) {
    return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
  };
  PtyJobConfig result;
  result.executable = text(config.getExecutable());
  for (auto argument : config.getArguments())
    result.arguments.push_back(text(argument));
  result.workingDirectory = text(config.getWorkingDirectory());
  result.executableObject = text(config.getExecutableObject());
  for (auto entry : config.getEnvironment())
    result.environment.push_back(text(entry));
  result.columns = config.getColumns();
  result.rows = config.getRows();
  for (auto event : config.getEvents()) {
    PtyJobInteraction interaction;
    interaction.atMs = event.getAtMs();
    switch (event.which()) {
      case schema::PtyInteraction::INPUT:
        interaction.type = PtyJobInteraction::Type::INPUT;
        interaction.data = text(event.getInput());
        break;
      case schema::PtyInteraction::RESIZE:
        interaction.type = PtyJobInteraction::Type::RESIZE;
        interaction.columns = event.getResize().getColumns();
        interaction.rows = event.getResize().getRows();
        break;
      case schema::PtyInteraction::SIGNAL:
        interaction.type = PtyJobInteraction::Type::SIGNAL;
        interaction.signal = event.getSignal();
        break;
    }
    interaction.waits = event.getWaits();
    interaction.waitsForExit = event.getWaitsForExit();
    result.events.push_back(kj::mv(interaction));
  }
  result.timeoutMs = config.getTimeoutMs();
  result.idleTimeoutMs = config.getIdleTimeoutMs();
  result.t0Ns = config.getT0Ns();
  result.maxFrames = config.getMaxFrames();
  result.maxOutputBytes = config.getMaxOutputBytes();
  if (config.hasNetwork()) {
    result.netnsPath = text(config.getNetwork().getNet());
    result.usernsPath = text(config.getNetwork().getUser());
  }
  result.scrollback = config.getScrollback();
  result.renderMaxFrames = config.getRenderMaxFrames();
  result.renderMaxBytes = config.getRenderMaxBytes();
  result.cgroupPath = text(config.getCgroupPath());
  result.pidsGroupPath = text(config.getPidsGroupPath());
  result.execNotify = config.getExecNotify();
  return result;
}

kj::ArrayPtr<const kj::byte> bytes(const std::string& text) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text.data()), text.size());
}

void eventToSchema(const PtyJobEvent& event, schema::PtyEvent::Builder builder) {
  builder.setAtNs(event.atNs);
  switch (event.kind) {
    case PtyJobEvent::Kind::OUTPUT:
      builder.setOutput(kj::arrayPtr(reinterpret_cast<const kj::byte*>(event.output.data()),
                                     event.output.size()));
      break;
    case PtyJobEvent::Kind::DISPATCHED: {
      auto dispatch = builder.initDispatched();
      dispatch.setEventIndex(event.eventIndex);
      switch (event.outcome) {
        case PtyJobEvent::Outcome::DISPATCHED:
          dispatch.setOutcome(schema::Dispatch::Outcome::DISPATCHED);
          break;
        case PtyJobEvent::Outcome::FAILED:
          dispatch.setOutcome(schema::Dispatch::Outcome::FAILED);
          break;
        case PtyJobEvent::Outcome::TARGET_EXITED:
          dispatch.setOutcome(schema::Dispatch::Outcome::TARGET_EXITED);
          break;
        case PtyJobEvent::Outcome::TIMED_OUT:
          dispatch.setOutcome(schema::Dispatch::Outcome::TIMED_OUT);
          break;
      }
      break;
    }
    case PtyJobEvent::Kind::EXITED: {
      auto exit = builder.initExited();
      if (event.exitedNormally) {
        exit.setCode(event.status);
      } else {
        exit.setSignal(event.status);
      }
      switch (event.reason) {
        case PtyJobEvent::Reason::EXITED:
          exit.setReason(schema::Exit::Reason::EXITED);
          break;
        case PtyJobEvent::Reason::TIMEOUT:
          exit.setReason(schema::Exit::Reason::TIMEOUT);
          break;
        case PtyJobEvent::Reason::IDLE_TIMEOUT:
          exit.setReason(schema::Exit::Reason::IDLE_TIMEOUT);
          break;
      }
      break;
    }
    case PtyJobEvent::Kind::RENDERED: {
      const RenderedScreen& frame = *event.rendered;
      auto out = builder.initRendered();
      out.setColumns(uint16_t(frame.columns));
      out.setRows(uint16_t(frame.rows));
      out.setCursorX(uint16_t(frame.cursorX));
      out.setCursorY(uint16_t(frame.cursorY));
      out.setAlternate(frame.alternate);
      auto lines = out.initLines(frame.lines.size());
      for (size_t i = 0; i < frame.lines.size(); ++i)
        lines.set(i, bytes(frame.lines[i]));
      out.setSerializedState(bytes(frame.serializedState));
      break;
    }
    case PtyJobEvent::Kind::REPLIED: {
      auto out = builder.initReplied();
      out.setQuery(event.reply.query);
      out.setReply(bytes(event.reply.reply));
      break;
    }
  }
}

class PtyJobServer final : public schema::PtyJob::Server,
                           public PtyJobSink,
                           private kj::TaskSet::ErrorHandler {
 public:
  PtyJobServer(HelperContext& context, schema::PtySink::Client sinkCap)
      : context(context),
        sinkCap(kj::mv(sinkCap)),
        batches(context.io.provider->getTimer(),
                [this](kj::Array<PtyJobEvent> batch) { return push(kj::mv(batch)); }),
        tasks(*this) {
    tasks.add(batches.whenFailed());
  }

  void begin(PtyJobConfig config) {
    job = PtyJob::start(context.io, kj::mv(config), *this, [this]() {
      // push() reads glibc's allocator statistics under the filter. glibc sets its allocator up
      // on first use, taking a key from getrandom, which the filter refuses (SIGSYS); where
      // malloc is glibc's that happened long ago, but a sanitizer build replaces malloc, so the
      // first use would be push()'s. Use it once here, before the lock-down.
      (void)mallinfo2();
      context.lockDown();
    });
    tasks.add(KJ_ASSERT_NONNULL(job)->whenFailed());
  }

  pid_t rootPid() { return KJ_ASSERT_NONNULL(job)->rootPid(); }
  uint64_t spawnedAtNs() { return KJ_ASSERT_NONNULL(job)->spawnedAtNs(); }

  // implements PtySink (the job's) ------------------------------------------------------

  void event(PtyJobEvent&& event) override {
    bool urgent = event.kind == PtyJobEvent::Kind::EXITED;  // the supervisor settles on it
    if (urgent) faultPoint(FaultMoment::SETTLE);            // test-only: the root exited
    size_t size = event.output.size() + 16;
    if (event.rendered) size += event.rendered->cost() + 8 * event.rendered->lines.size();
    batches.add(kj::mv(event), size);
    if (urgent) batches.flush();
  }

  // Flow control (PtyJobSink::wantsMore): a few batches' worth may wait for the send in flight,
  // so rendering and the RPC overlap; beyond that the job keeps its chunks raw.
  static constexpr size_t MAX_PENDING_BYTES = 4 * BatchLimits().maxBytes;
  bool wantsMore() override { return batches.pendingSize() < MAX_PENDING_BYTES; }
  kj::Promise<void> whenWantsMore() override { return batches.whenPendingBelow(MAX_PENDING_BYTES); }

  // implements schema::PtyJob::Server ------------------------------------------------------

  kj::Promise<void> release(ReleaseContext context) override {
    auto params = context.getParams();
    KJ_IF_MAYBE (j, job) {
      (*j)->release(params.getEventIndex(), params.getTimedOut(), params.getStop());
    }
    return kj::READY_NOW;
  }

  kj::Promise<void> finish(FinishContext) override {
    KJ_REQUIRE(!finished, "finish called twice");
    finished = true;
    faultPoint(FaultMoment::STOP);  // test-only
    return KJ_ASSERT_NONNULL(job)->finish().then([this](PtyJobSummary summary) {
      return batches.end().then([this, summary]() {
        auto request = sinkCap.doneRequest();
        auto out = request.initSummary();
        // test-only: a malformed summary, whose truncated flag contradicts its dropped count
        out.setTruncated(summary.truncated != takeMalformed());
        out.setDroppedCount(summary.droppedChunks);
        request.setRenderTruncated(summary.renderTruncated);
        request.setRenderedFrames(summary.renderedFrames);
        return request.send().ignoreResult();
      });
    });
  }

 private:
  HelperContext& context;
  schema::PtySink::Client sinkCap;
  BatchingSink<PtyJobEvent> batches;
  kj::Maybe<kj::Own<PtyJob>> job;  // after `batches`: destroyed first, it emits into them
  bool finished = false;
  static constexpr size_t TRIM_EVERY_BYTES = 2 << 20;
  size_t sentSinceTrim = 0;  // bytes of output and frames sent since the last malloc_trim
  kj::TaskSet tasks;

  kj::Promise<void> push(kj::Array<PtyJobEvent> batch) {
    // The output passes through this helper once: what was sent is freed, but a heap with holes
    // stays resident (the drain thread's chunks and the loop's frames interleave), so this
    // helper would keep its largest backlog in RSS while the supervisor holds the same output.
    // Every few MB sent, when that much lies free (a backlog was let through), the free pages
    // go back to the system (madvise, no file: the filter allows it). Not while output streams
    // through without piling up: the drain thread would fault the same pages in again, which
    // costs more CPU than it saves memory.
    if (sentSinceTrim >= TRIM_EVERY_BYTES) {
      if (mallinfo2().fordblks >= TRIM_EVERY_BYTES) malloc_trim(0);
      sentSinceTrim = 0;
    }
    for (auto& event : batch) {
      sentSinceTrim += event.output.size();
      if (event.rendered) sentSinceTrim += event.rendered->cost();
    }
    auto request = sinkCap.pushRequest();
    auto events = request.initEvents(batch.size());
    for (size_t i = 0; i < batch.size(); ++i)
      eventToSchema(batch[i], events[i]);
    if (takeMalformed()) events[0].setAtNs(0);  // test-only: before the helper started
    return request.send();
  }

  void taskFailed(kj::Exception&& exception) override { context.fail(kj::mv(exception)); }
};

class PtyServer final : public schema::Pty::Server {
 public:
  explicit PtyServer(HelperContext& context) : context(context) {}

  kj::Promise<void> start(StartContext call) override {
    KJ_REQUIRE(!started, "start called twice");
    started = true;
    faultPoint(FaultMoment::START);  // test-only
    auto params = call.getParams();
    auto job = kj::heap<PtyJobServer>(context, params.getSink());
    job->begin(configFromSchema(params.getConfig()));
    auto results = call.getResults();
    results.setRootPid(takeMalformed() ? 0 : uint32_t(job->rootPid()));  // test-only: pid 0
    results.setSpawnedAtNs(job->spawnedAtNs());
    results.setJob(kj::mv(job));
    return kj::READY_NOW;
  }

 private:
  HelperContext& context;
  bool started = false;
};

}  // namespace

HelperSpec ptyHelperSpec() {
  HelperSpec spec;
  spec.name = "pty";
  spec.policy = []() { return ptySeccompPolicy(); };
  spec.lockDownAtStart = false;
  spec.makeServer = [](HelperContext& context) -> capnp::Capability::Client {
    return kj::heap<PtyServer>(context);
  };
  spec.runStandalone = [](HelperContext& context, const evidence::Json& request, JsonLines& out) {
    return runPtyStandalone(context, request, out);
  };
  return spec;
}

}  // namespace rea::helper
