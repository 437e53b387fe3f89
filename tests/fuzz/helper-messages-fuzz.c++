// Fuzz target: the helper-to-supervisor message handling (issue 8: a helper is not trusted). The
// input picks a link (pty, sampler, shim, replay, fswatch) and is read as a sequence of that
// helper's calls, each a Cap'n Proto message (layout in helper-messages-driver.h), fed to the
// link's pure checks (supervisor/links/*-batch.h) exactly as its sink would.
//
// Properties: the checks never throw (a malformed message is a broken rule the link turns into
// "helper lost"); whatever they accepted obeys the plan (limits, order, UTF-8, ranges).

#include <cstddef>
#include <cstdint>

#include "tests/fuzz/helper-messages-driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rea::fuzz::drive(kj::arrayPtr(data, size));
  return 0;
}
