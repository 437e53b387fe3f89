// `rea helper NAME ARGS...`: runs one helper binary alone, exactly as the supervisor would find
// it (ARCHITECTURE "Running a helper alone"), by exec'ing rea-NAME with the remaining arguments.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "supervisor/cli/commands.h"
#include "supervisor/links/helper-process.h"

namespace rea::supervisor {

int runHelperCommand(const std::vector<std::string>& args) {
  static const char* const KNOWN[] = {"pty", "sampler", "fswatch", "shim", "replay"};
  if (args.empty()) return usageError("helper needs a helper name", "helper");
  bool known = false;
  for (const char* name : KNOWN)
    known = known || args[0] == name;
  if (!known) return usageError("unknown helper: " + args[0], "helper");

  std::string path = defaultHelperDirectory() + "/rea-" + args[0];
  std::vector<char*> argv;
  argv.push_back(path.data());
  std::vector<std::string> rest(args.begin() + 1, args.end());
  for (auto& arg : rest)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  execv(path.c_str(), argv.data());
  std::fprintf(stderr, "rea: cannot run helper %s (%s): %s\n", args[0].c_str(), path.c_str(),
               std::strerror(errno));
  return 1;
}

}  // namespace rea::supervisor
