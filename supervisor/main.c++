// rea: the command-line entry point. Everything is in supervisor/cli.c++.
#include "supervisor/cli.h"

int main(int argc, char** argv) {
  return rea::supervisor::runCli(argc, argv);
}
