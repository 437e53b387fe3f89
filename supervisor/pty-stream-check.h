#pragma once
// The pty helper's event stream, checked (SPEC A13: a helper is not trusted): converts the
// helper's PtyEvent batches and its done() summary into a PtyRecord, and returns the first rule
// a message breaks. Pure (no I/O, no clock: the caller passes "now"), so PtyLink and a fuzz
// target over the helper-to-supervisor messages share it. Owns the stream's running state (last
// timestamp, output bytes, which interactions were reported, the rendered budget).
//
// Errors: none thrown; each method returns the broken rule as text, empty when the message is
// fine. After a broken rule the record holds what came before it and the stream must be
// abandoned (PtyLink stops the helper).

#include <cstdint>
#include <string>
#include <vector>

#include "schema/pty.capnp.h"
#include "supervisor/pty-link-render.h"
#include "supervisor/pty-link.h"

namespace rea::supervisor {

class PtyStreamCheck {
 public:
  explicit PtyStreamCheck(const PtyLaunch& launch);
  // `launch` (validated) outlives the check.

  std::string batch(size_t size, const PtyRecord& record) const;
  // A batch of `size` events may come now (not after done, not larger than the helper's).

  std::string event(schema::PtyEvent::Reader in, uint64_t nowNs, PtyRecord& record);
  // Appends one event to `record` (output, interactions, exit, rendered, autoReplies), or returns
  // the rule it breaks: time going back or into the future, empty or non-UTF-8 output, the
  // frame or byte limit, an unknown or repeated interaction, an exit out of range or twice, an
  // unknown enum value or event kind, a broken rendered frame or reply.

  std::string done(schema::PtySink::DoneParams::Reader in, PtyRecord& record) const;
  // Ends the stream (record.streamDone and the summary's fields), or returns the rule the
  // summary breaks (twice, before the exit, contradicting itself or the rendered stream).

 private:
  const PtyLaunch& launch;
  uint64_t lastAtNs;
  uint64_t outputBytes = 0;
  std::vector<bool> reported;
  RenderedStreamCheck rendered;

  std::string exited(schema::Exit::Reader in, uint64_t atNs, PtyRecord& record);
  std::string dispatched(schema::Dispatch::Reader in, uint64_t atNs, PtyRecord& record);
};

}  // namespace rea::supervisor
