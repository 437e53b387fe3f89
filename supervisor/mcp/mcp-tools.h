#pragma once
// The two tools of `rea mcp` (issue 26, SPEC B §10.2): their descriptions for `tools/list`, and
// everything about a `tools/call` except running the capture (mcp-server.h does that on its
// capture thread): reading a capture request, the results and error results, the ledger entry of
// a finished capture, and the whole comparison.
//
// A tool's failure is a tool result with `isError: true` whose text is the B §2.4 message and
// whose structured content is `{error: <the error object>}`, as the baseline projects it; so a
// client sees the same error objects as the CLI prints.
//
// Errors: none thrown.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/error.h"
#include "evidence/json.h"
#include "evidence/scenario.h"
#include "supervisor/mcp/mcp-ledger.h"

namespace rea::supervisor {

constexpr char CAPTURE_TOOL[] = "capture_process_scenario";
constexpr char COMPARE_TOOL[] = "compare_process_captures";

evidence::Json mcpTools();
// The `tools` array of `tools/list`: name, title, description, inputSchema, outputSchema
// (the capture tool's input is schema/json/scenario.schema.json, its output
// capture-evidence.schema.json; the comparison's output comparison-evidence.schema.json).

evidence::Json toolResult(const evidence::Json& evidence, const std::vector<std::string>& notes);
// A successful result: `structuredContent` is the Evidence, the first text content its JSON
// (for clients that read only text), then one text content per note.

evidence::Json toolError(const evidence::CommandError& error);
// An error result (isError true): text = the message, structuredContent = {error: object}.

struct CaptureRequest {
  std::optional<evidence::Scenario> scenario;   // admitted: ready to capture
  std::optional<evidence::CommandError> error;  // or why not (exactly one is set)
};

CaptureRequest readCaptureRequest(const evidence::Json& arguments);
// The scenario given as the tool's arguments, parsed (B §3) and admitted under this process's
// operator policy exactly as `rea capture-process` does (capture-scenario.h admitScenario()).

LedgerEntry ledgerEntryFor(evidence::Json evidence);
// The ledger entry of a capture Evidence record this process just built.

std::vector<std::string> ledgerNotes(const std::string& evidenceId,
                                     const LedgerAdmission& admission);
// What the capture result says about the ledger: stored (or too large to keep), and which
// older captures were evicted.

evidence::Json compareProcessCaptures(const evidence::Json& arguments, const McpLedger& ledger,
                                      int64_t nowEpochMs);
// The complete `tools/call` result of the comparison tool: arguments checked, both captures
// taken from the ledger by Evidence id (an unknown id, or a supplied `left`/`right` capture that
// differs from the stored one, is an integrity error), B §9.1 rules 2 and 3 (integrity errors
// too, as in the baseline), then the comparison Evidence.

}  // namespace rea::supervisor
