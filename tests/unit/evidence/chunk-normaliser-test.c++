#include "evidence/chunk-normaliser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "evidence/utf.h"
#include "tests/test-support.h"

namespace rea::evidence {
namespace {

NormaliseContext fullContext() {
  NormaliseContext context;
  context.secrets = {"hunter2", "", "s3cr3t-token"};
  context.sensitiveInputs = {"pin-1234\r", "ab\r"};
  context.temporaryRoot = "/tmp/rea-abc";
  context.workingDirectory = "/proj";
  context.executable = "/proj/bin/tool";
  context.filesystemRoots = {"/data"};
  context.pids = {4242, 42};
  context.harnessPorts = {43123};
  context.patterns = {{"v1.2", "v$&-x"}, {"<pid>", "PID"}};
  return context;
}

struct Run {
  std::vector<std::string> pieces;
  std::string joined;
};

Run pushAll(const NormaliseContext& context, const std::vector<std::string>& chunks) {
  ChunkNormaliser normaliser(context);
  Run run;
  for (auto& chunk : chunks)
    run.pieces.push_back(normaliser.push(chunk));
  run.pieces.push_back(normaliser.flush());
  for (auto& piece : run.pieces)
    run.joined += piece;
  return run;
}

// Chunks of `text` cut at the given byte offsets (sorted, may repeat: empty chunks are legal).
std::vector<std::string> cut(const std::string& text, std::vector<size_t> offsets) {
  std::sort(offsets.begin(), offsets.end());
  std::vector<std::string> chunks;
  size_t from = 0;
  for (size_t at : offsets) {
    chunks.push_back(text.substr(from, at - from));
    from = at;
  }
  chunks.push_back(text.substr(from));
  return chunks;
}

// Texts dense in near-matches of every rule.
std::string randomText(std::mt19937& random) {
  // clang-format off
  static const std::vector<std::string> FRAGMENTS = {
      "hunter2", "hunt", "hunter", "s3cr3t-token", "s3cr3t", "pin-1234", "pin-12", "ab",
      "/tmp/rea-abc", "/tmp/rea-", "/proj", "/proj/bin/tool", "/pro", "/data", "4242", "42",
      "424", "42421", "43123", "4312", "431234", "localhost:", "LOCALHOST:", "127.0.0.1:",
      "[::1]:", "http://example.com:", "http://u:p@h:", "12:30:45", "rc=127", "v1.2", "v1.",
      "<pid>", "\r\n", " ", ":", "x", "_", "0", "7", "8080", "123456", "\xC3\xA9",
      "\xE9\x9B\xAA", "\xF0\x9F\x98\x80", "$", "$'", "`",
      "\xE9\x9B", "\xFF"};  // ill-formed: a cut-off character and a byte that is never UTF-8
  // clang-format on
  std::uniform_int_distribution<size_t> count(0, 24);
  std::uniform_int_distribution<size_t> pick(0, FRAGMENTS.size() - 1);
  std::string text;
  for (size_t n = count(random); n > 0; --n)
    text += FRAGMENTS[pick(random)];
  return text;
}

void expectStreamMatchesWhole(const NormaliseContext& context, const std::string& text,
                              const std::vector<std::string>& chunks) {
  Run run = pushAll(context, chunks);
  ASSERT_EQ(run.joined, normalise(text, context)) << "text: " << text;
  std::string decodedPieces;
  for (auto& piece : run.pieces)
    decodedPieces += sanitizeUtf8(piece);
  EXPECT_EQ(decodedPieces, sanitizeUtf8(run.joined)) << "text: " << text;
  for (auto& piece : run.pieces) {
    if (isValidUtf8(text)) {
      EXPECT_TRUE(isValidUtf8(piece)) << "piece: " << piece << " of text: " << text;
    }
    std::vector<std::string> hidden = context.secrets;
    for (auto& input : context.sensitiveInputs) {
      if (auto echo = sensitiveEcho(input)) hidden.push_back(*echo);
    }
    for (auto& secret : hidden) {
      if (secret.empty()) continue;
      EXPECT_EQ(piece.find(secret), std::string::npos) << "text: " << text;
    }
  }
}

// The sanitizer build looks for memory errors, not for a wrong result: a quarter of the random
// texts (the first ones of each seed, so the same texts as the normal build's) reaches every
// path of the normaliser, at a quarter of the cost that ASan multiplies (tests/README.md "CI
// time"). The normal build checks them all.
#ifdef REA_TEST_ASAN
const int TEXT_SHARE_DIVISOR = 4;
#else
const int TEXT_SHARE_DIVISOR = 1;
#endif

void checkEverySplit(const NormaliseContext& context, uint32_t seed, int texts) {
  std::mt19937 random(seed);
  texts = std::max(1, texts / TEXT_SHARE_DIVISOR);
  for (int i = 0; i < texts; ++i) {
    std::string text = randomText(random);
    for (size_t at = 0; at <= text.size(); ++at) {
      expectStreamMatchesWhole(context, text, cut(text, {at}));
      if (::testing::Test::HasFatalFailure()) return;
    }
    for (int k = 0; k < 20; ++k) {
      std::uniform_int_distribution<size_t> where(0, text.size());
      std::vector<size_t> offsets(std::uniform_int_distribution<size_t>(2, 12)(random));
      for (auto& offset : offsets)
        offset = where(random);
      expectStreamMatchesWhole(context, text, cut(text, offsets));
      if (::testing::Test::HasFatalFailure()) return;
    }
    // One byte per read: every boundary at once.
    std::vector<size_t> everyByte;
    for (size_t at = 1; at < text.size(); ++at)
      everyByte.push_back(at);
    expectStreamMatchesWhole(context, text, cut(text, everyByte));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ChunkNormaliser, MatchesWholeTextNormalisationAtEverySplit) {
  checkEverySplit(fullContext(), 1, 300);
}

TEST(ChunkNormaliser, MatchesWholeTextNormalisationWithContextReplacements) {
  NormaliseContext context = fullContext();
  context.patterns = {{"v1.2", "[$`]"}, {"x", "{$'}"}, {"$", "$$$$"}};
  checkEverySplit(context, 2, 150);
}

TEST(ChunkNormaliser, MatchesWholeTextNormalisationWithAnEmptyPattern) {
  NormaliseContext context = fullContext();
  context.patterns = {{"", "|"}};
  checkEverySplit(context, 3, 100);
  context.patterns = {{"", "<$`>"}};
  checkEverySplit(context, 4, 50);
  context.patterns = {{"", "<$'>"}};
  checkEverySplit(context, 5, 50);
}

TEST(ChunkNormaliser, MatchesWholeTextNormalisationWithEveryStepOff) {
  NormaliseContext context = fullContext();
  context.normalisePaths = false;
  context.normalisePids = false;
  context.normalisePorts = false;
  context.patterns.clear();
  checkEverySplit(context, 6, 100);
}

TEST(ChunkNormaliser, RedactsASecretSplitOverThreeReads) {
  NormaliseContext context;
  context.secrets = {"hunter2"};
  ChunkNormaliser normaliser(context);
  EXPECT_EQ(normaliser.push("password: hun"), "password: ");
  EXPECT_EQ(normaliser.push("te"), "");
  EXPECT_EQ(normaliser.push("r2 accepted\r\n"), "<redacted> accepted\r\n");
  EXPECT_EQ(normaliser.flush(), "");
}

TEST(ChunkNormaliser, RedactsASensitiveEchoSplitOverTwoReads) {
  NormaliseContext context;
  context.sensitiveInputs = {"correct horse\r"};
  ChunkNormaliser normaliser(context);
  std::string out = normaliser.push("Passphrase: correct ho");
  EXPECT_EQ(out, "Passphrase: ");
  out += normaliser.push("rse\r\n$ ");
  EXPECT_EQ(out + normaliser.flush(), "Passphrase: <redacted>\r\n$ ");
}

TEST(ChunkNormaliser, ReleasesPlainChunksAtOnce) {
  NormaliseContext context = fullContext();
  ChunkNormaliser normaliser(context);
  EXPECT_EQ(normaliser.push("hello world\r\n"), "hello world\r\n");
  EXPECT_EQ(normaliser.push("$ "), "$ ");
  EXPECT_EQ(normaliser.push("took 12:30:45, rc=127\r\n"), "took 12:30:45, rc=127\r\n");
  EXPECT_EQ(normaliser.push("pid 4242 in /proj\n"), "pid PID in <working-directory>\n");
  EXPECT_EQ(normaliser.heldBytes(), 0u);
}

TEST(ChunkNormaliser, HoldsBackOnlyWhatCouldStillMatch) {
  NormaliseContext context = fullContext();
  ChunkNormaliser normaliser(context);
  EXPECT_EQ(normaliser.push("say hunt"), "say ");  // prefix of hunter2
  EXPECT_EQ(normaliser.heldBytes(), 4u);
  EXPECT_EQ(normaliser.push("ing"), "hunting");
  EXPECT_EQ(normaliser.push(" at 424"), " at ");   // prefix of pid 4242
  EXPECT_EQ(normaliser.push("2"), "");             // 4242 or 42420?
  EXPECT_EQ(normaliser.push("0"), "42420");        // longer than any pid: released
  EXPECT_EQ(normaliser.push(" 99"), " 99");        // no pid starts with 9
  EXPECT_EQ(normaliser.push(" 12:30"), " 12:30");  // not a host:port context
  EXPECT_EQ(normaliser.push(" localhost:80"), " localhost:");
  EXPECT_EQ(normaliser.push("80"), "");
  EXPECT_EQ(normaliser.push("8"), "");  // five digits so far: could still be a port
  EXPECT_EQ(normaliser.push("0"), "808080");
  EXPECT_EQ(normaliser.push(" \xE9\x9B"), " ");  // half a character
  EXPECT_EQ(normaliser.push("\xAA!"), "\xE9\x9B\xAA!");
  EXPECT_EQ(normaliser.flush(), "");
}

TEST(ChunkNormaliser, WaitsForTheEndOfTheStreamAfterAnAfterReplacement) {
  NormaliseContext context;
  context.patterns = {{"@", "[$']"}};
  ChunkNormaliser normaliser(context);
  EXPECT_EQ(normaliser.push("a"), "a");
  EXPECT_EQ(normaliser.push("@b"), "");
  EXPECT_EQ(normaliser.push("c"), "");
  EXPECT_EQ(normaliser.flush(), "[bc]bc");
}

TEST(ChunkNormaliser, FlushesHeldTextAtTheEnd) {
  NormaliseContext context = fullContext();
  ChunkNormaliser normaliser(context);
  EXPECT_EQ(normaliser.push("localhost:80"), "localhost:");
  EXPECT_EQ(normaliser.flush(), "<port>");
}

TEST(ChunkNormaliser, KeepsItsStateWhenMoved) {
  NormaliseContext context;
  context.secrets = {"hunter2"};
  ChunkNormaliser first(context);
  EXPECT_EQ(first.push("a hunt"), "a ");
  ChunkNormaliser second(std::move(first));
  EXPECT_EQ(second.push("er2 b"), "<redacted> b");
  EXPECT_EQ(second.flush(), "");
}

TEST(ChunkNormaliser, RejectsUseAfterFlush) {
  ChunkNormaliser normaliser(NormaliseContext{});
  normaliser.flush();
  EXPECT_THROW(normaliser.push("x"), std::logic_error);
  EXPECT_THROW(normaliser.flush(), std::logic_error);
}

TEST(ChunkNormaliser, KeepsEnoughHistoryForLongHostContexts) {
  NormaliseContext context;
  std::string host = "http://" + std::string(200, 'h') + ":";
  std::string text = std::string(1000, '.') + host + "8080/" + std::string(1000, '.');
  std::vector<size_t> offsets;
  for (size_t at = 3; at < text.size(); at += 3)
    offsets.push_back(at);
  expectStreamMatchesWhole(context, text, cut(text, offsets));
  EXPECT_NE(normalise(text, context).find(":<port>/"), std::string::npos);
}

}  // namespace
}  // namespace rea::evidence
