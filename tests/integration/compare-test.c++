// compare-process-captures on real captures (issue "compare-process-captures").
#include <gtest/gtest.h>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

// The input waits for the prompt (a reactive event, issue 19): input that arrived earlier would
// be echoed before the prompt, a real (and correctly reported) difference in the terminal
// stream, and a fixed at_ms cannot rule that out on a loaded machine.
Json deterministicScenario() {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments",
               {"-c", "printf 'answer? '; read a; echo \"you said $a\"; yes row | head -n 500"}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"events", Json::array({inputWhenOutput("answer? ", "forty-two\r")})},
              {"timeout_ms", 20000}};
}

// Re-seals a tampered capture so that its envelope is consistent and only the capture's own
// validation (B §5.4) can catch the change.
Json reseal(Json evidence) {
  evidence["evidence_id"] = evidence::computeEvidenceId(evidence);
  return evidence;
}

TEST(Compare, TwoCapturesOfADeterministicScenarioShowNoContentDivergence) {
  Sandbox sandbox;
  auto first = sandbox.capture(deterministicScenario());
  auto second = sandbox.capture(deterministicScenario());
  ASSERT_EQ(first.exitCode, 0) << first.stdoutText;
  ASSERT_EQ(second.exitCode, 0) << second.stdoutText;

  // Content only: timing on a loaded machine may legitimately differ by more than the default
  // tolerance (that is reported, as a timing divergence, checked below).
  auto result =
      compareCaptures(sandbox, *first.output, *second.output, {"--timing-tolerance-ms", "600000"});
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  const Json& comparison = (*result.output)["normalized_result"];
  EXPECT_EQ((*result.output)["predicate_type"], "rea.process-comparison/v3");
  for (const char* dimension : {"terminal", "interaction", "filesystem", "protocol", "shim"}) {
    EXPECT_EQ(comparison[dimension], "unchanged") << dimension << ": " << comparison.dump();
  }
  // With exact process observation (A8: capture cgroup + proc connector) the process tree is
  // compared too and the pair is `unchanged`. Where only sampling is possible (e.g. a container
  // without the proc connector) a residual unknown remains, and a comparison must never claim
  // equivalence through it.
  bool exact = capture(*first.output)["manifest"].value("process_observation", "") == "exact" &&
               capture(*second.output)["manifest"].value("process_observation", "") == "exact";
  // Sampling is not deterministic (a pipeline's processes may be seen mid-exec or not at all),
  // so there the only divergence allowed is in the process dimension.
  const Json& found = comparison["first_divergence"];
  if (!exact) {
    EXPECT_EQ(comparison["process"], "unknown");
    EXPECT_NE(comparison["status"], "unchanged");
    if (found["status"] == "found") {
      EXPECT_EQ(found["dimension"], "process") << found.dump();
    }
  }

  // With the default tolerance, anything found can only be a timing divergence (or, sampled,
  // the process dimension's).
  auto timed = compareCaptures(sandbox, *first.output, *second.output);
  ASSERT_EQ(timed.exitCode, 0);
  const Json& divergence = (*timed.output)["normalized_result"]["first_divergence"];
  if (divergence["status"] == "found" && (exact || divergence["dimension"] != "process")) {
    EXPECT_EQ(divergence["timing"], true) << divergence.dump();
  }

  // In baseline mode read boundaries and timestamps are content: the same pair may differ.
  auto baseline = compareCaptures(sandbox, *first.output, *second.output, {"--baseline-semantics"});
  ASSERT_EQ(baseline.exitCode, 0);

  // The claim of the issue, `unchanged`, can only be checked under exact observation: say so
  // rather than pass without checking it.
  if (!exact) {
    GTEST_SKIP() << "exact process observation is unavailable here (sampled mode): the "
                    "process dimension and `status: unchanged` were not checked";
  }
  EXPECT_EQ(comparison["process"], "unchanged") << comparison.dump();
  EXPECT_EQ(comparison["status"], "unchanged") << comparison.dump();
  EXPECT_NE(found["status"], "found") << comparison.dump();
}

TEST(Compare, ARealDifferenceIsFoundInTheTerminalStream) {
  Sandbox sandbox;
  auto authority = sandbox.capture(deterministicScenario());
  Json changed = deterministicScenario();
  changed["arguments"][1] =
      "printf 'answer? '; read a; echo \"you said: $a\"; yes row | head -n 500";
  auto reconstruction = sandbox.capture(changed);
  ASSERT_EQ(authority.exitCode, 0);
  ASSERT_EQ(reconstruction.exitCode, 0);
  auto result = compareCaptures(sandbox, *authority.output, *reconstruction.output);
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText;
  const Json& comparison = (*result.output)["normalized_result"];
  EXPECT_EQ(comparison["status"], "changed");
  EXPECT_EQ(comparison["terminal"], "changed");
  EXPECT_EQ(comparison["first_divergence"]["status"], "found");
  // The changed script is also the root's command line, which exact process observation records
  // from the first moment: the first divergence is that, or the terminal stream when only
  // sampling is possible.
  std::string first = comparison["first_divergence"]["dimension"];
  EXPECT_TRUE(first == "process" || first == "terminal") << comparison.dump();
}

TEST(Compare, TamperedCapturesAreRejectedWithTheMatchingValidationMessage) {
  Sandbox sandbox;
  auto run = sandbox.capture(deterministicScenario());
  ASSERT_EQ(run.exitCode, 0);
  const Json original = *run.output;

  struct Case {
    const char* name;
    std::function<void(Json&)> tamper;
    const char* expected;  // text in the error message
  };
  std::vector<Case> cases = {
      {"changed frame byte without resealing",
       [](Json& e) { e["normalized_result"]["frames"][0]["data"] = "tampered"; }, "malformed"},
      {"wrong commitment",
       [](Json& e) {
         e["normalized_result"]["manifest"]["replay_plan_sha256"] = std::string(64, '0');
       },
       "manifest.replay_plan_sha256"},
      {"broken sequence", [](Json& e) { e["normalized_result"]["frames"][0]["sequence"] = 5; },
       "frames"},
      {"missing checkpoint",
       [](Json& e) {
         auto& checkpoints = e["normalized_result"]["filesystem_checkpoints"];
         checkpoints.erase(checkpoints.size() - 1);
       },
       "filesystem_checkpoints"},
  };
  for (const auto& c : cases) {
    Json tampered = original;
    c.tamper(tampered);
    if (std::string(c.name).find("without resealing") == std::string::npos) {
      tampered = reseal(tampered);
    }
    auto result = compareCaptures(sandbox, original, tampered);
    EXPECT_EQ(result.exitCode, 1) << c.name;
    ASSERT_TRUE(result.output.has_value()) << c.name;
    EXPECT_EQ((*result.output)["category"], "invalid_input") << c.name;
    EXPECT_NE((*result.output).dump().find(c.expected), std::string::npos)
        << c.name << ": " << result.output->dump();
  }
}

TEST(Compare, IncompatibleContractsNameTheFieldsThatDiffer) {
  Sandbox sandbox;
  auto left = sandbox.capture(deterministicScenario());
  Json other = deterministicScenario();
  other["timeout_ms"] = 15000;
  auto right = sandbox.capture(other);
  ASSERT_EQ(left.exitCode, 0);
  ASSERT_EQ(right.exitCode, 0);
  auto result = compareCaptures(sandbox, *left.output, *right.output);
  EXPECT_EQ(result.exitCode, 1);
  ASSERT_TRUE(result.output.has_value());
  std::string message = (*result.output)["message"];
  EXPECT_NE(message.find("incompatible comparison contracts"), std::string::npos) << message;
  EXPECT_NE(message.find("timeout_ms"), std::string::npos) << message;
}

TEST(Compare, UsageErrorsExitTwo) {
  Sandbox sandbox;
  EXPECT_EQ(sandbox.run({"compare-process-captures", "only-one.json"}).exitCode, 2);
  EXPECT_EQ(
      sandbox.run({"compare-process-captures", "--timing-tolerance-ms", "x", "a", "b"}).exitCode,
      2);
}

}  // namespace
}  // namespace rea::test

namespace rea::test {
namespace {

// Issue "compare-process-captures": an interactive prompt, file writes under a declared root, a
// shim call and a replayed HTTP request, captured twice. Nothing differs in content; with exact
// process observation and loopback networking nothing is unknown either, so the comparison says
// `unchanged`.
Json fullScenario(const std::string& root) {
  std::string script = "printf 'name? '; read a; echo \"hello $a\" > " + root +
                       "/greeting.txt; mkdir -p " + root + "/out; tool build >" + root +
                       "/out/build.log; curl -s \"$REA_REPLAY_HTTP_URL/version\"; echo; "
                       "echo \"done $a\"";
  return Json{
      {"approved", true},
      {"executable", "/bin/sh"},
      {"arguments", {"-c", script}},
      {"working_directory", "/tmp"},
      {"environment", {{"PATH", "/usr/bin:/bin"}}},
      // The answer waits for its prompt (a fixed at_ms raced it in the sanitizer build beside
      // the other tree's tests: the two captures then differed in when "ada" arrived).
      {"events", Json::array({inputWhenOutput("name? ", "ada\r")})},
      {"filesystem_roots", {root}},
      {"network_access", "loopback"},
      {"command_shims",
       {{{"name", "tool"},
         {"routes",
          {{{"arguments", {"build"}},
            {"outputs", {{{"at_ms", 0}, {"stream", "stdout"}, {"data", "built\n"}}}},
            {"termination", {{"type", "exit"}, {"code", 0}}}}}}}}},
      {"replay",
       {{"http",
         {{{"method", "GET"}, {"path", "/version"}, {"status", 200}, {"body", "v1.2.3"}}}}}},
      {"timeout_ms", 20000}};
}

TEST(Compare, FilesShimsAndReplayCapturedTwiceAreUnchangedUnderExactObservation) {
  Sandbox sandbox;
  std::string root = sandbox.tmpdir() + "/project";
  auto fresh = [&]() {
    ASSERT_EQ(system(("rm -rf '" + root + "' && mkdir -p '" + root + "'").c_str()), 0);
  };
  fresh();
  auto first = sandbox.capture(fullScenario(root));
  fresh();
  auto second = sandbox.capture(fullScenario(root));
  ASSERT_EQ(first.exitCode, 0) << first.stdoutText;
  ASSERT_EQ(second.exitCode, 0) << second.stdoutText;
  for (const auto* run : {&first, &second}) {
    const Json& c = capture(*run->output);
    EXPECT_FALSE(c["filesystem_effects"].empty());
    EXPECT_EQ(c["shim_events"].size(), 1u);
    EXPECT_FALSE(c["protocol_events"].empty());
    EXPECT_NE(concatenatedFrames(*run->output).find("v1.2.3"), std::string::npos);
  }

  auto result =
      compareCaptures(sandbox, *first.output, *second.output, {"--timing-tolerance-ms", "600000"});
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  const Json& comparison = (*result.output)["normalized_result"];
  for (const char* dimension :
       {"terminal", "interaction", "exit", "filesystem", "protocol", "shim"}) {
    EXPECT_EQ(comparison[dimension], "unchanged") << dimension << ": " << comparison.dump();
  }
  bool exact = capture(*first.output)["manifest"].value("process_observation", "") == "exact" &&
               capture(*second.output)["manifest"].value("process_observation", "") == "exact";
  if (!exact) {
    EXPECT_EQ(comparison["process"], "unknown") << comparison.dump();
    GTEST_SKIP() << "exact process observation is unavailable here (sampled mode): the "
                    "process dimension and `status: unchanged` were not checked";
  }
  EXPECT_EQ(comparison["process"], "unchanged") << comparison.dump();
  EXPECT_EQ(comparison["status"], "unchanged") << comparison.dump();
}

}  // namespace
}  // namespace rea::test
