#include "helpers/pty/screen-queries.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rea::helper {
namespace {

TEST(ScreenQueries, NamesEachReplyLibvtermWrites) {
  std::string output =
      "\x1b[?1;2c\x1b[>0;100;0c\x1b[0n\x1b[3;7R\x1b[?3;7R\x1bP1$r0m\x1b\\\x1b[?1;2$y";
  std::vector<QueryReply> replies;
  takeCompleteReplies(output, replies);
  EXPECT_TRUE(output.empty());
  ASSERT_EQ(replies.size(), 7u);
  std::vector<std::string> names;
  for (const QueryReply& reply : replies)
    names.push_back(reply.query);
  EXPECT_EQ(names, (std::vector<std::string>{"DA", "DA2", "DSR-status", "DSR-cursor",
                                             "DSR-cursor-dec", "DECRQSS", "DECRQM"}));
  EXPECT_EQ(replies[3].reply, "\x1b[3;7R");
  EXPECT_EQ(replies[5].reply, "\x1bP1$r0m\x1b\\");
}

TEST(ScreenQueries, NamesEightBitRepliesToo) {
  // After S8C1T (ESC SP G) libvterm answers with C1 controls, as xterm does.
  std::string output =
      "\x9b?1;2c\x9b"
      "5;1R\x90"
      "1$r0m\x9c";
  std::vector<QueryReply> replies;
  takeCompleteReplies(output, replies);
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[0].query, "DA");
  EXPECT_EQ(replies[1].query, "DSR-cursor");
  EXPECT_EQ(replies[1].reply,
            "\x9b"
            "5;1R");
  EXPECT_EQ(replies[2].query, "DECRQSS");
}

TEST(ScreenQueries, KeepsAnIncompleteReplyForLater) {
  std::string output = "\x1b[?1;2c\x1bP1$r";
  std::vector<QueryReply> replies;
  takeCompleteReplies(output, replies);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(output, "\x1bP1$r");
  output += "0m\x1b\\";
  takeCompleteReplies(output, replies);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[1].query, "DECRQSS");
}

QueryReply answer(const std::string& bytes, int row = 4, int col = 9) {
  struct Sink final : ControlSink {
    int row, col;
    QueryReply reply{"none", ""};
    void onSequence(const ControlSequence& sequence, size_t) override {
      answerQuery(sequence, row, col, reply);
    }
  } sink;
  sink.row = row;
  sink.col = col;
  ControlScanner scanner;
  scanner.scan(bytes, sink);
  return sink.reply;
}

TEST(ScreenQueries, AnswersTheQueriesProgramsWaitForLikeLibvterm) {
  EXPECT_EQ(answer("\x1b[c").reply, "\x1b[?1;2c");
  EXPECT_EQ(answer("\x1b[0c").query, "DA");
  EXPECT_EQ(answer("\x1b[>c").reply, "\x1b[>0;100;0c");
  EXPECT_EQ(answer("\x1b[5n").reply, "\x1b[0n");
  EXPECT_EQ(answer("\x1b[6n").reply, "\x1b[4;9R");
  EXPECT_EQ(answer("\x1b[?6n", 1, 2).reply, "\x1b[?1;2R");
}

TEST(ScreenQueries, LeavesOtherSequencesUnanswered) {
  EXPECT_EQ(answer("\x1b[4n").query, "none");
  EXPECT_EQ(answer("\x1b[?25h").query, "none");
  EXPECT_EQ(answer("\x1b[=c").query, "none");
  EXPECT_EQ(answer("\x1b[1$c").query, "none");
}

}  // namespace
}  // namespace rea::helper
