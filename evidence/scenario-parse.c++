// parseScenario (declared in scenario.h): B §3 field by field, then the cross-field rules of
// §3.5 (scenario-rules.c++). This file holds ScenarioParser's (scenario-parser.h) top level and
// plain settings; the interaction and the dependencies are read in scenario-parse-events.c++ and
// scenario-parse-dependencies.c++. Each part is read in document order so issues come out in the
// order of the input's structure; while reading, the valid names and times are collected as
// ScenarioFacts, so a broken element yields its own issue and is not reported a second time by a
// cross-field rule.

#include "evidence/scenario.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <nlohmann/json.hpp>

#include "evidence/scenario-condition.h"
#include "evidence/scenario-parser.h"
#include "evidence/utf.h"

namespace rea::evidence {

namespace {

bool isAsciiLetter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
bool isAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isAsciiAlphanumeric(char c) {
  return isAsciiLetter(c) || isAsciiDigit(c);
}

bool isEnvironmentName(const std::string& name) {
  if (name.empty() || !(isAsciiLetter(name[0]) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(isAsciiAlphanumeric(c) || c == '_')) return false;
  }
  return true;
}

// First character alphanumeric, the rest alphanumeric or one of `extra` (ASCII only, as the
// baseline's regular expressions are).
bool isSimpleName(const std::string& name, const char* extra) {
  if (name.empty() || !isAsciiAlphanumeric(name[0])) return false;
  for (char c : name) {
    if (!isAsciiAlphanumeric(c) && std::strchr(extra, c) == nullptr) return false;
  }
  return true;
}

const char ENVIRONMENT_NAME_RULE[] =
    "must be an environment name: a letter or _, then letters, digits or _";

}  // namespace

ScenarioParseResult ScenarioParser::parse(const Json& input) {
  Scenario s;
  const std::string root;
  if (!input.is_object()) {
    r.fail(root, "a scenario must be a JSON object, got " + StrictReader::describe(input));
    return ScenarioParseResult{std::nullopt, std::move(r.issues())};
  }
  r.object(input, root,
           {"approved",
            "unknown_registry_approved",
            "executable",
            "arguments",
            "working_directory",
            "environment",
            "inherit_environment",
            "secret_aliases",
            "network_access",
            "filesystem_roots",
            "terminal",
            "checkpoints",
            "command_shims",
            "events",
            "timeout_ms",
            "idle_timeout_ms",
            "settle_ms",
            "limits",
            "normalization",
            "replay"});

  if (const Json* approved = StrictReader::find(input, "approved")) {
    r.literalTrue(*approved, "approved");
  } else {
    r.fail("approved", "is required and must be true");
  }
  if (const Json* value = StrictReader::find(input, "unknown_registry_approved")) {
    s.unknownRegistryApproved = r.literalTrue(*value, "unknown_registry_approved");
  }
  if (const Json* value = r.require(input, root, "executable")) {
    r.absolutePath(*value, "executable", s.executable);
  }
  if (const Json* value = StrictReader::find(input, "arguments")) {
    r.strings(*value, "arguments", 256, UNLIMITED, s.arguments);
    for (size_t i = 0; i < s.arguments.size(); ++i) {
      // execve ends every argument at its first NUL: the target would see another argument.
      if (s.arguments[i].find('\0') != std::string::npos) {
        r.fail(indexPath("arguments", i), "must not contain a NUL character");
      }
    }
  }
  if (const Json* value = r.require(input, root, "working_directory")) {
    r.absolutePath(*value, "working_directory", s.workingDirectory);
  }
  if (const Json* value = StrictReader::find(input, "environment")) {
    environment(*value, "environment", s.environment);
  }
  if (const Json* value = StrictReader::find(input, "inherit_environment")) {
    environmentNameList(*value, "inherit_environment", 64, s.inheritEnvironment, facts.inherited);
  }
  if (const Json* value = StrictReader::find(input, "secret_aliases")) {
    environmentNameList(*value, "secret_aliases", 64, s.secretAliases, facts.aliases);
  }
  if (const Json* value = StrictReader::find(input, "network_access")) {
    size_t index;
    if (r.oneOf(*value, "network_access", {"host", "loopback"}, index)) {
      s.networkAccess = index == 0 ? NetworkAccess::HOST : NetworkAccess::LOOPBACK;
    }
  }
  if (const Json* value = StrictReader::find(input, "filesystem_roots")) {
    r.array(*value, "filesystem_roots", 0, 16,
            [&](const Json& element, const std::string& path, size_t) {
              std::string rootPath;
              if (r.absolutePath(element, path, rootPath)) s.filesystemRoots.push_back(rootPath);
            });
  }
  if (const Json* value = StrictReader::find(input, "terminal")) {
    s.terminal = terminal(*value, "terminal");
  }
  if (const Json* value = StrictReader::find(input, "checkpoints")) {
    r.array(*value, "checkpoints", 0, 64,
            [&](const Json& element, const std::string& path, size_t index) {
              checkpoint(element, path, index, s.checkpoints);
            });
  }
  if (const Json* value = StrictReader::find(input, "command_shims")) {
    r.array(*value, "command_shims", 0, 32,
            [&](const Json& element, const std::string& path, size_t index) {
              commandShim(element, path, index, s.commandShims);
            });
  }
  if (const Json* value = StrictReader::find(input, "events")) {
    r.array(*value, "events", 0, 1000,
            [&](const Json& element, const std::string& path, size_t index) {
              event(element, path, index, s.events);
            });
  }
  if (const Json* value = StrictReader::find(input, "timeout_ms")) {
    facts.timeoutValid = r.integer(*value, "timeout_ms", timing::TIMEOUT_MS.min,
                                   timing::TIMEOUT_MS.max, s.timeoutMs);
  }
  optionalInteger(input, root, "idle_timeout_ms", timing::IDLE_TIMEOUT_MS, s.idleTimeoutMs);
  optionalInteger(input, root, "settle_ms", 0, 10000, s.settleMs);
  if (const Json* value = StrictReader::find(input, "limits")) {
    s.limits = limits(*value, "limits");
  }
  if (const Json* value = StrictReader::find(input, "normalization")) {
    s.normalization = normalization(*value, "normalization");
  }
  if (const Json* value = StrictReader::find(input, "replay")) {
    s.replay = replay(*value, "replay");
  }

  applyCrossFieldRules(facts, s.timeoutMs, r);
  if (r.issues().empty()) checkConditionsHoldNoSecret(s, r);

  if (!r.issues().empty()) return ScenarioParseResult{std::nullopt, std::move(r.issues())};
  return ScenarioParseResult{std::move(s), {}};
}

bool ScenarioParser::signal(const Json& value, const std::string& path, TargetSignal& out) {
  size_t index;
  if (!r.oneOf(value, path, {"SIGINT", "SIGTERM", "SIGKILL"}, index)) return false;
  static const TargetSignal SIGNALS[] = {TargetSignal::INTERRUPT, TargetSignal::TERMINATE,
                                         TargetSignal::KILL};
  out = SIGNALS[index];
  return true;
}

bool ScenarioParser::checkedName(const Json& value, const std::string& path, size_t maxUnits,
                                 const char* extra, const char* rule, std::string& out) {
  if (!value.is_string()) {
    r.fail(path, "must be a string, got " + StrictReader::describe(value));
    return false;
  }
  const auto& name = value.get_ref<const std::string&>();
  bool ok = true;
  size_t units = utf16Length(name);
  if (units < 1 || units > maxUnits) {
    r.fail(path, "must be 1 to " + std::to_string(maxUnits) +
                     " characters (UTF-16 code units), got " + std::to_string(units));
    ok = false;
  }
  if (units > 0 && !isSimpleName(name, extra)) {
    r.fail(path, std::string(rule) + ", got " + StrictReader::describe(value));
    ok = false;
  }
  if (ok) out = name;
  return ok;
}

void ScenarioParser::environmentNameList(const Json& value, const std::string& path,
                                         size_t maxItems, std::vector<std::string>& out,
                                         std::vector<std::pair<size_t, std::string>>& valid) {
  r.array(value, path, 0, maxItems,
          [&](const Json& element, const std::string& elementPath, size_t index) {
            std::string name;
            if (!r.string(element, elementPath, UNLIMITED, name)) return;
            if (!isEnvironmentName(name)) {
              r.fail(elementPath, std::string(ENVIRONMENT_NAME_RULE) + ", got " +
                                      StrictReader::describe(element));
              return;
            }
            valid.emplace_back(index, name);
            out.push_back(std::move(name));
          });
}

void ScenarioParser::environment(const Json& value, const std::string& path,
                                 std::vector<NamedValue>& out) {
  r.members(value, path,
            [&](const std::string& name, const Json& member, const std::string& memberPath) {
              bool nameOk = isEnvironmentName(name);
              if (!nameOk) {
                r.fail(memberPath, std::string("the key ") + ENVIRONMENT_NAME_RULE);
              }
              if (nameOk) facts.environmentNames.push_back(name);
              // The value is never quoted in a message: it may be a secret.
              if (!member.is_string()) {
                r.fail(memberPath, "must be a string, got " + StrictReader::describe(member));
              } else if (member.get_ref<const std::string&>().find('\0') != std::string::npos) {
                r.fail(memberPath, "must not contain a NUL character");  // execve would cut it
              } else if (nameOk) {
                out.push_back(NamedValue{name, member.get<std::string>()});
              }
            });
}

void ScenarioParser::headers(const Json& value, const std::string& path,
                             std::vector<NamedValue>& out, bool response) {
  // Response headers must be sendable (RFC 9110: a token name; no CR, LF or NUL in the value):
  // the replay server could not send anything else, so the scenario is refused up front.
  auto tokenChar = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  };
  r.members(value, path,
            [&](const std::string& name, const Json& member, const std::string& memberPath) {
              std::string text;
              if (!r.string(member, memberPath, UNLIMITED, text)) return;
              if (response) {
                if (name.empty() || !std::all_of(name.begin(), name.end(), tokenChar)) {
                  return r.fail(memberPath, "header name must be an HTTP token");
                }
                if (text.find_first_of(std::string("\r\n\0", 3)) != std::string::npos) {
                  return r.fail(memberPath, "header value must not contain CR, LF or NUL");
                }
              }
              out.push_back(NamedValue{name, text});
            });
}

Terminal ScenarioParser::terminal(const Json& value, const std::string& path) {
  Terminal t;
  if (!r.object(value, path, {"columns", "rows", "scrollback"})) return t;
  optionalInteger(value, path, "columns", terminal::COLUMNS, t.columns);
  optionalInteger(value, path, "rows", terminal::ROWS, t.rows);
  optionalInteger(value, path, "scrollback", terminal::SCROLLBACK, t.scrollback);
  return t;
}

Limits ScenarioParser::limits(const Json& value, const std::string& path) {
  Limits l;
  if (!r.object(value, path,
                {"output_bytes", "frames", "files", "file_bytes", "processes", "protocol_events",
                 "protocol_body_bytes", "connections", "filesystem_depth"})) {
    return l;
  }
  optionalInteger(value, path, "output_bytes", limit::OUTPUT_BYTES, l.outputBytes);
  optionalInteger(value, path, "frames", limit::FRAMES, l.frames);
  optionalInteger(value, path, "files", limit::FILES, l.files);
  optionalInteger(value, path, "file_bytes", limit::FILE_BYTES, l.fileBytes);
  optionalInteger(value, path, "processes", limit::PROCESSES, l.processes);
  optionalInteger(value, path, "protocol_events", limit::PROTOCOL_EVENTS, l.protocolEvents);
  optionalInteger(value, path, "protocol_body_bytes", limit::PROTOCOL_BODY_BYTES,
                  l.protocolBodyBytes);
  optionalInteger(value, path, "connections", limit::CONNECTIONS, l.connections);
  optionalInteger(value, path, "filesystem_depth", limit::FILESYSTEM_DEPTH, l.filesystemDepth);
  return l;
}

Normalization ScenarioParser::normalization(const Json& value, const std::string& path) {
  Normalization n;
  if (!r.object(value, path, {"paths", "pids", "ports", "time_bucket_ms", "patterns"})) return n;
  optionalBoolean(value, path, "paths", n.paths);
  optionalBoolean(value, path, "pids", n.pids);
  optionalBoolean(value, path, "ports", n.ports);
  optionalInteger(value, path, "time_bucket_ms", 1, 60000, n.timeBucketMs);
  if (const Json* patterns = StrictReader::find(value, "patterns")) {
    r.array(*patterns, childPath(path, "patterns"), 0, 32,
            [&](const Json& element, const std::string& elementPath, size_t) {
              if (!r.object(element, elementPath, {"pattern", "replacement"})) return;
              size_t before = r.issueCount();
              NormalizationPattern p;
              requiredString(element, elementPath, "pattern", 500, p.pattern);
              requiredString(element, elementPath, "replacement", 100, p.replacement);
              if (r.issueCount() == before) n.patterns.push_back(std::move(p));
            });
  }
  return n;
}

ScenarioParseResult parseScenario(const Json& input) {
  return ScenarioParser().parse(input);
}

}  // namespace rea::evidence
