#pragma once
// The standalone (debugging) front end of every helper: `rea-<name> --standalone request.json`
// reads the start request as JSON and prints the job's events as JSON lines on stdout
// (ARCHITECTURE "Running a helper alone"). This file holds the two ends: reading the request
// and writing the lines; helperMain runs the job in between.
//
// Errors: readJsonRequest throws FAILED naming the file when it cannot be read or parsed.
// JsonLines::write throws FAILED when stdout is gone.

#include <kj/string.h>

#include "evidence/json.h"

namespace rea::helper {

evidence::Json readJsonRequest(kj::StringPtr path);
// The whole file parsed as one JSON value ("-" reads stdin).

class JsonLines {
  // One compact JSON value per line on stdout, each written with write(2) at once (a helper
  // killed mid-run still leaves every finished line behind).
 public:
  void write(const evidence::Json& value);
};

}  // namespace rea::helper
