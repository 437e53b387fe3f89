#pragma once
// The help text of every command (`rea --help`, `rea help COMMAND`, `rea COMMAND --help`), one
// place so the man page can be generated from the same words.

#include <string>
#include <vector>

namespace rea::supervisor {

std::string usageFor(const char* command);
// The help of `command`, or the overview when `command` is null or unknown.

bool hasUsage(const char* command);
// Whether `command` has a help text of its own (an unknown help topic is a usage error).

const std::vector<const char*>& helpCommands();
// Every command with its own help text, in the order the overview lists them.

}  // namespace rea::supervisor
