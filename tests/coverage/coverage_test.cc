// Architecture §4: every production op is described once per half and checkable — a reference
// kernel (or a recorded finite-differences-only reason), a test spec (gradient ops are covered by
// their forward op's), and a gradient maker or an explicit "no gradient". `parity ops` prints the
// same table.
#include <gtest/gtest.h>

#include <set>

#include "fuzz/spec.h"
#include "oracles/coverage.h"

namespace parity {
namespace {

TEST(Coverage, EveryOpIsDescribedInEachHalf) {
  std::vector<oracles::OpCoverage> rows = oracles::ComputeCoverage(fuzz::SpecRegistry::Types());
  EXPECT_GT(rows.size(), 100u);
  for (const oracles::OpCoverage& row : rows) {
    for (const std::string& problem : row.problems) ADD_FAILURE() << row.type << ": " << problem;
  }
}

TEST(Coverage, EverySpecNamesAProductionOp) {
  std::vector<oracles::OpCoverage> rows = oracles::ComputeCoverage({});
  std::set<std::string> types;
  for (const auto& row : rows) types.insert(row.type);
  for (const std::string& spec : fuzz::SpecRegistry::Types()) {
    EXPECT_TRUE(types.count(spec)) << "spec for unknown op type " << spec;
  }
}

}  // namespace
}  // namespace parity
