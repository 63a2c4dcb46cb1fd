// Properties over the reductions' test specs (fuzz/specs/reduce.cc): generated single-op cases
// pass the forward oracle and, unless the spec skips it, the gradient oracle, with the spec's
// tolerance class.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/oracle.h"
#include "oracles/tolerance.h"

namespace parity::fuzz {
namespace {

std::string Describe(const Finding& f) {
  std::string out = f.oracle() + ": " + f.message();
  if (f.blamed_op_index() >= 0) out += " (blamed op " + f.blamed_op_type() + ")";
  for (const auto& c : f.comparisons()) {
    out += "\n  blob " + c.blob() + ": max abs error " + std::to_string(c.metrics().max_abs_error()) +
           ", mismatches " + std::to_string(c.metrics().mismatch_count());
  }
  return out + "\n  net: " + f.case_().net().ShortDebugString();
}

// Runs the forward and (unless skipped) gradient oracles on one generated case of `type`.
// `grad_outputs`: the outputs that carry gradients where Caffe2's maker ignores the others
// (empty: all), like Caffe2's outputs_with_grads.
void CheckSpec(const std::string& type, const std::vector<int>& grad_outputs = {}) {
  const OpSpec* spec = SpecRegistry::Find(type);
  RC_ASSERT(spec != nullptr);
  const Case c = *OpCaseGen(*spec);
  oracles::OracleOptions options;
  options.tolerance = oracles::GetToleranceClass(spec->tolerance());
  if (!spec->Skips("forward")) {
    oracles::OracleResult forward = oracles::RunOracle("forward", c, options);
    if (forward.finding) RC_FAIL(Describe(*forward.finding));
    if (!forward.not_applicable.empty()) RC_FAIL("forward oracle: " + forward.not_applicable);
  }
  if (!spec->Skips("gradient")) {
    Case g = c;
    if (!grad_outputs.empty()) {
      g.mutable_net()->clear_external_output();
      for (int i : grad_outputs) g.mutable_net()->add_external_output(c.net().op(0).output(i));
    }
    oracles::OracleResult gradient = oracles::RunOracle("gradient", g, options);
    if (gradient.finding) RC_FAIL(Describe(*gradient.finding));
    if (!gradient.not_applicable.empty()) RC_FAIL("gradient oracle: " + gradient.not_applicable);
  }
}

TEST(ReduceSpecs, EveryOpHasASpec) {
  for (const char* type : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "SumElements", "Softmax"}) {
    EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
  }
}
RC_GTEST_PROP(ReduceSpecs, ReduceSum, ()) { CheckSpec("ReduceSum"); }
RC_GTEST_PROP(ReduceSpecs, ReduceMean, ()) { CheckSpec("ReduceMean"); }
RC_GTEST_PROP(ReduceSpecs, ReduceMax, ()) { CheckSpec("ReduceMax"); }
RC_GTEST_PROP(ReduceSpecs, ReduceMin, ()) { CheckSpec("ReduceMin"); }
RC_GTEST_PROP(ReduceSpecs, SumElements, ()) { CheckSpec("SumElements"); }
RC_GTEST_PROP(ReduceSpecs, Softmax, ()) { CheckSpec("Softmax"); }

}  // namespace
}  // namespace parity::fuzz
