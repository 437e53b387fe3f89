// Fuzz target: the normaliser/redactor (evidence/normalise.h) and its streaming form
// (evidence/chunk-normaliser.h), SPEC B §4.6.1 with A3/A5.
//
// Input layout (so that seeds can be written by hand, see corpus/normaliser/):
//   byte 0      flags: 1 normalisePaths, 2 normalisePids, 4 normalisePorts, 8 use the pattern
//   bytes 1-4   two split offsets (little-endian u16, taken modulo the text length + 1)
//   then NUL-separated fields: secret 1, secret 2, sensitive input data, temporary root,
//   working directory, executable, filesystem root, pids ("4242,42"), harness ports, pattern,
//   replacement; everything after the eleventh NUL is the text (it may hold NULs itself).
//
// Properties:
//  - pushing the text in three chunks cut at the two offsets, then flush(), gives exactly
//    normalise(text) (SPEC A3: a value split over two reads is still redacted);
//  - no secret and no sensitive echo appears in the output or in any piece push() returns,
//    unless the value could be produced by the replacements themselves: a pattern is in use
//    (its replacement is arbitrary text), or the value contains `<`/`>` or is a substring of a
//    placeholder like `<redacted>` (then a placeholder next to text can spell it).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/chunk-normaliser.h"
#include "evidence/normalise.h"

namespace {

using rea::evidence::ChunkNormaliser;
using rea::evidence::NormaliseContext;

void check(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "property failed: %s\n", what);
    abort();
  }
}

std::vector<int64_t> numbers(std::string_view text) {
  std::vector<int64_t> result;
  int64_t value = 0;
  int digits = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 12) {
      value = value * 10 + (text[i] - '0');
      ++digits;
    } else {
      if (digits > 0) result.push_back(value);
      value = 0;
      digits = 0;
    }
  }
  return result;
}

bool placeholderCouldSpell(const std::string& value) {
  if (value.find_first_of("<>") != std::string::npos) return true;
  std::vector<std::string> placeholders = {
      "<redacted>", "<temporary-root>", "<working-directory>", "<executable>", "<pid>", "<port>"};
  for (int i = 0; i < 10; ++i)
    placeholders.push_back("<filesystem-root-" + std::to_string(i) + ">");
  for (const auto& placeholder : placeholders)
    if (placeholder.find(value) != std::string::npos) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  uint8_t flags = data[0];
  size_t splitA = data[1] | (size_t(data[2]) << 8);
  size_t splitB = data[3] | (size_t(data[4]) << 8);
  std::string_view rest(reinterpret_cast<const char*>(data) + 5, size - 5);

  std::vector<std::string> fields;
  while (fields.size() < 11) {
    size_t end = rest.find('\0');
    if (end == std::string_view::npos) return 0;
    fields.emplace_back(rest.substr(0, end));
    rest.remove_prefix(end + 1);
  }
  std::string text(rest);

  NormaliseContext context;
  context.secrets = {fields[0], fields[1]};
  context.sensitiveInputs = {fields[2]};
  context.temporaryRoot = fields[3];
  context.workingDirectory = fields[4];
  context.executable = fields[5];
  context.filesystemRoots = {fields[6]};
  context.pids = numbers(fields[7]);
  context.harnessPorts = numbers(fields[8]);
  context.normalisePaths = flags & 1;
  context.normalisePids = flags & 2;
  context.normalisePorts = flags & 4;
  bool patterned = flags & 8;
  if (patterned) context.patterns = {{fields[9], fields[10]}};

  std::string whole = rea::evidence::normalise(text, context);

  splitA %= text.size() + 1;
  splitB %= text.size() + 1;
  if (splitA > splitB) std::swap(splitA, splitB);
  ChunkNormaliser stream(context);
  std::vector<std::string> pieces;
  pieces.push_back(stream.push(std::string_view(text).substr(0, splitA)));
  pieces.push_back(stream.push(std::string_view(text).substr(splitA, splitB - splitA)));
  pieces.push_back(stream.push(std::string_view(text).substr(splitB)));
  pieces.push_back(stream.flush());
  std::string joined;
  for (const auto& piece : pieces)
    joined += piece;
  check(joined == whole, "chunked output equals whole-text output");

  if (patterned) return 0;
  std::vector<std::string> hidden = {fields[0], fields[1]};
  if (auto echo = rea::evidence::sensitiveEcho(fields[2])) hidden.push_back(*echo);
  for (const auto& value : hidden) {
    if (value.empty() || placeholderCouldSpell(value)) continue;
    check(whole.find(value) == std::string::npos, "no secret in the output");
    for (const auto& piece : pieces)
      check(piece.find(value) == std::string::npos, "no secret in a returned piece");
  }
  return 0;
}
