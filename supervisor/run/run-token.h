#pragma once
// The run token (SPEC B §6.1): a random UUID v4, lowercase and hyphenated, placed in the target's
// environment as REA_PROCESS_RUN_ID. Cleanup signals a process only when its environment still
// carries this exact value (ownership verification, B §6.7.1).
//
// Errors: throws kj::Exception if the kernel's random source fails.

#include <string>

namespace rea::supervisor {

std::string newRunToken();

}  // namespace rea::supervisor
