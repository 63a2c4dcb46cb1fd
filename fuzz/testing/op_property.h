// PARITY_OP_PROPERTY(OpType): the property every op must satisfy, for op authors' gtest files.
// Single-op cases generated from the op's test spec (fuzz/specs/) pass every applicable oracle —
// forward, gradient, determinism, round-trip — with the spec's tolerance class:
//
//   #include "fuzz/testing/op_property.h"   // dep: //fuzz/testing:op_property
//   PARITY_OP_PROPERTY(Relu);
//
// RapidCheck draws the cases (derandomized under `bazel test`, see .bazelrc) and shrinks a failing
// one to a small net, printed with the finding.
#ifndef PARITY_FUZZ_TESTING_OP_PROPERTY_H_
#define PARITY_FUZZ_TESTING_OP_PROPERTY_H_

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/describe.h"
#include "oracles/oracle.h"
#include "oracles/tolerance.h"

namespace parity::fuzz {

// Inside an RC_GTEST_PROP. A case the gradient oracle finds not smooth (a point where a higher
// derivative jumps, such as Softsign at 0) is discarded: no verdict, and RapidCheck's discard limit
// still fails a spec that lands on kinks all the time. Any other "not applicable" fails.
inline void CheckOpProperty(const std::string& type) {
  const OpSpec* spec = SpecRegistry::Find(type);
  RC_ASSERT(spec != nullptr);
  const Case c = *OpCaseGen(*spec);
  oracles::OracleOptions options;
  options.tolerance = oracles::GetToleranceClass(spec->tolerance());
  if (!spec->Skips("forward")) {
    oracles::OracleResult forward = oracles::RunOracle("forward", c, options);
    if (forward.finding) RC_FAIL(oracles::DescribeFinding(*forward.finding) + c.net().ShortDebugString());
    if (!forward.not_applicable.empty()) RC_FAIL("forward oracle: " + forward.not_applicable);
  }
  for (const char* oracle : {"determinism", "roundtrip"}) {
    if (spec->Skips(oracle)) continue;
    oracles::OracleResult result = oracles::RunOracle(oracle, c, options);
    if (result.finding) RC_FAIL(oracles::DescribeFinding(*result.finding) + c.net().ShortDebugString());
  }
  if (spec->Skips("gradient") || c.grad_inputs_size() == 0) return;
  oracles::OracleResult gradient = oracles::RunOracle("gradient", c, options);
  if (gradient.finding) RC_FAIL(oracles::DescribeFinding(*gradient.finding) + c.net().ShortDebugString());
  RC_PRE(gradient.not_applicable.rfind("not smooth", 0) != 0);
  if (!gradient.not_applicable.empty()) RC_FAIL("gradient oracle: " + gradient.not_applicable);
}

}  // namespace parity::fuzz

#define PARITY_OP_PROPERTY(OpType) \
  RC_GTEST_PROP(OpProperty, OpType, ()) { ::parity::fuzz::CheckOpProperty(#OpType); }

#endif  // PARITY_FUZZ_TESTING_OP_PROPERTY_H_
