#pragma once
// The captures an `rea mcp` connection made (issue 26, B §10.2's session ledger), kept so that
// `compare_process_captures` can name them by Evidence id and check that a capture a client
// hands back is the one stored. Bounded in count and in bytes (the Evidence as serialised):
// adding beyond either bound evicts the oldest captures, and the caller tells the client which.
// Thread-safe: the capture worker adds while the protocol thread looks up.
//
// Errors: none thrown.

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "evidence/json.h"

namespace rea::supervisor {

constexpr size_t MCP_LEDGER_CAPTURES = 64;
constexpr size_t MCP_LEDGER_BYTES = 256u << 20;  // 256 MiB

struct LedgerEntry {
  std::string evidenceId;
  std::shared_ptr<const evidence::Json> evidence;  // the capture Evidence record
  size_t bytes = 0;                                // its serialised size
  std::string captureSha256;  // H(normalized_result): what a supplied capture must match
};

struct LedgerAdmission {
  bool stored = false;               // false when the record alone exceeds the byte bound
  std::vector<std::string> evicted;  // Evidence ids removed to make room, oldest first
};

class McpLedger {
 public:
  explicit McpLedger(size_t maxCaptures = MCP_LEDGER_CAPTURES, size_t maxBytes = MCP_LEDGER_BYTES)
      : maxCaptures(maxCaptures), maxBytes(maxBytes) {}

  LedgerAdmission add(LedgerEntry entry);
  // Stores the entry as the newest (replacing one with the same id), evicting the oldest until
  // both bounds hold.

  std::shared_ptr<const LedgerEntry> find(const std::string& evidenceId) const;
  // nullptr when the id was never stored here or has been evicted.

  size_t size() const;
  size_t totalBytes() const;

 private:
  const size_t maxCaptures;
  const size_t maxBytes;
  mutable std::mutex mutex;
  std::deque<std::shared_ptr<const LedgerEntry>> entries;  // oldest first
  size_t bytes = 0;
};

}  // namespace rea::supervisor
