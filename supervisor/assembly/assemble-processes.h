#pragma once
// Assembly of what the sampler observed (SPEC A8, B §4.3, §4.4, §4.6.4, §4.8, §6.7): the
// `process_samples` (renumbered and normalised), the settlement record, the manifest's
// `process_observation`, and the process limitations and residual unknowns of each mode:
//   exact   — no sampling limitation and no `process` residual unknown (A8);
//   sampled — the baseline's sentence (B §4.4 (1)) as limitation and `process` residual;
//   partial — B §4.4's extra sentence (the capture is then truncated, B §4.8).
// Pure: no clocks, no processes; times arrive as monotonic ns with T0.
//
// Errors: throws only on a bug.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/capture.h"
#include "evidence/normalise.h"
#include "supervisor/run/capture-run.h"

namespace rea::supervisor {

extern const char SAMPLED_PROCESS_LIMITATION[];
// "The process tree is only sampled, so brief descendants can be missed."
extern const char PARTIAL_SAMPLING_LIMITATION[];

struct ProcessAssembly {
  std::vector<evidence::ProcessSample> samples;
  evidence::ProcessObservation observation = evidence::ProcessObservation::SAMPLED;
  std::optional<evidence::ExecObservation> execObservation;  // exact mode: how execs were seen
  bool partial = false;                                      // truncates the capture (B §4.8)
  std::vector<std::string> leadingLimitations;   // B §4.4 (1) and the partial sentence, in order
  std::vector<std::string> trailingLimitations;  // what cleanup met outside the root's group
  std::vector<evidence::ResidualUnknown> residualUnknowns;
};

ProcessAssembly assembleProcesses(const CaptureRunResult& run,
                                  const evidence::NormaliseContext& base, int64_t timeBucketMs);
// `base` is the scenario's normalisation context (secrets, paths, pids and ports switches,
// patterns); B §4.6.1's arguments for commands are applied by renumberProcessSamples.

evidence::Settlement assembleSettlement(const CaptureRunResult& run, int64_t timeBucketMs);
// B §4.3 settlement with A6 bucketing of elapsed_ms; cleanup_outcome not_required when quiesced,
// else cleaned (a failed cleanup never reaches assembly: it is the cleanup_incomplete error).

}  // namespace rea::supervisor
