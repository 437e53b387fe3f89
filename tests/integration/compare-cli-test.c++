// compare-process-captures through the real binary: the options (`--max-capture-age-ms`,
// `--pretty`), the messages for evidence it must not compare (v3, another workflow), and REA's
// own v4 capture (tests/data/captures) compared with itself and with ours (SPEC A1, B §9).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

const char RESIDUAL_SENTENCE[] = "Residual unknowns prevent proving that no divergence occurred.";
const char* const DIMENSIONS[] = {"terminal", "interaction", "exit", "filesystem",
                                  "protocol", "process",     "shim"};

Json reasCapture() {
  std::ifstream in(REA_SOURCE_DIR "/tests/data/captures/rea-v4-minimal-evidence.json");
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

size_t lineCount(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A refused input: exit 1, the B §2.4 object on stdout, one plain line on stderr.
void expectRefused(const RunResult& result, const std::string& category,
                   const std::string& messagePart) {
  EXPECT_EQ(result.exitCode, 1) << result.stdoutText;
  ASSERT_TRUE(result.output.has_value()) << result.stdoutText;
  EXPECT_EQ((*result.output)["category"], category) << result.stdoutText;
  std::string message = (*result.output).value("message", "");
  EXPECT_NE(message.find(messagePart), std::string::npos) << message;
  EXPECT_EQ(lineCount(result.stderrText), 1u) << result.stderrText;
  EXPECT_NE(result.stderrText.find(message), std::string::npos) << result.stderrText;
}

TEST(CompareCli, ReasV4CaptureComparedWithItselfIsUnknownThroughItsSampledProcessResidual) {
  // REA samples processes, so its capture carries a `process` residual (and a `network` one,
  // which affects no dimension): B §9.3 makes `process` unknown and, nothing else differing,
  // the status unknown; no candidate, a residual → first_divergence unknown (§9.4); limitations
  // as §9.5 lists them. Both modes agree on an identical pair.
  Sandbox sandbox;
  Json fixture = reasCapture();
  const Json& capture = fixture["normalized_result"];
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{}, std::vector<std::string>{"--baseline-semantics"}}) {
    auto result = compareCaptures(sandbox, fixture, fixture, options);
    ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
    const Json& comparison = (*result.output)["normalized_result"];
    EXPECT_EQ(comparison["status"], "unknown") << comparison.dump();
    for (const char* dimension : DIMENSIONS) {
      EXPECT_EQ(comparison[dimension],
                std::string(dimension) == "process" ? "unknown" : "unchanged")
          << dimension;
    }
    EXPECT_EQ(comparison["first_divergence"],
              (Json{{"status", "unknown"}, {"reason", RESIDUAL_SENTENCE}}));
    Json limitations = Json::array();
    for (int side = 0; side < 2; ++side) {
      for (const auto& text : capture["limitations"])
        limitations.push_back(text);
    }
    for (int side = 0; side < 2; ++side) {
      for (const auto& residual : capture["residual_unknowns"])
        limitations.push_back(residual["reason"]);
    }
    EXPECT_EQ(comparison["limitations"], limitations);
    EXPECT_EQ(comparison.contains("timing"), options.empty());
    EXPECT_EQ((*result.output)["parameters"]["left_evidence_id"], fixture["evidence_id"]);
  }
}

TEST(CompareCli, MaxCaptureAgeAcceptsRecentCapturesAndRejectsOlderOnes) {
  // B §9.1 rule 3 against the real clock: REA's capture completed on 2026-07-02, long before
  // any run of this test; equality is accepted, so only an age beyond N is refused.
  Sandbox sandbox;
  Json fixture = reasCapture();
  auto old = compareCaptures(sandbox, fixture, fixture, {"--max-capture-age-ms", "60000"});
  expectRefused(old, "execution_failure", "max_capture_age_ms");
  auto generous =
      compareCaptures(sandbox, fixture, fixture, {"--max-capture-age-ms", "9000000000000"});
  EXPECT_EQ(generous.exitCode, 0) << generous.stdoutText;
  EXPECT_EQ((*generous.output)["normalized_result"]["status"], "unknown");
  // Not a number, negative, or missing: a usage error (exit 2), not a refused comparison.
  for (const char* bad : {"-1", "ten", ""}) {
    auto result = compareCaptures(sandbox, fixture, fixture, {"--max-capture-age-ms", bad});
    EXPECT_EQ(result.exitCode, 2) << bad;
  }
  EXPECT_EQ(sandbox.run({"compare-process-captures", "a.json", "b.json", "--max-capture-age-ms"})
                .exitCode,
            2);
}

TEST(CompareCli, PrettyPrintsTheSameDocumentIndented) {
  Sandbox sandbox;
  Json fixture = reasCapture();
  auto compact = compareCaptures(sandbox, fixture, fixture);
  auto pretty = compareCaptures(sandbox, fixture, fixture, {"--pretty"});
  ASSERT_EQ(compact.exitCode, 0);
  ASSERT_EQ(pretty.exitCode, 0);
  EXPECT_EQ(lineCount(compact.stdoutText), 1u);
  EXPECT_GT(lineCount(pretty.stdoutText), 20u);
  EXPECT_NE(pretty.stdoutText.find("\n  \"normalized_result\": {\n    \"status\""),
            std::string::npos)
      << pretty.stdoutText.substr(0, 400);
  EXPECT_EQ(*pretty.output, *compact.output);
  // Errors too.
  Json legacy = fixture;
  legacy["predicate_type"] = "rea.process-capture/v3";
  auto refused = compareCaptures(sandbox, fixture, legacy, {"--pretty"});
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_NE(refused.stdoutText.find("{\n  \""), std::string::npos) << refused.stdoutText;
}

TEST(CompareCli, LegacyV3AndOtherWorkflowsAreRefusedWithTheirOwnMessages) {
  Sandbox sandbox;
  Json fixture = reasCapture();

  // A v3 capture record (B §10.1): its own message, naming the file, on either side.
  Json legacy = fixture;
  legacy["predicate_type"] = "rea.process-capture/v3";
  legacy["evidence_id"] = evidence::computeEvidenceId(legacy);
  auto right = compareCaptures(sandbox, fixture, legacy);
  expectRefused(right, "invalid_input", "Process Capture v3");
  EXPECT_NE((*right.output)["message"].get<std::string>().find("right.json"), std::string::npos);
  auto left = compareCaptures(sandbox, legacy, fixture);
  expectRefused(left, "invalid_input", "Process Capture v3");
  EXPECT_NE((*left.output)["message"].get<std::string>().find("left.json"), std::string::npos);

  // Valid Evidence of another workflow: a comparison's own Evidence, and a capture from another
  // provider version.
  auto comparison = compareCaptures(sandbox, fixture, fixture);
  ASSERT_EQ(comparison.exitCode, 0);
  expectRefused(compareCaptures(sandbox, *comparison.output, fixture), "invalid_input",
                "not produced by the current process capture workflow");
  Json otherProvider = fixture;
  otherProvider["provider"]["version"] = "2";
  otherProvider["evidence_id"] = evidence::computeEvidenceId(otherProvider);
  expectRefused(compareCaptures(sandbox, fixture, otherProvider), "invalid_input",
                "not produced by the current process capture workflow");

  // Without resealing, the envelope itself is what is wrong: not the workflow message.
  Json unsealed = fixture;
  unsealed["predicate_type"] = "rea.process-capture/v3";
  auto tampered = compareCaptures(sandbox, fixture, unsealed);
  EXPECT_EQ(tampered.exitCode, 1);
  EXPECT_EQ((*tampered.output)["message"].get<std::string>().find("Process Capture v3"),
            std::string::npos)
      << tampered.stdoutText;
}

TEST(CompareCli, ReasV4CaptureAndOursOfTheSameContractCompareAsTheSpecSays) {
  // REA's capture is of the minimal scenario of B §3.9 (/bin/sh, no arguments, in /tmp). Ours
  // adds arguments so that sh prints the same prompt and exits instead of waiting for input;
  // arguments are not part of the comparison contract (B §9.1), so the contracts are equal:
  // A1 (b) promises REA's very hash for it.
  Sandbox sandbox;
  Json fixture = reasCapture();
  auto ours = sandbox.capture(Json{{"approved", true},
                                   {"executable", "/bin/sh"},
                                   {"arguments", {"-c", "printf '$ '"}},
                                   {"working_directory", "/tmp"}});
  ASSERT_EQ(ours.exitCode, 0) << ours.stdoutText << ours.stderrText;
  const Json& capture = rea::test::capture(*ours.output);
  EXPECT_EQ(capture["manifest"]["comparison_contract_sha256"],
            fixture["normalized_result"]["manifest"]["comparison_contract_sha256"]);
  EXPECT_EQ(concatenatedFrames(*ours.output), "$ ");

  // Content only (timing between two machines is not the point here).
  auto result =
      compareCaptures(sandbox, fixture, *ours.output, {"--timing-tolerance-ms", "600000"});
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  const Json& comparison = (*result.output)["normalized_result"];
  // exit: REA writes `signal: 0` for a normal exit (B §6.6.2), we write null (A4).
  EXPECT_EQ(capture["exit"], (Json{{"code", 0}, {"signal", nullptr}, {"reason", "exited"}}));
  EXPECT_EQ(comparison["exit"], "changed");
  // terminal: the same output stream, but REA's rendered lines are trimmed where ours are
  // padded to the width (B §6.11), so the screens differ.
  EXPECT_EQ(comparison["terminal"], "changed");
  // process: REA only samples, and says so with a `process` residual (B §9.3).
  EXPECT_EQ(comparison["process"], "unknown");
  for (const char* dimension : {"interaction", "filesystem", "protocol", "shim"}) {
    EXPECT_EQ(comparison[dimension], "unchanged") << dimension << ": " << comparison.dump();
  }
  EXPECT_EQ(comparison["status"], "changed");
  // B §9.4: observed differences outrank residual uncertainty, and the earliest (smallest
  // min(left_at_ms, right_at_ms)) wins, ties in dimension order. REA's process sample at 0 ms
  // (its root's command is "/bin/sh", ours has arguments; sampled observation may also miss our
  // short-lived root) differs at time 0. The terminal's first difference is the screen at
  // after_settlement (REA's at 231 ms): ours falls in the 0 ms bucket when the capture settles
  // that fast (exact settlement on a quiet machine), and then the terminal wins the tie.
  const Json& first = comparison["first_divergence"];
  EXPECT_EQ(first["status"], "found") << first.dump();
  EXPECT_EQ(first["index"], 0);
  if (first["dimension"] == "terminal") {
    EXPECT_EQ(first["right_at_ms"], 0) << first.dump();
    EXPECT_EQ(first["left"]["checkpoint"], "after_settlement") << first.dump();
  } else {
    EXPECT_EQ(first["dimension"], "process") << first.dump();
    EXPECT_EQ(first["left_at_ms"], 0);
  }
  // B §9.5: left limitations first, then right's, then the residual reasons in the same order.
  const Json& left = fixture["normalized_result"];
  const Json& limitations = comparison["limitations"];
  ASSERT_GE(limitations.size(), left["limitations"].size() + left["residual_unknowns"].size());
  for (size_t i = 0; i < left["limitations"].size(); ++i)
    EXPECT_EQ(limitations[i], left["limitations"][i]) << i;
  size_t residualsAt = left["limitations"].size() + capture["limitations"].size();
  for (size_t i = 0; i < left["residual_unknowns"].size(); ++i)
    EXPECT_EQ(limitations[residualsAt + i], left["residual_unknowns"][i]["reason"]) << i;

  // Two fresh captures are young enough for any sensible maximum age.
  auto young =
      compareCaptures(sandbox, *ours.output, *ours.output, {"--max-capture-age-ms", "600000"});
  EXPECT_EQ(young.exitCode, 0) << young.stdoutText;
}

}  // namespace
}  // namespace rea::test
