#include "evidence/normalise.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

NormaliseContext bare() {
  NormaliseContext context;
  context.normalisePaths = false;
  context.normalisePids = false;
  context.normalisePorts = false;
  return context;
}

TEST(Normalise, RedactsSecretsLongestFirstAndIgnoresEmptyValues) {
  NormaliseContext context = bare();
  context.secrets = {"", "hunter2", "abc"};
  EXPECT_EQ(normalise("pw=hunter2 hunter2abc", context), "pw=<redacted> <redacted><redacted>");
  // A3: a shorter secret that is a prefix of a longer one must not leave the longer one's tail.
  context.secrets = {"abc", "abcdef"};
  EXPECT_EQ(normalise("abcdef abc", context), "<redacted> <redacted>");
  context.secrets = {};
  context.sensitiveInputs = {"pass\r", "password\r"};
  EXPECT_EQ(normalise("password", context), "<redacted>");
}

TEST(Normalise, RedactsSensitiveEchoesWithoutTrailingLineEnds) {
  NormaliseContext context = bare();
  context.sensitiveInputs = {"s3cret-pin\r\n", "abc\r", "\xE9\x9B\xAA\xE9\x9B\xAA\xE9\x9B\xAA\r"};
  EXPECT_EQ(normalise("Pin: s3cret-pin\r\nabc \xE9\x9B\xAA\xE9\x9B\xAA\xE9\x9B\xAA", context),
            "Pin: <redacted>\r\nabc \xE9\x9B\xAA\xE9\x9B\xAA\xE9\x9B\xAA");
}

TEST(Normalise, DerivesSensitiveEchoesOfAtLeastFourCharacters) {
  EXPECT_EQ(sensitiveEcho("abcd\r\n"), "abcd");
  EXPECT_EQ(sensitiveEcho("abcd\n\r\n"), "abcd");
  EXPECT_EQ(sensitiveEcho("ab\rcd"), "ab\rcd");
  EXPECT_EQ(sensitiveEcho("abc\r\n"), std::nullopt);
  EXPECT_EQ(sensitiveEcho("\r\n"), std::nullopt);
  // Four UTF-16 code units: two astral characters.
  EXPECT_EQ(sensitiveEcho("\xF0\x9F\x98\x80\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80\xF0\x9F\x98\x80");
  // Three code units although nine bytes.
  EXPECT_EQ(sensitiveEcho("\xE9\x9B\xAA\xE9\x9B\xAA\xE9\x9B\xAA"), std::nullopt);
}

TEST(Normalise, RedactsTheCaretEchoOfASensitiveInputWithControlCharacters) {
  // Issue 18.3: with ECHOCTL the terminal echoes 0x01 as "^A"; that echo held the secret.
  NormaliseContext context = bare();
  context.sensitiveInputs = {"pa\x01ss\x7fword\r"};
  EXPECT_EQ(normalise("Pin: pa^Ass^?word\r\n", context), "Pin: <redacted>\r\n");
  EXPECT_EQ(normalise("raw pa\x01ss\x7fword", context), "raw <redacted>");
  EXPECT_EQ(caretEcho("a\tb\rc\nd"), std::nullopt);
  EXPECT_EQ(caretEcho("\x1b[A\x03"), "^[[A^C");
}

TEST(Normalise, RedactsSecretsBeforeAnyOtherStep) {
  NormaliseContext context;
  context.secrets = {"/proj"};
  context.workingDirectory = "/proj";
  EXPECT_EQ(normalise("cd /proj", context), "cd <redacted>");
}

TEST(Normalise, ReplacesPathsAsPlainSubstringsInOrder) {
  NormaliseContext context = bare();
  context.normalisePaths = true;
  context.temporaryRoot = "/tmp/rea-1";
  context.workingDirectory = "/proj";
  context.executable = "/proj/bin/tool";
  context.filesystemRoots = {"/data", "", "/srv"};
  EXPECT_EQ(normalise("/projX", context), "<working-directory>X");
  EXPECT_EQ(normalise("/proj/bin/tool", context), "<working-directory>/bin/tool");
  EXPECT_EQ(normalise("/tmp/rea-1/shims /data/a /srv", context),
            "<temporary-root>/shims <filesystem-root-0>/a <filesystem-root-2>");
  context.workingDirectory = "/elsewhere";
  EXPECT_EQ(normalise("run /proj/bin/tool", context), "run <executable>");
}

TEST(Normalise, LeavesTheTemporaryRootPlaceholderAlone) {
  NormaliseContext context = bare();
  context.normalisePaths = true;
  EXPECT_EQ(context.temporaryRoot, NO_TEMPORARY_ROOT);
  EXPECT_EQ(normalise("/tmp/rea-1/x", context), "/tmp/rea-1/x");
}

TEST(Normalise, SkipsPathsWhenDisabled) {
  NormaliseContext context = bare();
  context.workingDirectory = "/proj";
  EXPECT_EQ(normalise("/proj", context), "/proj");
}

TEST(Normalise, ReplacesWholeDigitTokensEqualToAPid) {
  NormaliseContext context = bare();
  context.normalisePids = true;
  context.pids = {4242, 0, -7, 42};
  EXPECT_EQ(normalise("x4242", context), "x<pid>");
  EXPECT_EQ(normalise("42421", context), "42421");
  EXPECT_EQ(normalise("04242", context), "04242");
  EXPECT_EQ(normalise("pid 42 and 4242.", context), "pid <pid> and <pid>.");
  EXPECT_EQ(normalise("0 -7 7", context), "0 -7 7");
  context.normalisePids = false;
  EXPECT_EQ(normalise("x4242", context), "x4242");
}

TEST(Normalise, ReplacesPortsOnlyInHostPortContexts) {
  NormaliseContext context = bare();
  context.normalisePorts = true;
  EXPECT_EQ(normalise("http://127.0.0.1:43123/x", context), "http://127.0.0.1:<port>/x");
  EXPECT_EQ(normalise("localhost:8080", context), "localhost:<port>");
  EXPECT_EQ(normalise("[::1]:8080", context), "[::1]:<port>");
  EXPECT_EQ(normalise("https://example.com:8443/", context), "https://example.com:<port>/");
  EXPECT_EQ(normalise("10.0.0.1:80,", context), "10.0.0.1:<port>,");
  // A5: no longer B's `=` and bare `:` rule.
  EXPECT_EQ(normalise("rc=127", context), "rc=127");
  EXPECT_EQ(normalise("12:30:45", context), "12:30:45");
  EXPECT_EQ(normalise("localhost:7", context), "localhost:7");
  EXPECT_EQ(normalise("localhost:123456", context), "localhost:123456");
  EXPECT_EQ(normalise("localhost:8080x", context), "localhost:8080x");
  EXPECT_EQ(normalise("localhost:8080_", context), "localhost:8080_");
  EXPECT_EQ(normalise("localhost:8080.", context), "localhost:<port>.");
}

TEST(Normalise, ReplacesHarnessPortsWhereverTheyAppear) {
  NormaliseContext context = bare();
  context.normalisePorts = true;
  context.harnessPorts = {43123, 0, 70000};
  EXPECT_EQ(normalise("port=43123 x43123y", context), "port=<port> x<port>y");
  EXPECT_EQ(normalise("431234 143123", context), "431234 143123");
  EXPECT_EQ(normalise("0 70000", context), "0 70000");
  context.normalisePorts = false;
  EXPECT_EQ(normalise("port=43123 localhost:80", context), "port=43123 localhost:80");
}

TEST(Normalise, RunsPidsBeforePorts) {
  NormaliseContext context = bare();
  context.normalisePids = true;
  context.normalisePorts = true;
  context.pids = {8080};
  EXPECT_EQ(normalise("localhost:8080", context), "localhost:<pid>");
}

TEST(Normalise, AppliesPatternsInOrderAfterEverythingElse) {
  NormaliseContext context = bare();
  context.normalisePids = true;
  context.pids = {12};
  context.patterns = {{"<pid>", "PID"}, {"PID", "[$&]"}, {"v1.2.3", "vX"}};
  EXPECT_EQ(normalise("12 v1.2.3", context), "[PID] vX");
}

TEST(Normalise, InterpretsReplacementsLikeJavaScriptReplaceAll) {
  NormaliseContext context = bare();
  // Expected values come from node: "abc".replaceAll("b", ...).
  context.patterns = {{"b", "[$`|$&|$'|$$|$1|$<x>|$0|$]"}};
  EXPECT_EQ(normalise("abc", context), "a[a|b|c|$|$1|$<x>|$0|$]c");
  context.patterns = {{"b", "$"}};
  EXPECT_EQ(normalise("abcb", context), "a$c$");
  context.patterns = {{"b", "$$$&"}};
  EXPECT_EQ(normalise("abc", context), "a$bc");
  // Before/after refer to the input of this pattern, not to its partly replaced output.
  context.patterns = {{"b", "<$`>"}};
  EXPECT_EQ(normalise("abab", context), "a<a>a<aba>");
  context.patterns = {{"aa", "X"}};
  EXPECT_EQ(normalise("aaa", context), "Xa");
}

TEST(Normalise, InsertsAnEmptyPatternsReplacementAroundEveryCharacter) {
  NormaliseContext context = bare();
  context.patterns = {{"", "-"}};
  EXPECT_EQ(normalise("ab", context), "-a-b-");
  EXPECT_EQ(normalise("", context), "-");
  EXPECT_EQ(normalise("\xC3\xA9\xE9\x9B\xAA", context), "-\xC3\xA9-\xE9\x9B\xAA-");
  // Astral characters get one insertion, not one between surrogates.
  EXPECT_EQ(normalise("\xF0\x9F\x98\x80", context), "-\xF0\x9F\x98\x80-");
  // Ill-formed bytes count one per maximal invalid subpart, like a WHATWG decoder's U+FFFD.
  EXPECT_EQ(normalise("\xFF\xE9\x9B", context), "-\xFF-\xE9\x9B-");
  context.patterns = {{"", "$'"}};
  EXPECT_EQ(normalise("ab", context), "ababb");
  context.patterns = {{"", "$`"}};
  EXPECT_EQ(normalise("ab", context), "aabab");
  context.patterns = {{"", "x$"}};
  EXPECT_EQ(normalise("ab", context), "x$ax$bx$");
}

TEST(Normalise, ReusesOneCompiledNormaliserForManyTexts) {
  NormaliseContext context;
  context.secrets = {"tok"};
  context.workingDirectory = "/w";
  context.pids = {99};
  Normaliser normaliser(context);
  EXPECT_EQ(normaliser("tok /w/99"), "<redacted> <working-directory>/<pid>");
  EXPECT_EQ(normaliser("nothing"), "nothing");
}

TEST(Normalise, NormalisesMegabytesOfDenseNearMatches) {
  NormaliseContext context;
  context.secrets = {"aaaab"};
  context.pids = {1};
  context.patterns = {{"1", "$&"}};
  std::string text(2'000'000, 'a');
  std::string expected;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i % 7 == 0) {
      text[i] = '1';
      expected += "<pid>";
    } else {
      expected += 'a';
    }
  }
  EXPECT_EQ(normalise(text, context), expected);
}

}  // namespace
}  // namespace rea::evidence
