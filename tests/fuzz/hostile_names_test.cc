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
    suffixes.insert(c.inputs(0).name().substr(2));  // x0 + suffix
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

}  // namespace
}  // namespace parity
