#pragma once
// `rea doctor [--json] [--clean]` (A12, issue "rea doctor"): what this machine supports and what
// rea does about it, the operator policy as parsed from the environment (or the exact problem
// with it), and stale temporary roots and capture cgroups left by a killed run (--clean removes
// those with no live owner: temp-root.h, stale-cgroups.h). Exit 0 when captures can run, 1
// otherwise.

namespace rea::supervisor {

struct DoctorOptions {
  bool json = false;
  bool clean = false;
};

int runDoctor(const DoctorOptions& options);

}  // namespace rea::supervisor
