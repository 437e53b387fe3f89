#pragma once
// ASCII character classes for the normalisation rules, independent of the C locale (std::isdigit
// and friends depend on it, and take an int that must not be a negative char).
//
// Errors: none.

namespace rea::evidence {

inline bool isAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}
inline bool isAsciiAlpha(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
inline bool isAsciiAlnum(char c) {
  return isAsciiDigit(c) || isAsciiAlpha(c);
}
inline bool isAsciiWord(char c) {
  return isAsciiAlnum(c) || c == '_';
}
// A character of a regular expression's \w: [A-Za-z0-9_].
inline bool isAsciiHex(char c) {
  return isAsciiDigit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

}  // namespace rea::evidence
