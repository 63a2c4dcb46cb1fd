// The campaign's reports hold text from nets (blob names, op types in signatures and messages): a
// hostile name stays text in junit.xml (escaped, no control characters XML 1.0 forbids) and in
// summary.json (invalid UTF-8 replaced, never an exception).
#include "fuzz/campaign_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "oracles/finding.h"

namespace parity::fuzz {
namespace {

TEST(CampaignReport, XmlEscapeKeepsHostileTextAsText) {
  EXPECT_EQ(XmlEscape(R"(<script>alert("x") & 'y'</script>)"),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &apos;y&apos;&lt;/script&gt;");
  EXPECT_EQ(XmlEscape("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(XmlEscape(std::string("a\x01z", 3)), "a\xEF\xBF\xBDz");
  EXPECT_EQ(XmlEscape("名前 é"), "名前 é");
}

TEST(CampaignReport, AHostileSignatureStaysTextInBothReports) {
  CampaignOptions options;
  options.cases = 1;
  CampaignSummary summary;
  Finding finding;
  finding.set_oracle("forward");
  finding.mutable_signature()->set_oracle("forward");
  finding.mutable_signature()->set_blamed_op_type("<b>\x01\xff");  // markup, control, bad UTF-8
  finding.mutable_signature()->set_error_class("value mismatch");
  finding.mutable_signature()->set_dtype("FLOAT");
  const std::string key = oracles::SignatureKey(finding.signature());
  summary.tally.cases = 1;
  summary.tally.findings = 1;
  summary.tally.by_signature[key] = 1;
  summary.first_finding[key] = finding;

  const std::string xml = JunitXml(options, summary);
  EXPECT_EQ(xml.find("<b>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("&lt;b&gt;\xEF\xBF\xBD"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(tests="2" failures="1")"), std::string::npos) << xml;

  const nlohmann::json json = nlohmann::json::parse(SummaryJson(options, summary));
  ASSERT_EQ(json["signatures"].size(), 1u);
  const std::string blamed = json["signatures"][0]["blamed_op"];
  EXPECT_EQ(blamed.substr(0, 4), "<b>\x01");    // JSON holds any text, escaped by the format
  EXPECT_EQ(blamed.substr(4), "\xEF\xBF\xBD");  // the invalid byte became U+FFFD
}

}  // namespace
}  // namespace parity::fuzz
