// The property every op test spec must satisfy: its generated single-op cases pass the forward
// oracle and, unless the spec skips it, the gradient oracle, with the spec's tolerance class.
#ifndef PARITY_TESTS_FUZZ_SPEC_PROPERTY_H_
#define PARITY_TESTS_FUZZ_SPEC_PROPERTY_H_

#include <rapidcheck.h>

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
inline void CheckSpecProperty(const std::string& type) {
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
  if (spec->Skips("gradient") || c.grad_inputs_size() == 0) return;
  oracles::OracleResult gradient = oracles::RunOracle("gradient", c, options);
  if (gradient.finding) RC_FAIL(oracles::DescribeFinding(*gradient.finding) + c.net().ShortDebugString());
  RC_PRE(gradient.not_applicable.rfind("not smooth", 0) != 0);
  if (!gradient.not_applicable.empty()) RC_FAIL("gradient oracle: " + gradient.not_applicable);
}

}  // namespace parity::fuzz

#endif  // PARITY_TESTS_FUZZ_SPEC_PROPERTY_H_
