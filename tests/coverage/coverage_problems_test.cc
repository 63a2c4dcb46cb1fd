// The coverage table reports what is missing: an op whose gradient is registered as not yet
// implemented is a problem, as an op without any gradient registration is.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/grad/gradient.h"
#include "core/schema.h"
#include "oracles/coverage.h"

namespace parity {
namespace {

PARITY_OP_SCHEMA(CoverageProbeNoGradientYet).NumInputs(1).NumOutputs(1);
PARITY_GRADIENT_NOT_IMPLEMENTED(CoverageProbeNoGradientYet);
PARITY_OP_SCHEMA(CoverageProbeNoGradientAtAll).NumInputs(1).NumOutputs(1);

const oracles::OpCoverage& Row(const std::vector<oracles::OpCoverage>& rows,
                               const std::string& type) {
  auto it = std::find_if(rows.begin(), rows.end(),
                         [&](const oracles::OpCoverage& r) { return r.type == type; });
  EXPECT_NE(it, rows.end()) << type;
  return *it;
}

bool Has(const std::vector<std::string>& problems, const std::string& problem) {
  return std::find(problems.begin(), problems.end(), problem) != problems.end();
}

TEST(CoverageProblems, AGradientNotYetImplementedIsAProblem) {
  const auto rows = oracles::ComputeCoverage({});
  const oracles::OpCoverage& yet = Row(rows, "CoverageProbeNoGradientYet");
  EXPECT_EQ(yet.gradient, "not implemented");
  EXPECT_TRUE(Has(yet.problems, "gradient not implemented"));
  const oracles::OpCoverage& none = Row(rows, "CoverageProbeNoGradientAtAll");
  EXPECT_EQ(none.gradient, "missing");
  EXPECT_TRUE(Has(none.problems, "no gradient maker and no explicit 'no gradient'"));
}

}  // namespace
}  // namespace parity
