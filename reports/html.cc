#include "reports/html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace parity::reports {
namespace {

// The length of the UTF-8 sequence starting at `text[i]`, or 0 when it is not a valid one.
size_t Utf8Length(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  if (length == 0 || i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  // Overlong three- and four-byte forms, surrogates, and code points past U+10FFFF.
  if (lead == 0xE0 && byte(i + 1) < 0xA0) return 0;
  if (lead == 0xED && byte(i + 1) >= 0xA0) return 0;
  if (lead == 0xF0 && byte(i + 1) < 0x90) return 0;
  if (lead == 0xF4 && byte(i + 1) >= 0x90) return 0;
  return length;
}

}  // namespace

std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const size_t length = Utf8Length(text, i);
        if (length == 0) {
          out += "\xEF\xBF\xBD";  // U+FFFD
          ++i;
          continue;
        }
        // Control characters other than tab and newline are not allowed in HTML text.
        if (length == 1 && static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += "\xEF\xBF\xBD";
        } else {
          out.append(text, i, length);
        }
        i += length;
        continue;
      }
    }
    ++i;
  }
  return out;
}

std::string Element(const std::string& tag, const std::string& text, const std::string& attrs) {
  return "<" + tag + (attrs.empty() ? "" : " " + attrs) + ">" + Escape(text) + "</" + tag + ">";
}

std::string Number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

std::string HeatColor(double value) {
  if (!(value >= 0)) value = 1;  // NaN counts as the worst
  value = std::min(value, 1.0);
  // White -> yellow over the first half, yellow -> red over the second.
  const int green = value < 0.5 ? 255 : static_cast<int>(std::lround(255 * (1 - value) * 2));
  const int blue = value < 0.5 ? static_cast<int>(std::lround(255 * (1 - value * 2))) : 0;
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "#ff%02x%02x", green, blue);
  return buffer;
}

}  // namespace parity::reports
