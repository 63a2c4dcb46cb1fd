// Whole nets drawn with parser-hostile text (comment starters, quotes, backslashes, escapes,
// non-ASCII, "op #9", empty op names) in blob names, op names and string arguments: the generator
// draws them, and every oracle that prints, re-parses or runs the net agrees on them.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "fuzz/generators.h"
#include "oracles/check.h"
#include "oracles/describe.h"

namespace parity {
namespace {

bool Decorated(const Case& c) {
  for (const auto& op : c.net().op()) {
    for (const auto& arg : op.arg()) {
      if (arg.name() == "parity_note") return true;
    }
  }
  return false;
}

TEST(HostileNames, NetsWithHostileTextAreDrawnAndCheckedClean) {
  int decorated = 0, checked = 0;
  std::set<std::string> suffixes;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Case c = fuzz::SampleCase(fuzz::NetCaseGen({}), seed);
    if (!Decorated(c)) continue;
    ++decorated;
    std::string text = c.inputs(0).name();  // x0 with the text before or after it
    suffixes.insert(text.erase(text.find("x0"), 2));
    if (checked >= 12) continue;
    ++checked;
    oracles::CheckRequest request;
    request.oracles = {"roundtrip", "validity", "forward", "shape"};
    const CaseReport report = oracles::CheckCase(c, request);
    for (const OracleVerdict& verdict : report.verdicts()) {
      EXPECT_NE(verdict.status(), OracleVerdict::FINDING)
          << "seed " << seed << ": " << oracles::DescribeFinding(verdict.finding());
      EXPECT_NE(verdict.status(), OracleVerdict::REJECTED)
          << "seed " << seed << " (" << verdict.oracle() << "): " << verdict.DebugString();
    }
  }
  // One net in 8, with one of 15 suffixes each.
  EXPECT_GE(decorated, 20);
  EXPECT_GE(suffixes.size(), 8u);
  EXPECT_EQ(checked, 12);
}

// RecurrentNetwork derives names by appending to them: its nets take the text as a prefix, renamed
// consistently through links, aliases, states and step nets, and every oracle (gradient included)
// runs them clean.
TEST(HostileNames, RecurrentNetsKeepTheirLinksUnderHostileNames) {
  fuzz::NetGenOptions options;
  options.ops = {"RecurrentNetwork", "Relu", "Transpose", "ExpandDims"};
  int checked = 0;
  for (uint64_t seed = 1; seed <= 2000 && checked < 6; ++seed) {
    std::optional<Case> c = fuzz::TrySampleCase(fuzz::NetCaseGen(options), seed);
    if (!c || !Decorated(*c)) continue;
    bool has_rnn = false;
    for (const auto& op : c->net().op()) has_rnn = has_rnn || op.type() == "RecurrentNetwork";
    if (!has_rnn) continue;
    ++checked;
    const std::string& x0 = c->inputs(0).name();
    EXPECT_EQ(x0.substr(x0.size() - 2), "x0") << "a prefix, not a suffix";
    const CaseReport report = oracles::CheckCase(*c, {});
    for (const OracleVerdict& verdict : report.verdicts()) {
      EXPECT_NE(verdict.status(), OracleVerdict::FINDING)
          << "seed " << seed << ": " << oracles::DescribeFinding(verdict.finding());
      EXPECT_NE(verdict.status(), OracleVerdict::REJECTED)
          << "seed " << seed << " (" << verdict.oracle() << "): " << verdict.DebugString();
    }
  }
  EXPECT_EQ(checked, 6);
}

}  // namespace
}  // namespace parity
