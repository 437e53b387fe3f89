// Rendered frames packed while a capture runs (rendered-pack.h): what is unpacked is byte for
// byte what was packed, through scrolling screens, keyframes and the budget's evictions, and
// the packed form of a scrolled screen is a fraction of it.
#include "supervisor/links/rendered-pack.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rea::supervisor {
namespace {

// The screen after `seq 1 last` on an 8x4 terminal with 50 rows of scrollback: lines and a
// serialized state shaped like the serializer's (escape sequences, "\r\n" between rows).
PtyRenderedFrame seqFrame(int last) {
  PtyRenderedFrame frame;
  frame.atNs = uint64_t(last);
  frame.columns = 8;
  frame.rows = 4;
  frame.cursorY = 3;
  frame.bytesBefore = uint64_t(last) * 3;
  std::vector<std::string> rows;
  for (int n = std::max(1, last - 52); n <= last; ++n)
    rows.push_back(std::to_string(n));
  rows.push_back("");
  frame.serializedState = "\x1b[0m\x1b[H\x1b[2J";
  for (size_t i = 0; i < rows.size(); ++i)
    frame.serializedState += rows[i] + (i + 1 < rows.size() ? "\r\n" : "");
  frame.serializedState += "\x1b[4;1H\xc3\xa9";
  for (size_t i = rows.size() - 4; i < rows.size(); ++i)
    frame.lines.push_back(rows[i] + std::string(8 - rows[i].size(), ' '));
  return frame;
}

void expectSame(const PtyRenderedFrame& a, const PtyRenderedFrame& b) {
  EXPECT_EQ(a.atNs, b.atNs);
  EXPECT_EQ(a.bytesBefore, b.bytesBefore);
  EXPECT_EQ(a.lines, b.lines);
  EXPECT_EQ(a.serializedState, b.serializedState);
  EXPECT_FALSE(a.isPacked);
  EXPECT_TRUE(a.packed.empty());
}

TEST(RenderedPack, DeltaRoundTripsAnyBytes) {
  std::string base = "one\ntwo\nthree three three\nfour\n";
  for (std::string target :
       {std::string(), std::string("x"), base, "zero\n" + base.substr(4) + "five five five five\n",
        std::string("\n\n\n\0\xff tail", 10), base + base}) {
    EXPECT_EQ(deltaDecode(base, deltaEncode(base, target)), target);
    EXPECT_EQ(deltaDecode("", deltaEncode("", target)), target);
  }
}

TEST(RenderedPack, EveryFrameButTheNewestIsPackedAndUnpacksToItself) {
  std::vector<PtyRenderedFrame> expected, frames;
  RenderedPacker packer;
  size_t whole = 0, packed = 0;
  for (int last = 1; last <= 3000; last += 7) {  // > KEYFRAME_INTERVAL frames
    expected.push_back(seqFrame(last));
    frames.push_back(seqFrame(last));
    packer.packAllButLast(frames);
    ASSERT_FALSE(frames.back().isPacked);
    expectSame(frames.back(), expected.back());
  }
  for (size_t i = 0; i + 1 < frames.size(); ++i) {
    ASSERT_TRUE(frames[i].isPacked);
    EXPECT_TRUE(frames[i].lines.empty() && frames[i].serializedState.empty());
    packed += frames[i].packed.size();
    whole += expected[i].serializedState.size() + 4 * 9;
  }
  EXPECT_LT(packed * 3, whole) << "a scrolled screen should pack to a fraction of itself";
  unpackRenderedFrames(frames);
  ASSERT_EQ(frames.size(), expected.size());
  for (size_t i = 0; i < frames.size(); ++i)
    expectSame(frames[i], expected[i]);
}

TEST(RenderedPack, EvictingTheNewestFramesKeepsTheRestRecoverable) {
  // A15: past the rendered budget a frame replaces the newest ones, packed ones included.
  std::vector<PtyRenderedFrame> expected, frames;
  RenderedPacker packer;
  int last = 1;
  auto append = [&]() {
    expected.push_back(seqFrame(last));
    frames.push_back(seqFrame(last));
    packer.packAllButLast(frames);
    last += 5;
  };
  for (int i = 0; i < 70; ++i)
    append();
  for (size_t evict : {1, 3, 6, 1, 0, 2}) {  // across the keyframe at 64
    frames.resize(frames.size() - evict);
    expected.resize(expected.size() - evict);
    append();
    append();
  }
  unpackRenderedFrames(frames);
  ASSERT_EQ(frames.size(), expected.size());
  for (size_t i = 0; i < frames.size(); ++i)
    expectSame(frames[i], expected[i]);
}

}  // namespace
}  // namespace rea::supervisor
