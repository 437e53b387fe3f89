#pragma once
// Normalisation of a stream of PTY reads (SPEC A3: "a value split over two reads is still
// redacted"). Owns one buffer per normalisation step plus the not-yet-released output.
//
// Over a whole stream, the concatenation of everything push() and flush() return is exactly
// normalise(concatenation of the chunks). Each step holds back only the suffix of its input
// that more input could still change: a proper prefix of a needle (secret, echo, path,
// pattern), a trailing digit run that could still become a pid or a port, the whole rest after a
// `$'` pattern match (its replacement contains everything after it); finally an incomplete UTF-8
// sequence is held so that no returned piece ends inside a character. A chunk that ends in
// plain text (e.g. "\r\n" or a prompt) therefore comes out complete and at once. No returned
// piece contains a secret or a sensitive echo.
//
// Input is raw bytes; if the caller decodes them (sanitizeUtf8), it should decode the returned
// pieces: each ends on a character boundary, so decoding them one by one equals decoding the
// whole output.
//
// Lifetime: one object per stream; movable. flush() ends the stream; push() or flush() after it
// throws.
// Errors: throws std::logic_error on use after flush() (a caller bug).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/normalise.h"

namespace rea::evidence {

class ChunkNormaliser {
 public:
  explicit ChunkNormaliser(const NormaliseContext& context);
  ~ChunkNormaliser() noexcept(false);
  ChunkNormaliser(ChunkNormaliser&&);
  ChunkNormaliser& operator=(ChunkNormaliser&&);

  std::string push(std::string_view chunk);
  // Adds one read; returns the normalised text that no later input can change (may be empty).

  std::string flush();
  // Ends the stream and returns everything still held, normalised.

  size_t heldBytes() const;
  // Bytes currently held back across all steps (input not yet released); for tests and
  // diagnostics.

 private:
  struct Stage;
  Normaliser normaliser;
  std::vector<Stage> stages;
  std::string output;  // normalised, held only to keep a UTF-8 sequence whole
  bool finished = false;

  std::string run(std::string_view chunk, bool final);
};

}  // namespace rea::evidence
