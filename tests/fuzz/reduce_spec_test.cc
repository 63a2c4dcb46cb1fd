// Properties over the reductions' test specs (fuzz/specs/reduce.cc): generated single-op cases
// pass the forward oracle and, unless the spec skips it, the gradient oracle, with the spec's
// tolerance class.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "fuzz/testing/op_property.h"
#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/oracle.h"
#include "oracles/tolerance.h"

namespace parity::fuzz {
namespace {

TEST(ReduceSpecs, EveryOpHasASpec) {
  for (const char* type : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "SumElements", "Softmax"}) {
    EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
  }
}
PARITY_OP_PROPERTY(ReduceSum);
PARITY_OP_PROPERTY(ReduceMean);
PARITY_OP_PROPERTY(ReduceMax);
PARITY_OP_PROPERTY(ReduceMin);
PARITY_OP_PROPERTY(SumElements);
PARITY_OP_PROPERTY(Softmax);

}  // namespace
}  // namespace parity::fuzz
