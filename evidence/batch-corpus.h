#pragma once
// The scenarios of a batch (issue 21): the stable id each scenario's results are filed under,
// and whether Evidence already on disk still belongs to its scenario (so a rerun may keep it).
//
// An id is the scenario's path relative to the batch's directory (or to the list file's
// directory), without a final ".json", written so that it is one safe file name and different
// paths never share an id: '/' becomes '~'; ASCII letters, digits, '.', '-' and '_' stay; every
// other byte (including '~' and '%') becomes %XX (upper-case hex); a leading '.' becomes %2E so
// an id is never a hidden file, "." or "..". So `login/ok.json` is `login~ok`, and
// `a b.json` is `a%20b`. Two *.json paths never share an id (only `x` and `x.json` do; a batch
// that names both is refused).
//
// Errors: none thrown.

#include <string>

#include "evidence/capture.h"

namespace rea::evidence {

struct Scenario;

std::string scenarioId(const std::string& relativePath);
// The id of the scenario file at `relativePath` (as above). A path without ".json" keeps its
// whole name.

bool evidenceMatchesScenario(const Capture& capture, const Scenario& scenario);
// Whether `capture` (imported, validated) was made from `scenario`: its
// `full_scenario_sha256` equals the commitment to the scenario's full projection with the
// executable hash the capture recorded. An edited scenario (arguments, events, limits, ...) no
// longer matches; a changed executable file alone still does (the batch captures a program as
// it is; a new version of it goes to a new results directory).

}  // namespace rea::evidence
