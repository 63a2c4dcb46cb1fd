#include "reports/html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/proto/utf8.h"

namespace parity::reports {
namespace {

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
        const size_t length = Utf8SequenceLength(text, i);
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
