#include "supervisor/links/pty-link-render.h"

#include "evidence/limits.h"
#include "evidence/utf.h"
#include "helpers/common/capnp-bytes.h"

namespace rea::supervisor {

using helper::textOf;

namespace {

const size_t MAX_REPLY_BYTES = 256;  // xterm's answers to DA/DSR/DECRQM/DECRQSS are short

bool knownQuery(const std::string& name) {
  for (const char* known :
       {"DA", "DA2", "DSR-status", "DSR-cursor", "DSR-cursor-dec", "DECRQM", "DECRQSS", "other"}) {
    if (name == known) return true;
  }
  return false;
}

}  // namespace

RenderedStreamCheck::RenderedStreamCheck(const PtyLaunch& launch)
    : budget(launch.renderMaxFrames, launch.renderMaxBytes) {}

kj::Maybe<BrokenRule> RenderedStreamCheck::frame(schema::RenderedFrame::Reader in, uint64_t atNs,
                                                 uint64_t bytesBefore, PtyRenderedFrame& out,
                                                 size_t& evict) {
  out = PtyRenderedFrame();
  out.atNs = atNs;
  out.bytesBefore = bytesBefore;
  out.columns = in.getColumns();
  out.rows = in.getRows();
  out.cursorX = in.getCursorX();
  out.cursorY = in.getCursorY();
  out.alternate = in.getAlternate();
  if (!evidence::terminal::COLUMNS.contains(out.columns) ||
      !evidence::terminal::ROWS.contains(out.rows)) {
    return BrokenRule{"a rendered frame size out of range"};
  }
  // cursor_x may equal `columns`: a cursor waiting to wrap after the last column (xterm.js's
  // report, B §6.11); one column further is off the screen.
  if (out.cursorX > out.columns || out.cursorY >= out.rows) {
    return BrokenRule{"a rendered cursor off the screen"};
  }
  auto lines = in.getLines();
  if (lines.size() != size_t(out.rows))
    return BrokenRule{"rendered lines that are not one per row"};
  // B §6.11 cost: the UTF-8 bytes of serialized_state plus those of every line.
  uint64_t cost = in.getSerializedState().size();
  out.lines.reserve(lines.size());
  for (auto line : lines) {
    out.lines.push_back(textOf(line));
    cost += line.size();
    if (!evidence::isValidUtf8(out.lines.back()))
      return BrokenRule{"a rendered line that is not UTF-8"};
  }
  out.serializedState = textOf(in.getSerializedState());
  if (!evidence::isValidUtf8(out.serializedState))
    return BrokenRule{"a serialized state that is not UTF-8"};
  auto admission = budget.admit(cost);
  if (!admission.accepted) return BrokenRule{"a rendered frame larger than the rendered budget"};
  evict = admission.evict;
  ++frames;
  return nullptr;
}

kj::Maybe<BrokenRule> RenderedStreamCheck::reply(schema::QueryReply::Reader in, uint64_t atNs,
                                                 PtyAutoReply& out) {
  out.atNs = atNs;
  out.query = in.getQuery().cStr();
  out.reply = textOf(in.getReply());
  if (!knownQuery(out.query)) return BrokenRule{"a reply to an unknown query"};
  if (out.reply.empty() || out.reply.size() > MAX_REPLY_BYTES)
    return BrokenRule{"a reply of a bad size"};
  if (!evidence::isValidUtf8(out.reply)) return BrokenRule{"a reply that is not UTF-8"};
  return nullptr;
}

kj::Maybe<BrokenRule> RenderedStreamCheck::done(bool renderTruncated,
                                                uint32_t renderedFrames) const {
  (void)renderTruncated;  // only the helper knows whether a frame was dropped
  if (renderedFrames != frames)
    return BrokenRule{"a rendered frame count that contradicts the stream"};
  return nullptr;
}

}  // namespace rea::supervisor
