#pragma once
// The reactive members of a scenario event (docs/scenario.md, "Events that wait"): `when` (the
// condition), `delay_ms`, `timeout_ms` and `on_timeout`. Part of the scenario parser, kept apart
// so that the events part of the parser (scenario-parse-events.c++) stays one table of B §3; the
// JSON form is in scenario-json.c++.
//
// Errors: none thrown; findings go to the reader's issues, each naming its field.

#include <string>

#include "evidence/json.h"
#include "evidence/scenario.h"
#include "evidence/strict-reader.h"

namespace rea::evidence {

extern const char* const REACTIVE_EVENT_KEYS[4];
// "when", "delay_ms", "timeout_ms", "on_timeout": the keys an event object may add to its own.

bool readReactiveMembers(StrictReader& reader, const Json& event, const std::string& path,
                         Event& out);
// Reads the reactive members of one event object (already known to be an object) into `out`.
// delay_ms, timeout_ms and on_timeout without `when` are issues ("requires when"). Returns true
// when every reactive member present was valid.

void checkConditionsHoldNoSecret(const Scenario& scenario, StrictReader& reader);
// A3: a condition's value or pattern may not contain a secret alias's value or a sensitive
// input's data. Output is matched after redaction, so such a condition could never hold, and
// the condition itself is recorded in the Evidence.

}  // namespace rea::evidence
