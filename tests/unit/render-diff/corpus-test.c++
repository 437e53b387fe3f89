// The generated corpus (transcript.h: 240 transcripts, run without and with resizes) against
// tmux: every transcript agrees or is listed in known-differences.h with the cause of its first
// difference and that cause's reason. REA_DIFF_VERBOSE=1 prints each difference (listed or not),
// found at the piece of its step that made it.
//
// The generator steers clear of one more tmux particularity: a cursor whose wrap is pending stays
// at column `columns` in tmux, where an erase, insert or delete acts on nothing (xterm and
// libvterm act on the last column), so every control piece starts with a CR.

#include "tests/unit/render-diff/dump.h"
#include "tests/unit/render-diff/known-differences.h"
#include "tests/unit/render-diff/replay.h"

#include <cstring>
#include <iostream>
#include <map>
#include <set>

namespace rea::test {
namespace {

// The generated corpus -------------------------------------------------------------------------

// Every generated transcript either agrees with tmux or is listed in known-differences.h with the
// cause of its difference; a listed one that agrees now fails too, so the list shrinks with each
// fix (remove its entries, and a cause left without any).

const KnownDifferingTranscript* knownDifference(bool resizes, unsigned seed) {
  for (const KnownDifferingTranscript& known : KNOWN_DIFFERING_TRANSCRIPTS) {
    if (known.resizes == resizes && known.seed == seed) return &known;
  }
  return nullptr;
}

const char* causeName(KnownDifference difference) {
  for (const KnownDifferenceReason& reason : KNOWN_DIFFERENCE_REASONS) {
    if (reason.difference == difference) return reason.name;
  }
  return "?";
}

void expectOnlyKnownDifferences(TmuxDriver& tmux, bool resizes) {
  std::map<std::string, int> perCause;
  int agreeing = 0;
  for (unsigned seed = 1; seed <= CORPUS_SIZE; seed++) {
    Outcome outcome = replay(tmux, generateTranscript(seed, resizes));
    const KnownDifferingTranscript* known = knownDifference(resizes, seed);
    if (outcome.firstDifference.empty()) {
      agreeing++;
      EXPECT_EQ(known, nullptr) << "generated-" << seed << (resizes ? " with" : " without")
                                << " resizes agrees with tmux now: remove it from "
                                   "known-differences.h (listed as "
                                << (known != nullptr ? causeName(known->difference) : "") << ")";
      continue;
    }
    if (known != nullptr) {
      perCause[causeName(known->difference)]++;
      if (getenv("REA_DIFF_VERBOSE") != nullptr) {
        std::cout
            << "known (" << causeName(known->difference) << ") "
            << (resizes ? "with resizes: " : "without resizes: ")
            << replay(tmux, generateTranscript(seed, resizes, true), outcome.step).firstDifference
            << std::endl;
      }
      continue;
    }
    // Piece by piece, the difference shows at the piece that made it.
    ADD_FAILURE()
        << "differs from tmux and is not in known-differences.h: "
        << (resizes ? "with resizes: " : "without resizes: ")
        << replay(tmux, generateTranscript(seed, resizes, true), outcome.step).firstDifference;
  }
  ::testing::Test::RecordProperty("agreeing", agreeing);
  for (const auto& [cause, count] : perCause)
    ::testing::Test::RecordProperty(cause, count);
  if (getenv("REA_DIFF_VERBOSE") != nullptr) {
    std::ostringstream summary;
    summary << agreeing << " of " << CORPUS_SIZE << " agree;";
    for (const auto& [cause, count] : perCause)
      summary << " " << cause << " " << count;
    std::cout << summary.str() << std::endl;
  }
}

TEST(RenderDiff, EveryKnownDifferenceHasAReasonAndATranscript) {
  std::set<std::pair<bool, unsigned>> seen;
  for (const KnownDifferenceReason& reason : KNOWN_DIFFERENCE_REASONS) {
    EXPECT_GT(strlen(reason.reason), 40u) << reason.name;
    bool used = false;
    for (const KnownDifferingTranscript& known : KNOWN_DIFFERING_TRANSCRIPTS)
      used = used || known.difference == reason.difference;
    EXPECT_TRUE(used) << reason.name << " lists no transcript any more: remove it";
  }
  for (const KnownDifferingTranscript& known : KNOWN_DIFFERING_TRANSCRIPTS) {
    EXPECT_TRUE(seen.insert({known.resizes, known.seed}).second) << "listed twice: " << known.seed;
    EXPECT_STRNE(causeName(known.difference), "?") << known.seed;
    EXPECT_GE(known.seed, 1u);
    EXPECT_LE(known.seed, CORPUS_SIZE);
  }
}

TEST(RenderDiff, GeneratedCorpusWithoutResizes) {
  REQUIRE_TMUX();
  expectOnlyKnownDifferences(*tmux, false);
}

TEST(RenderDiff, GeneratedCorpusWithResizes) {
  REQUIRE_TMUX();
  expectOnlyKnownDifferences(*tmux, true);
}

// The corpus for other oracles
// ----------------------------------------------------------------------

// REA_DIFF_DUMP=DIR writes every generated transcript with the Renderer's and tmux's screens
// (dump.h), for scripts/xtermjs-oracle.sh --compare DIR (tests/unit/render-diff/README.md).

TEST(RenderDiff, DumpGeneratedCorpus) {
  const char* directory = getenv("REA_DIFF_DUMP");
  if (directory == nullptr) GTEST_SKIP() << "REA_DIFF_DUMP unset";
  REQUIRE_TMUX();
  for (bool resizes : {false, true}) {
    for (unsigned seed = 1; seed <= CORPUS_SIZE; seed++) {
      dumpTranscript(*tmux, generateTranscript(seed, resizes),
                     std::string(directory) + "/" + dumpName(resizes, seed));
    }
  }
}

}  // namespace
}  // namespace rea::test
