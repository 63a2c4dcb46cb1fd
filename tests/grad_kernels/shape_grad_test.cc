// Gradient kernels of the shape ops: SliceGradient, GatherGradient, TileGradient against
// hand-derived values; every differentiable input of every shape op (including those whose
// gradients are made of forward ops: Reshape, Transpose, Concat, Split, Flatten, ExpandDims,
// Squeeze) against central finite differences of the reference; one error per schema / kernel
// check.
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// n distinct values in (-1, 1), spaced 2/n apart, in a scrambled order.
std::vector<float> Distinct(int64_t n, int64_t seed = 1) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = (i * 7 + seed) % n;
    if (n % 7 == 0) k = (i * 11 + seed) % n;
    v[i] = static_cast<float>(-1.0 + 2.0 * (k + 0.5) / n);
  }
  return v;
}

Tensor Floats(const std::vector<int64_t>& dims, int64_t seed = 1) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return MakeTensor<float>(dims, Distinct(n, seed));
}

// ---------------------------------------------------------------------------------------------
// Hand-derived values

TEST(SliceGradient, ArgumentForm) {
  // X [2, 3], box rows [0, 2), cols [1, 3): dY [[1, 2], [3, 4]] lands in columns 1, 2.
  auto ws = RunOp(
      MakeOp("SliceGradient", {"x", "dy"}, {"dx"}, {{"starts", Ints{0, 1}}, {"ends", Ints{2, 3}}}),
      {{"x", Floats({2, 3})}, {"dy", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {0, 1, 2, 0, 3, 4});
}

TEST(SliceGradient, InputFormWithNegativeEnd) {
  // X [3, 2]; starts [1], ends [-1] = rows [1, 3): dY fills rows 1 and 2. double dY -> double dX.
  auto ws = RunOp(MakeOp("SliceGradient", {"x", "s", "e", "dy"}, {"dx"}),
                  {{"x", Floats({3, 2})},
                   {"s", MakeTensor<int32_t>({1}, {1})},
                   {"e", MakeTensor<int64_t>({1}, {-1})},
                   {"dy", MakeTensor<double>({2, 2}, {1, 2, 3, 4})}});
  EXPECT_EQ(ws->GetTensor("dx").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("dx"), {3, 2}, {0, 0, 1, 2, 3, 4});
}

TEST(GatherGradient, RepeatedIndicesAccumulate) {
  // DATA [3, 2], INDICES [2, 0, 2]: row 2 gets dY rows 0 and 2 = [1+5, 2+6]; row 0 gets [3, 4];
  // row 1 nothing.
  auto ws = RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"}),
                  {{"d", Floats({3, 2})},
                   {"i", MakeTensor<int32_t>({3}, {2, 0, 2})},
                   {"dy", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})}});
  ExpectTensorNear(ws->GetTensor("dd"), {3, 2}, {3, 4, 0, 0, 6, 8});
}

TEST(GatherGradient, AxisOneAndWrappedIndex) {
  // DATA [2, 3], axis 1, INDICES [1, 1]: dY [[1, 2], [3, 4]] -> column 1 gets 1+2 and 3+4.
  auto ws = RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"}, {{"axis", 1}}),
                  {{"d", Floats({2, 3})},
                   {"i", MakeTensor<int64_t>({2}, {1, 1})},
                   {"dy", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}});
  ExpectTensorNear(ws->GetTensor("dd"), {2, 3}, {0, 3, 0, 0, 7, 0});
  // Axis 0 wraps negative indices by default: -1 is row 2 of DATA [3, 1].
  ws = RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"}),
             {{"d", Floats({3, 1})},
              {"i", MakeTensor<int32_t>({1}, {-1})},
              {"dy", MakeTensor<float>({1, 1}, {5})}});
  ExpectTensorNear(ws->GetTensor("dd"), {3, 1}, {0, 0, 5});
}

TEST(TileGradient, SumsTheCopies) {
  // dY [2, 4] from tiles=2 on axis 1 of X [2, 2]: [1+3, 2+4], [5+7, 6+8].
  auto ws = RunOp(MakeOp("TileGradient", {"dy"}, {"dx"}, {{"tiles", 2}, {"axis", 1}}),
                  {{"dy", MakeTensor<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {4, 6, 12, 14});
  // Inputs form: tiles [3], axis [0] on dY [3, 2]: X [1, 2] = [1+3+5, 2+4+6].
  ws = RunOp(MakeOp("TileGradient", {"dy", "t", "a"}, {"dx"}),
             {{"dy", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})},
              {"t", MakeTensor<int32_t>({1}, {3})},
              {"a", MakeTensor<int64_t>({1}, {0})}});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 2}, {9, 12});
}

// ---------------------------------------------------------------------------------------------
// Gradient checks against the reference

// The reference follows Caffe2 in cutting one axis per Slice (production allows several), so
// the checks cut one axis each.
TEST(ShapeGradientChecks, Slice) {
  EXPECT_GRADIENT_CHECKS(
      MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{1, 0}}, {"ends", Ints{3, -1}}}),
      {{"x", Floats({4, 3})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Slice", {"x", "s", "e"}, {"y"}),
                         {{"x", Floats({2, 3, 4})},
                          {"s", MakeTensor<int32_t>({3}, {0, 0, 1})},
                          {"e", MakeTensor<int32_t>({3}, {-1, -1, -2})}},
                         0);
}

TEST(ShapeGradientChecks, Gather) {
  EXPECT_GRADIENT_CHECKS(MakeOp("Gather", {"d", "i"}, {"y"}),
                         {{"d", Floats({4, 3})}, {"i", MakeTensor<int32_t>({2, 2}, {3, 0, 3, 1})}},
                         0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Gather", {"d", "i"}, {"y"}, {{"axis", -1}}),
                         {{"d", Floats({2, 3, 4})}, {"i", MakeTensor<int64_t>({3}, {2, 2, 0})}}, 0);
}

TEST(ShapeGradientChecks, GatherElements) {
  // Repeated and negative (wrapped) picks along each axis.
  EXPECT_GRADIENT_CHECKS(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", 1}}),
                         {{"d", Floats({2, 3})},
                          {"i", MakeTensor<int64_t>({2, 4}, {2, -1, 0, 1, 0, 0, -3, 2})}},
                         0);
  EXPECT_GRADIENT_CHECKS(MakeOp("GatherElements", {"d", "i"}, {"y"}),
                         {{"d", Floats({3, 2, 2})},
                          {"i", MakeTensor<int32_t>({2, 1, 2}, {2, 0, 2, -1})}},
                         0);
}

TEST(ShapeGradientChecks, Tile) {
  EXPECT_GRADIENT_CHECKS(MakeOp("Tile", {"x"}, {"y"}, {{"tiles", 3}, {"axis", 1}}),
                         {{"x", Floats({2, 2, 3})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Tile", {"x", "t", "a"}, {"y"}),
                         {{"x", Floats({3, 2})},
                          {"t", MakeTensor<int32_t>({1}, {2})},
                          {"a", MakeTensor<int32_t>({1}, {-2})}},
                         0);
}

TEST(ShapeGradientChecks, ForwardOpGradients) {
  EXPECT_GRADIENT_CHECKS(MakeOp("Reshape", {"x"}, {"y", "old"}, {{"shape", Ints{3, -1}}}),
                         {{"x", Floats({2, 3, 2})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Transpose", {"x"}, {"y"}, {{"axes", Ints{1, 2, 0}}}),
                         {{"x", Floats({2, 3, 4})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Transpose", {"x"}, {"y"}), {{"x", Floats({2, 3})}}, 0);
  const auto concat = MakeOp("Concat", {"a", "b"}, {"y", "info"}, {{"axis", 1}});
  const oracles::NamedTensors concat_in = {{"a", Floats({2, 3})}, {"b", Floats({2, 2}, 3)}};
  EXPECT_GRADIENT_CHECKS(concat, concat_in, 0);
  EXPECT_GRADIENT_CHECKS(concat, concat_in, 1);
  EXPECT_GRADIENT_CHECKS(MakeOp("Split", {"x"}, {"p", "q"}, {{"axis", 0}, {"split", Ints{1, 2}}}),
                         {{"x", Floats({3, 2})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Flatten", {"x"}, {"y"}, {{"axis", 2}}), {{"x", Floats({2, 3, 2})}},
                         0);
  EXPECT_GRADIENT_CHECKS(MakeOp("ExpandDims", {"x"}, {"y"}, {{"dims", Ints{0, 2}}}),
                         {{"x", Floats({2, 3})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Squeeze", {"x"}, {"y"}, {{"dims", Ints{1}}}),
                         {{"x", Floats({3, 1, 2})}}, 0);
}

// ---------------------------------------------------------------------------------------------
// Errors: one per check

TEST(SliceGradient, Errors) {
  const auto x = Floats({2, 3});
  // Arity: starts and ends come together.
  ExpectError(
      [&] {
        RunOp(MakeOp("SliceGradient", {"x", "s", "dy"}, {"dx"}),
              {{"x", x}, {"s", MakeTensor<int32_t>({1}, {0})}, {"dy", x}});
      },
      ErrorKind::kBadArgument, {"SliceGradient"});
  // Neither arguments nor inputs.
  ExpectError(
      [&] {
        RunOp(MakeOp("SliceGradient", {"x", "dy"}, {"dx"}), {{"x", x}, {"dy", x}});
      },
      ErrorKind::kBadArgument, {"starts", "ends"});
  // dY not shaped like the slice.
  ExpectError(
      [&] {
        RunOp(
            MakeOp("SliceGradient", {"x", "dy"}, {"dx"}, {{"starts", Ints{0}}, {"ends", Ints{1}}}),
            {{"x", x}, {"dy", x}});
      },
      ErrorKind::kShapeMismatch, {"'dy'", "[1, 3]"});
  // dY of an integer dtype.
  ExpectError(
      [&] {
        RunOp(
            MakeOp("SliceGradient", {"x", "dy"}, {"dx"}, {{"starts", Ints{0}}, {"ends", Ints{1}}}),
            {{"x", x}, {"dy", MakeTensor<int32_t>({1, 3}, {1, 2, 3})}});
      },
      ErrorKind::kShapeMismatch, {"'dy'", "float or double"});
  // starts input not 1-D.
  ExpectError(
      [&] {
        RunOp(MakeOp("SliceGradient", {"x", "s", "e", "dy"}, {"dx"}),
              {{"x", x},
               {"s", MakeTensor<int32_t>({1, 1}, {0})},
               {"e", MakeTensor<int32_t>({1}, {1})},
               {"dy", MakeTensor<float>({1, 3}, {1, 2, 3})}});
      },
      ErrorKind::kShapeMismatch, {"'s'", "1-D"});
  // A reversed range, as in Slice.
  ExpectError(
      [&] {
        RunOp(
            MakeOp("SliceGradient", {"x", "dy"}, {"dx"}, {{"starts", Ints{2}}, {"ends", Ints{1}}}),
            {{"x", x}, {"dy", x}});
      },
      ErrorKind::kBadArgument, {"reversed"});
}

TEST(GatherGradient, Errors) {
  const auto d = Floats({3, 2});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"}),
              {{"d", d}, {"i", MakeTensor<int32_t>({1}, {3})}, {"dy", Floats({1, 2})}});
      },
      ErrorKind::kBadArgument, {"index 3", "out of range"});
  // No wrapping off axis 0 unless asked.
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"}, {{"axis", 1}}),
              {{"d", d}, {"i", MakeTensor<int32_t>({1}, {-1})}, {"dy", Floats({3, 1})}});
      },
      ErrorKind::kBadArgument, {"index -1"});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"}),
              {{"d", d}, {"i", MakeTensor<int32_t>({2}, {0, 1})}, {"dy", Floats({3, 2})}});
      },
      ErrorKind::kShapeMismatch, {"'dy'", "[2, 2]"});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"}),
              {{"d", d}, {"i", MakeTensor<float>({1}, {0})}, {"dy", Floats({1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"INDICES", "int32 or int64"});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"}, {{"axis", 2}}),
              {{"d", d}, {"i", MakeTensor<int32_t>({1}, {0})}, {"dy", Floats({1, 2})}});
      },
      ErrorKind::kBadArgument, {"axis 2"});
}

TEST(TileGradient, Errors) {
  const auto dy = Floats({2, 4});
  ExpectError(
      [&] {
        RunOp(MakeOp("TileGradient", {"dy"}, {"dx"}, {{"axis", 1}}), {{"dy", dy}});
      },
      ErrorKind::kBadArgument, {"tiles"});
  ExpectError(
      [&] {
        RunOp(MakeOp("TileGradient", {"dy"}, {"dx"}, {{"tiles", 2}}), {{"dy", dy}});
      },
      ErrorKind::kBadArgument, {"axis"});
  ExpectError(
      [&] {
        RunOp(MakeOp("TileGradient", {"dy"}, {"dx"}, {{"tiles", 0}, {"axis", 1}}), {{"dy", dy}});
      },
      ErrorKind::kBadArgument, {"tiles 0", "positive"});
  ExpectError(
      [&] {
        RunOp(MakeOp("TileGradient", {"dy"}, {"dx"}, {{"tiles", 3}, {"axis", 1}}), {{"dy", dy}});
      },
      ErrorKind::kShapeMismatch, {"multiple of tiles 3"});
  ExpectError(
      [&] {
        RunOp(MakeOp("TileGradient", {"dy", "t"}, {"dx"}, {{"axis", 1}}),
              {{"dy", dy}, {"t", MakeTensor<int32_t>({2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"'t'", "one element"});
  ExpectError(
      [&] {
        RunOp(MakeOp("TileGradient", {"dy"}, {"dx"}, {{"tiles", 2}, {"axis", 1}}),
              {{"dy", MakeTensor<int32_t>({1, 2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"float or double"});
}

TEST(ShapeGradients, SchemasInferShapes) {
  TensorType x{DataType::kFloat, {2, 3}, true};
  TensorType dy{DataType::kDouble, {2, 2}, true};
  auto out = OpSchemaRegistry::Get("SliceGradient")
                 .InferShapes(MakeOp("SliceGradient", {"x", "dy"}, {"dx"},
                                     {{"starts", Ints{0, 1}}, {"ends", Ints{2, 3}}}),
                              {x, dy});
  EXPECT_EQ(out[0].dims, (Ints{2, 3}));
  EXPECT_EQ(out[0].dtype, DataType::kDouble);
  out = OpSchemaRegistry::Get("TileGradient")
            .InferShapes(MakeOp("TileGradient", {"dy"}, {"dx"}, {{"tiles", 2}, {"axis", -1}}),
                         {TensorType{DataType::kFloat, {3, 4}, true}});
  EXPECT_EQ(out[0].dims, (Ints{3, 2}));
}

}  // namespace
}  // namespace parity::testing
