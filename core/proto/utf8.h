// UTF-8 for everything parity writes for people and programs (terminal lines, JSON, JUnit XML,
// HTML): names and messages come from users' files and engines' errors, and a byte that is not
// UTF-8 (or a message cut inside a character) would make a JSON writer throw and a browser or CI
// parser reject the file. Header-only, shared by both halves like error.h.
#ifndef PARITY_CORE_PROTO_UTF8_H_
#define PARITY_CORE_PROTO_UTF8_H_

#include <cstddef>
#include <string>

namespace parity {

// The length of the well-formed UTF-8 sequence starting at text[i] (1 to 4), or 0 when the bytes
// there are not one: a stray continuation byte, a truncated sequence, an overlong form, a
// surrogate, or a code point past U+10FFFF.
inline size_t Utf8SequenceLength(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  if (length == 0 || i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  if (lead == 0xE0 && byte(i + 1) < 0xA0) return 0;   // overlong
  if (lead == 0xED && byte(i + 1) >= 0xA0) return 0;  // surrogate
  if (lead == 0xF0 && byte(i + 1) < 0x90) return 0;   // overlong
  if (lead == 0xF4 && byte(i + 1) >= 0x90) return 0;  // past U+10FFFF
  return length;
}

inline bool IsValidUtf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

// `text` with every byte that is not part of a well-formed sequence replaced by U+FFFD.
inline std::string ValidUtf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}

// The longest prefix of `text` of at most `max_bytes` bytes that does not cut a character.
inline std::string Utf8Prefix(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the character being cut.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace parity

#endif  // PARITY_CORE_PROTO_UTF8_H_
