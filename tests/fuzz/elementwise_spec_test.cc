// Properties over the elementwise ops' test specs (fuzz/specs/elementwise.cc,
// fuzz/specs/elementwise_unary.cc): generated single-op cases pass the forward oracle and, unless
// the spec skips it (or the case has no float input, e.g. int32 Add), the gradient oracle, with
// the spec's tolerance class.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

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

void CheckSpec(const std::string& type) {
  const OpSpec* spec = SpecRegistry::Find(type);
  RC_ASSERT(spec != nullptr);
  const Case c = *OpCaseGen(*spec);
  oracles::OracleOptions options;
  options.tolerance = oracles::GetToleranceClass(spec->tolerance());
  oracles::OracleResult forward = oracles::RunOracle("forward", c, options);
  if (forward.finding) RC_FAIL(Describe(*forward.finding));
  if (!forward.not_applicable.empty()) RC_FAIL("forward oracle: " + forward.not_applicable);
  if (spec->Skips("gradient") || c.grad_inputs_size() == 0) return;
  oracles::OracleResult gradient = oracles::RunOracle("gradient", c, options);
  if (gradient.finding) RC_FAIL(Describe(*gradient.finding));
  if (!gradient.not_applicable.empty()) RC_FAIL("gradient oracle: " + gradient.not_applicable);
}

const char* const kOps[] = {
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "LT", "LE", "GT", "GE",
    "EQ", "NE", "And", "Or", "Xor", "Not", "Relu", "LeakyRelu", "Elu", "Sigmoid", "Tanh",
    "Softsign", "Exp", "Log", "Sqrt", "Sqr", "Abs", "Neg", "Reciprocal", "Sin", "Cos", "Clip",
    "Scale", "Cast", "StopGradient"};

TEST(ElementwiseSpecs, EveryOpHasASpec) {
  for (const char* type : kOps) EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
}

TEST(ElementwiseSpecs, NonDifferentiableOpsSkipTheGradientOracle) {
  for (const char* type : {"LT", "LE", "GT", "GE", "EQ", "NE", "And", "Or", "Xor", "Not", "Cast",
                           "StopGradient"}) {
    EXPECT_TRUE(SpecRegistry::Find(type)->Skips("gradient")) << type;
  }
}

#define PARITY_SPEC_PROP(Name) \
  RC_GTEST_PROP(ElementwiseSpecs, Name, ()) { CheckSpec(#Name); }

PARITY_SPEC_PROP(Add)
PARITY_SPEC_PROP(Sub)
PARITY_SPEC_PROP(Mul)
PARITY_SPEC_PROP(Div)
PARITY_SPEC_PROP(Pow)
PARITY_SPEC_PROP(Max)
PARITY_SPEC_PROP(Min)
PARITY_SPEC_PROP(Sum)
PARITY_SPEC_PROP(Mean)
PARITY_SPEC_PROP(LT)
PARITY_SPEC_PROP(LE)
PARITY_SPEC_PROP(GT)
PARITY_SPEC_PROP(GE)
PARITY_SPEC_PROP(EQ)
PARITY_SPEC_PROP(NE)
PARITY_SPEC_PROP(And)
PARITY_SPEC_PROP(Or)
PARITY_SPEC_PROP(Xor)
PARITY_SPEC_PROP(Not)
PARITY_SPEC_PROP(Relu)
PARITY_SPEC_PROP(LeakyRelu)
PARITY_SPEC_PROP(Elu)
PARITY_SPEC_PROP(Sigmoid)
PARITY_SPEC_PROP(Tanh)
PARITY_SPEC_PROP(Softsign)
PARITY_SPEC_PROP(Exp)
PARITY_SPEC_PROP(Log)
PARITY_SPEC_PROP(Sqrt)
PARITY_SPEC_PROP(Sqr)
PARITY_SPEC_PROP(Abs)
PARITY_SPEC_PROP(Neg)
PARITY_SPEC_PROP(Reciprocal)
PARITY_SPEC_PROP(Sin)
PARITY_SPEC_PROP(Cos)
PARITY_SPEC_PROP(Clip)
PARITY_SPEC_PROP(Scale)
PARITY_SPEC_PROP(Cast)
PARITY_SPEC_PROP(StopGradient)
#undef PARITY_SPEC_PROP

}  // namespace
}  // namespace parity::fuzz
