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

kj::Maybe<BrokenRule> PtyStreamCheck::push(
    kj::FunctionParam<schema::PtySink::PushParams::Reader()> readParams, uint64_t nowNs,
    PtyRecord& record, kj::Maybe<PtyObserver&> observer) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto params = readParams();
    auto events = params.getEvents();
    if (record.streamDone) return BrokenRule{"events after done"};
    if (events.size() > MAX_BATCH_EVENTS) return BrokenRule{"a batch of more than 4096 events"};
    for (auto e : events) {
      KJ_IF_MAYBE (broken, event(e, nowNs, record, observer)) {
        return kj::mv(*broken);
      }
    }
    return nullptr;
  });
}

kj::Maybe<BrokenRule> PtyStreamCheck::event(schema::PtyEvent::Reader event, uint64_t nowNs,
                                            PtyRecord& record, kj::Maybe<PtyObserver&> observer) {
  uint64_t atNs = event.getAtNs();
  if (atNs < lastAtNs) return BrokenRule{"timestamps go back in time"};
  if (atNs > nowNs) return BrokenRule{"a timestamp in the future"};
  lastAtNs = atNs;
  switch (event.which()) {
    case schema::PtyEvent::OUTPUT: {
      auto data = event.getOutput();
      // Limits first: a chunk beyond them is refused before it is copied.
      if (data.size() == 0) return BrokenRule{"an empty output chunk"};
      // Limits first: a chunk beyond them is refused before it is copied.
      if (!outputBudget.fits(data.size())) return BrokenRule{"more output bytes than the limit"};
      std::string text(reinterpret_cast<const char*>(data.begin()), data.size());
      if (!evidence::isValidUtf8(text)) return BrokenRule{"output that is not UTF-8"};
      // A15: the helper drops by bytes only; once limits.frames frames exist, a read joins the
      // last frame (its time stays), so the count of reads cannot truncate the capture.
      switch (outputBudget.admit(text.size())) {
        case evidence::RawFrameBudget::Admission::DROP:
          return BrokenRule{"more output bytes than the limit"};
        case evidence::RawFrameBudget::Admission::APPEND:
          record.output.push_back(PtyChunk{atNs, kj::mv(text)});
          KJ_IF_MAYBE (o, observer) {
            o->output(record.output.back());
          }
          return nullptr;
        case evidence::RawFrameBudget::Admission::COALESCE: {
          PtyChunk read{atNs, kj::mv(text)};
          record.output.back().data += read.data;
          KJ_IF_MAYBE (o, observer) {
            o->output(read);
          }
          return nullptr;
        }
      }
      return nullptr;
    }
    case schema::PtyEvent::DISPATCHED: {
      auto dispatched = event.getDispatched();
      uint32_t index = dispatched.getEventIndex();
      if (index >= reported.size()) return BrokenRule{"an unknown event index"};
      if (reported[index]) return BrokenRule{"an event reported twice"};
      auto outcome = outcomeOf(dispatched.getOutcome());
      if (!outcome) return BrokenRule{"an unknown dispatch outcome"};
      if (*outcome == PtyDispatch::Outcome::TIMED_OUT && !waits[index]) {
        return BrokenRule{"a timed-out event that does not wait"};
      }
      PtyDispatch dispatch{index, atNs, *outcome};
      bool afterExit =
          dispatch.outcome == PtyDispatch::Outcome::TARGET_EXITED ||
          (exitWaits[index] && record.exit && dispatch.outcome != PtyDispatch::Outcome::TIMED_OUT);
      if (afterExit != bool(record.exit)) {
        return BrokenRule{afterExit ? "target_exited before the exit"
                                    : "a dispatch after the exit"};
      }
      if (afterExit && atNs != record.exit->atNs)
        return BrokenRule{"target_exited not at the exit time"};
      reported[index] = true;
      record.interactions.push_back(dispatch);
      KJ_IF_MAYBE (o, observer) {
        o->dispatched(dispatch);
      }
      return nullptr;
    }
    case schema::PtyEvent::EXITED: {
      if (record.exit) return BrokenRule{"a second exit"};
      auto exited = event.getExited();
      PtyExit exit;
      exit.atNs = atNs;
      if (exited.isCode()) {
        int code = exited.getCode();
        if (code < 0 || code > 255) return BrokenRule{"an exit code out of range"};
        exit.code = code;
      } else if (exited.isSignal()) {
        int signal = exited.getSignal();
        if (signal < 1 || signal >= NSIG) return BrokenRule{"a signal number out of range"};
        exit.signal = signal;
      } else {
        return BrokenRule{"an exit without code or signal"};
      }
      auto reason = reasonOf(exited.getReason());
      if (!reason) return BrokenRule{"an unknown exit reason"};
      exit.reason = *reason;
      record.exit = exit;
      KJ_IF_MAYBE (o, observer) {
        o->exited(exit);
      }
      return nullptr;
    }
    case schema::PtyEvent::RENDERED: {
      PtyRenderedFrame frame;
      size_t evict = 0;
      KJ_IF_MAYBE (broken,
                   rendered.frame(event.getRendered(), atNs, outputBudget.bytes(), frame, evict)) {
        return kj::mv(*broken);
      }
      // A15: the rendered budget replaces the newest frames instead of dropping this one.
      record.rendered.resize(record.rendered.size() - std::min(evict, record.rendered.size()));
      record.rendered.push_back(kj::mv(frame));
      KJ_IF_MAYBE (o, observer) {
        o->rendered(record.rendered.back());
      }
      packer.packAllButLast(record.rendered);
      return nullptr;
    }
    case schema::PtyEvent::REPLIED: {
      PtyAutoReply reply;
      KJ_IF_MAYBE (broken, rendered.reply(event.getReplied(), atNs, reply)) {
        return kj::mv(*broken);
      }
      record.autoReplies.push_back(kj::mv(reply));
      return nullptr;
    }
  }
  return BrokenRule{"an unknown event kind"};
}

kj::Maybe<BrokenRule> PtyStreamCheck::done(
    kj::FunctionParam<schema::PtySink::DoneParams::Reader()> readParams, PtyRecord& record) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto params = readParams();
    if (record.streamDone) return BrokenRule{"done twice"};
    auto summary = params.getSummary();
    if (summary.getTruncated() != (summary.getDroppedCount() > 0)) {
      return BrokenRule{"a summary whose truncated flag contradicts its count"};
    }
    if (!record.exit) return BrokenRule{"done before the exit"};
    KJ_IF_MAYBE (broken, rendered.done(params.getRenderTruncated(), params.getRenderedFrames())) {
      return kj::mv(*broken);
    }
    record.renderTruncated = params.getRenderTruncated();
    record.streamDone = true;
    record.outputTruncated = summary.getTruncated();
    record.droppedChunks = summary.getDroppedCount();
    return nullptr;
  });
}

}  // namespace rea::supervisor
