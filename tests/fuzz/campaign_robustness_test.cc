// Whatever the engine under test does, in any phase, a campaign ends with its summary: an engine
// that throws while a case is drawn (the generators run engine code: the RNN builder runs the
// backward pass) gives `draw` findings, and an engine whose messages hold bytes that are not UTF-8
// (or are cut inside a character) still gets a summary.json, junit.xml, finding.json and report
// that parse. Both were the end of a campaign (exit 2 and exit 3) before.
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/grad/gradient.h"
#include "core/io.h"
#include "core/operator.h"
#include "core/proto/utf8.h"
#include "fuzz/campaign.h"
#include "fuzz/campaign_report.h"
#include "oracles/backend.h"
#include "reports/report.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

std::string FreshDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

// Relu under engine TEST_BAD_UTF8 fails on every input with a message holding a byte that is not
// UTF-8 and, past the 300 bytes a finding's description keeps, three-byte characters.
class BadUtf8Relu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    std::string message = "TEST: \xff\xfe not UTF-8, then ";
    for (int i = 0; i < 200; ++i) message += "\xE2\x82\xAC";  // U+20AC, three bytes each
    throw MakeError(ErrorKind::kShapeMismatch, message);
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "TEST_BAD_UTF8", BadUtf8Relu);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "test-bad-utf8", "TEST_BAD_UTF8", "Relu fails with a message that is not valid UTF-8"));

// Swaps a gradient maker for one that throws, for the life of the object.
class ThrowingMaker {
 public:
  explicit ThrowingMaker(const std::string& type) : type_(type) {
    const GradientEntry* found = GradientRegistry::Find(type);
    EXPECT_NE(found, nullptr) << type;
    original_ = *found;
    GradientEntry throwing = original_;
    throwing.maker = [type](GradientContext&) -> Ops {
      throw MakeError(ErrorKind::kInternal, "TEST: the ", type, " gradient maker is broken");
    };
    GradientRegistry::Replace(type, throwing);
  }
  ~ThrowingMaker() { GradientRegistry::Replace(type_, original_); }

 private:
  std::string type_;
  GradientEntry original_;
};

std::string ReadValidUtf8(const std::string& path) {
  const std::string bytes = ReadFileBytes(path);
  EXPECT_TRUE(IsValidUtf8(bytes)) << path << " is not valid UTF-8";
  return bytes;
}

class DrawFailure : public ::testing::TestWithParam<int> {};

TEST_P(DrawFailure, AThrowingBuilderGivesDrawFindingsAndTheCampaignGoesOn) {
  const ThrowingMaker broken("Tanh");  // the RNN builder's cells of kinds 2 and 3 use Tanh
  fuzz::CampaignOptions options;
  options.cases = 40;
  options.seed = 7;
  options.ops = {"RecurrentNetwork"};
  options.jobs = GetParam();
  options.out_dir = FreshDir("draw_jobs" + std::to_string(GetParam()));
  options.reduce_seconds = 1;
  const fuzz::CampaignSummary summary = fuzz::RunCampaign(options, nullptr, nullptr);
  EXPECT_EQ(summary.tally.cases, 40);
  int64_t draw_findings = 0;
  for (const auto& [key, count] : summary.tally.by_signature) {
    if (key.rfind("draw/", 0) == 0) draw_findings += count;
  }
  EXPECT_GT(draw_findings, 0) << "no case drew a Tanh cell";
  EXPECT_LT(draw_findings, 40) << "every case failed to draw: the rest of the campaign is lost";
  bool named = false;
  for (const auto& [key, finding] : summary.first_finding) {
    if (finding.oracle() != fuzz::kDrawOracle) continue;
    named = finding.message().find("TEST: the Tanh gradient maker is broken") != std::string::npos;
    EXPECT_EQ(finding.signature().error_class(), "draw threw internal error");
  }
  EXPECT_TRUE(named);
  const std::string summary_path = fuzz::WriteCampaignReports(options, summary);
  const nlohmann::json parsed = nlohmann::json::parse(ReadValidUtf8(summary_path));
  EXPECT_EQ(parsed["cases"].get<int64_t>(), 40) << parsed.dump();
}

INSTANTIATE_TEST_SUITE_P(InProcessAndInWorkers, DrawFailure, ::testing::Values(0, 2));

TEST(Utf8, MessagesThatAreNotUtf8StillGiveReadableFiles) {
  fuzz::CampaignOptions options;
  options.cases = 6;
  options.seed = 3;
  options.ops = {"Relu"};
  options.nets = false;
  options.backend = "test-bad-utf8";
  options.out_dir = FreshDir("utf8");
  options.reduce_seconds = 0;
  const fuzz::CampaignSummary summary = fuzz::RunCampaign(options, nullptr, nullptr);
  ASSERT_GT(summary.tally.findings, 0);
  const std::string summary_path = fuzz::WriteCampaignReports(options, summary);
  EXPECT_NO_THROW(nlohmann::json::parse(ReadValidUtf8(summary_path)));
  const std::string junit = ReadValidUtf8(options.out_dir + "/junit.xml");
  EXPECT_NE(junit.find("\xEF\xBF\xBD"), std::string::npos) << "the bad bytes were not replaced";
  int findings = 0;
  for (const auto& entry : std::filesystem::directory_iterator(options.out_dir + "/findings")) {
    EXPECT_NO_THROW(nlohmann::json::parse(ReadValidUtf8(entry.path().string() + "/finding.json")));
    ++findings;
  }
  EXPECT_GT(findings, 0);
  reports::WriteReport(reports::ReadCampaign(options.out_dir), options.out_dir + "/report");
  ReadValidUtf8(options.out_dir + "/report/index.html");
}

TEST(Utf8, CutsNeverSplitACharacter) {
  const std::string euros = "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC";  // three U+20AC
  EXPECT_EQ(Utf8Prefix(euros, 4), "\xE2\x82\xAC");
  EXPECT_EQ(Utf8Prefix(euros, 6), "\xE2\x82\xAC\xE2\x82\xAC");
  EXPECT_EQ(Utf8Prefix(euros, 2), "");
  EXPECT_EQ(Utf8Prefix("abc", 10), "abc");
  EXPECT_EQ(ValidUtf8("a\xff"
                      "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_FALSE(IsValidUtf8("\xE2\x82"));      // cut inside a character
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));  // a surrogate
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9"));
  EXPECT_EQ(Printable("a\xff\n\xC3\xA9"), "a\\xff\\n\xC3\xA9");
  EXPECT_EQ(fuzz::XmlEscape("<\xff>"), "&lt;\xEF\xBF\xBD&gt;");
}

}  // namespace
}  // namespace parity::testing
