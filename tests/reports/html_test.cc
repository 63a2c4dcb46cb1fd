// reports/html.h: what a net can name comes out as text, and the page stays valid UTF-8.
#include "reports/html.h"

#include <gtest/gtest.h>

namespace parity::reports {
namespace {

TEST(Html, EscapesMarkupAndQuotes) {
  EXPECT_EQ(Escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(Escape("a&b \"c\" 'd'"), "a&amp;b &quot;c&quot; &#39;d&#39;");
  EXPECT_EQ(Escape("&lt;"), "&amp;lt;");
  EXPECT_EQ(Element("td", "<b>", "class=\"x\""), "<td class=\"x\">&lt;b&gt;</td>");
}

TEST(Html, KeepsUtf8AndReplacesWhatIsNot) {
  EXPECT_EQ(Escape("\xC3\xA9t\xC3\xA9 \xE2\x86\x92"), "\xC3\xA9t\xC3\xA9 \xE2\x86\x92");
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(Escape(std::string("a\xFF") + "b"), "a" + replacement + "b");
  EXPECT_EQ(Escape("\xC3"), replacement);                                      // cut short
  EXPECT_EQ(Escape("\xED\xA0\x80"), replacement + replacement + replacement);  // a surrogate
  EXPECT_EQ(Escape(std::string("x\x01y", 3)), "x" + replacement + "y");
  EXPECT_EQ(Escape("tab\tnew\nline"), "tab\tnew\nline");
}

TEST(Html, NumbersAndColours) {
  EXPECT_EQ(Number(0.5), "0.5");
  EXPECT_EQ(Number(1234567.0), "1.23457e+06");
  EXPECT_EQ(Number(1.0 / 0.0), "inf");
  EXPECT_EQ(Number(-1.0 / 0.0), "-inf");
  EXPECT_EQ(Number(0.0 / 0.0), "nan");
  EXPECT_EQ(HeatColor(0), "#ffffff");
  EXPECT_EQ(HeatColor(0.5), "#ffff00");
  EXPECT_EQ(HeatColor(1), "#ff0000");
  EXPECT_EQ(HeatColor(0.0 / 0.0), "#ff0000");
}

}  // namespace
}  // namespace parity::reports
