#include "supervisor/pty-stream-check.h"

#include <signal.h>

#include "evidence/utf.h"

namespace rea::supervisor {

namespace {

const size_t MAX_BATCH = 4096;  // the helper's BatchLimits::maxEvents

}  // namespace

PtyStreamCheck::PtyStreamCheck(const PtyLaunch& launch)
    : launch(launch), lastAtNs(launch.t0Ns), reported(launch.events.size()), rendered(launch) {}

std::string PtyStreamCheck::batch(size_t size, const PtyRecord& record) const {
  if (record.streamDone) return "events after done";
  if (size > MAX_BATCH) return "a batch of more than 4096 events";
  return {};
}

std::string PtyStreamCheck::event(schema::PtyEvent::Reader in, uint64_t nowNs, PtyRecord& record) {
  uint64_t atNs = in.getAtNs();
  if (atNs < lastAtNs) return "timestamps go back in time";
  if (atNs > nowNs) return "a timestamp in the future";
  lastAtNs = atNs;
  switch (in.which()) {
    case schema::PtyEvent::OUTPUT: {
      auto data = in.getOutput();
      std::string text(reinterpret_cast<const char*>(data.begin()), data.size());
      if (text.empty()) return "an empty output chunk";
      if (!evidence::isValidUtf8(text)) return "output that is not UTF-8";
      if (record.output.size() + 1 > launch.maxFrames) return "too many frames";
      if (outputBytes + text.size() > launch.maxOutputBytes) {
        return "more output bytes than the limit";
      }
      outputBytes += text.size();
      record.output.push_back(PtyChunk{atNs, kj::mv(text)});
      return {};
    }
    case schema::PtyEvent::DISPATCHED:
      return dispatched(in.getDispatched(), atNs, record);
    case schema::PtyEvent::EXITED:
      return exited(in.getExited(), atNs, record);
    case schema::PtyEvent::RENDERED: {
      PtyRenderedFrame frame;
      std::string broken = rendered.frame(in.getRendered(), atNs, record.output.size(), frame);
      if (broken.empty()) record.rendered.push_back(kj::mv(frame));
      return broken;
    }
    case schema::PtyEvent::REPLIED: {
      PtyAutoReply reply;
      std::string broken = rendered.reply(in.getReplied(), atNs, reply);
      if (broken.empty()) record.autoReplies.push_back(kj::mv(reply));
      return broken;
    }
  }
  return "an unknown event kind";
}

std::string PtyStreamCheck::dispatched(schema::Dispatch::Reader in, uint64_t atNs,
                                       PtyRecord& record) {
  uint32_t index = in.getEventIndex();
  if (index >= reported.size()) return "an unknown event index";
  if (reported[index]) return "an event reported twice";
  PtyDispatch dispatch{index, atNs, PtyDispatch::Outcome::DISPATCHED};
  switch (in.getOutcome()) {
    case schema::Dispatch::Outcome::DISPATCHED:
      dispatch.outcome = PtyDispatch::Outcome::DISPATCHED;
      break;
    case schema::Dispatch::Outcome::FAILED:
      dispatch.outcome = PtyDispatch::Outcome::FAILED;
      break;
    case schema::Dispatch::Outcome::TARGET_EXITED:
      dispatch.outcome = PtyDispatch::Outcome::TARGET_EXITED;
      break;
    default:
      return "an unknown dispatch outcome";
  }
  bool afterExit = dispatch.outcome == PtyDispatch::Outcome::TARGET_EXITED;
  if (afterExit != bool(record.exit)) {
    return afterExit ? "target_exited before the exit" : "a dispatch after the exit";
  }
  if (afterExit && atNs != record.exit->atNs) return "target_exited not at the exit time";
  reported[index] = true;
  record.interactions.push_back(dispatch);
  return {};
}

std::string PtyStreamCheck::exited(schema::Exit::Reader in, uint64_t atNs, PtyRecord& record) {
  if (record.exit) return "a second exit";
  PtyExit exit;
  exit.atNs = atNs;
  if (in.isCode()) {
    int code = in.getCode();
    if (code < 0 || code > 255) return "an exit code out of range";
    exit.code = code;
  } else if (in.isSignal()) {
    int signal = in.getSignal();
    if (signal < 1 || signal >= NSIG) return "a signal number out of range";
    exit.signal = signal;
  } else {
    return "an exit without code or signal";
  }
  switch (in.getReason()) {
    case schema::Exit::Reason::EXITED:
      exit.reason = PtyExit::Reason::EXITED;
      break;
    case schema::Exit::Reason::TIMEOUT:
      exit.reason = PtyExit::Reason::TIMEOUT;
      break;
    case schema::Exit::Reason::IDLE_TIMEOUT:
      exit.reason = PtyExit::Reason::IDLE_TIMEOUT;
      break;
    default:
      return "an unknown exit reason";
  }
  record.exit = exit;
  return {};
}

std::string PtyStreamCheck::done(schema::PtySink::DoneParams::Reader in, PtyRecord& record) const {
  auto summary = in.getSummary();
  if (record.streamDone) return "done twice";
  if (summary.getTruncated() != (summary.getDroppedCount() > 0)) {
    return "a summary whose truncated flag contradicts its count";
  }
  if (!record.exit) return "done before the exit";
  std::string broken = rendered.done(in.getRenderTruncated(), in.getRenderedFrames());
  if (!broken.empty()) return broken;
  record.renderTruncated = in.getRenderTruncated();
  record.streamDone = true;
  record.outputTruncated = summary.getTruncated();
  record.droppedChunks = summary.getDroppedCount();
  return {};
}

}  // namespace rea::supervisor
