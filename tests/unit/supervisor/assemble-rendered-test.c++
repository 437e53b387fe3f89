// Assembly of rendered frames and answered queries (B §6.11, A3, A6).
#include "supervisor/assembly/assemble-rendered.h"

#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

using evidence::NormaliseContext;

PtyRenderedFrame frameOf(uint64_t atNs, std::vector<std::string> lines, std::string state,
                         uint64_t bytesBefore) {
  PtyRenderedFrame frame;
  frame.atNs = atNs;
  frame.columns = int(lines.empty() ? 1 : lines[0].size());
  frame.rows = int(lines.size());
  frame.lines = std::move(lines);
  frame.serializedState = std::move(state);
  frame.bytesBefore = bytesBefore;
  return frame;
}

int64_t msOf(uint64_t atNs) {
  return int64_t(atNs / 1000000 / 10 * 10);  // a 10 ms bucket
}

NormaliseContext secretContext() {
  NormaliseContext context;
  context.secrets = {"hunter42"};
  context.normalisePids = false;
  return context;
}

TEST(AssembleRendered, RedactsAValueThatWrapsFromOneLineIntoTheNext) {
  auto lines = redactAcrossLines({"ab hunt", "er42 cd", "hunter4"}, {"hunter42"});
  EXPECT_EQ(lines, (std::vector<std::string>{"ab <redacted>", " cd", "hunter4"}));
}

TEST(AssembleRendered, RedactsAValueInterruptedByEscapesAndRowBreaksButKeepsTheEscapes) {
  EXPECT_EQ(redactSerializedState("x\x1b[0;31mhun\x1b[0mter42\r\nhunter4", {"hunter42"}),
            "x\x1b[0;31m<redacted>\x1b[0m\r\nhunter4");
  EXPECT_EQ(redactSerializedState("hunt\r\ner42\x1b[1B\x1b[3D", {"hunter42"}),
            "<redacted>\r\n\x1b[1B\x1b[3D");
  EXPECT_EQ(redactSerializedState("plain \x1b[2Ctext", {"hunter42"}), "plain \x1b[2Ctext");
}

TEST(AssembleRendered, APrefixOfAValueSplitAcrossReadsIsRedactedInTheFrameBetweenThem) {
  PtyRecord pty;
  pty.output = {{1000000, "id: hun"}, {2000000, "ter42\r\n"}};
  pty.rendered = {frameOf(1000000, {"id: hun   ", "          "}, "id: hun", 7),
                  frameOf(2000000, {"id: hunter", "42        "}, "id: hunter\r\n42", 14)};
  auto out = assembleRenderedFrames(pty, msOf, secretContext(), 100, 100000);
  ASSERT_EQ(out.frames.size(), 2u);
  EXPECT_EQ(out.frames[0].lines[0], "id: <redacted>   ");
  EXPECT_EQ(out.frames[0].serializedState, "id: <redacted>");
  EXPECT_EQ(out.frames[1].lines, (std::vector<std::string>{"id: <redacted>", "        "}));
  EXPECT_EQ(out.frames[1].serializedState, "id: <redacted>\r\n");
  EXPECT_FALSE(out.truncated);
}

TEST(AssembleRendered, NormalisesLinesAndStateLikeTerminalTextAndBucketsTimes) {
  PtyRecord pty;
  pty.output = {{15000000, "/work/x"}};
  pty.rendered = {frameOf(15000000, {"/work/x "}, "/work/x", 7)};
  pty.rendered[0].cursorX = 7;
  pty.rendered[0].alternate = true;
  NormaliseContext context;
  context.workingDirectory = "/work";
  auto out = assembleRenderedFrames(pty, msOf, context, 100, 100000);
  ASSERT_EQ(out.frames.size(), 1u);
  EXPECT_EQ(out.frames[0].atMs, 10);
  EXPECT_EQ(out.frames[0].lines[0], "<working-directory>/x ");
  EXPECT_EQ(out.frames[0].serializedState, "<working-directory>/x");
  EXPECT_EQ(out.frames[0].cursorX, 7);
  EXPECT_EQ(out.frames[0].activeBuffer, evidence::ActiveBuffer::ALTERNATE);
}

TEST(AssembleRendered, CountsTheBudgetOnNormalisedFramesReplacingTheNewestAndRenumbers) {
  PtyRecord pty;
  pty.output = {{1000000, "a"}, {2000000, "b"}, {3000000, "c"}};
  for (uint64_t i = 0; i < 3; ++i) {
    pty.rendered.push_back(frameOf((i + 1) * 10000000, {"abc"}, "abc", i + 1));  // 6 bytes each
  }
  PtyRecord copy = pty;  // each call consumes the rendered frames' text
  // A15: past the budget a frame replaces the newest, so the last screen is always there.
  auto bytes = assembleRenderedFrames(copy, msOf, NormaliseContext(), 100, 12);
  ASSERT_EQ(bytes.frames.size(), 2u);
  EXPECT_EQ(bytes.frames[1].atMs, 30);  // the third frame replaced the second
  EXPECT_FALSE(bytes.truncated);
  copy = pty;
  auto frames = assembleRenderedFrames(copy, msOf, NormaliseContext(), 1, 1000);
  ASSERT_EQ(frames.frames.size(), 1u);
  EXPECT_EQ(frames.frames[0].sequence, 0);
  EXPECT_FALSE(frames.truncated);
  copy = pty;
  auto none = assembleRenderedFrames(copy, msOf, NormaliseContext(), 100, 5);
  EXPECT_TRUE(none.frames.empty());  // one frame alone is costlier than the budget
  EXPECT_TRUE(none.truncated);
  auto all = assembleRenderedFrames(pty, msOf, NormaliseContext(), 3, 18);
  ASSERT_EQ(all.frames.size(), 3u);
  EXPECT_EQ(all.frames[2].sequence, 2);
  EXPECT_FALSE(all.truncated);
}

TEST(AssembleRendered, ReleasesEachFramesTextAndKeepsTheRawOutput) {
  PtyRecord pty;
  pty.output = {{1000000, "a"}, {2000000, "b"}};
  pty.rendered = {frameOf(1000000, {"a "}, "a", 1), frameOf(2000000, {"ab"}, "ab", 2)};
  auto out = assembleRenderedFrames(pty, msOf, NormaliseContext(), 100, 1000);
  ASSERT_EQ(out.frames.size(), 2u);
  EXPECT_EQ(out.frames[1].serializedState, "ab");
  ASSERT_EQ(pty.rendered.size(), 2u);
  for (const auto& frame : pty.rendered) {
    EXPECT_TRUE(frame.lines.empty());
    EXPECT_TRUE(frame.serializedState.empty());
  }
  ASSERT_EQ(pty.output.size(), 2u);
  EXPECT_EQ(pty.output[1].data, "b");
}

TEST(AssembleRendered, AnAnsweredQueryIsAnAutomaticDispatchedInput) {
  NormaliseContext context;
  evidence::Normaliser inputText(context);
  auto event = autoReplyEvent({5000000, "DSR-cursor", "\x1b[3;7R"}, 0, inputText);
  EXPECT_EQ(event.type, evidence::InteractionType::INPUT);
  EXPECT_EQ(event.outcome, evidence::InteractionOutcome::DISPATCHED);
  EXPECT_EQ(event.data, "<auto-reply:DSR-cursor>\x1b[3;7R");
  EXPECT_EQ(event.automatic, true);
  EXPECT_EQ(event.scheduledAtMs, 0);
  EXPECT_EQ(event.dispatchedAtMs, 0);
}

}  // namespace
}  // namespace rea::supervisor
