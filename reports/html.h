// Building self-contained HTML: every string that comes from a net, a case or a finding goes
// through Escape (text and attribute values alike), so a blob named `<script>` is text.
#ifndef PARITY_REPORTS_HTML_H_
#define PARITY_REPORTS_HTML_H_

#include <string>

namespace parity::reports {

// `text` with & < > " ' replaced by entities, and bytes that are not UTF-8 (names from a fuzzed
// net may hold any byte) as U+FFFD, so the page stays valid UTF-8.
std::string Escape(const std::string& text);

// <tag attrs>escaped text</tag>; `attrs` is written as given (the caller escapes values).
std::string Element(const std::string& tag, const std::string& text, const std::string& attrs = "");

// A number for people: up to 6 significant digits, "inf", "-inf", "nan".
std::string Number(double value);

// `value` in [0, 1] as a colour from white (0) through yellow to red (1): heatmaps.
std::string HeatColor(double value);

}  // namespace parity::reports

#endif  // PARITY_REPORTS_HTML_H_
