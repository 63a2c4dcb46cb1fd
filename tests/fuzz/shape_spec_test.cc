// Properties over the Shape family' test specs (fuzz/specs/shape.cc): generated single-op cases
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

TEST(ShapeSpecs, EveryOpHasASpec) {
  for (const char* type : {"Reshape", "Transpose", "Concat", "Split", "Flatten", "FlattenToVec", "ExpandDims", "Squeeze", "Slice", "Shape", "Gather", "Tile"}) {
    EXPECT_NE(SpecRegistry::Find(type), nullptr) << type;
  }
}
RC_GTEST_PROP(ShapeSpecs, Reshape, ()) { CheckSpecProperty("Reshape"); }
RC_GTEST_PROP(ShapeSpecs, Transpose, ()) { CheckSpecProperty("Transpose"); }
RC_GTEST_PROP(ShapeSpecs, Concat, ()) { CheckSpecProperty("Concat"); }
RC_GTEST_PROP(ShapeSpecs, Split, ()) { CheckSpecProperty("Split"); }
RC_GTEST_PROP(ShapeSpecs, Flatten, ()) { CheckSpecProperty("Flatten"); }
RC_GTEST_PROP(ShapeSpecs, FlattenToVec, ()) { CheckSpecProperty("FlattenToVec"); }
RC_GTEST_PROP(ShapeSpecs, ExpandDims, ()) { CheckSpecProperty("ExpandDims"); }
RC_GTEST_PROP(ShapeSpecs, Squeeze, ()) { CheckSpecProperty("Squeeze"); }
RC_GTEST_PROP(ShapeSpecs, Slice, ()) { CheckSpecProperty("Slice"); }
RC_GTEST_PROP(ShapeSpecs, Shape, ()) { CheckSpecProperty("Shape"); }
RC_GTEST_PROP(ShapeSpecs, Gather, ()) { CheckSpecProperty("Gather"); }
RC_GTEST_PROP(ShapeSpecs, Tile, ()) { CheckSpecProperty("Tile"); }

}  // namespace
}  // namespace parity::fuzz
