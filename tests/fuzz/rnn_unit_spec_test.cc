// Properties over the RNN cells' test specs (fuzz/specs/rnn_unit.cc): generated single-op cases
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

TEST(RnnUnitSpecs, EveryOpHasASpec) {
  for (const char* type : {"LSTMUnit", "GRUUnit"}) {
    EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
  }
}
PARITY_OP_PROPERTY(LSTMUnit);
PARITY_OP_PROPERTY(GRUUnit);

}  // namespace
}  // namespace parity::fuzz
