// The oracles through control flow: a While whose body is a Do (x <- x * w, 3 passes), checked by
// every default oracle against the reference (forward values; gradients of the generated gradient
// While / gradient Do against finite differences of the reference's forward run).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "oracles/check.h"

namespace parity::oracles {
namespace {

Case LoadCase(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  Case c;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &c)) << path;
  return c;
}

TEST(ControlOracles, EveryDefaultOracleChecksAWhileOfDos) {
  const Case c = LoadCase("tests/control/data/power_while_case.pbtxt");
  const CaseReport report = CheckCase(c);
  for (const auto& verdict : report.verdicts()) {
    // The graph transforms keep ops with sub-nets (and what they may read) as they are: no pass
    // has anything to rewrite in this net.
    if (verdict.oracle() == "transform") {
      EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << verdict.DebugString();
      EXPECT_EQ(verdict.reason(), "no pass changes this net");
      continue;
    }
    // No cell builder made this net: the builder oracle has nothing to hold it to.
    if (verdict.oracle() == "builder") {
      EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << verdict.DebugString();
      continue;
    }
    // Where a GPU is present the device oracle joins: the While, its Do body and the int32
    // counter's Add and LE run on the device, judged like everything else.
    EXPECT_EQ(verdict.status(), OracleVerdict::OK)
        << verdict.oracle() << ": " << verdict.reason() << verdict.finding().message();
  }
  EXPECT_EQ(report.verdicts_size(), static_cast<int>(DefaultOracles().size()));
}

}  // namespace
}  // namespace parity::oracles
