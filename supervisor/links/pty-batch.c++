#include "supervisor/links/pty-batch.h"

#include <signal.h>

#include <algorithm>

#include "evidence/utf.h"
#include "supervisor/links/helper-message.h"

namespace rea::supervisor {

namespace {

std::optional<PtyDispatch::Outcome> outcomeOf(schema::Dispatch::Outcome outcome) {
  switch (outcome) {
    case schema::Dispatch::Outcome::DISPATCHED:
      return PtyDispatch::Outcome::DISPATCHED;
    case schema::Dispatch::Outcome::FAILED:
      return PtyDispatch::Outcome::FAILED;
    case schema::Dispatch::Outcome::TARGET_EXITED:
      return PtyDispatch::Outcome::TARGET_EXITED;
    case schema::Dispatch::Outcome::TIMED_OUT:
      return PtyDispatch::Outcome::TIMED_OUT;
  }
  return std::nullopt;
}

std::optional<PtyExit::Reason> reasonOf(schema::Exit::Reason reason) {
  switch (reason) {
    case schema::Exit::Reason::EXITED:
      return PtyExit::Reason::EXITED;
    case schema::Exit::Reason::TIMEOUT:
      return PtyExit::Reason::TIMEOUT;
    case schema::Exit::Reason::IDLE_TIMEOUT:
      return PtyExit::Reason::IDLE_TIMEOUT;
  }
  return std::nullopt;
}

}  // namespace

PtyStreamCheck::PtyStreamCheck(const PtyLaunch& launch)
    : outputBudget(launch.maxFrames, launch.maxOutputBytes),
      lastAtNs(launch.t0Ns),
      reported(launch.events.size(), false),
      rendered(launch) {
  for (const auto& event : launch.events) {
    waits.push_back(event.waits);
    exitWaits.push_back(event.waits && event.waitsForExit);
  }
}

std::string PtyStreamCheck::push(
    kj::FunctionParam<schema::PtySink::PushParams::Reader()> readParams, uint64_t nowNs,
    PtyRecord& record, kj::Maybe<PtyObserver&> observer) {
  return checkedRead([&]() -> std::string {
    auto params = readParams();
    auto events = params.getEvents();
    if (record.streamDone) return "events after done";
    if (events.size() > MAX_BATCH_EVENTS) return "a batch of more than 4096 events";
    for (auto e : events) {
      std::string broken = event(e, nowNs, record, observer);
      if (!broken.empty()) return broken;
    }
    return {};
  });
}

std::string PtyStreamCheck::event(schema::PtyEvent::Reader event, uint64_t nowNs, PtyRecord& record,
                                  kj::Maybe<PtyObserver&> observer) {
  uint64_t atNs = event.getAtNs();
  if (atNs < lastAtNs) return "timestamps go back in time";
  if (atNs > nowNs) return "a timestamp in the future";
  lastAtNs = atNs;
  switch (event.which()) {
    case schema::PtyEvent::OUTPUT: {
      auto data = event.getOutput();
      // Limits first: a chunk beyond them is refused before it is copied.
      if (data.size() == 0) return "an empty output chunk";
      // Limits first: a chunk beyond them is refused before it is copied.
      if (!outputBudget.fits(data.size())) return "more output bytes than the limit";
      std::string text(reinterpret_cast<const char*>(data.begin()), data.size());
      if (!evidence::isValidUtf8(text)) return "output that is not UTF-8";
      // A15: the helper drops by bytes only; once limits.frames frames exist, a read joins the
      // last frame (its time stays), so the count of reads cannot truncate the capture.
      switch (outputBudget.admit(text.size())) {
        case evidence::RawFrameBudget::Admission::DROP:
          return "more output bytes than the limit";
        case evidence::RawFrameBudget::Admission::APPEND:
          record.output.push_back(PtyChunk{atNs, kj::mv(text)});
          KJ_IF_MAYBE (o, observer) {
            o->output(record.output.back());
          }
          return {};
        case evidence::RawFrameBudget::Admission::COALESCE: {
          PtyChunk read{atNs, kj::mv(text)};
          record.output.back().data += read.data;
          KJ_IF_MAYBE (o, observer) {
            o->output(read);
          }
          return {};
        }
      }
      return {};
    }
    case schema::PtyEvent::DISPATCHED: {
      auto dispatched = event.getDispatched();
      uint32_t index = dispatched.getEventIndex();
      if (index >= reported.size()) return "an unknown event index";
      if (reported[index]) return "an event reported twice";
      auto outcome = outcomeOf(dispatched.getOutcome());
      if (!outcome) return "an unknown dispatch outcome";
      if (*outcome == PtyDispatch::Outcome::TIMED_OUT && !waits[index]) {
        return "a timed-out event that does not wait";
      }
      PtyDispatch dispatch{index, atNs, *outcome};
      bool afterExit =
          dispatch.outcome == PtyDispatch::Outcome::TARGET_EXITED ||
          (exitWaits[index] && record.exit && dispatch.outcome != PtyDispatch::Outcome::TIMED_OUT);
      if (afterExit != bool(record.exit)) {
        return afterExit ? "target_exited before the exit" : "a dispatch after the exit";
      }
      if (afterExit && atNs != record.exit->atNs) return "target_exited not at the exit time";
      reported[index] = true;
      record.interactions.push_back(dispatch);
      KJ_IF_MAYBE (o, observer) {
        o->dispatched(dispatch);
      }
      return {};
    }
    case schema::PtyEvent::EXITED: {
      if (record.exit) return "a second exit";
      auto exited = event.getExited();
      PtyExit exit;
      exit.atNs = atNs;
      if (exited.isCode()) {
        int code = exited.getCode();
        if (code < 0 || code > 255) return "an exit code out of range";
        exit.code = code;
      } else if (exited.isSignal()) {
        int signal = exited.getSignal();
        if (signal < 1 || signal >= NSIG) return "a signal number out of range";
        exit.signal = signal;
      } else {
        return "an exit without code or signal";
      }
      auto reason = reasonOf(exited.getReason());
      if (!reason) return "an unknown exit reason";
      exit.reason = *reason;
      record.exit = exit;
      KJ_IF_MAYBE (o, observer) {
        o->exited(exit);
      }
      return {};
    }
    case schema::PtyEvent::RENDERED: {
      PtyRenderedFrame frame;
      size_t evict = 0;
      std::string broken =
          rendered.frame(event.getRendered(), atNs, outputBudget.bytes(), frame, evict);
      if (!broken.empty()) return broken;
      // A15: the rendered budget replaces the newest frames instead of dropping this one.
      record.rendered.resize(record.rendered.size() - std::min(evict, record.rendered.size()));
      record.rendered.push_back(kj::mv(frame));
      KJ_IF_MAYBE (o, observer) {
        o->rendered(record.rendered.back());
      }
      return {};
    }
    case schema::PtyEvent::REPLIED: {
      PtyAutoReply reply;
      std::string broken = rendered.reply(event.getReplied(), atNs, reply);
      if (!broken.empty()) return broken;
      record.autoReplies.push_back(kj::mv(reply));
      return {};
    }
  }
  return "an unknown event kind";
}

std::string PtyStreamCheck::done(
    kj::FunctionParam<schema::PtySink::DoneParams::Reader()> readParams, PtyRecord& record) {
  return checkedRead([&]() -> std::string {
    auto params = readParams();
    if (record.streamDone) return "done twice";
    auto summary = params.getSummary();
    if (summary.getTruncated() != (summary.getDroppedCount() > 0)) {
      return "a summary whose truncated flag contradicts its count";
    }
    if (!record.exit) return "done before the exit";
    std::string broken = rendered.done(params.getRenderTruncated(), params.getRenderedFrames());
    if (!broken.empty()) return broken;
    record.renderTruncated = params.getRenderTruncated();
    record.streamDone = true;
    record.outputTruncated = summary.getTruncated();
    record.droppedChunks = summary.getDroppedCount();
    return {};
  });
}

}  // namespace rea::supervisor
