// Properties over the reductions' test specs (fuzz/specs/reduce.cc): generated single-op cases
// pass the forward oracle and, unless the spec skips it, the gradient oracle, with the spec's
// tolerance class.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "tests/fuzz/spec_property.h"
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
RC_GTEST_PROP(ReduceSpecs, ReduceSum, ()) { CheckSpecProperty("ReduceSum"); }
RC_GTEST_PROP(ReduceSpecs, ReduceMean, ()) { CheckSpecProperty("ReduceMean"); }
RC_GTEST_PROP(ReduceSpecs, ReduceMax, ()) { CheckSpecProperty("ReduceMax"); }
RC_GTEST_PROP(ReduceSpecs, ReduceMin, ()) { CheckSpecProperty("ReduceMin"); }
RC_GTEST_PROP(ReduceSpecs, SumElements, ()) { CheckSpecProperty("SumElements"); }
RC_GTEST_PROP(ReduceSpecs, Softmax, ()) { CheckSpecProperty("Softmax"); }

}  // namespace
}  // namespace parity::fuzz
