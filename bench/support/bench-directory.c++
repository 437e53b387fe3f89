#include "bench/support/bench-directory.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include <kj/exception.h>

#include "supervisor/run/temp-root.h"

namespace rea::bench {

BenchDirectory::BenchDirectory() : owner(getpid()) {
  const char* base = getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/rea-bench-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    std::fprintf(stderr, "bench: cannot make a directory %s: %s\n", pattern.c_str(),
                 strerror(errno));
    std::exit(1);
  }
  root = buffer.data();
}

BenchDirectory::~BenchDirectory() {
  if (getpid() != owner) return;
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { supervisor::removeTree(root); })) {
    std::fprintf(stderr, "bench: %s was not removed: %s\n", root.c_str(),
                 e->getDescription().cStr());
  }
}

std::string BenchDirectory::write(const std::string& name, const std::string& text) const {
  std::string file = path(name);
  std::ofstream out(file);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "bench: cannot write %s\n", file.c_str());
    std::exit(1);
  }
  return file;
}

}  // namespace rea::bench
