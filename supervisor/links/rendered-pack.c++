#include "supervisor/links/rendered-pack.h"

#include <kj/debug.h>
#include <string.h>

#include <functional>

namespace rea::supervisor {

namespace {

const size_t MIN_COPY = 12;  // shorter matches cost about as much as the literal
const char LITERAL = 0;
const char COPY = 1;

void putNumber(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

uint64_t getNumber(std::string_view in, size_t& at) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    KJ_REQUIRE(at < in.size(), "packed rendered frame truncated");
    auto byte = static_cast<unsigned char>(in[at++]);
    value |= uint64_t(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  KJ_FAIL_REQUIRE("packed rendered frame: bad number");
}

size_t keyOf(std::string_view text) {
  return std::hash<std::string_view>()(text);
}

// A frame's content as one string: the line count, each line (length, bytes, '\n' so that line
// starts are anchors too), then the serialized state.
std::string blobOf(const PtyRenderedFrame& frame) {
  std::string blob;
  size_t size = frame.serializedState.size() + 8;
  for (const auto& line : frame.lines)
    size += line.size() + 4;
  blob.reserve(size);
  putNumber(blob, frame.lines.size());
  for (const auto& line : frame.lines) {
    putNumber(blob, line.size());
    blob += line;
    blob += '\n';
  }
  blob += frame.serializedState;
  return blob;
}

void restore(PtyRenderedFrame& frame, std::string_view blob) {
  size_t at = 0;
  uint64_t count = getNumber(blob, at);
  KJ_REQUIRE(count <= blob.size(), "packed rendered frame: bad line count");
  frame.lines.clear();
  frame.lines.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t length = getNumber(blob, at);
    KJ_REQUIRE(length < blob.size() - at, "packed rendered frame: bad line");
    frame.lines.emplace_back(blob.substr(at, length));
    at += length + 1;
  }
  frame.serializedState.assign(blob.substr(at));
}

void release(std::string& text) {
  std::string().swap(text);
}

}  // namespace

std::string deltaEncode(std::string_view base, std::string_view target) {
  // Anchors: the base's line starts, by the hash of their first MIN_COPY bytes (a direct-mapped
  // table: a collision only loses a copy).
  std::vector<uint32_t> table;
  size_t mask = 0;
  if (base.size() >= MIN_COPY) {
    size_t anchors = 1;
    for (const char* p = base.data();
         (p = static_cast<const char*>(memchr(p, '\n', base.end() - p))) != nullptr;) {
      ++p;
      ++anchors;
    }
    size_t slots = 16;
    while (slots < 2 * anchors)
      slots *= 2;
    table.assign(slots, 0);
    mask = slots - 1;
    for (size_t p = 0; p + MIN_COPY <= base.size();) {
      table[keyOf(base.substr(p, MIN_COPY)) & mask] = uint32_t(p + 1);
      const void* next = memchr(base.data() + p, '\n', base.size() - p);
      if (next == nullptr) break;
      p = static_cast<const char*>(next) - base.data() + 1;
    }
  }
  std::string out;
  size_t literalFrom = 0;
  auto flushLiteral = [&](size_t end) {
    if (end <= literalFrom) return;
    out += LITERAL;
    putNumber(out, end - literalFrom);
    out.append(target.substr(literalFrom, end - literalFrom));
  };
  size_t i = 0;
  while (i < target.size()) {
    size_t from = std::string_view::npos;
    if (!table.empty() && i + MIN_COPY <= target.size()) {
      uint32_t slot = table[keyOf(target.substr(i, MIN_COPY)) & mask];
      if (slot != 0 && base.substr(slot - 1, MIN_COPY) == target.substr(i, MIN_COPY)) {
        from = slot - 1;
      }
    }
    if (from != std::string_view::npos) {
      size_t length = MIN_COPY;
      while (from + length < base.size() && i + length < target.size() &&
             base[from + length] == target[i + length]) {
        ++length;
      }
      flushLiteral(i);
      out += COPY;
      putNumber(out, from);
      putNumber(out, length);
      i += length;
      literalFrom = i;
      // A copy ends mid-line: the next anchor is the next line start.
      if (i > 0 && target[i - 1] == '\n') continue;
    }
    const void* next = memchr(target.data() + i, '\n', target.size() - i);
    i = next == nullptr ? target.size()
                        : size_t(static_cast<const char*>(next) - target.data()) + 1;
  }
  flushLiteral(target.size());
  return out;
}

std::string deltaDecode(std::string_view base, std::string_view delta) {
  std::string out;
  size_t at = 0;
  while (at < delta.size()) {
    char tag = delta[at++];
    if (tag == LITERAL) {
      uint64_t length = getNumber(delta, at);
      KJ_REQUIRE(length <= delta.size() - at, "packed rendered frame: bad literal");
      out.append(delta.substr(at, length));
      at += length;
    } else {
      KJ_REQUIRE(tag == COPY, "packed rendered frame: bad operation");
      uint64_t from = getNumber(delta, at);
      uint64_t length = getNumber(delta, at);
      KJ_REQUIRE(from <= base.size() && length <= base.size() - from,
                 "packed rendered frame: bad copy");
      out.append(base.substr(from, length));
    }
  }
  return out;
}

void RenderedPacker::packAllButLast(std::vector<PtyRenderedFrame>& frames) {
  if (frames.empty()) {
    packedCount = 0;
    lastBlob.clear();
    return;
  }
  size_t whole = frames.size() - 1;  // the newest stays whole
  if (packedCount > whole) {
    // The rendered budget evicted the newest frames (A15), packed ones among them: the base for
    // the next delta is frame whole - 1, recovered from its keyframe.
    packedCount = whole;
    lastBlob.clear();
    if (whole > 0) {
      size_t index = whole - 1;
      size_t key = index - index % KEYFRAME_INTERVAL;
      for (size_t i = key; i <= index; ++i)
        lastBlob = deltaDecode(lastBlob, frames[i].packed);
    }
  }
  for (; packedCount < whole; ++packedCount) {
    PtyRenderedFrame& frame = frames[packedCount];
    std::string blob = blobOf(frame);
    bool key = packedCount % KEYFRAME_INTERVAL == 0;
    frame.packed = deltaEncode(key ? std::string_view() : lastBlob, blob);
    frame.packed.shrink_to_fit();
    frame.isPacked = true;
    std::vector<std::string>().swap(frame.lines);
    release(frame.serializedState);
    lastBlob = kj::mv(blob);
  }
}

void RenderedUnpacker::unpack(PtyRenderedFrame& frame) {
  if (!frame.isPacked) {
    previous = blobOf(frame);
    return;
  }
  previous = deltaDecode(previous, frame.packed);
  restore(frame, previous);
  release(frame.packed);
  frame.isPacked = false;
}

void unpackRenderedFrames(std::vector<PtyRenderedFrame>& frames) {
  RenderedUnpacker unpacker;
  for (auto& frame : frames)
    unpacker.unpack(frame);
}

}  // namespace rea::supervisor
