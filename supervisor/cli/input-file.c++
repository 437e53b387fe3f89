#include "supervisor/cli/input-file.h"

#include <fcntl.h>
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
