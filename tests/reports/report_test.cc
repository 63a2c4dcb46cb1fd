// The HTML report (reports/report.h): a campaign directory read back into pages that say which op
// is wrong, by how much and how to replay it; names from a net shown as text; and the commands
// that write it (parity report, parity fuzz at the end, parity check --html).
#include "reports/report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/io.h"
#include "tests/cli/cli_util.h"
#include "tests/reports/report_fixture.h"

namespace parity::testing {
namespace {

namespace fs = std::filesystem;

TEST(Report, ReadsACampaignIntoItsPages) {
  const reports::ReportInput input = reports::ReadCampaign(Campaign("one"));
  ASSERT_EQ(input.findings.size(), 1u);
  const reports::ReportFinding& f = input.findings[0];
  EXPECT_EQ(f.info.value("count", 0), 2);
  EXPECT_EQ(f.first.blamed_op_type(), "FC");

  const std::string index = reports::IndexPage(input);
  EXPECT_NE(index.find("<table class=\"settings\">"), std::string::npos);
  EXPECT_NE(index.find("100 cases in 2 s (50 cases/s)"), std::string::npos);
  EXPECT_NE(index.find("MUTANT_FC"), std::string::npos);
  EXPECT_EQ(Count(index, "<section class=\"finding\""), 1u);
  EXPECT_NE(index.find("href=\"findings/" + f.page + "\""), std::string::npos);
  EXPECT_NE(index.find("op #0 (FC)"), std::string::npos);
  // Coverage: FC in 40 cases, 37 of them judged by the forward oracle.
  EXPECT_NE(index.find("<tr><td>FC</td><td class=\"num\">40</td><td class=\"num\">37</td></tr>"),
            std::string::npos);

  const std::string page = reports::FindingPage(input, f);
  EXPECT_NE(page.find("<svg"), std::string::npos) << "the net is drawn";
  EXPECT_NE(page.find("FC differs from the truth"), std::string::npos);
  EXPECT_NE(page.find("parity repro"), std::string::npos);
  // What differs, by how much: the comparison view (reports/comparison_view.h) of the blob.
  EXPECT_NE(page.find("<div class=\"comparison\">"), std::string::npos);
  EXPECT_NE(page.find("1 of 3 (33.33%)"), std::string::npos);
}

TEST(Report, NamesFromTheNetAreText) {
  const reports::ReportInput input = reports::ReadCampaign(Campaign("hostile"));
  for (const std::string& page :
       {reports::IndexPage(input), reports::FindingPage(input, input.findings[0])}) {
    EXPECT_EQ(page.find(kHostile), std::string::npos);
    EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  }
  const std::string page = reports::FindingPage(input, input.findings[0]);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

TEST(Report, TheTrendCountsEveryCampaign) {
  reports::ReportInput input = reports::ReadCampaign(Campaign("now"));
  reports::AddHistory({Campaign("before"), Campaign("earlier")}, &input);
  const std::string index = reports::IndexPage(input);
  EXPECT_NE(index.find("Trend over 3 campaigns"), std::string::npos);
  EXPECT_EQ(Count(index, "<polyline"), 2u) << "findings and cases/s";
  EXPECT_EQ(Count(index, "<circle"), 6u) << "3 points on each chart";
}

TEST(ReportCommand, WritesIndexAndFindingPages) {
  const std::string dir = Campaign("command");
  const CliResult run = RunCli("tools/parity", "report " + dir + " -o " + TestTmp() + "/out");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "wrote " + TestTmp() + "/out/index.html (1 finding page(s))"));
  EXPECT_TRUE(fs::exists(TestTmp() + "/out/index.html"));
  EXPECT_EQ(
      std::distance(fs::directory_iterator(TestTmp() + "/out/findings"), fs::directory_iterator{}),
      1);
  const CliResult missing = RunCli("tools/parity", "report " + TestTmp() + "/nowhere");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_TRUE(Contains(missing.output, "is not a campaign directory")) << missing.output;
}

TEST(ReportCommand, CheckWritesTheSamePageForOneNet) {
  const std::string net = WriteTestFile("relu.pbtxt", R"(
    op { type: "Relu" input: "x" output: "y" }
    external_input: "x" external_output: "y")");
  const std::string x = WriteTestFile("x.pbtxt", R"(
    name: "x" dims: 2 data_type: FLOAT float_data: 1 float_data: -1)");
  const CliResult run =
      RunCli("tools/parity", "check " + net + " --input x=" + x + " --oracle forward --html " +
                                 TestTmp() + "/check_report");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "report: " + TestTmp() + "/check_report/index.html"));
  const std::string index = ReadFileBytes(TestTmp() + "/check_report/index.html");
  EXPECT_NE(index.find("forward"), std::string::npos);
  EXPECT_NE(index.find("None."), std::string::npos) << "no findings";
}

}  // namespace
}  // namespace parity::testing
