#include "supervisor/mcp/mcp-ledger.h"

namespace rea::supervisor {

LedgerAdmission McpLedger::add(LedgerEntry entry) {
  LedgerAdmission admission;
  std::lock_guard<std::mutex> lock(mutex);
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if ((*it)->evidenceId == entry.evidenceId) {
      bytes -= (*it)->bytes;
      entries.erase(it);
      break;
    }
  }
  if (entry.bytes > maxBytes || maxCaptures == 0) return admission;
  while (!entries.empty() && (entries.size() + 1 > maxCaptures || bytes + entry.bytes > maxBytes)) {
    admission.evicted.push_back(entries.front()->evidenceId);
    bytes -= entries.front()->bytes;
    entries.pop_front();
  }
  bytes += entry.bytes;
  entries.push_back(std::make_shared<const LedgerEntry>(std::move(entry)));
  admission.stored = true;
  return admission;
}

std::shared_ptr<const LedgerEntry> McpLedger::find(const std::string& evidenceId) const {
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto& entry : entries) {
    if (entry->evidenceId == evidenceId) return entry;
  }
  return nullptr;
}

size_t McpLedger::size() const {
  std::lock_guard<std::mutex> lock(mutex);
  return entries.size();
}

size_t McpLedger::totalBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return bytes;
}

}  // namespace rea::supervisor
