// Properties over the losses' test specs (fuzz/specs/loss.cc): generated single-op cases
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

TEST(LossSpecs, EveryOpHasASpec) {
  for (const char* type : {"SquaredL2Distance", "AveragedLoss", "LabelCrossEntropy", "SoftmaxWithLoss", "SigmoidCrossEntropyWithLogits"}) {
    EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
  }
}
RC_GTEST_PROP(LossSpecs, SquaredL2Distance, ()) { CheckSpecProperty("SquaredL2Distance"); }
RC_GTEST_PROP(LossSpecs, AveragedLoss, ()) { CheckSpecProperty("AveragedLoss"); }
RC_GTEST_PROP(LossSpecs, LabelCrossEntropy, ()) { CheckSpecProperty("LabelCrossEntropy"); }
RC_GTEST_PROP(LossSpecs, SoftmaxWithLoss, ()) { CheckSpecProperty("SoftmaxWithLoss"); }
RC_GTEST_PROP(LossSpecs, SigmoidCrossEntropyWithLogits, ()) { CheckSpecProperty("SigmoidCrossEntropyWithLogits"); }

}  // namespace
}  // namespace parity::fuzz
