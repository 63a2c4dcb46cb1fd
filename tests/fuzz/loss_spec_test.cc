// Properties over the losses' test specs (fuzz/specs/loss.cc): generated single-op cases
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

TEST(LossSpecs, EveryOpHasASpec) {
  for (const char* type : {"SquaredL2Distance", "AveragedLoss", "LabelCrossEntropy", "SoftmaxWithLoss", "SigmoidCrossEntropyWithLogits"}) {
    EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
  }
}
PARITY_OP_PROPERTY(SquaredL2Distance);
PARITY_OP_PROPERTY(AveragedLoss);
PARITY_OP_PROPERTY(LabelCrossEntropy);
PARITY_OP_PROPERTY(SoftmaxWithLoss);
PARITY_OP_PROPERTY(SigmoidCrossEntropyWithLogits);

}  // namespace
}  // namespace parity::fuzz
