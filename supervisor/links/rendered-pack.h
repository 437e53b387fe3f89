#pragma once
// Rendered frames held packed while a capture runs (issue 20: peak memory). Each rendered frame
// carries the whole scrollback as `serialized_state` (B §6.11) and its screen's lines, ~10 KB
// for 80x24 and 1,000 rows of scrollback, and consecutive frames mostly share them: the screen
// scrolled by what the chunk between them printed. PtyLink keeps every frame of the record but
// the newest as a delta against the frame before it, and the assembly unpacks them one by one,
// after the helpers and the target are gone. Packing is lossless: unpacking gives back the very
// bytes received (the Evidence does not change).
//
// Delta format: a sequence of operations, each a tag byte and LEB128 numbers: 0 = literal
// (length, bytes), 1 = copy (offset into the base, length). Copies are found at line starts
// (after '\n'), where a scrolled screen realigns; a frame every KEYFRAME_INTERVAL is a delta
// against nothing, so that recovering any frame decodes a bounded chain.
//
// Errors: decoding data that packing did not produce throws FAILED (a bug, never input).

#include <string>
#include <string_view>
#include <vector>

#include "supervisor/links/pty-link.h"

namespace rea::supervisor {

std::string deltaEncode(std::string_view base, std::string_view target);
std::string deltaDecode(std::string_view base, std::string_view delta);

class RenderedPacker {
  // PtyLink's side: call after every change of the frame list (a frame appended, newest frames
  // evicted by the rendered budget). Packs every frame but the last, which stays whole (the
  // observers and record().rendered.back() read it).
 public:
  static constexpr size_t KEYFRAME_INTERVAL = 64;
  void packAllButLast(std::vector<PtyRenderedFrame>& frames);

 private:
  size_t packedCount = 0;  // frames [0, packedCount) are packed
  std::string lastBlob;    // the unpacked content of frame packedCount - 1
};

class RenderedUnpacker {
  // The assembly's side: give it the frames in list order, from the first; each comes back
  // whole (`lines`, `serializedState`), its packed form released.
 public:
  void unpack(PtyRenderedFrame& frame);

 private:
  std::string previous;  // the content of the frame before
};

void unpackRenderedFrames(std::vector<PtyRenderedFrame>& frames);
// Every frame whole again (tests, tools).

}  // namespace rea::supervisor
