#pragma once
// The rea command line: parses argv, dispatches to a command, maps every failure to the
// error object of SPEC B §2.4 on stdout (exit 1) plus one plain line on stderr; usage errors
// exit 2.

namespace rea::supervisor {

int runCli(int argc, char** argv);

}  // namespace rea::supervisor
