// Properties over the Shape family' test specs (fuzz/specs/shape.cc): generated single-op cases
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

TEST(ShapeSpecs, EveryOpHasASpec) {
  for (const char* type : {"Reshape", "Transpose", "Concat", "Split", "Flatten", "FlattenToVec", "ExpandDims", "Squeeze", "Slice", "Shape", "Gather", "Tile"}) {
    EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
  }
}
PARITY_OP_PROPERTY(Reshape);
PARITY_OP_PROPERTY(Transpose);
PARITY_OP_PROPERTY(Concat);
PARITY_OP_PROPERTY(Split);
PARITY_OP_PROPERTY(Flatten);
PARITY_OP_PROPERTY(FlattenToVec);
PARITY_OP_PROPERTY(ExpandDims);
PARITY_OP_PROPERTY(Squeeze);
PARITY_OP_PROPERTY(Slice);
PARITY_OP_PROPERTY(Shape);
PARITY_OP_PROPERTY(Gather);
PARITY_OP_PROPERTY(Tile);

}  // namespace
}  // namespace parity::fuzz
