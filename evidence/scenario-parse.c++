// parseScenario (declared in scenario.h): B §3 field by field, then the cross-field rules of
// §3.5 (scenario-rules.c++). Reading is done by StrictReader (types, bounds, unknown keys); this
// file knows the schema. Each part is read in document order so issues come out in the order of
// the input's structure; while reading, the valid names and times are collected as
// ScenarioFacts, so a broken element yields its own issue and is not reported a second time by a
// cross-field rule.

#include "evidence/scenario.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <nlohmann/json.hpp>

#include "evidence/scenario-condition.h"
#include "evidence/scenario-rules.h"
#include "evidence/strict-reader.h"
#include "evidence/utf.h"

namespace rea::evidence {

namespace {

constexpr size_t UNLIMITED = StrictReader::UNLIMITED;
constexpr int64_t NO_UPPER_BOUND = StrictReader::MAX_SAFE_INTEGER;
constexpr size_t MAX_BODY_UNITS = 1000000;

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

class ScenarioParser {
 public:
  ScenarioParseResult parse(const Json& input);

 private:
  StrictReader r;
  ScenarioFacts facts;

  // Reads an optional integer member into `out` (left at its default when absent).
  template <typename Int>
  void optionalInteger(const Json& object, const std::string& path, const char* key, int64_t min,
                       int64_t max, Int& out) {
    if (const Json* member = StrictReader::find(object, key)) {
      r.integer(*member, childPath(path, key), min, max, out);
    }
  }
  template <typename Int>
  void optionalInteger(const Json& object, const std::string& path, const char* key,
                       const Bound& bound, Int& out) {
    optionalInteger(object, path, key, bound.min, bound.max, out);
  }
  template <typename Int>
  bool requiredInteger(const Json& object, const std::string& path, const char* key, int64_t min,
                       int64_t max, Int& out) {
    const Json* member = r.require(object, path, key);
    return member != nullptr && r.integer(*member, childPath(path, key), min, max, out);
  }
  void optionalBoolean(const Json& object, const std::string& path, const char* key, bool& out) {
    if (const Json* member = StrictReader::find(object, key)) {
      r.boolean(*member, childPath(path, key), out);
    }
  }
  void requiredString(const Json& object, const std::string& path, const char* key, size_t maxUnits,
                      std::string& out) {
    if (const Json* member = r.require(object, path, key)) {
      r.string(*member, childPath(path, key), maxUnits, out);
    }
  }
  bool signal(const Json& value, const std::string& path, TargetSignal& out);
  bool checkedName(const Json& value, const std::string& path, size_t maxUnits, const char* extra,
                   const char* rule, std::string& out);
  void environmentNameList(const Json& value, const std::string& path, size_t maxItems,
                           std::vector<std::string>& out,
                           std::vector<ScenarioFacts::Indexed>& valid);

  void environment(const Json& value, const std::string& path, std::vector<NamedValue>& out);
  void headers(const Json& value, const std::string& path, std::vector<NamedValue>& out,
               bool response = false);
  Terminal terminal(const Json& value, const std::string& path);
  void checkpoint(const Json& value, const std::string& path, size_t index,
                  std::vector<CheckpointDeclaration>& out);
  bool trigger(const Json& value, const std::string& path, Trigger& out);
  void commandShim(const Json& value, const std::string& path, size_t index,
                   std::vector<CommandShim>& out);
  void route(const Json& value, const std::string& path, std::vector<Route>& out);
  void shimOutput(const Json& value, const std::string& path, std::vector<ShimOutput>& out);
  bool termination(const Json& value, const std::string& path, Termination& out);
  void event(const Json& value, const std::string& path, size_t index, std::vector<Event>& out);
  Limits limits(const Json& value, const std::string& path);
  Normalization normalization(const Json& value, const std::string& path);
  Replay replay(const Json& value, const std::string& path);
  void httpRoute(const Json& value, const std::string& path, std::vector<HttpRoute>& out);
  void webSocketConnection(const Json& value, const std::string& path,
                           std::vector<WebSocketConnection>& out);
};

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

void ScenarioParser::checkpoint(const Json& value, const std::string& path, size_t index,
                                std::vector<CheckpointDeclaration>& out) {
  if (!r.object(value, path, {"name", "trigger"})) return;
  size_t before = r.issueCount();
  CheckpointDeclaration c;
  if (const Json* name = r.require(value, path, "name")) {
    if (checkedName(*name, childPath(path, "name"), 64, "_-",
                    "must start with a letter or digit and contain only letters, digits, _ and -",
                    c.name)) {
      facts.checkpointNames.emplace_back(index, c.name);
    }
  }
  if (const Json* trig = r.require(value, path, "trigger")) {
    trigger(*trig, childPath(path, "trigger"), c.trigger);
  }
  if (r.issueCount() == before) out.push_back(std::move(c));
}

bool ScenarioParser::trigger(const Json& value, const std::string& path, Trigger& out) {
  if (!value.is_object()) {
    r.fail(path, "must be an object, got " + StrictReader::describe(value));
    return false;
  }
  const Json* type = r.require(value, path, "type");
  size_t kind;
  if (type == nullptr || !r.oneOf(*type, childPath(path, "type"),
                                  {"time", "terminal_literal", "root_exit", "settled"}, kind)) {
    return false;
  }
  size_t before = r.issueCount();
  switch (kind) {
    case 0: {
      r.object(value, path, {"type", "at_ms"});
      TimeTrigger time;
      requiredInteger(value, path, "at_ms", 0, 300000, time.atMs);
      out.kind = time;
      break;
    }
    case 1: {
      r.object(value, path, {"type", "value", "occurrence"});
      TerminalLiteralTrigger literal;
      if (const Json* text = r.require(value, path, "value")) {
        std::string valuePath = childPath(path, "value");
        if (r.string(*text, valuePath, 10000, literal.value) && literal.value.empty()) {
          r.fail(valuePath, "must not be empty");
        }
      }
      optionalInteger(value, path, "occurrence", 1, 1000, literal.occurrence);
      out.kind = literal;
      break;
    }
    case 2:
      r.object(value, path, {"type"});
      out.kind = RootExitTrigger{};
      break;
    default:
      r.object(value, path, {"type"});
      out.kind = SettledTrigger{};
      break;
  }
  return r.issueCount() == before;
}

void ScenarioParser::commandShim(const Json& value, const std::string& path, size_t index,
                                 std::vector<CommandShim>& out) {
  if (!r.object(value, path, {"name", "routes"})) return;
  size_t before = r.issueCount();
  CommandShim shim;
  if (const Json* name = r.require(value, path, "name")) {
    if (checkedName(
            *name, childPath(path, "name"), 128, "._-",
            "must start with a letter or digit and contain only letters, digits, ., _ and -",
            shim.name)) {
      facts.shimNames.emplace_back(index, shim.name);
    }
  }
  if (const Json* routes = r.require(value, path, "routes")) {
    r.array(*routes, childPath(path, "routes"), 1, 100,
            [&](const Json& element, const std::string& elementPath, size_t) {
              route(element, elementPath, shim.routes);
            });
  }
  if (r.issueCount() == before) out.push_back(std::move(shim));
}

void ScenarioParser::route(const Json& value, const std::string& path, std::vector<Route>& out) {
  if (!r.object(value, path, {"arguments", "outputs", "termination", "max_calls"})) return;
  size_t before = r.issueCount();
  Route route;
  if (const Json* arguments = r.require(value, path, "arguments")) {
    r.strings(*arguments, childPath(path, "arguments"), 256, UNLIMITED, route.arguments);
  }
  if (const Json* outputs = StrictReader::find(value, "outputs")) {
    r.array(*outputs, childPath(path, "outputs"), 0, 1000,
            [&](const Json& element, const std::string& elementPath, size_t) {
              shimOutput(element, elementPath, route.outputs);
            });
  }
  if (const Json* termination = r.require(value, path, "termination")) {
    this->termination(*termination, childPath(path, "termination"), route.termination);
  }
  optionalInteger(value, path, "max_calls", 1, 100, route.maxCalls);
  if (r.issueCount() == before) out.push_back(std::move(route));
}

void ScenarioParser::shimOutput(const Json& value, const std::string& path,
                                std::vector<ShimOutput>& out) {
  if (!r.object(value, path, {"at_ms", "stream", "data"})) return;
  size_t before = r.issueCount();
  ShimOutput output;
  requiredInteger(value, path, "at_ms", 0, 300000, output.atMs);
  if (const Json* stream = r.require(value, path, "stream")) {
    size_t index;
    if (r.oneOf(*stream, childPath(path, "stream"), {"stdout", "stderr"}, index)) {
      output.stream = index == 0 ? OutputStream::STDOUT : OutputStream::STDERR;
    }
  }
  requiredString(value, path, "data", MAX_BODY_UNITS, output.data);
  if (r.issueCount() == before) out.push_back(std::move(output));
}

bool ScenarioParser::termination(const Json& value, const std::string& path, Termination& out) {
  if (!value.is_object()) {
    r.fail(path, "must be an object, got " + StrictReader::describe(value));
    return false;
  }
  const Json* type = r.require(value, path, "type");
  size_t kind;
  if (type == nullptr || !r.oneOf(*type, childPath(path, "type"), {"exit", "signal"}, kind)) {
    return false;
  }
  size_t before = r.issueCount();
  if (kind == 0) {
    r.object(value, path, {"type", "code"});
    ExitTermination exit;
    requiredInteger(value, path, "code", 0, 255, exit.code);
    out.kind = exit;
  } else {
    r.object(value, path, {"type", "signal"});
    SignalTermination sig;
    if (const Json* name = r.require(value, path, "signal")) {
      signal(*name, childPath(path, "signal"), sig.signal);
    }
    out.kind = sig;
  }
  return r.issueCount() == before;
}

void ScenarioParser::event(const Json& value, const std::string& path, size_t index,
                           std::vector<Event>& out) {
  if (!value.is_object()) {
    r.fail(path, "must be an object, got " + StrictReader::describe(value));
    return;
  }
  const Json* type = r.require(value, path, "type");
  size_t kind;
  if (type == nullptr ||
      !r.oneOf(*type, childPath(path, "type"), {"input", "resize", "signal"}, kind)) {
    return;
  }
  size_t before = r.issueCount();
  Event e;
  readReactiveMembers(r, value, path, e);
  bool waits = StrictReader::find(value, "when") != nullptr;
  // An event that waits may omit at_ms (then 0: no earliest time).
  bool timed = waits ? StrictReader::find(value, "at_ms") == nullptr ||
                           r.integer(*StrictReader::find(value, "at_ms"), childPath(path, "at_ms"),
                                     0, NO_UPPER_BOUND, e.atMs)
                     : requiredInteger(value, path, "at_ms", 0, NO_UPPER_BOUND, e.atMs);
  if (timed) {
    facts.eventTimes.emplace_back(index, e.atMs);
    if (!waits) facts.orderedEventTimes.emplace_back(index, e.atMs);
  }
  if (e.when) {
    if (auto* checkpoint = std::get_if<CheckpointCondition>(&e.when->kind)) {
      facts.conditionCheckpoints.emplace_back(index, checkpoint->name);
    }
  }
  if (kind == 0) {
    r.object(
        value, path,
        {"type", "at_ms", "data", "sensitive", "when", "delay_ms", "timeout_ms", "on_timeout"});
    InputAction input;
    requiredString(value, path, "data", UNLIMITED, input.data);
    optionalBoolean(value, path, "sensitive", input.sensitive);
    e.action = std::move(input);
  } else if (kind == 1) {
    r.object(value, path,
             {"type", "at_ms", "columns", "rows", "when", "delay_ms", "timeout_ms", "on_timeout"});
    ResizeAction resize;
    requiredInteger(value, path, "columns", terminal::COLUMNS.min, terminal::COLUMNS.max,
                    resize.columns);
    requiredInteger(value, path, "rows", terminal::ROWS.min, terminal::ROWS.max, resize.rows);
    e.action = resize;
  } else {
    r.object(value, path,
             {"type", "at_ms", "signal", "when", "delay_ms", "timeout_ms", "on_timeout"});
    SignalAction sig;
    if (const Json* name = r.require(value, path, "signal")) {
      signal(*name, childPath(path, "signal"), sig.signal);
    }
    e.action = sig;
  }
  if (r.issueCount() == before) out.push_back(std::move(e));
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

Replay ScenarioParser::replay(const Json& value, const std::string& path) {
  Replay replay;
  if (!r.object(value, path, {"http", "websocket_messages", "websocket_connections"})) {
    return replay;
  }
  if (const Json* http = StrictReader::find(value, "http")) {
    r.array(*http, childPath(path, "http"), 0, 100,
            [&](const Json& element, const std::string& elementPath, size_t) {
              httpRoute(element, elementPath, replay.http);
            });
  }
  if (const Json* messages = StrictReader::find(value, "websocket_messages")) {
    r.strings(*messages, childPath(path, "websocket_messages"), 100, MAX_BODY_UNITS,
              replay.websocketMessages);
  }
  if (const Json* connections = StrictReader::find(value, "websocket_connections")) {
    r.array(*connections, childPath(path, "websocket_connections"), 0, 100,
            [&](const Json& element, const std::string& elementPath, size_t) {
              webSocketConnection(element, elementPath, replay.websocketConnections);
            });
  }
  return replay;
}

void ScenarioParser::httpRoute(const Json& value, const std::string& path,
                               std::vector<HttpRoute>& out) {
  if (!r.object(value, path,
                {"method", "path", "status", "body", "request_headers", "request_body",
                 "response_headers", "delay_ms", "disconnect", "max_calls"})) {
    return;
  }
  size_t before = r.issueCount();
  HttpRoute route;
  requiredString(value, path, "method", 16, route.method);
  if (const Json* target = r.require(value, path, "path")) {
    r.absolutePath(*target, childPath(path, "path"), route.path);
  }
  requiredInteger(value, path, "status", 100, 599, route.status);
  requiredString(value, path, "body", MAX_BODY_UNITS, route.body);
  if (const Json* headers = StrictReader::find(value, "request_headers")) {
    this->headers(*headers, childPath(path, "request_headers"), route.requestHeaders);
  }
  if (const Json* body = StrictReader::find(value, "request_body")) {
    std::string text;
    if (r.string(*body, childPath(path, "request_body"), MAX_BODY_UNITS, text)) {
      route.requestBody = std::move(text);
    }
  }
  if (const Json* headers = StrictReader::find(value, "response_headers")) {
    this->headers(*headers, childPath(path, "response_headers"), route.responseHeaders, true);
  }
  optionalInteger(value, path, "delay_ms", 0, 30000, route.delayMs);
  optionalBoolean(value, path, "disconnect", route.disconnect);
  optionalInteger(value, path, "max_calls", 1, 100, route.maxCalls);
  if (r.issueCount() == before) out.push_back(std::move(route));
}

void ScenarioParser::webSocketConnection(const Json& value, const std::string& path,
                                         std::vector<WebSocketConnection>& out) {
  if (!r.object(value, path, {"messages", "disconnect_after"})) return;
  size_t before = r.issueCount();
  WebSocketConnection connection;
  if (const Json* messages = r.require(value, path, "messages")) {
    r.array(*messages, childPath(path, "messages"), 0, 100,
            [&](const Json& element, const std::string& elementPath, size_t) {
              if (!r.object(element, elementPath, {"data", "delay_ms"})) return;
              size_t messageBefore = r.issueCount();
              WebSocketMessage message;
              requiredString(element, elementPath, "data", MAX_BODY_UNITS, message.data);
              optionalInteger(element, elementPath, "delay_ms", 0, 30000, message.delayMs);
              if (r.issueCount() == messageBefore) connection.messages.push_back(message);
            });
  }
  optionalBoolean(value, path, "disconnect_after", connection.disconnectAfter);
  if (r.issueCount() == before) out.push_back(std::move(connection));
}

}  // namespace

ScenarioParseResult parseScenario(const Json& input) {
  return ScenarioParser().parse(input);
}

}  // namespace rea::evidence
