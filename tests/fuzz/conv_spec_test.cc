// Properties of the conv, pool and linalg specs: single-op cases drawn from each spec agree with the
// reference (forward) and with finite differences of the reference (gradient), under the spec's
// own tolerance class. A failure is a production bug, a reference bug, or a spec that strays onto
// a kink; the finding's description says which op and which elements.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/describe.h"
#include "oracles/oracle.h"

namespace parity::fuzz {
namespace {

void CheckSpec(const std::string& type, const std::string& oracle) {
  const OpSpec* spec = SpecRegistry::Find(type);
  RC_ASSERT(spec != nullptr);
  const Case c = *OpCaseGen(*spec);
  oracles::OracleOptions options;
  options.tolerance = oracles::GetToleranceClass(spec->tolerance());
  const oracles::OracleResult result = oracles::RunOracle(oracle, c, options);
  if (result.finding) {
    RC_FAIL(oracles::DescribeFinding(*result.finding) + "\ncase:\n" + c.DebugString());
  }
  RC_TAG(result.not_applicable.empty() ? "checked" : "not applicable");
}

#define PARITY_SPEC_PROPERTIES(Type)                                                     \
  RC_GTEST_PROP(SpecProperty, Type##Forward, ()) { CheckSpec(#Type, "forward"); }      \
  RC_GTEST_PROP(SpecProperty, Type##Gradient, ()) { CheckSpec(#Type, "gradient"); }

PARITY_SPEC_PROPERTIES(Conv)
PARITY_SPEC_PROPERTIES(MaxPool)
PARITY_SPEC_PROPERTIES(AveragePool)
PARITY_SPEC_PROPERTIES(FC)
PARITY_SPEC_PROPERTIES(FCTransposed)
PARITY_SPEC_PROPERTIES(MatMul)
PARITY_SPEC_PROPERTIES(BatchMatMul)

#undef PARITY_SPEC_PROPERTIES

// The whole Jacobian (every input element on its own) on a few cases of each spec: vᵀJu can miss
// errors that cancel along a random direction.
TEST(SpecFullJacobian, ConvPoolLinalg) {
  for (const std::string type :
       {"Conv", "MaxPool", "AveragePool", "FC", "FCTransposed", "MatMul", "BatchMatMul"}) {
    const OpSpec& spec = *SpecRegistry::Find(type);
    for (uint64_t seed = 1; seed <= 30; ++seed) {
      const Case c = SampleCase(OpCaseGen(spec), seed);
      oracles::OracleOptions options;
      options.tolerance = oracles::GetToleranceClass(spec.tolerance());
      options.full_jacobian = true;
      const oracles::OracleResult result = oracles::RunOracle("gradient", c, options);
      EXPECT_FALSE(result.finding.has_value())
          << type << " seed " << seed << ": " << oracles::DescribeFinding(*result.finding);
    }
  }
}

}  // namespace
}  // namespace parity::fuzz
