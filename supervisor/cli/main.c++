// rea: the command-line entry point. Everything is in supervisor/cli/cli.c++.
#include "evidence/error.h"
#include "supervisor/cli/cli.h"
#include "supervisor/cli/output.h"

int main(int argc, char** argv) {
  // Every command turns its own failures into error objects; this is the last line for a bug
  // that lets an exception escape: still a structured error and a plain line, never the
  // runtime's "terminate called after throwing" and an abort. The exception's text is not
  // shown: it may quote input, and input may hold a secret.
  try {
    return rea::supervisor::runCli(argc, argv);
  } catch (...) {
    return rea::supervisor::printError(
        rea::evidence::executionFailure("rea stopped on an internal error."), false);
  }
}
