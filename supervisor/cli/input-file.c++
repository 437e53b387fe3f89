#include "supervisor/cli/input-file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <nlohmann/json.hpp>

#include "supervisor/cli/json-fast-parse.h"

namespace rea::supervisor {

size_t jsonNestingDepth(const std::string& text) {
  size_t depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) deepest = depth;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

evidence::TextPosition textPosition(const std::string& text, size_t byte) {
  // nlohmann counts bytes from 1 and points just past the offending character.
  size_t end = std::min(text.size(), byte > 0 ? byte - 1 : 0);
  evidence::TextPosition where{1, 1};
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

namespace {

// A large regular file's text in pages of its own, which the fast parser lets go of as it reads
// on (ParseProgress): a 20 MB capture parses into a tree about half its size, and without this
// both are held at once (compare-process-captures reads two at the same time, issue 20: peak
// memory).
class ReleasableText final : public ParseProgress {
 public:
  static constexpr size_t MIN_SIZE = 8 << 20;  // smaller files are read into a string

  explicit ReleasableText(size_t capacity) : capacity(pageCeiling(capacity)) {
    void* mapped =
        mmap(nullptr, this->capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped != MAP_FAILED) base = static_cast<char*>(mapped);
  }
  ~ReleasableText() {
    if (base != nullptr) munmap(base, capacity);
  }
  ReleasableText(const ReleasableText&) = delete;
  ReleasableText& operator=(const ReleasableText&) = delete;

  bool ok() const { return base != nullptr; }

  // Reads the whole file: false if it does not fit (it grew since fstat) or a read fails; the
  // caller then reads it the ordinary way.
  bool readFrom(int fd, size_t limit) {
    for (;;) {
      if (used == limit) return false;
      ssize_t n = read(fd, base + used, limit - used);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      if (n == 0) return true;
      used += static_cast<size_t>(n);
    }
  }

  std::string_view text() const { return std::string_view(base, used); }

  void consumed(size_t offset) override {
    // Whole pages before `offset` go back to the kernel. They read as zeros afterwards: the text
    // is not used after a declined parse (the file is read again instead).
    size_t through = offset & ~(PAGE - 1);
    if (through >= released + RELEASE_AT_ONCE) {
      madvise(base + released, through - released, MADV_DONTNEED);
      released = through;
    }
  }

 private:
  static constexpr size_t PAGE = 4096;
  static constexpr size_t RELEASE_AT_ONCE = 4 << 20;  // fewer, larger calls
  static size_t pageCeiling(size_t size) { return (size + PAGE - 1) & ~(PAGE - 1); }
  size_t capacity;
  char* base = nullptr;
  size_t used = 0;
  size_t released = 0;
};

}  // namespace

InputFile readJsonFile(const std::string& path) {
  InputFile result;
  // "-" is standard input, as for other Unix tools (a duplicate: closing it below leaves fd 0).
  int fd = path == "-" ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
                       : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    result.error = evidence::inputUnreadable(path);
    return result;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    close(fd);
    result.error = evidence::inputUnreadable(path);
    return result;
  }
  // The size from fstat is a hint (a FIFO or /proc file has none): the read is bounded anyway.
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > evidence::MAX_INPUT_BYTES) {
    close(fd);
    result.error = evidence::inputTooLarge(path);
    return result;
  }
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) >= ReleasableText::MIN_SIZE) {
    // One byte more than fstat said: the read that finds the end fits.
    size_t capacity = static_cast<size_t>(st.st_size) + 1;
    ReleasableText text(capacity);
    if (text.ok() && text.readFrom(fd, capacity)) {
      if (auto value = parseJsonFast(text.text(), MAX_JSON_DEPTH, text)) {
        close(fd);
        result.value = std::move(*value);
        return result;
      }
    }
    // Declined (or grown, or unreadable so far): read it again from the start, as any file.
    if (lseek(fd, 0, SEEK_SET) != 0) {
      close(fd);
      result.error = evidence::inputUnreadable(path);
      return result;
    }
  }
  // Read straight into the text (a 20 MB capture through a small buffer is one more copy).
  std::string text;
  size_t used = 0;
  // A regular file's size plus one byte: the read that finds the end fits without growing.
  if (S_ISREG(st.st_mode)) text.resize(static_cast<size_t>(st.st_size) + 1);
  for (;;) {
    if (used == text.size()) text.resize(std::max(2 * used, used + (1 << 16)));
    ssize_t n = read(fd, &text[used], text.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      close(fd);
      result.error = evidence::inputUnreadable(path);
      return result;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
    if (used > evidence::MAX_INPUT_BYTES) {
      close(fd);
      result.error = evidence::inputTooLarge(path);
      return result;
    }
  }
  close(fd);
  text.resize(used);
  // Most files take the fast path; nlohmann decides the rest, and names the place of any error.
  if (auto value = parseJsonFast(text, MAX_JSON_DEPTH)) {
    result.value = std::move(*value);
    return result;
  }
  if (jsonNestingDepth(text) > MAX_JSON_DEPTH) {
    result.error = evidence::inputNotJson(path);
    return result;
  }
  // nlohmann validates UTF-8 inside strings and rejects anything that is not one JSON value.
  try {
    result.value = evidence::Json::parse(text);
  } catch (const evidence::Json::parse_error& error) {
    result.error = evidence::inputNotJson(path, textPosition(text, error.byte));
  }
  return result;
}

}  // namespace rea::supervisor
