#pragma once
// BenchDirectory: a private directory for one benchmark run's scenario, capture and output
// files, made with mkdtemp under $TMPDIR (or /tmp) and removed with everything in it when the
// object goes away. A benchmark then leaves nothing behind, and two at once never share a file
// (fixed names in /tmp did both wrong).
//
// Errors: the constructor exits the program with a message when the directory cannot be made
// (a benchmark has nothing to measure without it); removal failures are printed, not thrown.

#include <sys/types.h>

#include <string>

namespace rea::bench {

class BenchDirectory {
 public:
  BenchDirectory();
  ~BenchDirectory();  // removes the tree, in the process that made it only (not in fork children)
  BenchDirectory(const BenchDirectory&) = delete;
  BenchDirectory& operator=(const BenchDirectory&) = delete;

  std::string path(const std::string& name) const { return root + "/" + name; }
  std::string write(const std::string& name, const std::string& text) const;
  // Writes `text` to path(name) (exits with a message if it cannot) and returns that path.

 private:
  std::string root;
  pid_t owner;
};

}  // namespace rea::bench
