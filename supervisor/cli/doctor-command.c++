#include "supervisor/cli/doctor-command.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "evidence/policy-config.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/run/capture-scenario.h"
#include "supervisor/run/machine-probe.h"
#include "supervisor/cli/output.h"
#include "supervisor/run/stale-cgroups.h"
#include "supervisor/run/temp-root.h"

namespace rea::supervisor {
namespace {

evidence::Json policyReport() {
  auto load = loadThisProcessOperatorPolicy();
  evidence::Json report = evidence::Json::object();
  if (!load.policy) {
    report["valid"] = false;
    evidence::Json problems = evidence::Json::array();
    for (const auto& issue : load.issues)
      problems.push_back(issue.path + ": " + issue.message);
    report["problems"] = problems;
    return report;
  }
  const auto& policy = *load.policy;
  auto roots = [](const std::vector<evidence::PolicyRoot>& list) {
    evidence::Json out = evidence::Json::array();
    for (const auto& root : list)
      out.push_back(root.canonical);
    return out;
  };
  // As the user wrote them, with what each resolves to: `/bin` on a merged-/usr system is
  // `/usr/bin`, and a person looking for their `/bin` should find it.
  auto written = [](const std::vector<evidence::PolicyRoot>& list) {
    evidence::Json out = evidence::Json::array();
    for (const auto& root : list)
      out.push_back({{"configured", root.configured}, {"resolved", root.canonical}});
    return out;
  };
  report["executable_roots_as_written"] = written(policy.executableRoots);
  report["working_roots_as_written"] = written(policy.workingRoots);
  report["valid"] = true;
  report["capture_enabled"] = policy.captureEnabled;
  report["executable_roots"] = roots(policy.executableRoots);
  report["working_roots"] = roots(policy.workingRoots);
  report["allowed_environment"] = policy.allowedEnvironment;
  report["allow_external_network"] = policy.allowExternalNetwork;
  return report;
}

evidence::Json staleCgroupsJson(const StaleCaptureCgroups& stale) {
  evidence::Json found = evidence::Json::array();
  for (const auto& group : stale.found)
    found.push_back({{"path", group.path}, {"reason", group.reason}});
  evidence::Json failed = evidence::Json::array();
  for (const auto& group : stale.failed)
    failed.push_back({{"path", group.path}, {"reason", group.reason}});
  return {{"found", found}, {"removed", stale.removed}, {"failed", failed}};
}

void printStaleCgroups(const StaleCaptureCgroups& stale, bool clean) {
  std::printf("\nstale capture cgroups (no live owner)\n");
  if (stale.found.empty()) std::printf("  none\n");
  for (const auto& group : stale.found) {
    bool removed =
        std::find(stale.removed.begin(), stale.removed.end(), group.path) != stale.removed.end();
    std::string problem;
    for (const auto& failed : stale.failed) {
      if (failed.path == group.path) problem = " (could not be removed: " + failed.reason + ")";
    }
    std::printf("  %s: %s%s\n", group.path.c_str(), group.reason.c_str(),
                removed ? " (removed)" : problem.c_str());
  }
  if (!stale.found.empty() && !clean) std::printf("  run `rea doctor --clean` to remove them\n");
}

}  // namespace

int runDoctorCommand(const std::vector<std::string>& args) {
  DoctorOptions options;
  CommandLine line("doctor");
  line.app.add_flag("--json", options.json);
  line.app.add_flag("--clean", options.clean);
  if (auto usage = line.parse(args, 0, "doctor takes no file arguments")) return *usage;
  return runDoctor(options);
}

int runDoctor(const DoctorOptions& options) {
  auto probes = probeMachine();
  auto policy = policyReport();
  auto stale = findStaleTempRoots(options.clean);
  auto staleGroups = findStaleCaptureCgroups(options.clean);

  bool canCapture = true;
  for (const auto& probe : probes) {
    if (probe.required && !probe.available) canCapture = false;
  }
  // The policy is checked as a capture checks it: invalid or disabled, every capture is
  // refused, however capable the machine.
  std::string refusal;
  if (!policy["valid"].get<bool>()) {
    refusal = "the operator policy is invalid (see docs/policy.md)";
  } else if (!policy["capture_enabled"].get<bool>()) {
    refusal = "capture is disabled: set REA_PROCESS_CAPTURE_ENABLED=true (see docs/policy.md)";
  }
  if (!refusal.empty()) {
    canCapture = false;
    // Also on stderr: a script running `rea doctor > /dev/null` still learns why.
    std::fprintf(stderr, "rea doctor: captures would be refused: %s\n", refusal.c_str());
  }

  if (options.json) {
    evidence::Json report = evidence::Json::object();
    evidence::Json machine = evidence::Json::array();
    for (const auto& probe : probes) {
      machine.push_back({{"name", probe.name},
                         {"available", probe.available},
                         {"required", probe.required},
                         {"detail", probe.detail},
                         {"effect", probe.effect}});
    }
    report["rea_version"] = REA_VERSION;
    report["captures_can_run"] = canCapture;
    if (!refusal.empty()) report["captures_refused_because"] = refusal;
    report["machine"] = machine;
    report["policy"] = policy;
    report["stale_temporary_roots"] = {{"found", stale.found},
                                       {"removed", stale.removed},
                                       {"failed", stale.failed},
                                       {"not_ours", stale.notOurs}};
    report["stale_capture_cgroups"] = staleCgroupsJson(staleGroups);
    printJson(report, true);
    return canCapture ? 0 : 1;
  }

  std::printf("rea %s doctor\n\nmachine\n", REA_VERSION);
  for (const auto& probe : probes) {
    std::printf("  %-15s %-4s %s\n  %-15s      -> %s\n", probe.name.c_str(),
                probe.available ? "ok" : "no", probe.detail.c_str(), "", probe.effect.c_str());
  }
  std::printf("\noperator policy\n");
  if (!policy["valid"].get<bool>()) {
    for (const auto& problem : policy["problems"]) {
      std::printf("  problem: %s\n", problem.get<std::string>().c_str());
    }
  } else {
    std::printf("  capture enabled:        %s\n",
                policy["capture_enabled"].get<bool>() ? "yes" : "no");
    auto printRoots = [](const char* label, const evidence::Json& roots) {
      if (roots.empty()) {
        std::printf("  %-23s (none)\n", label);
      } else {
        std::printf("  %s\n", label);
      }
      for (const auto& root : roots) {
        std::string configured = root["configured"].get<std::string>();
        std::string resolved = root["resolved"].get<std::string>();
        if (configured == resolved) {
          std::printf("    %s\n", configured.c_str());
        } else {
          std::printf("    %s  (resolves to %s)\n", configured.c_str(), resolved.c_str());
        }
      }
    };
    printRoots("executable roots:", policy["executable_roots_as_written"]);
    printRoots("working roots:", policy["working_roots_as_written"]);
    std::printf("  allowed environment:    %s\n", policy["allowed_environment"].dump().c_str());
    std::printf("  external network:       %s\n",
                policy["allow_external_network"].get<bool>() ? "allowed" : "not allowed");
  }
  std::printf("\nstale temporary roots (no live owner) under %s\n", tempRootBase().c_str());
  if (stale.found.empty()) std::printf("  none\n");
  for (const auto& root : stale.found) {
    bool removed =
        std::find(stale.removed.begin(), stale.removed.end(), root) != stale.removed.end();
    std::printf("  %s%s\n", root.c_str(),
                removed         ? " (removed)"
                : options.clean ? " (could not be removed)"
                                : "");
  }
  if (!stale.found.empty() && !options.clean)
    std::printf("  run `rea doctor --clean` to remove them\n");
  for (const auto& root : stale.notOurs) {
    // Issue 18.6: named, never removed: nothing proves rea made it for this user.
    std::printf("  %s (not made by rea for this user: left alone, check who owns it)\n",
                root.c_str());
  }
  printStaleCgroups(staleGroups, options.clean);
  if (canCapture) {
    std::printf("\ncaptures can run on this machine\n");
  } else if (!refusal.empty()) {
    std::printf("\ncaptures would be refused: %s\n", refusal.c_str());
  } else {
    std::printf("\ncaptures cannot run on this machine (see above)\n");
  }
  return canCapture ? 0 : 1;
}

}  // namespace rea::supervisor
