// Properties over the normalizations' test specs (fuzz/specs/norm.cc): generated single-op cases
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

TEST(NormSpecs, EveryOpHasASpec) {
  for (const char* type : {"SpatialBN", "LayerNorm"}) {
    EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
  }
}
PARITY_OP_PROPERTY(SpatialBN);
PARITY_OP_PROPERTY(LayerNorm);

}  // namespace
}  // namespace parity::fuzz
