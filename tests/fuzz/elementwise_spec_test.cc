// Properties over the elementwise ops' test specs (fuzz/specs/elementwise.cc,
// fuzz/specs/elementwise_unary.cc): generated single-op cases pass the forward oracle and, unless
// the spec skips it (or the case has no float input, e.g. int32 Add), the gradient oracle, with
// the spec's tolerance class.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "fuzz/testing/op_property.h"
#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/oracle.h"
#include "oracles/tolerance.h"

namespace parity::fuzz {
namespace {

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
  RC_GTEST_PROP(ElementwiseSpecs, Name, ()) { CheckOpProperty(#Name); }

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
