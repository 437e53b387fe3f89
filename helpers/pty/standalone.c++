#include "helpers/pty/standalone.h"

#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include "helpers/common/request-field.h"

namespace rea::helper {

namespace {

const char* outcomeName(PtyJobEvent::Outcome outcome) {
  switch (outcome) {
    case PtyJobEvent::Outcome::DISPATCHED:
      return "dispatched";
    case PtyJobEvent::Outcome::FAILED:
      return "failed";
    case PtyJobEvent::Outcome::TARGET_EXITED:
      return "targetExited";
    case PtyJobEvent::Outcome::TIMED_OUT:
      return "timedOut";
  }
  KJ_UNREACHABLE;
}

const char* reasonName(PtyJobEvent::Reason reason) {
  switch (reason) {
    case PtyJobEvent::Reason::EXITED:
      return "exited";
    case PtyJobEvent::Reason::TIMEOUT:
      return "timeout";
    case PtyJobEvent::Reason::IDLE_TIMEOUT:
      return "idleTimeout";
  }
  KJ_UNREACHABLE;
}

class JsonSink final : public PtyJobSink {
 public:
  explicit JsonSink(JsonLines& out) : out(out) {}
  void event(PtyJobEvent&& event) override { out.write(ptyJobEventToJson(event)); }

 private:
  JsonLines& out;
};

}  // namespace

PtyJobConfig ptyJobConfigFromJson(const evidence::Json& request) {
  KJ_REQUIRE(request.is_object(), "the request is not a JSON object");
  PtyJobConfig config;
  config.executable = field<std::string>(request, "executable", "");
  config.arguments = field<std::vector<std::string>>(request, "arguments", {});
  config.workingDirectory = field<std::string>(request, "workingDirectory", "/");
  config.environment = field<std::vector<std::string>>(request, "environment", {});
  config.columns = field<uint16_t>(request, "columns", config.columns);
  config.rows = field<uint16_t>(request, "rows", config.rows);
  config.timeoutMs = field<uint64_t>(request, "timeoutMs", config.timeoutMs);
  config.idleTimeoutMs = field<uint64_t>(request, "idleTimeoutMs", config.idleTimeoutMs);
  config.t0Ns = field<uint64_t>(request, "t0Ns", 0);
  config.maxFrames = field<uint32_t>(request, "maxFrames", config.maxFrames);
  config.maxOutputBytes = field<uint64_t>(request, "maxOutputBytes", config.maxOutputBytes);
  config.scrollback = field<uint32_t>(request, "scrollback", config.scrollback);
  config.renderMaxFrames = field<uint32_t>(request, "renderMaxFrames", config.renderMaxFrames);
  config.renderMaxBytes = field<uint64_t>(request, "renderMaxBytes", config.renderMaxBytes);
  config.cgroupPath = field<std::string>(request, "cgroupPath", "");
  auto events = request.find("events");
  if (events != request.end()) {
    KJ_REQUIRE(events->is_array(), "events is not an array");
    for (auto& entry : *events) {
      KJ_REQUIRE(entry.is_object(), "an event is not an object");
      PtyJobInteraction event;
      event.atMs = field<uint64_t>(entry, "atMs", 0);
      if (entry.contains("input")) {
        event.type = PtyJobInteraction::Type::INPUT;
        event.data = field<std::string>(entry, "input", "");
      } else if (entry.contains("resize")) {
        event.type = PtyJobInteraction::Type::RESIZE;
        auto& size = entry["resize"];
        KJ_REQUIRE(size.is_object(), "resize is not an object");
        event.columns = field<uint16_t>(size, "columns", 0);
        event.rows = field<uint16_t>(size, "rows", 0);
      } else if (entry.contains("signal")) {
        event.type = PtyJobInteraction::Type::SIGNAL;
        event.signal = field<int>(entry, "signal", 0);
      } else {
        KJ_FAIL_REQUIRE("an event has none of input, resize, signal");
      }
      config.events.push_back(kj::mv(event));
    }
  }
  return config;
}

evidence::Json ptyJobEventToJson(const PtyJobEvent& event) {
  evidence::Json line = evidence::Json::object();
  switch (event.kind) {
    case PtyJobEvent::Kind::OUTPUT:
      line["event"] = "output";
      line["atNs"] = event.atNs;
      line["data"] = event.output;
      break;
    case PtyJobEvent::Kind::DISPATCHED:
      line["event"] = "dispatched";
      line["atNs"] = event.atNs;
      line["eventIndex"] = event.eventIndex;
      line["outcome"] = outcomeName(event.outcome);
      break;
    case PtyJobEvent::Kind::EXITED:
      line["event"] = "exited";
      line["atNs"] = event.atNs;
      line["code"] = event.exitedNormally ? evidence::Json(event.status) : evidence::Json();
      line["signal"] = event.exitedNormally ? evidence::Json() : evidence::Json(event.status);
      line["reason"] = reasonName(event.reason);
      break;
    case PtyJobEvent::Kind::RENDERED: {
      const RenderedScreen& frame = *event.rendered;
      line["event"] = "rendered";
      line["atNs"] = event.atNs;
      line["columns"] = frame.columns;
      line["rows"] = frame.rows;
      line["cursorX"] = frame.cursorX;
      line["cursorY"] = frame.cursorY;
      line["activeBuffer"] = frame.alternate ? "alternate" : "normal";
      line["lines"] = frame.lines;
      line["serializedState"] = frame.serializedState;
      break;
    }
    case PtyJobEvent::Kind::REPLIED:
      line["event"] = "replied";
      line["atNs"] = event.atNs;
      line["query"] = event.reply.query;
      line["reply"] = event.reply.reply;
      break;
  }
  return line;
}

kj::Promise<void> runPtyStandalone(HelperContext& context, const evidence::Json& request,
                                   JsonLines& out) {
  auto sink = kj::heap<JsonSink>(out);
  auto job = PtyJob::start(context.io, ptyJobConfigFromJson(request), *sink,
                           [&context]() { context.lockDown(); });
  out.write({{"event", "spawned"}, {"atNs", job->spawnedAtNs()}, {"rootPid", job->rootPid()}});
  auto& timer = context.io.provider->getTimer();
  auto& jobRef = *job;
  auto done = jobRef.whenExited()
                  .then([&jobRef, &timer]() {
                    return jobRef.whenDrained().exclusiveJoin(timer.afterDelay(DRAIN_AFTER_EXIT));
                  })
                  .then([&jobRef]() { return jobRef.finish(); })
                  .then([&out](PtyJobSummary summary) {
                    out.write({{"event", "done"},
                               {"truncated", summary.truncated},
                               {"droppedCount", summary.droppedChunks},
                               {"renderTruncated", summary.renderTruncated},
                               {"renderedFrames", summary.renderedFrames}});
                  });
  return done.exclusiveJoin(jobRef.whenFailed()).attach(kj::mv(job), kj::mv(sink));
}

}  // namespace rea::helper
