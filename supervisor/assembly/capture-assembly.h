#pragma once
// Capture assembly (SPEC B §6.1 "assemble", §4.4–§4.8, §5; A3–A6, A8, A13): turns what a
// capture run observed (raw chunks, dispatches, exit, settlement, monotonic times) into the
// capture object: times relative to T0 and bucketed, text normalised and redacted (streaming,
// so a secret split across two reads is still redacted), interaction records, the exit record
// of A4, checkpoints, truncation, limitations, residual unknowns (including lost helpers), and
// the manifest with its commitments.
//
// Errors: throws only on a bug (assembly of a finished run is total); the caller validates the
// result (evidence/validate.h) before printing it.

#include <cstdint>
#include <string>

#include "evidence/capture.h"
#include "evidence/normalise.h"
#include "evidence/scenario.h"
#include "supervisor/run/capture-run.h"

namespace rea::supervisor {

struct AssemblyInputs {
  const evidence::Scenario& scenario;
  CaptureRunResult& run;         // its raw output text and rendered frames are released as they are
                                 // normalised into the capture (never held twice)
  std::string executableSha256;  // SHA-256 of the executable's bytes, read at the end
  int64_t completedAtRealMs;     // wall clock when the manifest is built
};

evidence::Capture assembleCapture(const AssemblyInputs& inputs);

evidence::NormaliseContext scenarioNormaliseContext(const evidence::Scenario& scenario);
// N's scenario-given arguments (B §4.6.1: secrets, sensitive echoes, paths, pids and ports
// switches, patterns); callers add the temporary root and pids. Terminal-literal checkpoints
// match against text normalised with it, exactly as the frames are.

}  // namespace rea::supervisor
