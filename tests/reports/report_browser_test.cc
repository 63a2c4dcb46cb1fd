// The report as a person sees it: headless Chromium (Debian's `chromium`, which ./parity installs)
// loads the pages; the DOM it builds has the campaign table, one section per finding and the net's
// SVG, and its screenshot of a finding page is not blank. Skipped, saying so, where Chromium is
// not installed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/io.h"
#include "reports/report.h"
#include "tests/reports/report_fixture.h"

namespace parity::testing {
namespace {

constexpr char kChromium[] = "/usr/bin/chromium";

// Runs Chromium headless on `url` with `flags`; its stdout.
std::string Chromium(const std::string& flags, const std::string& url) {
  const std::string command =
      std::string(kChromium) +
      " --headless --no-sandbox --disable-gpu --user-data-dir=" + TestTmp() + "/chromium " + flags +
      " '" + url + "' 2>/dev/null";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) out.append(buffer, n);
  pclose(pipe);
  return out;
}

class ReportInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kChromium)) {
      GTEST_SKIP() << kChromium << " is not installed (./parity installs Debian's chromium): the "
                   << "report is not checked in a browser here";
    }
    input_ = reports::ReadCampaign(Campaign("browser"));
    index_ = reports::WriteReport(input_, TestTmp() + "/browser_report");
  }
  reports::ReportInput input_;
  std::string index_;
};

TEST_F(ReportInBrowser, TheDomHasTheSummaryTheFindingsAndTheGraph) {
  const std::string dom = Chromium("--dump-dom", "file://" + index_);
  ASSERT_FALSE(dom.empty()) << "Chromium printed no DOM";
  EXPECT_NE(dom.find("<table class=\"settings\">"), std::string::npos);
  EXPECT_NE(dom.find("<table class=\"findings\">"), std::string::npos);
  EXPECT_EQ(Count(dom, "<section class=\"finding\""), input_.findings.size());
  // The hostile blob name stayed text: no script element came of it.
  EXPECT_EQ(dom.find("<script>alert"), std::string::npos);

  const std::string page = TestTmp() + "/browser_report/findings/" + input_.findings[0].page;
  const std::string finding_dom = Chromium("--dump-dom", "file://" + page);
  EXPECT_NE(finding_dom.find("<svg"), std::string::npos);
  EXPECT_NE(finding_dom.find("FC (op#0)"), std::string::npos) << "the op's box in the drawing";
  EXPECT_NE(finding_dom.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

// A blank page's screenshot compresses to almost nothing; a page with tables, a drawing and text
// does not.
TEST_F(ReportInBrowser, TheScreenshotIsNotBlank) {
  const std::string page = TestTmp() + "/browser_report/findings/" + input_.findings[0].page;
  const std::string blank_html = TestTmp() + "/blank.html";
  WriteFileAtomic(blank_html, "<!DOCTYPE html><html><body></body></html>");
  const std::string shot = TestTmp() + "/finding.png", blank = TestTmp() + "/blank.png";
  Chromium("--window-size=1280,1600 --screenshot=" + shot, "file://" + page);
  Chromium("--window-size=1280,1600 --screenshot=" + blank, "file://" + blank_html);
  ASSERT_TRUE(std::filesystem::exists(shot)) << "Chromium wrote no screenshot";
  ASSERT_TRUE(std::filesystem::exists(blank));
  const std::string png = ReadFileBytes(shot);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(png.size(), 5 * std::filesystem::file_size(blank))
      << "finding page " << png.size() << " bytes, blank page " << std::filesystem::file_size(blank)
      << " bytes";
}

// A long night: 1,000 signatures. The index stays one page of bounded size (finding details are
// collapsed, and each finding's drawing is on its own page); the log says how large and how long
// Chromium took to build its DOM.
TEST_F(ReportInBrowser, AThousandFindingsOpen) {
  const std::string dir = TestTmp() + "/thousand";
  fuzz::Corpus corpus(dir + "/findings");
  for (int i = 0; i < 1000; ++i) {
    Finding f = FcFinding();
    f.mutable_signature()->set_blamed_op_type("Op" + std::to_string(i));
    corpus.Add(f, i);
  }
  const std::string index =
      reports::WriteReport(reports::ReadCampaign(dir), TestTmp() + "/thousand_report");
  const auto size = std::filesystem::file_size(index);
  EXPECT_LT(size, 2u << 20) << "the index of 1,000 findings should stay under 2 MiB";
  const auto start = std::chrono::steady_clock::now();
  const std::string dom = Chromium("--dump-dom", "file://" + index);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(Count(dom, "<section class=\"finding\""), 1000u);
  std::printf("index of 1,000 findings: %llu bytes; Chromium --dump-dom took %.2f s\n",
              static_cast<unsigned long long>(size), seconds);
}

}  // namespace
}  // namespace parity::testing
