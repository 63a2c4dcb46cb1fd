// Gradient kernels of the reductions: Reduce{Sum,Mean,Max,Min}Gradient, SumElementsGradient,
// SoftmaxGradient against hand-derived values, gradient checks of every forward op of the family
// against the reference, and one error per check.
#include <numeric>

#include "oracles/testing/op_checks.h"
#include "tests/grad_kernels/grad_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Hand-derived values

TEST(ReduceSumGradient, BroadcastsBack) {
  // Row sums of X [2, 3] (keepdims): dY [[1], [2]] spreads over each row.
  auto ws = RunOp(MakeOp("ReduceSumGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{1}}}),
                  {{"dy", MakeTensor<float>({2, 1}, {1, 2})},
                   {"x", Distinct({2, 3})},
                   {"y", MakeTensor<float>({2, 1}, {0, 0})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {1, 1, 1, 2, 2, 2});
  // Non-adjacent axes {0, 2} of [2, 2, 2], keepdims=0: dX[i, j, k] = dY[j].
  ws = RunOp(MakeOp("ReduceSumGradient", {"dy", "x", "y"}, {"dx"},
                    {{"axes", Ints{0, -1}}, {"keepdims", 0}}),
             {{"dy", MakeTensor<float>({2}, {1, 10})},
              {"x", Distinct({2, 2, 2})},
              {"y", MakeTensor<float>({2}, {0, 0})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2, 2}, {1, 1, 10, 10, 1, 1, 10, 10});
}

TEST(ReduceMeanGradient, DividesByTheGroupSize) {
  // Column means of X [2, 3], keepdims=0: dY [3, 6, 9] / 2 in both rows.
  auto ws = RunOp(
      MakeOp("ReduceMeanGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{0}}, {"keepdims", 0}}),
      {{"dy", MakeTensor<double>({3}, {3, 6, 9})},
       {"x", MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})},
       {"y", MakeTensor<double>({3}, {2.5, 3.5, 4.5})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {1.5, 3, 4.5, 1.5, 3, 4.5});
  // All axes (default), keepdims: one group of 6.
  ws = RunOp(MakeOp("ReduceMeanGradient", {"dy", "x", "y"}, {"dx"}),
             {{"dy", MakeTensor<float>({1, 1}, {6})},
              {"x", Distinct({2, 3})},
              {"y", MakeTensor<float>({1, 1}, {0})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {1, 1, 1, 1, 1, 1});
}

TEST(ReduceMaxMinGradient, FirstExtremalElementWins) {
  // Rows [3, 1, 3] and [-2, -2, -5]: max 3 at 0 and 2 (tie), -2 at 0 and 1 (tie); the first of
  // each tie takes dY. Min: 1 at 1, -5 at 2.
  const auto x = MakeTensor<float>({2, 3}, {3, 1, 3, -2, -2, -5});
  const auto dy = MakeTensor<float>({2}, {5, 7});
  auto ws = RunOp(
      MakeOp("ReduceMaxGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{1}}, {"keepdims", 0}}),
      {{"dy", dy}, {"x", x}, {"y", MakeTensor<float>({2}, {3, -2})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {5, 0, 0, 7, 0, 0});
  ws = RunOp(
      MakeOp("ReduceMinGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{1}}, {"keepdims", 0}}),
      {{"dy", dy}, {"x", x}, {"y", MakeTensor<float>({2}, {1, -5})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {0, 5, 0, 0, 0, 7});
  // Column maxima of the same X: 3 (row 0), 1 (row 0), 3 (row 0).
  ws = RunOp(MakeOp("ReduceMaxGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{0}}}),
             {{"dy", MakeTensor<float>({1, 3}, {1, 2, 3})},
              {"x", x},
              {"y", MakeTensor<float>({1, 3}, {3, 1, 3})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {1, 2, 3, 0, 0, 0});
}

TEST(SumElementsGradient, SumAndAverage) {
  // dY = 3 to each of 4 elements; averaged: 3 / 4.
  auto ws = RunOp(MakeOp("SumElementsGradient", {"x", "dy"}, {"dx"}),
                  {{"x", Distinct({2, 2})}, {"dy", MakeTensor<float>({}, {3})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {3, 3, 3, 3});
  ws = RunOp(MakeOp("SumElementsGradient", {"x", "dy"}, {"dx"}, {{"average", 1}}),
             {{"x", Distinct({2, 2})}, {"dy", MakeTensor<float>({}, {3})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {0.75, 0.75, 0.75, 0.75});
}

TEST(SoftmaxGradient, JacobianProduct) {
  // Y = [0.25, 0.75], dY = [1, 0]: <dY, Y> = 0.25; dX = Y * (dY - 0.25) = [0.1875, -0.1875].
  // Second row Y = [0.5, 0.5], dY = [2, 2]: dX = 0.
  auto ws = RunOp(MakeOp("SoftmaxGradient", {"y", "dy"}, {"dx"}),
                  {{"y", MakeTensor<float>({2, 2}, {0.25, 0.75, 0.5, 0.5})},
                   {"dy", MakeTensor<float>({2, 2}, {1, 0, 2, 2})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {0.1875, -0.1875, 0, 0});
  // In place on dY.
  ws = RunOp(
      MakeOp("SoftmaxGradient", {"y", "dy"}, {"dy"}),
      {{"y", MakeTensor<float>({1, 2}, {0.25, 0.75})}, {"dy", MakeTensor<float>({1, 2}, {1, 0})}});
  ExpectTensorNear(ws->GetTensor("dy"), {1, 2}, {0.1875, -0.1875});
}

// ---------------------------------------------------------------------------------------------
// Gradient checks against the reference

TEST(ReduceGradientChecks, SumAndMean) {
  for (const char* type : {"ReduceSum", "ReduceMean"}) {
    EXPECT_GRADIENT_CHECKS(MakeOp(type, {"x"}, {"y"}, {{"axes", Ints{1}}}),
                           {{"x", Distinct({2, 3, 2})}}, 0)
        << type;
    EXPECT_GRADIENT_CHECKS(MakeOp(type, {"x"}, {"y"}, {{"axes", Ints{0, -1}}, {"keepdims", 0}}),
                           {{"x", Distinct({2, 3, 2})}}, 0)
        << type;
    EXPECT_GRADIENT_CHECKS(MakeOp(type, {"x"}, {"y"}, {{"keepdims", 0}}), {{"x", Distinct({3, 2})}},
                           0)
        << type;
  }
}

TEST(ReduceGradientChecks, Prod) {
  EXPECT_GRADIENT_CHECKS(MakeOp("ReduceProd", {"x"}, {"y"}, {{"axes", Ints{1}}}),
                         {{"x", Distinct({2, 3, 2})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("ReduceProd", {"x"}, {"y"}, {{"axes", Ints{0, -1}}, {"keepdims", 0}}),
                         {{"x", Positive({2, 3, 2})}}, 0);
  // A zero in a group: the product of the others still flows to it.
  EXPECT_GRADIENT_CHECKS(MakeOp("ReduceProd", {"x"}, {"y"}, {{"keepdims", 0}}),
                         {{"x", MakeTensor<float>({2, 2}, {0.5f, 0, -1.5f, 2})}}, 0);
}

// CumSum's gradient is a CumSum of dY the other way round, exclusive or not.
TEST(ReduceGradientChecks, CumSum) {
  for (int64_t exclusive : {0, 1}) {
    for (int64_t reverse : {0, 1}) {
      EXPECT_GRADIENT_CHECKS(
          MakeOp("CumSum", {"x"}, {"y"},
                 {{"axis", -2}, {"exclusive", exclusive}, {"reverse", reverse}}),
          {{"x", Distinct({2, 3, 2})}}, 0)
          << exclusive << reverse;
    }
  }
}

TEST(ReduceGradientChecks, MaxAndMin) {
  for (const char* type : {"ReduceMax", "ReduceMin"}) {
    EXPECT_GRADIENT_CHECKS(MakeOp(type, {"x"}, {"y"}, {{"axes", Ints{1}}}),
                           {{"x", Distinct({2, 3, 2})}}, 0)
        << type;
    EXPECT_GRADIENT_CHECKS(MakeOp(type, {"x"}, {"y"}, {{"axes", Ints{-1, 0}}, {"keepdims", 0}}),
                           {{"x", Distinct({2, 3, 2}, 5)}}, 0)
        << type;
    EXPECT_GRADIENT_CHECKS(MakeOp(type, {"x"}, {"y"}), {{"x", Distinct({4, 3})}}, 0) << type;
  }
}

TEST(ReduceGradientChecks, SumElementsAndSoftmax) {
  EXPECT_GRADIENT_CHECKS(MakeOp("SumElements", {"x"}, {"y"}), {{"x", Distinct({2, 3})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("SumElements", {"x"}, {"y"}, {{"average", 1}}),
                         {{"x", Distinct({2, 3})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Softmax", {"x"}, {"y"}), {{"x", Distinct({3, 4})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Softmax", {"x"}, {"y"}, {{"axis", -1}}),
                         {{"x", Distinct({2, 2, 3})}}, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("Softmax", {"x"}, {"y"}, {{"axis", 0}}), {{"x", Distinct({2, 3})}},
                         0);
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(ReduceGradient, Errors) {
  const auto x = Distinct({2, 3});
  const auto y = MakeTensor<float>({2, 1}, {0, 0});
  // Arity.
  ExpectError(
      [&] {
        RunOp(MakeOp("ReduceSumGradient", {"dy", "x"}, {"dx"}), {{"dy", y}, {"x", x}});
      },
      ErrorKind::kBadArgument, {"ReduceSumGradient"});
  // dY not shaped like the reduction.
  ExpectError(
      [&] {
        RunOp(MakeOp("ReduceSumGradient", {"dy", "x", "y"}, {"dx"},
                     {{"axes", Ints{1}}, {"keepdims", 0}}),
              {{"dy", y}, {"x", x}, {"y", y}});
      },
      ErrorKind::kShapeMismatch, {"'dy'", "[2]"});
  // Y not shaped like the reduction.
  ExpectError(
      [&] {
        RunOp(MakeOp("ReduceMaxGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{1}}}),
              {{"dy", y}, {"x", x}, {"y", MakeTensor<float>({2}, {0, 0})}});
      },
      ErrorKind::kShapeMismatch, {"'y'", "[2, 1]"});
  // An axis out of range.
  ExpectError(
      [&] {
        RunOp(MakeOp("ReduceMeanGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{2}}}),
              {{"dy", y}, {"x", x}, {"y", y}});
      },
      ErrorKind::kBadArgument, {"'axes' entry 2"});
  // Max / Min compare X with Y: same dtype as dY.
  ExpectError(
      [&] {
        RunOp(MakeOp("ReduceMinGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{1}}}),
              {{"dy", y}, {"x", MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"y", y}});
      },
      ErrorKind::kShapeMismatch, {"'x'", "float"});
  // dY of an integer dtype.
  ExpectError(
      [&] {
        RunOp(MakeOp("ReduceSumGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{1}}}),
              {{"dy", MakeTensor<int32_t>({2, 1}, {1, 2})}, {"x", x}, {"y", y}});
      },
      ErrorKind::kShapeMismatch, {"'dy'", "float or double"});
}

TEST(SumElementsGradient, Errors) {
  ExpectError(
      [&] {
        RunOp(MakeOp("SumElementsGradient", {"x", "dy"}, {"dx"}),
              {{"x", Distinct({2})}, {"dy", MakeTensor<float>({2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"'dy'", "one element"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SumElementsGradient", {"x", "dy"}, {"dx"}),
              {{"x", Distinct({2})}, {"dy", MakeTensor<int64_t>({}, {1})}});
      },
      ErrorKind::kShapeMismatch, {"'dy'", "float or double"});
}

TEST(SoftmaxGradient, Errors) {
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxGradient", {"y", "dy"}, {"dx"}),
              {{"y", Distinct({2, 2})}, {"dy", Distinct({2, 3})}});
      },
      ErrorKind::kShapeMismatch, {"'dy'", "same dtype and dims"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxGradient", {"y", "dy"}, {"dx"}, {{"axis", 2}}),
              {{"y", Distinct({2, 2})}, {"dy", Distinct({2, 2})}});
      },
      ErrorKind::kBadArgument, {"axis 2"});
  // Only dY may share dX's blob.
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxGradient", {"y", "dy"}, {"y"}),
              {{"y", Distinct({2, 2})}, {"dy", Distinct({2, 2})}});
      },
      ErrorKind::kBadArgument, {"SoftmaxGradient"});
}

TEST(ReduceGradients, SchemasInferShapes) {
  TensorType dy{DataType::kFloat, {3}, true};
  TensorType x{DataType::kFloat, {2, 3}, true};
  auto out = OpSchemaRegistry::Get("ReduceMeanGradient")
                 .InferShapes(MakeOp("ReduceMeanGradient", {"dy", "x", "y"}, {"dx"},
                                     {{"axes", Ints{0}}, {"keepdims", 0}}),
                              {dy, x, dy});
  EXPECT_EQ(out[0].dims, (Ints{2, 3}));
}

}  // namespace
}  // namespace parity::testing
